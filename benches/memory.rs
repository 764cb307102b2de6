//! Peak memory and wall time of a whole `certify`, per engine, side by side in one run.
//!
//! Certifies the built-in reference engine, each Debian engine that is installed
//! (fairy-stockfish, gpsusi with `BookDepth=0`, `sjaakii -usi`) and the fake engine with a
//! 100 MB `id name` (built by `cargo build --release --examples`) with `--report-dir`, and prints
//! usicheck's own peak resident memory (VmHWM, sampled every 5 ms; the engine is not counted),
//! the wall time and the size of report.json, so that a regression in what a run keeps shows.
//! Usage: `cargo bench --bench memory [-- [--jobs N] [NAME…]]` (NAME: reference,
//! fairy-stockfish, gpsusi, sjaakii, huge-id-name; default all).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Target {
    name: &'static str,
    /// `certify` arguments after the common ones (`--` and the engine, or nothing).
    args: &'static [&'static str],
    binary: Option<&'static str>,
    /// Rules for the fake engine (examples/fake_engine.rs), which is then the engine.
    fake_rules: &'static [&'static str],
}

const TARGETS: &[Target] = &[
    Target {
        name: "reference",
        args: &[],
        binary: None,
        fake_rules: &[],
    },
    Target {
        name: "fairy-stockfish",
        args: &["--", "/usr/games/fairy-stockfish"],
        binary: Some("/usr/games/fairy-stockfish"),
        fake_rules: &[],
    },
    Target {
        name: "gpsusi",
        args: &["--option", "BookDepth=0", "--", "/usr/games/gpsusi"],
        binary: Some("/usr/games/gpsusi"),
        fake_rules: &[],
    },
    Target {
        name: "sjaakii",
        args: &["--", "/usr/games/sjaakii", "-usi"],
        binary: Some("/usr/games/sjaakii"),
        fake_rules: &[],
    },
    // What every scenario keeps of the engine's text: a 100 MB `id name` must not be copied.
    Target {
        name: "huge-id-name",
        args: &[],
        binary: None,
        fake_rules: &[
            "usi => raw id name Big; flood stdout 104857600 0; say; say id author Zoo; say usiok",
            "isready => say readyok",
            "go infinite =>",
            "go => say bestmove 7g7f",
            "stop => say bestmove 7g7f",
        ],
    },
];

/// The fake engine next to this bench's binary: target/<profile>/examples/fake_engine.
fn fake_engine_path() -> PathBuf {
    let exe = std::env::current_exe().expect("bench binary path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps");
    profile_dir.join("examples").join("fake_engine")
}

struct Measured {
    code: Option<i32>,
    wall: Duration,
    peak_bytes: u64,
    report_bytes: u64,
}

/// usicheck's own peak resident memory so far, from /proc.
fn high_water_mark(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

fn certify(target: &Target, jobs: Option<&str>, dir: &Path) -> Measured {
    let _ = std::fs::remove_dir_all(dir);
    let mut command = Command::new(env!("CARGO_BIN_EXE_usicheck"));
    command.arg("certify").arg("--report-dir").arg(dir);
    if let Some(jobs) = jobs {
        command.args(["--jobs", jobs]);
    }
    let started = Instant::now();
    if !target.fake_rules.is_empty() {
        command
            .arg("--")
            .arg(fake_engine_path())
            .args(target.fake_rules);
    }
    let mut child = command
        .args(target.args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("usicheck starts");
    let mut peak = 0;
    let status = loop {
        peak = high_water_mark(child.id()).unwrap_or(0).max(peak);
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Measured {
        code: status.code(),
        wall: started.elapsed(),
        peak_bytes: peak,
        report_bytes: std::fs::metadata(dir.join("report.json")).map_or(0, |m| m.len()),
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let jobs = args
        .iter()
        .position(|a| a == "--jobs")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let names: Vec<&String> = args
        .iter()
        .filter(|a| !a.starts_with("--") && Some(*a) != jobs.as_ref())
        .collect();
    let dir = std::env::temp_dir().join(format!("usicheck-bench-memory-{}", std::process::id()));
    println!(
        "certify --jobs {} (load {})",
        jobs.as_deref().unwrap_or("default"),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split(' ')
            .next()
            .unwrap_or("?")
    );
    println!(
        "{:<16} {:>6} {:>9} {:>10} {:>12}",
        "engine", "exit", "wall s", "peak MiB", "report KB"
    );
    for target in TARGETS {
        if !names.is_empty() && !names.iter().any(|n| *n == target.name) {
            continue;
        }
        if let Some(binary) = target.binary
            && !Path::new(binary).is_file()
        {
            println!("{:<16} not installed ({binary})", target.name);
            continue;
        }
        if !target.fake_rules.is_empty() && !fake_engine_path().is_file() {
            println!(
                "{:<16} not built ({}): cargo build --release --examples",
                target.name,
                fake_engine_path().display()
            );
            continue;
        }
        let m = certify(target, jobs.as_deref(), &dir);
        println!(
            "{:<16} {:>6} {:>9.1} {:>10.1} {:>12}",
            target.name,
            m.code.map_or("signal".to_owned(), |c| c.to_string()),
            m.wall.as_secs_f64(),
            m.peak_bytes as f64 / f64::from(1 << 20),
            m.report_bytes / 1000
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
