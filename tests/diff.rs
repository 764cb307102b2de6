//! `usicheck diff OLD NEW`: the reference engine certified clean and with a fault (simulated,
//! so the same reports every run), and fuzz and play reports as their commands write them.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn usicheck() -> Command {
    Command::cargo_bin("usicheck").unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("usicheck-diff-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Certifies the simulated reference engine with `faults` into `dir`; returns report.json.
fn certify(dir: &Path, faults: &[&str]) -> PathBuf {
    let mut command = usicheck();
    command
        .args(["certify", "--simulate", "--format", "json", "--report-dir"])
        .arg(dir)
        .args(["--", "usicheck", "engine"]);
    for fault in faults {
        command.args(["--fault", fault]);
    }
    let status = command.output().unwrap().status.code();
    assert_eq!(status, Some(if faults.is_empty() { 0 } else { 1 }));
    dir.join("report.json")
}

/// `usicheck diff` of two files: exit code and stdout.
fn diff(old: &Path, new: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let output = usicheck()
        .arg("diff")
        .arg(old)
        .arg(new)
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.is_empty() || output.status.code() == Some(2),
        "{stderr}"
    );
    (output.status.code(), stdout)
}

#[test]
fn a_fault_shows_as_a_new_fail_with_its_replay_and_fails_the_comparison() {
    let dir = scratch("certify");
    let clean = certify(&dir.join("clean"), &[]);
    let faulty = certify(&dir.join("faulty"), &["double-readyok"]);

    let (code, same) = diff(&clean, &clean, &[]);
    assert_eq!(code, Some(0), "{same}");
    assert!(same.contains("no rule changed"), "{same}");
    assert!(
        same.contains("NEW is not worse under --fail-on must"),
        "{same}"
    );

    let (code, worse) = diff(&clean, &faulty, &[]);
    assert_eq!(code, Some(1), "{worse}");
    let newly = worse
        .split("\nnewly failing (")
        .nth(1)
        .expect("a block of newly failing rules");
    let row = newly
        .lines()
        .find(|l| l.trim_start().starts_with("USI-READY-001"))
        .unwrap_or_else(|| panic!("USI-READY-001 newly fails:\n{worse}"));
    assert!(row.ends_with("PASS → FAIL"), "{row}");
    assert!(newly.contains("replay: usicheck run"), "{worse}");
    assert!(
        worse.contains("NEW is worse under --fail-on must"),
        "{worse}"
    );

    // Back again: the same rule is fixed, and that is not worse.
    let (code, better) = diff(&faulty, &clean, &[]);
    assert_eq!(code, Some(0), "{better}");
    assert!(better.contains("\nfixed ("), "{better}");
    assert!(better.contains("FAIL → PASS"), "{better}");

    let (code, markdown) = diff(&clean, &faulty, &["--format", "markdown"]);
    assert_eq!(code, Some(1));
    assert!(
        markdown
            .lines()
            .any(|l| l.starts_with("| newly failing | USI-READY-001 (shogidokoro) | MUST |")),
        "{markdown}"
    );
    assert!(markdown.contains("<details><summary>replay commands</summary>"));

    let (code, json) = diff(&clean, &faulty, &["--format", "json"]);
    assert_eq!(code, Some(1));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["schema"], "usicheck-diff/1");
    assert_eq!(json["worse"], true);
    let ready = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["rule"] == "USI-READY-001")
        .expect("USI-READY-001 changed");
    assert_eq!(ready["kind"], "newly-failing");
    assert_eq!(ready["new"]["outcome"], "FAIL");
    assert_eq!(ready["new"]["fails_gate"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fuzz report with `findings` (each `(rule, grade, count)` of the protocol oracle), as
/// `usicheck fuzz` writes one, trimmed to what a comparison reads.
fn fuzz_report(findings: &[(&str, &str, u64)]) -> String {
    let findings: Vec<serde_json::Value> = findings
        .iter()
        .map(|(rule, grade, count)| {
            serde_json::json!({
                "oracle": "protocol", "rule": rule, "title": "", "grade": grade,
                "count": count, "detail": format!("seen: {rule}"),
                "replay": format!("usicheck run findings/{rule}.yaml -- ENGINE"),
            })
        })
        .collect();
    serde_json::json!({
        "schema": "usicheck-fuzz/1", "seconds": 10.0, "sessions": 40, "findings": findings,
    })
    .to_string()
}

/// A play report of games `(engine color, winner, reason)` and broken rules.
fn play_report(games: &[(&str, &str, &str)], rules: &[&str]) -> String {
    let games: Vec<serde_json::Value> = games
        .iter()
        .map(|(color, winner, reason)| {
            serde_json::json!({"engine_color": color, "winner": winner, "reason": reason})
        })
        .collect();
    let violations: Vec<serde_json::Value> = rules
        .iter()
        .map(|rule| {
            serde_json::json!({
                "verdict": {"rule": rule, "outcome": "FAIL", "reason": "late"}, "game": 2,
            })
        })
        .collect();
    serde_json::json!({
        "schema": "usicheck-play/1", "engine_name": "e", "seconds": 3.0,
        "games": games, "violations": violations,
    })
    .to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_new_fuzz_finding_is_worse_and_a_gone_one_is_not() {
    let dir = scratch("fuzz");
    let old = write(&dir, "old.json", &fuzz_report(&[("USI-GO-004", "FAIL", 3)]));
    let new = write(
        &dir,
        "new.json",
        &fuzz_report(&[("USI-STOP-002", "WARN", 1)]),
    );
    let (code, text) = diff(&old, &new, &[]);
    // A new WARN is no FAIL: not worse under `must`, worse under `any`.
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("USI-STOP-002") && text.contains("— → WARN ×1"),
        "{text}"
    );
    assert!(
        text.contains("USI-GO-004") && text.contains("FAIL ×3 → —"),
        "{text}"
    );
    let (code, _) = diff(&old, &new, &["--fail-on", "any"]);
    assert_eq!(code, Some(1));
    let (code, text) = diff(&new, &old, &[]);
    assert_eq!(code, Some(1), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn more_games_lost_by_the_engines_fault_is_worse() {
    let dir = scratch("play");
    let old = write(
        &dir,
        "old.json",
        &play_report(
            &[("black", "black", "mate"), ("white", "draw", "repetition")],
            &[],
        ),
    );
    let new = write(
        &dir,
        "new.json",
        &play_report(
            &[("black", "black", "mate"), ("white", "black", "time")],
            &["USI-GO-004"],
        ),
    );
    let (code, text) = diff(&old, &new, &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("old  1 win, 1 draw, 0 lose"), "{text}");
    assert!(
        text.contains("new  1 win, 0 draw, 1 lose (lost by its own fault: 1 by time)"),
        "{text}"
    );
    assert!(text.contains("game 2: late"), "{text}");
    let (code, text) = diff(&old, &old, &[]);
    assert_eq!(code, Some(0), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reports_of_different_commands_or_no_report_are_input_errors() {
    let dir = scratch("errors");
    let fuzz = write(&dir, "fuzz.json", &fuzz_report(&[]));
    let play = write(&dir, "play.json", &play_report(&[], &[]));
    let junk = write(&dir, "junk.json", "{not json");
    let other = write(&dir, "other.json", r#"{"schema": "usicheck-report/1"}"#);
    for (old, new, says) in [
        (&fuzz, &play, "compare reports of one command"),
        (&fuzz, &junk, "junk.json: not JSON"),
        (&other, &fuzz, "other.json: schema `usicheck-report/1`"),
        (
            &fuzz,
            &dir.join("missing.json"),
            "missing.json: cannot read it",
        ),
    ] {
        let output = usicheck().arg("diff").arg(old).arg(new).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(says), "{says}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    let output = usicheck()
        .args(["diff", "--format", "junit"])
        .arg(&fuzz)
        .arg(&fuzz)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `usicheck ARGS… --report-dir DIR -- usicheck engine FAULTS…`; returns report.json.
fn report_of(dir: &Path, args: &[&str], faults: &[&str]) -> PathBuf {
    let mut command = usicheck();
    command.args(args).arg("--report-dir").arg(dir);
    command.args(["--", env!("CARGO_BIN_EXE_usicheck"), "engine"]);
    for fault in faults {
        command.args(["--fault", fault]);
    }
    let output = command.output().unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{args:?}: {:?}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    dir.join("report.json")
}

/// The reports `fuzz` and `play` write read as the comparison expects (a renamed field would
/// make them input errors), and a fault shows in each.
#[test]
#[ignore = "slow tier: fuzz campaigns and games against engine processes, in real time"]
fn fuzz_and_play_reports_of_a_fault_compare_worse() {
    let dir = scratch("real");
    let fuzz = ["fuzz", "--time", "5s", "--seed", "1"];
    let clean = report_of(&dir.join("fuzz-clean"), &fuzz, &[]);
    let faulty = report_of(&dir.join("fuzz-faulty"), &fuzz, &["double-readyok"]);
    let (code, text) = diff(&clean, &faulty, &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("USI-READY-001"), "{text}");
    assert!(text.contains("replay: usicheck run"), "{text}");

    let play = [
        "play",
        "--tc",
        "depth=1",
        "--games",
        "3",
        "--max-moves",
        "20",
    ];
    let clean = report_of(&dir.join("play-clean"), &play, &[]);
    let faulty = report_of(&dir.join("play-faulty"), &play, &["crash-at-third-newgame"]);
    let (code, text) = diff(&clean, &faulty, &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("(lost by its own fault: 1 by crash)"),
        "{text}"
    );
    assert!(
        text.contains("; score "),
        "the estimate of each report: {text}"
    );
    let (code, text) = diff(&clean, &clean, &[]);
    assert_eq!(code, Some(0), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
