//! `usicheck man [--dir DIR]`: roff man pages generated from the clap definitions.

use super::{Cli, EXIT_PASS};
use clap::{Args, CommandFactory};
use std::path::PathBuf;
use std::process::ExitCode;

/// Print the usicheck(1) man page, or write one page per subcommand.
///
/// The pages are roff, what `man` reads, so no `--format`.
#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write usicheck.1 and a usicheck-SUBCOMMAND.1 page for each subcommand into DIR
    /// (created if missing) instead of printing usicheck.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn run(args: ManArgs) -> Result<ExitCode, String> {
    // As clap_mangen::generate_to does for the directory: no page may list a usicheck-help(1)
    // that is never written.
    let command = Cli::command().disable_help_subcommand(true);
    match args.dir {
        Some(dir) => {
            let place = |e: std::io::Error| format!("{}: {e}", dir.display());
            std::fs::create_dir_all(&dir).map_err(place)?;
            clap_mangen::generate_to(command, &dir).map_err(place)?;
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut page)
                .map_err(|e| e.to_string())?;
            let page = String::from_utf8(page).map_err(|e| e.to_string())?;
            super::stdout::write_stdout(&page);
        }
    }
    Ok(EXIT_PASS.into())
}
