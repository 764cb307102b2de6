//! Fuzzer throughput against the reference engine at `go depth 1`: positions checked per
//! second, and usicheck's share of the CPU time (getrusage of itself vs its reaped children).
//!
//! `cargo bench --bench fuzz` (USICHECK_BENCH_SECS, default 20; USICHECK_BENCH_JOBS, default 2).

use std::time::Duration;
use usicheck::engine::EngineCommand;
use usicheck::fuzzer::{self, Config, plan::Mix};

fn cpu_seconds(who: libc::c_int) -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(who, &mut usage) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(usage.ru_utime) + t(usage.ru_stime)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn main() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let secs = env("USICHECK_BENCH_SECS", 20);
    let jobs = env("USICHECK_BENCH_JOBS", 2) as usize;
    let engine = EngineCommand::new(env!("CARGO_BIN_EXE_usicheck")).arg("engine");
    let mut config = Config::new(engine);
    config.mix = Mix::Depth1;
    config.episodes = 500;
    config.runs = None;
    config.time = Some(Duration::from_secs(secs));
    config.jobs = jobs;
    println!("load average before: {}", load_average());
    let (self_before, children_before) = (
        cpu_seconds(libc::RUSAGE_SELF),
        cpu_seconds(libc::RUSAGE_CHILDREN),
    );
    let summary = fuzzer::run(&config, &|_| {}).expect("the reference engine starts");
    let own = cpu_seconds(libc::RUSAGE_SELF) - self_before;
    let engines = cpu_seconds(libc::RUSAGE_CHILDREN) - children_before;
    let p = summary.progress;
    println!("load average after:  {}", load_average());
    println!(
        "fuzz depth-1: {} positions in {:.1} s with {jobs} jobs = {:.0} positions/s (goal >= 1000)",
        p.positions,
        p.elapsed.as_secs_f64(),
        p.positions_per_second()
    );
    println!(
        "cpu: usicheck {own:.2} s, engines {engines:.2} s, usicheck share {:.1}% (goal <= 20%)",
        100.0 * own / (own + engines).max(1e-9)
    );
    println!("findings: {}", summary.findings.len());
}
