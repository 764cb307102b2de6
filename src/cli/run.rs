//! `usicheck run SCENARIO… -- ENGINE ARGS…`: run chosen scenarios against an engine.

use super::select::{self, SelectArgs};
use super::suite::{self, SuiteArgs};
use clap::Args;
use std::process::ExitCode;

/// Run scenario files, or bundled scenarios by name (`03-ready/isready-twice`), section
/// (`01-handshake`), glob (`06-ponder/*`) or rule (`--rule USI-READY-006`).
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Scenario YAML files, or bundled scenarios by name, section or glob (`usicheck list`
    /// shows them).
    #[arg(value_name = "SCENARIO", required_unless_present = "rules")]
    pub scenarios: Vec<String>,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub suite: SuiteArgs,
}

pub fn run(args: RunArgs) -> Result<ExitCode, String> {
    let planned = args.select.filter(select::named(&args.scenarios)?)?;
    if planned.is_empty() {
        return Err(
            "no scenario left to run: the selection (--rule, --skip) excludes them all".into(),
        );
    }
    let settings = args.suite.settings()?;
    suite::run_and_report(&planned, true, &args.suite, &settings).map(ExitCode::from)
}
