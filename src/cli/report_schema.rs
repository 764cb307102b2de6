//! `usicheck report-schema COMMAND`: print the JSON Schema of a command's report.json.

use crate::cli::EXIT_PASS;
use std::process::ExitCode;
use usicheck::report::ReportKind;

#[derive(clap::Args, Debug)]
pub struct ReportSchemaArgs {
    /// The command whose report.json to describe.
    pub command: ReportKind,
}

/// Prints the schema as generated from the report types (what docs/ holds).
pub fn run(args: ReportSchemaArgs) -> Result<ExitCode, String> {
    super::stdout::write_stdout(&args.command.schema_json());
    Ok(EXIT_PASS.into())
}
