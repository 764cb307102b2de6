//! How an engine becomes fuzzable in-process (fuzz/README.md, "Fuzzing your engine's code
//! in-process"): its USI loop is a function of a reader and a writer, `main` runs it on
//! stdin/stdout, and a fuzz target hands it to `usicheck::harness`.
//!
//! This toy engine plays the first legal move and has one bug: it answers `go infinite` (and
//! `go ponder`) at once instead of waiting for `stop`. Run it as an engine, or let the harness
//! find the bug:
//!
//! ```sh
//! cargo run --release --example in_process_engine            # a USI engine on stdin/stdout
//! cargo run --release --example in_process_engine -- --find  # the harness on 200 inputs
//! ```

use std::io::{BufRead, Write};
use usicheck::shogi::{Position, position_after};

/// The whole engine: generic over where its lines come from and go to.
fn usi_loop(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let mut position = Some(Position::startpos());
    for line in input.split(b'\n') {
        let line = String::from_utf8_lossy(&line?).into_owned();
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["usi"] => writeln!(
                output,
                "id name in-process-example\nid author usicheck\nusiok"
            )?,
            ["isready"] => writeln!(output, "readyok")?,
            ["position", base @ ..] => {
                let text = base.join(" ");
                let (base, moves) = text.split_once(" moves").unwrap_or((&text, ""));
                let moves: Vec<&str> = moves.split_whitespace().collect();
                position = position_after(base, &moves).ok();
            }
            // The bug: `go infinite` and `go ponder` must wait for `stop` or `ponderhit`.
            ["go", ..] => {
                let first = position
                    .as_ref()
                    .and_then(|p| p.legal_moves().as_slice().first().copied());
                match first {
                    Some(m) => writeln!(output, "bestmove {m}")?,
                    None => writeln!(output, "bestmove resign")?,
                }
            }
            ["quit"] => break,
            _ => {}
        }
        output.flush()?;
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    if !std::env::args().any(|arg| arg == "--find") {
        return usi_loop(std::io::stdin().lock(), std::io::stdout().lock());
    }
    // What a fuzz target does with libFuzzer's inputs, here sessions of 8 episodes seeded from a
    // fixed pseudo-random stream.
    let mut state = 1_u64;
    let harness = usicheck::harness::Harness::default();
    for _ in 0..200 {
        let seeds = std::iter::repeat_with(|| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            (state >> 32) as u32
        });
        let session = usicheck::harness::Session::from_seeds(seeds.take(8));
        if let Err(finding) = harness.check(&session, usi_loop) {
            println!("{finding}");
            return Ok(());
        }
    }
    println!("no finding in 200 sessions");
    Ok(())
}
