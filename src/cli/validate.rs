//! `usicheck validate`: whether positions could arise in a real game.

use super::{EXIT_FAIL, EXIT_PASS, read_position};
use clap::Args;
use std::io::{BufRead, Write};
use std::process::ExitCode;
use usicheck::shogi::{Strictness, validate};

/// Check that a position is legal; print one reason per line when it is not.
///
/// The exit code is the result (0 legal, 1 not); the reasons are for a reader, and `--stdin`
/// prints one tab-separated line per position, so no `--format`.
#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// Position: `startpos` or SFEN fields (optionally prefixed with `sfen`).
    #[arg(long, required_unless_present = "stdin", conflicts_with = "stdin")]
    sfen: Option<String>,
    /// Read one SFEN per line, print `sfen<TAB>legal` or `sfen<TAB>illegal: reasons`.
    #[arg(long)]
    stdin: bool,
    /// Tsume mode: the side to move (the attacker) may have no king.
    #[arg(long)]
    lenient: bool,
}

pub fn run(args: ValidateArgs) -> Result<ExitCode, String> {
    let strictness = if args.lenient {
        Strictness::Lenient
    } else {
        Strictness::Strict
    };
    let mut out = std::io::stdout().lock();
    let mut all_legal = true;
    if let Some(sfen) = &args.sfen {
        let pos = read_position(sfen, "--sfen")?;
        match validate(&pos, strictness) {
            Ok(()) => writeln!(out, "legal"),
            Err(reasons) => {
                all_legal = false;
                reasons.iter().try_for_each(|r| writeln!(out, "{r}"))
            }
        }
        .map_err(|e| e.to_string())?;
    } else {
        for (i, line) in std::io::stdin().lock().lines().enumerate() {
            let line = line.map_err(|e| format!("stdin line {}: {e}", i + 1))?;
            if line.trim().is_empty() {
                continue;
            }
            let pos = read_position(&line, &format!("stdin line {}", i + 1))?;
            let verdict = match validate(&pos, strictness) {
                Ok(()) => "legal".to_string(),
                Err(reasons) => {
                    all_legal = false;
                    let text: Vec<String> = reasons.iter().map(|r| r.to_string()).collect();
                    format!("illegal: {}", text.join("; "))
                }
            };
            writeln!(out, "{line}\t{verdict}").map_err(|e| e.to_string())?;
        }
    }
    Ok(ExitCode::from(if all_legal {
        EXIT_PASS
    } else {
        EXIT_FAIL
    }))
}
