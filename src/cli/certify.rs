//! `usicheck certify`: run every bundled scenario that applies to the profile and the engine's
//! claims; the reporter prints the per-rule verdict table and the certificate.

use super::suite::{self, Planned, SuiteArgs};
use clap::Args;
use std::process::ExitCode;
use usicheck::scenario::{BUNDLED, load_str};

/// Certify an engine: every applicable bundled scenario, a per-rule verdict table and a summary.
#[derive(Args, Debug)]
pub struct CertifyArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
}

pub fn run(args: CertifyArgs) -> Result<ExitCode, String> {
    let settings = args.suite.settings()?;
    let mut planned = Vec::new();
    for (name, yaml) in BUNDLED {
        let file = format!("scenarios/{name}.yaml");
        let scenario = load_str(&file, yaml).map_err(|e| e.to_string())?;
        if settings.not_applicable(&scenario).is_none() {
            planned.push(Planned {
                name: (*name).to_owned(),
                file,
                scenario,
            });
        }
    }
    suite::run_and_report(&planned, &args.suite, &settings).map(ExitCode::from)
}
