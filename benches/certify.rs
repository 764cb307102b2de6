//! Certify wall time at several `--jobs`, and whether the rule table stays the same.
//!
//! For each engine (the built-in reference engine, and fairy-stockfish when installed) runs a
//! whole `certify` at each `--jobs` setting, then once more at the last setting with other
//! certify runs of the reference engine beside it (a loaded machine), and prints the wall time
//! of each (with its ratio to the first) and every rule whose worst verdict differs from the
//! first run's: verdicts must not depend on parallelism or load (issue 17).
//! Usage: `cargo bench --bench certify -- [--jobs 1,default,4] [--beside 2] [NAME…]` (NAME:
//! reference, fairy-stockfish; default both; `default` runs without `--jobs`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const FAIRY: &str = "/usr/games/fairy-stockfish";

struct Run {
    label: String,
    wall: Duration,
    /// Rule ID → worst outcome, from report.json.
    table: BTreeMap<String, String>,
}

fn usicheck() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_usicheck"));
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// A certify of the reference engine that keeps the machine busy.
fn load() -> Child {
    let mut command = usicheck();
    command.arg("certify");
    command.spawn().expect("usicheck starts")
}

fn certify(engine: &[&str], jobs: &str, dir: &Path, label: String) -> Run {
    let _ = std::fs::remove_dir_all(dir);
    let mut command = usicheck();
    command.args(["certify", "--report-dir"]).arg(dir);
    if jobs != "default" {
        command.args(["--jobs", jobs]);
    }
    if !engine.is_empty() {
        command.arg("--").args(engine);
    }
    let started = Instant::now();
    command.status().expect("usicheck runs");
    let wall = started.elapsed();
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json");
    let report: serde_json::Value = serde_json::from_str(&text).expect("report.json is JSON");
    let table = report["runs"][0]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| {
            let rule = r["rule"].as_str().unwrap_or_default().to_owned();
            (rule, r["outcome"].as_str().unwrap_or_default().to_owned())
        })
        .collect();
    Run { label, wall, table }
}

fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1).map(String::as_str)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let jobs: Vec<&str> = flag(&args, "--jobs")
        .unwrap_or("1,default")
        .split(',')
        .collect();
    let beside: usize = flag(&args, "--beside").map_or(2, |n| n.parse().expect("--beside N"));
    let values = [flag(&args, "--jobs"), flag(&args, "--beside")];
    let names: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with("--") && !values.contains(&Some(*a)))
        .collect();
    let dir = std::env::temp_dir().join(format!("usicheck-bench-certify-{}", std::process::id()));
    let engines: [(&str, &[&str]); 2] = [("reference", &[]), ("fairy-stockfish", &[FAIRY])];
    for (name, engine) in engines {
        if !names.is_empty() && !names.contains(&name) {
            continue;
        }
        if engine
            .first()
            .is_some_and(|binary| !Path::new(binary).is_file())
        {
            println!("{name}: not installed");
            continue;
        }
        let load_before = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        println!(
            "{name} (load {})",
            load_before.split(' ').next().unwrap_or("?")
        );
        let mut runs: Vec<Run> = jobs
            .iter()
            .map(|j| certify(engine, j, &dir, format!("--jobs {j}")))
            .collect();
        if beside > 0 {
            let last = jobs.last().copied().unwrap_or("1");
            let mut others: Vec<Child> = (0..beside).map(|_| load()).collect();
            let label = format!("--jobs {last}, {beside} certify beside");
            runs.push(certify(engine, last, &dir, label));
            for other in &mut others {
                let _ = other.kill();
                let _ = other.wait();
            }
        }
        let first = &runs[0];
        for run in &runs {
            let differing: Vec<String> = first
                .table
                .keys()
                .chain(run.table.keys())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .filter(|rule| first.table.get(*rule) != run.table.get(*rule))
                .map(|rule| {
                    let of = |t: &BTreeMap<String, String>| {
                        t.get(rule).cloned().unwrap_or_else(|| "-".into())
                    };
                    format!("{rule} {}→{}", of(&first.table), of(&run.table))
                })
                .collect();
            println!(
                "  {:<32} {:>7.1} s  ×{:.2}  {}",
                run.label,
                run.wall.as_secs_f64(),
                run.wall.as_secs_f64() / first.wall.as_secs_f64(),
                if differing.is_empty() {
                    "same rule table".to_owned()
                } else {
                    format!("differs: {}", differing.join(", "))
                }
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
