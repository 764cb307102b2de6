//! The `usicheck` command line.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("usicheck: error: {err}");
            cli::EXIT_USAGE.into()
        }
    }
}
