//! The report options shared by `run`, `certify` and `selftest` (flatten [`ReportArgs`] into
//! their arguments).

use super::color::ColorFlag;
use super::format_flag;
use clap::Args;
use std::path::PathBuf;
use usicheck::report::{FailOn, Format, Outputs};

/// Where reports go and what fails the run.
#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Also write report.html, report.json, junit.xml, summary.md, counts.txt, annotations.txt
    /// (a GitHub workflow command per failing rule) and transcripts/ into DIR (created if
    /// missing).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,

    /// What to print on stdout: the human report, or report.json, junit.xml or summary.md.
    #[arg(long, value_parser = format_flag::supported(format_flag::ALL), default_value = "human")]
    pub format: Format,

    /// What makes the exit code 1: `must` any FAIL; `should` also a WARN on a MUST or SHOULD
    /// strength part; `any` any FAIL or WARN (DE-FACTO included). SKIP and INFO never fail.
    #[arg(long, value_enum, default_value_t = FailOn::Must, value_name = "LEVEL")]
    pub fail_on: FailOn,

    #[command(flatten)]
    pub color: ColorFlag,
}

impl ReportArgs {
    /// The reporters for these options, coloured as `--color` says; `Err` (exit code 2) when
    /// the report directory cannot be created.
    pub fn outputs(&self) -> Result<Outputs, String> {
        self.color.apply();
        Outputs::new(self.format, self.fail_on, self.report_dir.clone()).map_err(|e| e.to_string())
    }
}
