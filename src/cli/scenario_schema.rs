//! `usicheck scenario-schema`: print the JSON Schema of the scenario format.

use crate::cli::EXIT_PASS;
use std::process::ExitCode;

/// Prints `scenarios/schema.json` as generated from the scenario types.
pub fn run() -> Result<ExitCode, String> {
    super::stdout::write_stdout(&usicheck::scenario::schema_json());
    Ok(EXIT_PASS.into())
}
