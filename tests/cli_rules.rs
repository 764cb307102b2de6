//! `usicheck rules`, `scenario-schema`, `report-schema` and `scenario-check` from the command
//! line.

use assert_cmd::Command;

fn usicheck() -> Command {
    Command::cargo_bin("usicheck").unwrap()
}

/// The output with runs of spaces collapsed, so tests do not depend on column widths.
fn squeezed(text: &str) -> String {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn stdout_of(args: &[&str]) -> String {
    let out = usicheck()
        .args(args)
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn lists_all_148_rules_grouped_by_section() {
    let out = stdout_of(&["rules"]);
    assert_eq!(
        out.lines()
            .filter(|l| l.trim_start().starts_with("USI-"))
            .count(),
        148
    );
    assert!(out.starts_with("1. Handshake\n"));
    assert!(out.contains("\n16. Game rules"));
    let out = squeezed(&out);
    assert!(out.contains("USI-QUIT-003 SHOULD implemented EOF"), "{out}");
    assert!(
        out.contains("USI-HANDSHAKE-005 MUST the GUI's `usi` is sent once, first"),
        "{out}"
    );
    assert!(
        out.contains("148 rules: 137 bind the engine,") && out.contains("; 9 are the GUI's"),
        "{out}"
    );
}

#[test]
fn profile_filters_and_shows_severity() {
    let out = stdout_of(&["rules", "--profile", "usi1"]);
    assert!(
        !out.contains("USI-MATE-"),
        "go mate is not in the 2007 draft"
    );
    assert!(squeezed(&out).contains("USI-STOP-002 SHOULD WARN"), "{out}");
    let strict = squeezed(&stdout_of(&["rules", "--profile", "strict"]));
    assert!(strict.contains("USI-STOP-002 SHOULD FAIL"), "{strict}");
}

#[test]
fn explains_one_rule_with_strength_parts_readings_and_coverage() {
    let out = squeezed(&stdout_of(&["rules", "USI-POSITION-004"]));
    assert!(out.starts_with("USI-POSITION-004 — Hands: `-`, multi-digit counts, order\n"));
    assert!(out.contains("Strength: MUST (canonical) / SHOULD (any order)"));
    assert!(
        out.contains("Coverage: covered by: scenario 04-position/hands"),
        "{out}"
    );
    let out = squeezed(&stdout_of(&["rules", "USI-HANDSHAKE-005"]));
    assert!(
        out.contains(
            "Coverage: the GUI's rule: an engine cannot break it; checked by: usicheck as the GUI"
        ),
        "{out}"
    );
    let out = squeezed(&stdout_of(&["rules", "USI-RULES-003"]));
    assert!(
        out.contains("Coverage: the GUI's rule: an engine cannot break it, and usicheck"),
        "{out}"
    );
    let out = squeezed(&stdout_of(&["rules", "USI-READY-006"]));
    assert!(out.contains("Reading: A-06 (usi1): "), "{out}");
    assert!(
        out.contains("covered by: scenario 03-ready/isready-during-go-infinite"),
        "{out}"
    );
}

#[test]
fn json_lists_every_rule() {
    let out = stdout_of(&["rules", "--format", "json"]);
    let rules: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rules = rules.as_array().unwrap();
    assert_eq!(rules.len(), 148);
    assert_eq!(rules[0]["id"], "USI-HANDSHAKE-001");
    assert_eq!(rules[0]["severity"]["strict"], "fail");
    let one: serde_json::Value =
        serde_json::from_str(&stdout_of(&["rules", "USI-EXT-015", "--format", "json"])).unwrap();
    assert_eq!(
        one["strength"]["parts"][0]["qualifier"],
        "vendor: YaneuraOu; ShogiHome option"
    );
}

#[test]
fn markdown_lists_every_rule_under_its_section() {
    let out = stdout_of(&["rules", "--format", "markdown"]);
    assert!(out.starts_with("# The usicheck rule catalogue\n"), "{out}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("### USI-")).count(),
        148
    );
    let handshake = out.find("\n## 1. Handshake\n").unwrap();
    let game_rules = out.find("\n## 16. Game rules").unwrap();
    assert!(handshake < out.find("### USI-HANDSHAKE-001 —").unwrap());
    assert!(game_rules < out.find("### USI-RULES-001 —").unwrap());
    let one = stdout_of(&["rules", "USI-HANDSHAKE-001", "--format", "markdown"]);
    assert!(
        one.starts_with("### USI-HANDSHAKE-001 — Boot fast"),
        "{one}"
    );
    assert!(one.contains("\n- **Strength:** SHOULD\n"), "{one}");
    assert!(one.contains("\n- **Timeout:** T-USIOK.\n"), "{one}");
    assert!(
        one.contains("\n- **Profiles:** usi1 WARN, shogidokoro WARN, usi2 WARN, strict FAIL\n"),
        "{one}"
    );
    assert!(one.contains("\n- **usicheck:** implemented\n"), "{one}");
}

/// docs/rules.md is what a reader of the repository gets for the catalogue: it must be the
/// command's output, not a stale copy.
#[test]
fn docs_rules_md_is_the_markdown_catalogue() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md");
    let generated = stdout_of(&["rules", "--format", "markdown"]);
    if std::env::var_os("USICHECK_BLESS").is_some() {
        std::fs::write(path, &generated).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/rules.md is out of date; run `usicheck rules --format markdown > docs/rules.md` \
         (or USICHECK_BLESS=1 cargo test --release --test cli_rules docs_rules)"
    );
}

#[test]
fn unknown_rule_id_is_one_line_and_exit_2() {
    let out = usicheck()
        .args(["rules", "USI-NOPE-001"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("unknown rule ID `USI-NOPE-001`"));
    assert!(out.stdout.is_empty());
}

#[test]
fn scenario_schema_prints_the_checked_in_schema() {
    let expected = include_str!("../scenarios/schema.json");
    assert_eq!(stdout_of(&["scenario-schema"]), expected);
}

#[test]
fn report_schema_prints_the_checked_in_schemas() {
    let docs = [
        ("certify", include_str!("../docs/report.schema.json")),
        ("fuzz", include_str!("../docs/fuzz-report.schema.json")),
        ("play", include_str!("../docs/play-report.schema.json")),
    ];
    for (command, expected) in docs {
        assert_eq!(
            stdout_of(&["report-schema", command]),
            expected,
            "{command}"
        );
    }
}

#[test]
fn scenario_check_accepts_bundled_and_rejects_bad_files() {
    let dir = std::env::temp_dir().join(format!("usicheck-scenario-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        "name: x\nrules: [USI-READY-001]\nsteps:\n  - expect: {bestmove: legal, within: 5}\n",
    )
    .unwrap();
    let out = usicheck()
        .arg("scenario-check")
        .arg(&bad)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!("{}:4:", bad.display())),
        "{stderr}"
    );
    assert!(stderr.contains("needs a unit"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
    usicheck()
        .args(["scenario-check", "scenarios/06-ponder/ponder-hit.yaml"])
        .assert()
        .success();
}
