//! `usicheck list [PATTERN…]`: the bundled scenarios, the rules each checks and what it needs.

use super::select::{self, SelectArgs};
use clap::Args;
use std::fmt::Write as _;
use std::process::ExitCode;

/// List the bundled scenarios (all, or those a pattern, `--rule` or `--skip` selects).
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Bundled scenarios by name, section (`01-handshake`) or glob (`06-ponder/*`).
    #[arg(value_name = "PATTERN")]
    pub patterns: Vec<String>,
    #[command(flatten)]
    pub select: SelectArgs,
}

pub fn run(args: ListArgs) -> Result<ExitCode, String> {
    let planned = args.select.filter(select::named(&args.patterns)?)?;
    let mut out = String::new();
    for p in &planned {
        let scenario = &p.scenario;
        let _ = writeln!(out, "{}  {}", p.name, scenario.name);
        let rules: Vec<&str> = scenario.rules.iter().map(|r| r.as_str()).collect();
        let _ = writeln!(out, "    rules: {}", rules.join(", "));
        let requires = &scenario.requires;
        let mut needs: Vec<String> = Vec::new();
        if requires.ponder {
            needs.push("USI_Ponder".to_owned());
        }
        if requires.mate {
            needs.push("a `go mate` solver".to_owned());
        }
        needs.extend(requires.options.iter().map(|o| format!("option {o}")));
        needs.extend(
            requires
                .extensions
                .iter()
                .map(|e| format!("claim {}", e.0.as_str())),
        );
        if !scenario.profiles.is_empty() {
            let profiles: Vec<String> = scenario.profiles.iter().map(|p| p.to_string()).collect();
            needs.push(format!("profiles {}", profiles.join(", ")));
        }
        if !needs.is_empty() {
            let _ = writeln!(out, "    needs: {}", needs.join("; "));
        }
    }
    let _ = writeln!(
        out,
        "{} of {} bundled scenarios",
        planned.len(),
        usicheck::scenario::BUNDLED.len()
    );
    super::stdout::write_stdout(&out);
    Ok(ExitCode::from(super::EXIT_PASS))
}
