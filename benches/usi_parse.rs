//! Throughput of the USI message parser on a search-output flood, side by side with the least
//! any line reader does (splitting into tokens). Run: `cargo bench --bench usi_parse`.

use std::hint::black_box;
use std::time::{Duration, Instant};
use usicheck::usi::{Command, Diagnostic, Message};

fn corpus() -> Vec<String> {
    let mut lines = Vec::new();
    for depth in 1..=40u32 {
        lines.push(format!(
            "info depth {depth} seldepth {} score cp {} nodes {} nps 1523000 hashfull {} time {} multipv 1 pv 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d",
            depth + 4,
            depth as i64 * 7 - 100,
            depth as u64 * 123_457,
            depth * 20,
            depth * 31,
        ));
        lines.push(format!(
            "info depth {depth} currmove 7g7f currmovenumber {depth}"
        ));
        lines.push("info string book hit: 7g7f (weight 120)".to_string());
    }
    lines.push("bestmove 7g7f ponder 3c3d".to_string());
    lines.push("checkmate 2c2b+ 1a2b G*3b".to_string());
    lines.push("option name USI_Hash type spin default 256 min 1 max 33554432".to_string());
    lines
}

/// Runs `f` over the corpus repeatedly for about `budget`; returns lines per second.
fn measure(lines: &[String], budget: Duration, mut f: impl FnMut(&str)) -> f64 {
    let start = Instant::now();
    let mut count = 0u64;
    while start.elapsed() < budget {
        for line in lines {
            f(line);
        }
        count += lines.len() as u64;
    }
    count as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let lines = corpus();
    let budget = Duration::from_millis(700);
    let split = measure(&lines, budget, |l| {
        black_box(l.split_ascii_whitespace().count());
    });
    let mut diags: Vec<Diagnostic> = Vec::new();
    let messages = measure(&lines, budget, |l| {
        diags.clear();
        black_box(Message::parse_into(black_box(l), &mut diags));
    });
    let commands = measure(&lines, budget, |l| {
        black_box(Command::parse(black_box(l)));
    });
    println!(
        "{:<36} {:>14}  {:>6}",
        "usi parse (lines/s)", "rate", "ratio"
    );
    println!(
        "{:<36} {:>14.0}  {:>6.2}",
        "baseline: split_ascii_whitespace", split, 1.0
    );
    println!(
        "{:<36} {:>14.0}  {:>6.2}",
        "Message::parse_into",
        messages,
        messages / split
    );
    println!(
        "{:<36} {:>14.0}  {:>6.2}",
        "Command::parse (same lines, Raw)",
        commands,
        commands / split
    );
}
