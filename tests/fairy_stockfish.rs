//! Certifies Debian's `fairy-stockfish` (installed by `.ci/run`) and compares every non-PASS
//! verdict with tests/expected/fairy-stockfish.tsv (rule, outcome, and the transcript line or
//! failed expectation that proves it). Skipped with a message when the binary is absent,
//! except in CI (`CI=true`), where its absence is a failure.

mod suite;

use std::collections::BTreeMap;
use std::path::Path;
use usicheck::engine::EngineCommand;
use usicheck::report::badness;
use usicheck::rules::{Outcome, Profile};
use usicheck::scenario::runner::RunSettings;

const BINARY: &str = "/usr/games/fairy-stockfish";
const EXPECTED: &str = include_str!("expected/fairy-stockfish.tsv");

/// (rule → outcome) from the expected list; `#` lines are comments.
fn expected() -> BTreeMap<String, String> {
    EXPECTED
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut cells = line.split('\t');
            let rule = cells.next().expect("rule").to_owned();
            let outcome = cells.next().expect("outcome").to_owned();
            assert!(
                cells.next().is_some_and(|e| !e.is_empty()),
                "{rule}: evidence missing"
            );
            (rule, outcome)
        })
        .collect()
}

#[test]
fn fairy_stockfish_verdicts_match_the_expected_list() {
    if !Path::new(BINARY).is_file() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{BINARY} is missing in CI (.ci/run installs the fairy-stockfish package)"
        );
        eprintln!("skipped: {BINARY} not installed (apt-get install fairy-stockfish)");
        return;
    }
    let settings = RunSettings::new(EngineCommand::new(BINARY), Profile::Shogidokoro);
    let reports = suite::run(&settings, &suite::bundled(), 2);
    // The worst verdict per rule, with the reason of that verdict.
    let mut worst: BTreeMap<String, (Outcome, String)> = BTreeMap::new();
    for report in &reports {
        for verdict in &report.verdicts {
            let entry = worst
                .entry(verdict.rule.as_str().to_owned())
                .or_insert((verdict.outcome, verdict.reason.clone()));
            if badness(verdict.outcome) > badness(entry.0) {
                *entry = (verdict.outcome, verdict.reason.clone());
            }
        }
    }
    let expected = expected();
    let mut mismatches = String::new();
    for (rule, (outcome, reason)) in &worst {
        let accepted = expected.get(rule).map_or("PASS", String::as_str);
        if !accepted.split('|').any(|o| o == outcome.as_str()) {
            mismatches.push_str(&format!(
                "{rule}: {outcome}, expected {accepted}: {reason}\n"
            ));
        }
    }
    for (rule, accepted) in &expected {
        let judged_pass = !worst.contains_key(rule) && accepted.split('|').any(|o| o == "PASS");
        if !worst.contains_key(rule) && !judged_pass {
            mismatches.push_str(&format!("{rule}: not judged, expected {accepted}\n"));
        }
    }
    let table: String = worst
        .iter()
        .filter(|(_, (outcome, _))| *outcome != Outcome::Pass)
        .map(|(rule, (outcome, reason))| {
            format!("{rule}\t{outcome}\t{}\n", reason.replace(['\t', '\n'], " "))
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "fairy-stockfish verdicts changed:\n{mismatches}\nactual non-PASS table:\n{table}"
    );
}
