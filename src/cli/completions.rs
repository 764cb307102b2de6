//! `usicheck completions SHELL`: the shell's completion script, generated from the clap
//! definitions so it never lags behind the flags.

use super::{Cli, EXIT_PASS};
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use std::process::ExitCode;

/// Print a shell completion script on stdout.
///
/// The script is in the shell's own language, so no `--format`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: CompletionsArgs) -> Result<ExitCode, String> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "usicheck", &mut script);
    let script = String::from_utf8(script).map_err(|e| e.to_string())?;
    super::stdout::write_stdout(&script);
    Ok(EXIT_PASS.into())
}
