//! Certify wall time against what the scenarios require, for the reference engine and for a
//! scripted slow starter beside it (issue 52): how much of a run is the scenarios' own waits,
//! and how much is usicheck's scheduling and the engine's start-ups.
//!
//! The slow starter is this binary re-run with `USICHECK_BENCH_SLOW_STARTER=1`: it computes
//! 2 s of CPU time on one thread (a start-up that loads tables), then runs the reference
//! engine, which searches with `--option Threads=4`. For each engine the bench prints the wall time, the
//! scenarios' required waits (`Scenario::required_wait`: sleeps, silences, search limits),
//! their sum (issue 52 measures the wall time against it) and the best schedule of them over
//! the run's sessions (the longest one, or their sum shared by the sessions in flight), the
//! start-ups' floor (2 s of CPU per engine process started, shared by the cores: one per
//! scenario but those run in a warm process, counted from the transcripts' opening note), the CPU time the run took (usicheck's and the
//! engines', measured) shared by the cores, and the ratios of the wall time to each.
//! Usage: `cargo bench --bench slow_starter [-- --jobs N]`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use usicheck::rules::Profile;
use usicheck::scenario::{BUNDLED, load_str};

const SLOW_STARTER_ENV: &str = "USICHECK_BENCH_SLOW_STARTER";
const START_UP: Duration = Duration::from_secs(2);

fn main() {
    if std::env::var_os(SLOW_STARTER_ENV).is_some() {
        slow_starter();
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let jobs = args
        .iter()
        .position(|a| a == "--jobs")
        .and_then(|at| args.get(at + 1).cloned());
    let me = std::env::current_exe().expect("the bench's own path");
    let me = me.to_str().expect("a UTF-8 path").to_owned();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!("load {} · {cores} cores", load_average());
    let engines: [(&str, Vec<String>, Duration); 2] = [
        ("reference", Vec::new(), Duration::ZERO),
        (
            "slow starter (2 s start-up, 4 threads)",
            vec![
                "--option".into(),
                "Threads=4".into(),
                "--".into(),
                "env".into(),
                format!("{SLOW_STARTER_ENV}=1"),
                me,
            ],
            START_UP,
        ),
    ];
    for (name, engine, start_up) in engines {
        let dir = std::env::temp_dir().join(format!(
            "usicheck-bench-slow-starter-{}",
            std::process::id()
        ));
        let cpu_before = usicheck::engine::reaped_cpu();
        let (wall, report) = certify(&engine, jobs.as_deref(), &dir);
        let cpu = usicheck::engine::reaped_cpu().saturating_sub(cpu_before);
        let warm = warm_scenarios(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        let run = &report["runs"][0];
        let sessions = run["jobs"].as_u64().unwrap_or(1) as usize;
        let waits = required_waits(run);
        let longest = waits.iter().max().copied().unwrap_or_default();
        let total: Duration = waits.iter().sum();
        let scheduled = longest.max(total / sessions as u32);
        let started = waits.len().saturating_sub(warm);
        let start_ups = start_up * started as u32 / cores as u32;
        let floor = scheduled.max(start_ups);
        println!(
            "{name}: {} scenarios, {sessions} in flight, {warm} in a warm process",
            waits.len()
        );
        println!(
            "  wall {:>7.1} s · required waits {:>6.1} s (longest {:.1} s, sum {:.1} s) · start-ups' floor {:>6.1} s",
            wall.as_secs_f64(),
            scheduled.as_secs_f64(),
            longest.as_secs_f64(),
            total.as_secs_f64(),
            start_ups.as_secs_f64()
        );
        let cpu_floor = cpu / cores as u32;
        println!(
            "  CPU {:.1} s (usicheck and engines), shared by the cores {:.1} s",
            cpu.as_secs_f64(),
            cpu_floor.as_secs_f64()
        );
        println!(
            "  wall / sum of required waits ×{:.2} · wall / required waits ×{:.2} · wall / max(both) ×{:.2} · wall / CPU's floor ×{:.2}",
            wall.as_secs_f64() / total.as_secs_f64(),
            wall.as_secs_f64() / scheduled.as_secs_f64(),
            wall.as_secs_f64() / floor.as_secs_f64(),
            wall.as_secs_f64() / cpu_floor.as_secs_f64()
        );
    }
}

/// One certify of `engine` (the built-in reference engine when empty) into `dir`: its wall
/// time and report.json.
fn certify(engine: &[String], jobs: Option<&str>, dir: &Path) -> (Duration, serde_json::Value) {
    let _ = std::fs::remove_dir_all(dir);
    let mut command = Command::new(env!("CARGO_BIN_EXE_usicheck"));
    command
        .args(["certify", "--report-dir"])
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(jobs) = jobs {
        command.args(["--jobs", jobs]);
    }
    match engine.iter().position(|a| a == "--") {
        Some(at) => command
            .args(&engine[..at])
            .arg("--")
            .args(&engine[at + 1..]),
        None => command.args(engine),
    };
    let started = Instant::now();
    command.status().expect("usicheck runs");
    let wall = started.elapsed();
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json");
    (
        wall,
        serde_json::from_str(&text).expect("report.json is JSON"),
    )
}

/// How many scenarios of the run in `dir` ran in a process an earlier one left warm.
fn warm_scenarios(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir.join("transcripts")) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|entry| {
            std::fs::read_to_string(entry.path()).is_ok_and(|text| {
                text.lines()
                    .next()
                    .is_some_and(|first| first.contains(usicheck::scenario::runner::WARM_NOTE))
            })
        })
        .count()
}

/// The required wait of each bundled scenario the run played (not skipped).
fn required_waits(run: &serde_json::Value) -> Vec<Duration> {
    let profile = Profile::ALL
        .into_iter()
        .find(|p| run["profile"].as_str() == Some(p.as_str()))
        .expect("a known profile");
    let timeouts = profile.timeouts();
    run["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["skipped"].is_null())
        .filter_map(|s| {
            let name = s["file"]
                .as_str()?
                .strip_prefix("scenarios/")?
                .strip_suffix(".yaml")?;
            let (_, yaml) = BUNDLED.iter().find(|(n, _)| *n == name)?;
            let scenario = load_str(name, yaml).expect("a bundled scenario loads");
            Some(scenario.required_wait(&timeouts))
        })
        .collect()
}

/// Computes for [`START_UP`] of CPU time (not of wall time: start-ups that share a core take
/// longer each), then becomes the reference engine.
fn slow_starter() {
    let mut spins = 0u64;
    while cpu_time() < START_UP {
        for _ in 0..100_000 {
            spins = std::hint::black_box(spins.wrapping_add(1));
        }
    }
    let error = std::os::unix::process::CommandExt::exec(
        Command::new(env!("CARGO_BIN_EXE_usicheck")).arg("engine"),
    );
    panic!("cannot run the reference engine: {error}");
}

/// The CPU time this process has used.
fn cpu_time() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let micros = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000 + tv.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}
