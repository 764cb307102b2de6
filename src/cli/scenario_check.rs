//! `usicheck scenario-check FILE…`: load and validate scenario files without running them.

use crate::cli::{EXIT_PASS, EXIT_USAGE};
use std::path::PathBuf;
use std::process::ExitCode;

/// Validates each file, printing one `file:line:col: message` line per invalid one.
pub fn run(files: &[PathBuf]) -> Result<ExitCode, String> {
    let mut failed = false;
    for file in files {
        match usicheck::scenario::load_file(file) {
            Ok(scenario) => outln!("{}: ok ({})", file.display(), scenario.name.escape_debug()),
            Err(err) => {
                eprintln!("{err}");
                failed = true;
            }
        }
    }
    Ok(if failed { EXIT_USAGE } else { EXIT_PASS }.into())
}
