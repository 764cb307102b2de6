//! `usicheck certify`: run every bundled scenario that applies to the profile and the engine's
//! claims (or the part `--rule`/`--skip` select); the reporter prints the per-rule verdict
//! table and the certificate.

use super::select::{self, SelectArgs};
use super::suite::{self, SuiteArgs};
use clap::Args;
use std::process::ExitCode;

/// Certify an engine: every applicable bundled scenario, a per-rule verdict table and a summary.
#[derive(Args, Debug)]
pub struct CertifyArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub suite: SuiteArgs,
}

pub fn run(args: CertifyArgs) -> Result<ExitCode, String> {
    let settings = args.suite.settings()?;
    let applicable: Vec<_> = select::bundled()?
        .into_iter()
        .filter(|p| settings.not_applicable(&p.scenario).is_none())
        .collect();
    let planned = args.select.filter(applicable)?;
    if planned.is_empty() {
        return Err(
            "no scenario left to run: the selection (--rule, --skip) excludes them all".into(),
        );
    }
    let selection = !args.select.rules.is_empty() || !args.select.skip.is_empty();
    suite::run_and_report(&planned, selection, &args.suite, &settings).map(ExitCode::from)
}
