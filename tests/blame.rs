//! Blame through the real binary: each root cause of wrong-rule verdicts (issue 13) with a
//! fault of the reference engine, the rule the fault breaks charged, and the rules it does not
//! break left alone (PASS, SKIP or not judged). The engine runs simulated (`--simulate`): the
//! same verdicts every run, whatever the machine's load.

mod suite;

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeMap;

/// `usicheck run SCENARIO --simulate --format json -- usicheck engine --fault F…`: each judged
/// rule's worst outcome, with its reason.
fn rules_after(scenario: &str, faults: &[&str]) -> BTreeMap<String, (String, String)> {
    let mut command = Command::new(suite::USICHECK);
    command.args([
        "run",
        scenario,
        "--simulate",
        "--format",
        "json",
        "--",
        suite::USICHECK,
        "engine",
    ]);
    for fault in faults {
        command.args(["--fault", fault]);
    }
    let output = command.output().expect("usicheck runs");
    let report: Value = serde_json::from_slice(&output.stdout).expect("report.json on stdout");
    let mut rules = BTreeMap::new();
    for rule in report["runs"][0]["rules"].as_array().expect("rules") {
        let judged = &rule["judged_by"];
        let outcome = rule["outcome"].as_str().unwrap().to_owned();
        let reason = judged
            .as_array()
            .and_then(|j| j.iter().find(|j| j["outcome"] == rule["outcome"]))
            .map_or(String::new(), |j| {
                j["reason"].as_str().unwrap_or("").to_owned()
            });
        rules.insert(rule["rule"].as_str().unwrap().to_owned(), (outcome, reason));
    }
    rules
}

fn violated(outcome: &str) -> bool {
    matches!(outcome, "FAIL" | "WARN")
}

/// (scenario, faults, the rules charged, the rules that must not be).
type Row = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

fn check(rows: &[Row]) {
    let mut wrong = String::new();
    for (scenario, faults, charged, innocent) in rows {
        let rules = rules_after(scenario, faults);
        for rule in *charged {
            match rules.get(*rule) {
                Some((outcome, _)) if violated(outcome) => {}
                other => wrong.push_str(&format!(
                    "{scenario} with {faults:?}: {rule} not charged: {other:?}\n"
                )),
            }
        }
        for rule in *innocent {
            if let Some((outcome, reason)) = rules.get(*rule)
                && violated(outcome)
            {
                wrong.push_str(&format!(
                    "{scenario} with {faults:?}: {rule} wrongly {outcome}: {reason}\n"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong}");
}

/// Root cause 1: a step without `rule` charged every rule of its scenario. A missing optional
/// feature is SKIP for the rest, never a FAIL of another rule.
#[test]
fn a_missing_option_is_charged_to_its_own_rule_only() {
    check(&[(
        "02-options/multipv-advertised",
        &["missing-multipv"],
        &["USI-OPTION-014"],
        &["USI-HANDSHAKE-006", "USI-READY-001"],
    )]);
}

/// Root cause 2: a rejected position showed as illegal moves.
#[test]
fn a_rejected_position_is_charged_to_its_position_rule() {
    check(&[(
        "04-position/move-count-optional",
        &["require-move-count"],
        &["USI-POSITION-002"],
        &[
            "USI-BESTMOVE-002",
            "USI-BESTMOVE-007",
            "USI-INFO-005",
            "USI-INFO-011",
        ],
    )]);
}

/// Root cause 3: mate scenarios charged a malformed reply or a rejected position to the
/// mating-line rule.
#[test]
fn mate_replies_are_charged_by_kind() {
    check(&[
        (
            "10-mate/no-mate-at-startpos",
            &["empty-checkmate"],
            &["USI-MATE-010"],
            &["USI-MATE-003"],
        ),
        (
            "10-mate/tsume-without-attacker-king",
            &["reject-kingless-tsume"],
            &["USI-MATE-009"],
            &["USI-MATE-003"],
        ),
        // An engine that answers `go mate` with `checkmate` but `stop` during one with
        // `bestmove` has `go mate`: the stop case is broken, not `go mate` itself.
        (
            "10-mate/stop-during-mate",
            &["mate-stop-bestmove"],
            &["USI-MATE-008"],
            &["USI-MATE-002"],
        ),
        // One without `go mate` at all: not the stop case's rule.
        (
            "10-mate/stop-during-mate",
            &["mate-answered-with-bestmove"],
            &["USI-MATE-002"],
            &["USI-MATE-008"],
        ),
    ]);
}

/// `10-mate/mate-in-one` on a 9-ply mate: an engine that cannot settle it within `go mate 100`
/// and then says nothing broke the limit (USI-MATE-005), as the fuzzer and `play` charge a
/// `go mate` never answered; USI-MATE-002 (one `checkmate`, never `bestmove`) is not
/// reached. In CI a fresh gpsusi's 1-ply answer once had not come 5 s after `go mate 1000`,
/// and this step charged USI-MATE-002.
#[test]
fn a_go_mate_never_answered_is_charged_to_its_time_limit() {
    let (_, yaml) = (usicheck::scenario::BUNDLED.iter())
        .find(|(name, _)| *name == "10-mate/mate-in-one")
        .expect("a bundled scenario");
    let hard = (yaml.replace(
        "4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1",
        "3gkg3/9/4P4/9/9/9/9/9/9 b 2R2BG 1",
    ))
    .replace("go mate 1000", "go mate 100");
    assert!(
        !hard.contains("4K4") && hard.contains("go mate 100\n"),
        "{hard}"
    );
    let flagged = suite::flagged_by_run(&hard, "silent-mate-timeout");
    assert_eq!(flagged, ["USI-MATE-005 FAIL"], "{hard}");
    // An engine that answers passes the same steps (its fault is never provoked here).
    let answers = suite::flagged_by_run(&hard, "crash-on-gameover-draw");
    assert!(answers.is_empty(), "{answers:?}");
}

/// Root cause 4: a malformed move where a declaration was checked became an invalid
/// declaration.
#[test]
fn a_malformed_move_is_no_declaration() {
    check(&[(
        "08-bestmove/no-declaration-at-27-points",
        &["at-sign-drops"],
        &[],
        &["USI-BESTMOVE-004", "USI-RULES-001"],
    )]);
}

/// Root cause 5: a missing `readyok` after a probe was charged to USI-READY-001 rather than to
/// the probe's rule.
#[test]
fn a_probe_that_loses_the_readyok_is_charged_to_the_probe() {
    check(&[
        (
            "13-robust/crlf-input",
            &["carriage-return-kept"],
            &["USI-ROBUST-003"],
            &["USI-READY-001"],
        ),
        (
            "13-robust/extra-whitespace",
            &["strict-whitespace"],
            &["USI-ROBUST-002"],
            &["USI-READY-001"],
        ),
        (
            "11-gameover/gameover-during-search",
            &["gameover-keeps-searching"],
            &["USI-GAMEOVER-004"],
            &["USI-READY-001"],
        ),
    ]);
}

/// An engine that never answers `isready` is noted once (the pre-flight) and still has its
/// moves judged.
#[test]
fn an_engine_without_readyok_still_has_its_moves_judged() {
    let rules = rules_after(
        "04-position/startpos-and-sfen",
        &["no-readyok", "illegal-bestmove"],
    );
    assert_eq!(rules["USI-READY-001"].0, "FAIL", "{rules:?}");
    assert_eq!(rules["USI-BESTMOVE-002"].0, "FAIL", "{rules:?}");
}

/// Free text on stdout after `usiok` and a `go nodes` limit searched past are judged on every
/// session.
#[test]
fn free_text_and_node_limits_are_always_on() {
    check(&[
        (
            "03-ready/isready-twice",
            &["chatty-stdout"],
            &["USI-ROBUST-009"],
            &["USI-READY-001"],
        ),
        ("05-go/depth-and-nodes", &[], &[], &["USI-GO-010"]),
    ]);
    // The scenario's own check (no `bestmove` within 5 s) takes the blame from the always-on
    // node count; either way the optional feature is INFO, never a FAIL of another rule.
    let rules = rules_after("05-go/depth-and-nodes", &["ignore-node-limit"]);
    assert_eq!(rules["USI-GO-010"].0, "INFO", "{rules:?}");
    let violated: Vec<&String> = rules
        .iter()
        .filter(|(_, (outcome, _))| violated(outcome))
        .map(|(rule, _)| rule)
        .collect();
    assert!(violated.is_empty(), "{rules:?}");
}

/// An engine that answers `isready` twice owes one USI-READY-001: the extra `readyok` of a
/// setup handshake is not a reply to the command a later silence check watches.
#[test]
fn an_extra_readyok_is_not_charged_to_the_silence_checks() {
    check(&[
        (
            "04-position/position-is-silent",
            &["double-readyok"],
            &["USI-READY-001"],
            &["USI-POSITION-010"],
        ),
        (
            "07-stop/ponderhit-outside-ponder",
            &["double-readyok"],
            &["USI-READY-001"],
            &["USI-STOP-004"],
        ),
        (
            "13-robust/unknown-command",
            &["double-readyok"],
            &["USI-READY-001"],
            &["USI-ROBUST-001"],
        ),
    ]);
}

/// An engine that dies of a `setoption` in the handshake (before answering the `isready`
/// after it) broke USI-OPTION-007, not USI-READY-001; what the scenario checks is not reached.
#[test]
fn a_death_on_setoption_is_not_a_missing_readyok() {
    check(&[(
        "06-ponder/ponder-hit",
        &["crash-on-usi-ponder"],
        &["USI-OPTION-007"],
        &["USI-READY-001", "USI-PONDER-004"],
    )]);
}

/// An illegal `bestmove` where a check waits for a timely one is the legality rule's
/// violation (always-on), not the clock's: the check is not reached.
#[test]
fn an_illegal_move_is_not_charged_to_the_clock_check_awaiting_it() {
    check(&[(
        "05-go/byoyomi",
        &["illegal-bestmove"],
        &["USI-BESTMOVE-002"],
        &["USI-GO-004"],
    )]);
}

/// A `usiok` later than T-USIOK, which then comes with the engine's exit, is a late reply
/// (USI-HANDSHAKE-004), not an unflushed buffer (USI-ROBUST-006): its `id` and `option` lines
/// had reached usicheck long before. An engine whose every line comes only at its exit is the
/// buffering one.
#[test]
fn a_late_usiok_is_not_charged_to_output_flushing() {
    let settings = |fault: &str| {
        let mut settings = usicheck::scenario::runner::RunSettings::new(
            suite::reference_engine(&[fault]),
            usicheck::rules::Profile::Shogidokoro,
        );
        settings.timeouts.usiok = std::time::Duration::from_millis(1000);
        settings
    };
    let scenario = suite::bundled()
        .into_iter()
        .find(|(name, _)| name == "01-handshake/id-author")
        .expect("bundled")
        .1;
    let outcome = |fault: &str, rule: &str| {
        let report = usicheck::scenario::runner::run_scenario(
            &scenario,
            "id-author",
            &settings(fault),
            String::new(),
            &mut Default::default(),
        )
        .expect("engine starts");
        report
            .verdicts
            .iter()
            .find(|v| v.rule.as_str() == rule)
            .map(|v| v.outcome)
    };
    use usicheck::rules::Outcome::Fail;
    assert_eq!(outcome("slow-usiok", "USI-HANDSHAKE-004"), Some(Fail));
    assert_eq!(outcome("slow-usiok", "USI-ROBUST-006"), None);
    assert_eq!(outcome("buffered-output", "USI-ROBUST-006"), Some(Fail));
    assert_eq!(outcome("buffered-output", "USI-HANDSHAKE-004"), None);
}

/// An engine whose whole handshake comes late (a slow start under load: gpsusi loading its
/// tables beside seven other engines), after `quit`, looks like one that buffers its output:
/// usicheck sees nothing on stdout until the engine exits, as with `buffered-output`. Once
/// the pre-flight has seen it flush `usiok` in time, the `usiok` that comes only at its exit
/// is the handshake's (USI-HANDSHAKE-004), not output flushing (USI-ROBUST-006).
#[test]
fn a_slow_start_after_a_timely_pre_flight_is_not_charged_to_output_flushing() {
    let scenario = suite::bundled()
        .into_iter()
        .find(|(name, _)| name == "01-handshake/id-author")
        .expect("bundled")
        .1;
    let outcome = |flushes_usiok: bool, rule: &str| {
        let mut settings = usicheck::scenario::runner::RunSettings::new(
            suite::reference_engine(&["buffered-output"]),
            usicheck::rules::Profile::Shogidokoro,
        );
        settings.timeouts.usiok = std::time::Duration::from_millis(1000);
        settings.facts.flushes_usiok = flushes_usiok;
        let report = usicheck::scenario::runner::run_scenario(
            &scenario,
            "id-author",
            &settings,
            String::new(),
            &mut Default::default(),
        )
        .expect("engine starts");
        report
            .verdicts
            .iter()
            .find(|v| v.rule.as_str() == rule && v.outcome != usicheck::rules::Outcome::Pass)
            .map(|v| v.outcome)
    };
    use usicheck::rules::Outcome::Fail;
    assert_eq!(outcome(true, "USI-HANDSHAKE-004"), Some(Fail));
    assert_eq!(outcome(true, "USI-ROBUST-006"), None);
    // Without that evidence the engine may as well buffer its output.
    assert_eq!(outcome(false, "USI-ROBUST-006"), Some(Fail));
    assert_eq!(outcome(false, "USI-HANDSHAKE-004"), None);
}

/// A forbidden-move check (the repetition of 04-position/history-for-repetition) is not passed
/// by an illegal `bestmove`: avoiding the forbidden move that way shows nothing about the
/// history, so the check is not reached, and the move is the legality rules'.
#[test]
fn a_forbidden_move_avoided_by_an_illegal_one_is_not_reached() {
    let rules = rules_after(
        "04-position/history-for-repetition",
        &["ignore-history", "illegal-bestmove"],
    );
    let (outcome, reason) = &rules["USI-POSITION-009"];
    assert_eq!(outcome, "SKIP", "{reason}");
    assert!(reason.contains("the always-on checks'"), "{reason}");
    assert_eq!(rules["USI-BESTMOVE-002"].0, "FAIL", "{rules:?}");
    // With a legal reply the check is judged: the engine that ignores the history fails it.
    let (outcome, _) =
        &rules_after("04-position/history-for-repetition", &["ignore-history"])["USI-POSITION-009"];
    assert_eq!(outcome, "WARN");
}

/// A `bestmove` during `go infinite` before `stop` (USI-GO-008), read while a step waited for
/// the `readyok` of an `isready` sent during the search: the setup wait after `stop` is for a
/// reply that came already, and the steps after it are reached (a fuzz reproducer that went
/// past such a known finding reaches its own symptom), not SKIP after 3 s of waiting.
#[test]
fn a_reply_already_charged_before_stop_is_not_waited_for_again() {
    let scenario = "name: early bestmove
description: the search answers before stop, read while readyok is awaited
rules: [USI-READY-001]
steps:
  - handshake: {}
  - send: isready
  - expect: {readyok: true, within: T-READY}
  - send: position startpos
  - send: go infinite
  - sleep: 2000ms
  - send: isready
  - expect: {readyok: true, within: T-READY}
  - send: stop
  - expect: {bestmove: any, within: 3000ms}
  - send: isready
  - expect: {readyok: true, within: T-READY, rule: USI-READY-001}
";
    let path = std::env::temp_dir().join(format!("usicheck-early-{}.yaml", std::process::id()));
    std::fs::write(&path, scenario).expect("a temporary file");
    let output = Command::new(suite::USICHECK)
        .arg("run")
        .arg(&path)
        .args(["--simulate", "--format", "json", "--"])
        .args([suite::USICHECK, "engine", "--fault", "infinite-ends-early"])
        .output()
        .expect("usicheck runs");
    std::fs::remove_file(&path).ok();
    let report: Value = serde_json::from_slice(&output.stdout).expect("report.json on stdout");
    let run = &report["runs"][0];
    let early = run["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .find(|s| s["name"] == "early bestmove")
        .expect("the scenario ran");
    assert!(early["skipped"].is_null(), "{early}");
    assert!(early["failure"].is_null(), "{early}");
    let judged = |rule: &str| {
        run["verdicts"]
            .as_array()
            .expect("verdicts")
            .iter()
            .filter(|v| v["rule"] == rule && v["scenario"] == "early bestmove")
            .map(|v| v["outcome"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(judged("USI-GO-008"), ["FAIL"]);
    assert_eq!(judged("USI-READY-001"), ["PASS"]);
}

/// A `usiok` later than USI-HANDSHAKE-001's 2 s is still awaited (until T-USIOK): the warning
/// quotes it with its latency, the line that proves it, not "nothing within 2000 ms". One
/// inside the 2 s passes.
#[test]
fn a_late_usiok_is_quoted_with_its_latency() {
    let slow = rules_after("01-handshake/fast-usiok", &["slow-usiok"]);
    let (outcome, reason) = &slow["USI-HANDSHAKE-001"];
    assert_eq!(outcome, "WARN", "{slow:?}");
    assert!(
        reason.ends_with("expected `usiok` within 2000 ms; got `usiok` after 2500 ms"),
        "{reason}"
    );
    let inside = rules_after("01-handshake/fast-usiok", &["heavy-init-at-usi"]);
    assert_eq!(inside["USI-HANDSHAKE-001"].0, "PASS", "{inside:?}");
}
