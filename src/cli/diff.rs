//! `usicheck diff OLD NEW`: what changed between two runs.

use super::color::ColorFlag;
use super::format_flag;
use super::{EXIT_FAIL, EXIT_PASS};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use usicheck::report::diff::{Report, compare, render_human, render_json, render_markdown};
use usicheck::report::{FailOn, Format};

/// Compare two report.json files of one command (certify, fuzz or play): the rules newly
/// failing, fixed or changed, with evidence and replay commands; for play the results; for
/// certify the scenarios whose time changed beyond noise. Exit 1 when NEW is worse under
/// --fail-on (a rule fails the gate that did not, or more games lost by the engine's fault).
#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The earlier report.json (the last release's, the main branch's).
    old: PathBuf,
    /// The later report.json (the candidate's).
    new: PathBuf,
    /// What makes NEW worse: a rule failing this gate that did not fail it in OLD.
    #[arg(long, value_enum, default_value_t = FailOn::Must)]
    fail_on: FailOn,
    /// human (default), markdown (a CI job summary) or json (schema usicheck-diff/1); a
    /// comparison is no test suite, so no junit.
    #[arg(long, value_parser = format_flag::supported(format_flag::NO_JUNIT), default_value = "human")]
    format: Format,
    #[command(flatten)]
    color: ColorFlag,
}

fn read(path: &PathBuf) -> Result<Report, String> {
    let place = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("{place}: cannot read it: {e}"))?;
    Report::parse(&place, &text)
}

pub fn run(args: DiffArgs) -> Result<ExitCode, String> {
    args.color.apply();
    let (old, new) = (read(&args.old)?, read(&args.new)?);
    let files = [
        args.old.display().to_string(),
        args.new.display().to_string(),
    ];
    let diff = compare([&files[0], &files[1]], &old, &new, args.fail_on)?;
    match args.format {
        Format::Human => super::stdout::write_styled(&render_human(&diff)),
        Format::Json => super::stdout::write_stdout(&render_json(&diff)),
        Format::Markdown => super::stdout::write_stdout(&render_markdown(&diff)),
        Format::Junit => unreachable!("--format junit is refused by its parser"),
    }
    Ok(ExitCode::from(match diff.worse {
        true => EXIT_FAIL,
        false => EXIT_PASS,
    }))
}
