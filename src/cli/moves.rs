//! `usicheck moves`: the sorted legal moves of positions.

use super::{EXIT_PASS, read_position};
use clap::Args;
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// Print the legal moves of a position, sorted, on one line.
///
/// The line of USI moves is for scripts as it is, so no `--format`.
#[derive(Args, Debug)]
pub struct MovesArgs {
    /// Position: `startpos` or SFEN fields (optionally prefixed with `sfen`).
    #[arg(long, required_unless_present = "stdin", conflicts_with = "stdin")]
    sfen: Option<String>,
    /// Read one SFEN per line, print `sfen<TAB>moves`.
    #[arg(long)]
    stdin: bool,
}

pub fn run(args: MovesArgs) -> Result<ExitCode, String> {
    let mut out = std::io::stdout().lock();
    if let Some(sfen) = &args.sfen {
        let pos = read_position(sfen, "--sfen")?;
        writeln!(out, "{}", pos.legal_moves().sorted_usi().join(" ")).map_err(|e| e.to_string())?;
        return Ok(ExitCode::from(EXIT_PASS));
    }
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.map_err(|e| format!("stdin line {}: {e}", i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let pos = read_position(&line, &format!("stdin line {}", i + 1))?;
        writeln!(out, "{line}\t{}", pos.legal_moves().sorted_usi().join(" "))
            .map_err(|e| e.to_string())?;
    }
    Ok(ExitCode::from(EXIT_PASS))
}
