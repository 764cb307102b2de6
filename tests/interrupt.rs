//! SIGINT and SIGTERM during `certify`: every engine process group is killed, the reports
//! cover what finished (marked interrupted), and the exit code is the shell's 128 + signal.

mod suite;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The engine pids a run started, from the `# started … (pid N)` notes of its transcripts.
fn engine_pids(report_dir: &Path) -> Vec<i32> {
    let mut pids = Vec::new();
    let entries = std::fs::read_dir(report_dir.join("transcripts"));
    for entry in entries.into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for line in text.lines().filter(|l| l.contains("# started ")) {
            let pid = line
                .rsplit("(pid ")
                .next()
                .and_then(|p| p.strip_suffix(')'));
            pids.extend(pid.and_then(|p| p.parse::<i32>().ok()));
        }
    }
    pids
}

/// Whether `pid` is still an engine of this test (its pid could have been reused since, by
/// something that is not `usicheck engine`).
fn engine_alive(pid: i32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|cmdline| cmdline.split(|&b| b == 0).any(|word| word == b"engine"))
}

/// Kills usicheck if the test fails before it has exited (it would run on, orphaned).
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn interrupt_certify(signal: i32, expected_code: i32, name: &str) {
    let dir =
        std::env::temp_dir().join(format!("usicheck-interrupt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = KillOnDrop(
        Command::new(suite::USICHECK)
            .args(["certify", "--jobs", "4", "--report-dir"])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("usicheck starts"),
    );
    // Wait until scenarios are running (their transcripts exist), then signal usicheck alone,
    // as a terminal's Ctrl-C reaches it (the engines sit in their own process groups).
    let deadline = Instant::now() + Duration::from_secs(30);
    while engine_pids(&dir).len() < 6 {
        assert!(Instant::now() < deadline, "no scenario started");
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: signals our own child.
    unsafe { libc::kill(child.0.id() as i32, signal) };
    let exited = Instant::now();
    let status = child.0.wait().expect("usicheck exits");
    let waited = exited.elapsed();
    assert_eq!(status.code(), Some(expected_code), "{status:?}");
    assert!(waited < Duration::from_secs(20), "took {waited:?} to stop");
    let survivors: Vec<i32> = engine_pids(&dir)
        .into_iter()
        .filter(|&pid| engine_alive(pid))
        .collect();
    assert!(survivors.is_empty(), "engines left running: {survivors:?}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("report.json")).expect("report.json"))
            .expect("valid JSON");
    let run = &report["runs"][0];
    assert_eq!(run["interrupted"], name);
    let scenarios = run["scenarios"].as_array().expect("scenarios");
    assert!(
        !scenarios.is_empty() && scenarios.len() < 90,
        "{}",
        scenarios.len()
    );
    // A scenario cut short judges nothing (its engine was killed, not misbehaving).
    for scenario in scenarios {
        let cut = scenario["skipped"]
            .as_str()
            .is_some_and(|why| why.starts_with("interrupted by"));
        assert!(!cut || scenario["outcome"] == "SKIP", "{scenario}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow tier: signals during a real-time certify"]
fn sigint_stops_the_engines_and_writes_what_finished() {
    interrupt_certify(libc::SIGINT, 130, "SIGINT");
}

#[test]
#[ignore = "slow tier: signals during a real-time certify"]
fn sigterm_stops_the_engines_and_writes_what_finished() {
    interrupt_certify(libc::SIGTERM, 143, "SIGTERM");
}
