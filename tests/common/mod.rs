//! Helpers shared by tests that drive engine processes: the fake engine, /proc probes, and
//! what a report directory's counts.txt should say.
#![allow(dead_code)] // each test crate uses its own subset

use std::path::PathBuf;
use std::time::{Duration, Instant};

use usicheck::engine::EngineCommand;

/// The scriptable fake engine (examples/fake_engine.rs), with the given rules.
pub fn fake_engine(rules: &[&str]) -> EngineCommand {
    EngineCommand::new(fake_engine_path()).args(rules.iter().copied())
}

/// Where the fake engine binary is: target/<profile>/examples/fake_engine.
///
/// Cargo builds examples for a plain `cargo test`; when a single test target is selected, build
/// it first with `cargo build --examples`.
pub fn fake_engine_path() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    let fake = profile_dir.join("examples").join("fake_engine");
    assert!(
        fake.is_file(),
        "{} is missing: run `cargo build --examples` (plain `cargo test` builds it)",
        fake.display()
    );
    fake
}

/// Processes of any of the groups `pgids` still running (zombies are dead and excluded), in
/// one pass over /proc.
pub fn live_members_of(pgids: &[i32]) -> Vec<i32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // Fields after the command name (which may contain spaces): state ppid pgrp ...
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2
            && fields[0] != "Z"
            && fields[2]
                .parse()
                .is_ok_and(|group: i32| pgids.contains(&group))
        {
            members.push(pid);
        }
    }
    members
}

/// Asserts that no process of the group is running, allowing the kernel a moment to deliver
/// SIGKILL.
pub fn assert_group_gone(pgid: i32) {
    assert_groups_gone(&[pgid]);
}

/// Asserts that no process of any of the groups is running (see [`assert_group_gone`]).
pub fn assert_groups_gone(pgids: &[i32]) {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let members = live_members_of(pgids);
        if members.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes of groups {pgids:?} survive: {members:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// This process's resident set size, in bytes.
pub fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .expect("VmRSS");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmRSS value");
    kib * 1024
}

/// Asserts `elapsed` is at least `bound` minus a little and at most `bound` plus a generous
/// slack: machines are noisy, a hang is not.
pub fn assert_within(elapsed: Duration, bound: Duration) {
    let slack = Duration::from_millis(1500);
    assert!(
        elapsed <= bound + slack,
        "took {elapsed:?}, bound {bound:?} + slack {slack:?}"
    );
}

/// counts.txt as report.json's certificates say it: per level `LEVEL-pass` and `LEVEL-total`
/// (applicable), then the FAIL and WARN rules, summed over the runs.
pub fn counts_of(report: &serde_json::Value) -> String {
    let levels = [
        ("must", "MUST"),
        ("should", "SHOULD"),
        ("may", "MAY"),
        ("de-facto", "DE-FACTO"),
        ("extension", "EXTENSION-USI2.0"),
    ];
    let entries: Vec<&serde_json::Value> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|run| run["certificate"].as_array().unwrap())
        .collect();
    let sum = |level: Option<&str>, field: &str| -> u64 {
        entries
            .iter()
            .filter(|e| level.is_none_or(|l| e["level"] == l))
            .map(|e| e[field].as_u64().unwrap())
            .sum()
    };
    let mut text = String::new();
    for (name, level) in levels {
        text += &format!("{name}-pass={}\n", sum(Some(level), "pass"));
        text += &format!("{name}-total={}\n", sum(Some(level), "applicable"));
    }
    text + &format!("fail={}\nwarn={}\n", sum(None, "fail"), sum(None, "warn"))
}

/// Where `document` breaks the JSON schema `schema` (its text): one line per error, with the
/// place in the document.
pub fn schema_errors(schema: &str, document: &serde_json::Value) -> Vec<String> {
    let schema: serde_json::Value = serde_json::from_str(schema).expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    validator
        .iter_errors(document)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}
