//! Choosing scenarios: `usicheck list` and `run` by name, section, glob and rule, `--skip`.

use assert_cmd::Command;

fn stdout(args: &[&str]) -> String {
    let output = Command::cargo_bin("usicheck")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(output.status.success(), "usicheck {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// The scenario names `usicheck list ARGS` prints (lines not indented, the count aside).
fn listed(args: &[&str]) -> Vec<String> {
    let mut all = vec!["list"];
    all.extend_from_slice(args);
    stdout(&all)
        .lines()
        .filter(|line| !line.starts_with(' ') && !line.contains("bundled scenarios"))
        .map(|line| line.split_whitespace().next().unwrap().to_owned())
        .collect()
}

#[test]
fn sections_globs_rules_and_skips_select_bundled_scenarios() {
    let all = listed(&[]);
    assert_eq!(all.len(), usicheck::scenario::BUNDLED.len());
    let section = listed(&["06-ponder"]);
    assert!(section.len() >= 5, "{section:?}");
    assert!(
        section.iter().all(|n| n.starts_with("06-ponder/")),
        "{section:?}"
    );
    assert_eq!(listed(&["06-ponder/*"]), section);
    let glob = listed(&["06-ponder/ponder-*"]);
    assert!(
        glob.contains(&"06-ponder/ponder-hit".to_owned()),
        "{glob:?}"
    );
    assert!(
        !glob.contains(&"06-ponder/early-ponder".to_owned()),
        "{glob:?}"
    );
    let skipped = listed(&["06-ponder", "--skip", "06-ponder/ponder-*"]);
    assert_eq!(skipped.len() + glob.len(), section.len(), "{skipped:?}");
    // By rule: exactly the scenarios whose `rules` list it (case-insensitive).
    let by_rule = listed(&["--rule", "usi-ready-006"]);
    let text = stdout(&["list", "--rule", "USI-READY-006"]);
    assert!(!by_rule.is_empty());
    assert_eq!(
        text.matches("USI-READY-006").count(),
        by_rule.len(),
        "{text}"
    );
}

#[test]
fn run_by_rule_runs_the_scenarios_that_check_it() {
    let out = stdout(&["run", "--rule", "USI-MATE-001"]);
    assert!(
        out.contains("PASS  the argument of go mate is milliseconds"),
        "{out}"
    );
    assert!(out.contains("PASS  USI-MATE-001"), "{out}");
    // The summary counts what the selection judged, not the 148-rule profile.
    assert!(out.contains("(1 scenario selected): "), "{out}");
    assert!(!out.contains("not checked"), "{out}");
}
