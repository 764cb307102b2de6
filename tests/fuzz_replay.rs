//! Findings replay to their rule: a fuzz campaign against the reference engine with one fault,
//! in simulated time, and each finding's reproducer run with `usicheck run --simulate` flags
//! the finding's rule with the finding's outcome. The fuzzer and the scenario runner blame
//! alike (issue 47): a reproducer that replays to another rule sends its reader the wrong way.

mod suite;

use usicheck::fuzzer::{self, Config};

/// Faults across the catalogue's sections whose campaigns find something in a few sessions:
/// deaths (at `usi`, on a setting, a `gameover`, a second game, an unknown command, a bad
/// board), silences, clocks, illegal and malformed moves, `info` grammar, mate replies, and
/// output hygiene; and symptoms whose cause the fuzzer works out as the runner does: work at
/// `usinewgame`, an `info` line out of place after a `gameover`, `isready` ignored after
/// one, a `usiok` held in an unflushed buffer.
const FAULTS: &[&str] = &[
    "no-id-name",
    "no-usiok",
    "option-without-type",
    "button-with-default",
    "string-without-default",
    "crash-on-usi-ponder",
    "no-readyok",
    "broken-basics",
    "mirrored-sfen",
    "at-sign-drops",
    "exit-on-bad-sfen",
    "double-bestmove",
    "overrun-byoyomi",
    "occasional-late-byoyomi",
    "mated-infinite-resigns",
    "illegal-ponder",
    "ponderhit-ignored",
    "self-ponder",
    "stop-while-idle-bestmove",
    "illegal-bestmove",
    "ponder-after-resign",
    "pv-without-time",
    "fractional-score",
    "pv-not-last",
    "exotic-info-tokens",
    "double-checkmate",
    "mate-stop-bestmove",
    "crash-on-gameover-draw",
    "second-game-crash",
    "resigns-after-gameover",
    "gameover-keeps-searching",
    "ignore-quit",
    "crash-on-unknown-command",
    "unknown-command-reply",
    "chatty-stdout",
    "non-ascii-option-name",
    "pass-bestmove",
    "heavy-newgame",
    "search-on-position",
    "info-while-idle",
    "deaf-after-gameover",
    "buffered-output",
];

/// Sessions per campaign: enough for every fault above to be found.
const RUNS: u64 = 8;

#[test]
fn every_finding_replays_to_its_rule_and_outcome() {
    let mut wrong = Vec::new();
    for &fault in FAULTS {
        let mut config = Config::new(suite::reference_engine(&[fault]));
        config.runs = Some(RUNS);
        let summary = fuzzer::run(&config, &|_| {}).expect("the simulated engine starts");
        if summary.findings.is_empty() {
            wrong.push(format!("{fault}: no finding in {RUNS} sessions"));
        }
        for finding in &summary.findings {
            let outcome = finding.violation.outcome.expect("graded under the profile");
            let expected = format!("{} {}", finding.violation.rule.as_str(), outcome.as_str());
            let flagged = suite::flagged_by_run(&finding.scenario_yaml, fault);
            if !flagged.contains(&expected) {
                wrong.push(format!(
                    "{fault}: the finding {expected} replays as {flagged:?}\n{}",
                    finding.scenario_yaml
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
