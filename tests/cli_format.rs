//! One output contract: every command that prints results takes `--format` from one set of
//! values (`human`, `json`, `junit`, `markdown`), each the subset it can print, and prints one
//! JSON document for `--format json`; a format a command cannot print is a one-line usage
//! error naming the values it takes. `run`, `certify` and `selftest` run the reference engine
//! simulated; `play` and `fuzz`, which have no such flag, start it as a process, in the slow
//! tier.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

const USICHECK: &str = env!("CARGO_BIN_EXE_usicheck");

/// `usicheck ARGS`: exit code, stdout and stderr.
fn usicheck(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(USICHECK).args(args).output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// stdout of `usicheck ARGS`, which must exit with `code`, read as one JSON document.
fn json_of(args: &[&str], code: i32) -> Value {
    let (status, out, err) = usicheck(args);
    assert_eq!(status, code, "usicheck {args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("usicheck {args:?}: {e}: {out}"))
}

/// A fuzz report.json with no findings, as `diff` reads one.
fn clean_fuzz_report(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "usicheck-format-{name}-{}.json",
        std::process::id()
    ));
    let text = r#"{"schema": "usicheck-fuzz/1", "seconds": 2.0, "sessions": 3, "findings": []}"#;
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn every_command_that_prints_results_prints_json() {
    let report = clean_fuzz_report("json");
    let report = report.to_str().unwrap();
    let certify = json_of(
        &[
            "certify",
            "--simulate",
            "--rule",
            "USI-READY-006",
            "--format",
            "json",
        ],
        0,
    );
    assert_eq!(certify["passed"], true, "{certify}");
    let run = json_of(
        &[
            "run",
            "03-ready/isready-twice",
            "--simulate",
            "--format",
            "json",
        ],
        0,
    );
    assert_eq!(run["runs"].as_array().map(Vec::len), Some(1), "{run}");
    let selftest = json_of(&["selftest", "USI-READY-001", "--format", "json"], 0);
    assert_eq!(selftest["passed"], true, "{selftest}");
    let rules = json_of(&["rules", "--format", "json"], 0);
    assert!(rules.as_array().is_some_and(|r| r.len() > 100), "{rules}");
    let rule = json_of(&["rules", "USI-READY-001", "--format", "json"], 0);
    assert_eq!(rule["id"], "USI-READY-001", "{rule}");
    let list = json_of(&["list", "03-ready/isready-twice", "--format", "json"], 0);
    assert_eq!(list[0]["name"], "03-ready/isready-twice", "{list}");
    assert_eq!(list[0]["rules"][0], "USI-READY-001", "{list}");
    let diff = json_of(&["diff", report, report, "--format", "json"], 0);
    assert_eq!(diff["worse"], false, "{diff}");
}

#[test]
fn a_format_a_command_cannot_print_is_a_usage_error() {
    let report = clean_fuzz_report("refused");
    let report = report.to_str().unwrap();
    for (args, supported) in [
        (vec!["rules"], "human, json, markdown"),
        (vec!["diff", report, report], "human, json, markdown"),
        (vec!["list"], "human, json"),
        (vec!["fuzz"], "human, json, markdown"),
    ] {
        let refused = if args[0] == "list" {
            "markdown"
        } else {
            "junit"
        };
        let args = [args.as_slice(), &["--format", refused]].concat();
        let (code, out, err) = usicheck(&args);
        assert_eq!(code, 2, "usicheck {args:?}: {out}");
        assert_eq!(
            err,
            format!(
                "usicheck: error: invalid value '{refused}' for '--format <FORMAT>' \
                 [possible values: {supported}] (see --help)\n"
            ),
            "usicheck {args:?}"
        );
    }
}

#[test]
fn rules_format_text_is_the_human_listing() {
    let (_, text, _) = usicheck(&["rules", "--format", "text"]);
    let (_, human, _) = usicheck(&["rules"]);
    assert_eq!(text, human);
    assert!(human.starts_with("1. Handshake\n"), "{human}");
}

/// `play` and `fuzz` against the reference engine with a fault that makes it exit at an
/// unknown option, which the handshake sends: a game lost by crash, a fuzz finding.
fn crashing_engine() -> [&'static str; 6] {
    [
        "--option",
        "NoSuchOption=1",
        "--",
        USICHECK,
        "engine",
        "--fault=crash-on-unknown-option",
    ]
}

#[test]
#[ignore = "slow tier: play and fuzz start the reference engine as a process"]
fn play_and_fuzz_print_their_report_json() {
    let [option, value, rest @ ..] = crashing_engine();
    let play = json_of(
        &[
            &["play", "--games", "1", "--format", "json", option, value],
            &rest[..],
        ]
        .concat(),
        1,
    );
    assert!(
        play["schema"]
            .as_str()
            .is_some_and(|s| s.starts_with("usicheck-play/"))
    );
    assert_eq!(play["games"][0]["reason"], "crash", "{play}");
    assert_eq!(play["results"]["loss"], 1, "{play}");
    assert_eq!(play["passed"], false, "{play}");
    let out = std::env::temp_dir().join(format!("usicheck-format-fuzz-{}", std::process::id()));
    let fuzz = json_of(
        &[
            &[
                "fuzz", "--runs", "1", "--seed", "1", "--format", "json", option, value,
            ],
            &["--fail-on", "should"][..],
            &["--out", out.to_str().unwrap()][..],
            &rest[..],
        ]
        .concat(),
        1,
    );
    assert!(
        fuzz["schema"]
            .as_str()
            .is_some_and(|s| s.starts_with("usicheck-fuzz/"))
    );
    assert_eq!(fuzz["findings"][0]["rule"], "USI-OPTION-010", "{fuzz}");
    let _ = std::fs::remove_dir_all(&out);
}
