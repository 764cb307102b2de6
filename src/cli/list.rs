//! `usicheck list [PATTERN…]`: the bundled scenarios, the rules each checks and what it needs.

use super::color::ColorFlag;
use super::format_flag;
use super::select::{self, SelectArgs};
use super::suite::Planned;
use clap::Args;
use serde::Serialize;
use std::fmt::Write as _;
use std::process::ExitCode;
use usicheck::report::Format;
use usicheck::report::style::{BOLD, paint};
use usicheck::rules::{Profile, RuleId};
use usicheck::scenario::Requirements;

/// List the bundled scenarios (all, or those a pattern, `--rule` or `--skip` selects).
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Bundled scenarios by name, section (`01-handshake`) or glob (`06-ponder/*`).
    #[arg(value_name = "PATTERN")]
    pub patterns: Vec<String>,
    #[command(flatten)]
    pub select: SelectArgs,
    /// human: a few lines per scenario; json: an array with each scenario's `name` (what
    /// `usicheck run` takes), `title`, `rules`, `requires` (options, extensions, ponder, mate)
    /// and `profiles` (empty: every profile).
    #[arg(long, value_parser = format_flag::supported(format_flag::HUMAN_OR_JSON), default_value = "human")]
    pub format: Format,
    #[command(flatten)]
    pub color: ColorFlag,
}

/// One scenario as `--format json` lists it.
#[derive(Serialize)]
struct Entry<'a> {
    name: &'a str,
    title: &'a str,
    rules: &'a [RuleId],
    requires: &'a Requirements,
    profiles: &'a [Profile],
}

pub fn run(args: ListArgs) -> Result<ExitCode, String> {
    args.color.apply();
    let planned = args.select.filter(select::named(&args.patterns)?)?;
    match args.format {
        Format::Json => {
            let entries: Vec<Entry> = planned
                .iter()
                .map(|p| Entry {
                    name: &p.name,
                    title: &p.scenario.name,
                    rules: &p.scenario.rules,
                    requires: &p.scenario.requires,
                    profiles: &p.scenario.profiles,
                })
                .collect();
            let json = serde_json::to_string_pretty(&entries).map_err(|e| e.to_string())?;
            super::stdout::write_stdout(&(json + "\n"));
        }
        Format::Human => super::stdout::write_styled(&human(&planned)),
        Format::Junit | Format::Markdown => {
            unreachable!("--format {:?} is refused by its parser", args.format)
        }
    }
    Ok(ExitCode::from(super::EXIT_PASS))
}

/// Each scenario's name and title, rules and needs, then how many of the bundled ones.
fn human(planned: &[Planned]) -> String {
    let mut out = String::new();
    for p in planned {
        let scenario = &p.scenario;
        let _ = writeln!(out, "{}  {}", paint(BOLD, &p.name), scenario.name);
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
    out
}
