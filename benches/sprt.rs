//! What a strength gate costs: `usicheck play` matches of the reference engine at real clocks,
//! each printed with its games, wall time and SPRT decision (issue 51).
//!
//! 1. full strength (`--nodes-per-ms 0`, `--tc 1s+20ms`) against itself at `depth=1`,
//!    `--sprt elo0=0,elo1=50`: H1 is expected well within 400 games;
//! 2. the same against an identical opponent: H1 is not expected in 400 games (pairs differ,
//!    unlike at a fixed depth, since each search stops on the clock);
//! 3. a sample of games at `1s+100ms`, reference against reference, two at once, extrapolated
//!    to the cost of a 1,000-game match on this machine.
//!
//! All three use 8 random opening plies (seed 1). Usage: `cargo bench --bench sprt --
//! [--sample N] [h1] [identical] [cost]` (default: all, a sample of 20 games).

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

fn usicheck() -> &'static str {
    env!("CARGO_BIN_EXE_usicheck")
}

/// Plays one match; prints and returns its games played and wall seconds.
fn play(label: &str, tc: &str, games: usize, args: &[&str], engine: &[&str]) -> (usize, f64) {
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "usicheck-bench-sprt-{}-{label}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let started = Instant::now();
    let status = Command::new(usicheck())
        .args([
            "play",
            "--tc",
            tc,
            "--games",
            &games.to_string(),
            "--jobs",
            "2",
        ])
        .args(["--random-plies", "8", "--seed", "1", "--report-dir"])
        .arg(&dir)
        .args(args)
        .arg("--")
        .args(engine)
        .stdout(Stdio::null())
        .status()
        .expect("usicheck runs");
    let wall = started.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json");
    let report: serde_json::Value = serde_json::from_str(&text).expect("report.json is JSON");
    let played = report["games"].as_array().map_or(0, Vec::len);
    let results = &report["results"];
    let sprt = match report["sprt"]["decision"].as_str() {
        Some(decision) => format!(
            " · SPRT {decision} at LLR {:.2} after {} games",
            report["sprt"]["llr"].as_f64().unwrap_or(f64::NAN),
            report["sprt"]["games"]
        ),
        None => String::new(),
    };
    println!(
        "{label:<10} {played:>4} games  {wall:>7.1} s  exit {}  +{} ={} -{}{sprt}",
        status.code().unwrap_or(-1),
        results["win"],
        results["draw"],
        results["loss"]
    );
    let _ = std::fs::remove_dir_all(&dir);
    (played, wall)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let sample: usize = args
        .iter()
        .position(|a| a == "--sample")
        .and_then(|at| args.get(at + 1))
        .map_or(20, |n| n.parse().expect("--sample N"));
    let chosen: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| ["h1", "identical", "cost"].contains(a))
        .collect();
    let wanted = |name: &str| chosen.is_empty() || chosen.contains(&name);
    let full_strength = [usicheck(), "engine", "--nodes-per-ms", "0"];
    println!("match      games     wall  result");
    if wanted("h1") {
        play(
            "h1",
            "1s+20ms",
            400,
            &["--opponent-tc", "depth=1", "--sprt", "elo0=0,elo1=50"],
            &full_strength,
        );
    }
    if wanted("identical") {
        play(
            "identical",
            "1s+20ms",
            400,
            &[
                "--opponent",
                usicheck(),
                "--opponent-arg",
                "engine",
                "--opponent-arg",
                "--nodes-per-ms",
                "--opponent-arg",
                "0",
                "--sprt",
                "elo0=0,elo1=50",
            ],
            &full_strength,
        );
    }
    if wanted("cost") {
        let (played, wall) = play("cost", "1s+100ms", sample, &[], &[usicheck(), "engine"]);
        let per_game = wall / played.max(1) as f64;
        println!(
            "1,000 games at 1s+100ms, two at once: {:.0} s ({:.1} h) at {per_game:.2} s a game",
            per_game * 1000.0,
            per_game * 1000.0 / 3600.0
        );
    }
}
