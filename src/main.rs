//! The `usicheck` command line.

mod cli;

use clap::error::ErrorKind;
use clap::{ArgMatches, CommandFactory, FromArgMatches};
use std::process::ExitCode;

fn main() -> ExitCode {
    let (args, matches) = match parse() {
        Ok(parsed) => parsed,
        Err(err) if is_help(err.kind()) => err.exit(),
        Err(err) => {
            eprintln!("usicheck: error: {}", one_line(&err));
            return cli::EXIT_USAGE.into();
        }
    };
    match cli::run(args, &matches) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("usicheck: error: {err}");
            cli::EXIT_USAGE.into()
        }
    }
}

/// The command line, and the matches that tell which flags it gave (a config file fills the
/// others).
fn parse() -> Result<(cli::Cli, ArgMatches), clap::Error> {
    let matches = cli::Cli::command().try_get_matches()?;
    let args =
        cli::Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cli::Cli::command()))?;
    Ok((args, matches))
}

/// Help and version requests are not errors: clap prints them in full.
fn is_help(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    )
}

/// Clap's message as one line: its first paragraph (the error, with any list of missing
/// arguments or possible values) and its `tip:` (a similar subcommand or flag), without the
/// usage block, which `--help` shows.
fn one_line(err: &clap::Error) -> String {
    let rendered = err.render().to_string();
    let mut paragraph: Vec<&str> = rendered
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    paragraph.extend(
        rendered
            .lines()
            .map(str::trim)
            .filter(|line| line.starts_with("tip:")),
    );
    let message = paragraph.join(" ");
    let message = message.strip_prefix("error: ").unwrap_or(&message);
    format!("{message} (see --help)")
}
