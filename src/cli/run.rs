//! `usicheck run SCENARIO… -- ENGINE ARGS…`: run chosen scenarios against an engine.

use super::suite::{self, Planned, SuiteArgs};
use clap::Args;
use std::path::Path;
use std::process::ExitCode;
use usicheck::scenario::{BUNDLED, load_file, load_str};

/// Run scenario files (or bundled scenario names such as `03-ready/isready-during-go-infinite`).
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Scenario YAML files, or names of bundled scenarios.
    #[arg(required = true, value_name = "SCENARIO")]
    pub scenarios: Vec<String>,
    #[command(flatten)]
    pub suite: SuiteArgs,
}

/// Loads a scenario from a file, or from the bundled set when no such file exists.
fn plan(name: &str) -> Result<Planned, String> {
    let path = Path::new(name);
    if path.exists() {
        let scenario = load_file(path).map_err(|e| e.to_string())?;
        return Ok(Planned {
            name: name.to_owned(),
            file: name.to_owned(),
            scenario,
        });
    }
    let bundled = name.trim_end_matches(".yaml");
    let bundled = bundled.strip_prefix("scenarios/").unwrap_or(bundled);
    match BUNDLED.iter().find(|(n, _)| *n == bundled) {
        Some((n, yaml)) => Ok(Planned {
            name: (*n).to_owned(),
            file: format!("scenarios/{n}.yaml"),
            scenario: load_str(&format!("scenarios/{n}.yaml"), yaml).map_err(|e| e.to_string())?,
        }),
        None => Err(format!(
            "{name}: no such file, and no bundled scenario of that name (see `usicheck certify`)"
        )),
    }
}

pub fn run(args: RunArgs) -> Result<ExitCode, String> {
    let planned = args
        .scenarios
        .iter()
        .map(|name| plan(name))
        .collect::<Result<Vec<_>, _>>()?;
    let settings = args.suite.settings()?;
    suite::run_and_report(&planned, &args.suite, &settings).map(ExitCode::from)
}
