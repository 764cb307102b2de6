//! Certifies a real engine from Debian (installed by `.ci/run`) with the bundled suite and
//! compares every FAIL and WARN rule with its expected list, tests/expected/<engine>.tsv.
//!
//! Each row is `rule<TAB>outcome<TAB>evidence<TAB>why`: the rule's worst verdict over the run
//! (`A|B` accepts either, for verdicts that depend on timing), a piece of text its reason
//! must contain (the engine line or behaviour that proves it; `A || B` accepts either, for a
//! deviation that shows one way or another depending on timing), and the deviation in words.
//! Every FAIL or WARN must be listed; a listed rule must get one of its outcomes. Skipped
//! with a message when the binary is absent, except in CI (`CI=true`).
#![allow(dead_code)] // each test crate uses its own subset

use super::suite;
use std::collections::BTreeMap;
use std::path::Path;
use usicheck::engine::EngineCommand;
use usicheck::report::badness;
use usicheck::rules::{Outcome, Profile};
use usicheck::scenario::runner::RunSettings;

/// One expected row.
struct Expected {
    outcomes: Vec<String>,
    evidence: Vec<String>,
}

fn expected(table: &str) -> BTreeMap<String, Expected> {
    table
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            assert!(
                cells.len() == 4 && cells.iter().all(|c| !c.trim().is_empty()),
                "expected rule, outcome, evidence and why: {line:?}"
            );
            let outcomes = cells[1].split('|').map(str::to_owned).collect();
            let row = Expected {
                outcomes,
                evidence: cells[2].split(" || ").map(str::to_owned).collect(),
            };
            (cells[0].to_owned(), row)
        })
        .collect()
}

/// Certifies `binary ARGS…` with `options` and compares the result with `table`.
pub fn certify_matches(binary: &str, args: &[&str], options: &[(&str, &str)], table: &str) {
    if !Path::new(binary).is_file() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{binary} is missing in CI (.ci/run installs it)"
        );
        eprintln!("skipped: {binary} not installed (see .ci/run)");
        return;
    }
    let mut engine = EngineCommand::new(binary);
    for arg in args {
        engine = engine.arg(*arg);
    }
    let mut settings = RunSettings::new(engine, Profile::Shogidokoro);
    for (name, value) in options {
        let option = ((*name).to_owned(), Some((*value).to_owned()));
        settings.options.0.push(option);
    }
    let reports = suite::run(&settings, &suite::bundled(), 2);
    // The worst verdict per rule, with the reason and scenario of that verdict.
    let mut worst: BTreeMap<String, (Outcome, String)> = BTreeMap::new();
    for report in &reports {
        for verdict in &report.verdicts {
            let reason = format!("{} [{}]", verdict.reason, report.name);
            let entry = worst
                .entry(verdict.rule.as_str().to_owned())
                .or_insert((verdict.outcome, reason.clone()));
            if badness(verdict.outcome) > badness(entry.0) {
                *entry = (verdict.outcome, reason);
            }
        }
    }
    let expected = expected(table);
    let mut mismatches = String::new();
    for (rule, (outcome, reason)) in &worst {
        let violation = matches!(outcome, Outcome::Fail | Outcome::Warn);
        match expected.get(rule) {
            None if violation => {
                mismatches.push_str(&format!("{rule}: {outcome}, not listed: {reason}\n"))
            }
            None => {}
            Some(row) if !row.outcomes.iter().any(|o| o == outcome.as_str()) => mismatches
                .push_str(&format!(
                    "{rule}: {outcome}, expected {}: {reason}\n",
                    row.outcomes.join("|")
                )),
            Some(row) if violation && !row.evidence.iter().any(|e| reason.contains(e)) => {
                mismatches.push_str(&format!(
                    "{rule}: evidence `{}` not in: {reason}\n",
                    row.evidence.join("` or `")
                ))
            }
            Some(_) => {}
        }
    }
    for (rule, row) in &expected {
        if !worst.contains_key(rule) && !row.outcomes.iter().any(|o| o == "-") {
            mismatches.push_str(&format!(
                "{rule}: not judged, expected {} (`-` accepts that)\n",
                row.outcomes.join("|")
            ));
        }
    }
    let table: String = worst
        .iter()
        .filter(|(_, (outcome, _))| matches!(outcome, Outcome::Fail | Outcome::Warn))
        .map(|(rule, (outcome, reason))| {
            format!("{rule}\t{outcome}\t{}\n", reason.replace(['\t', '\n'], " "))
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "{binary} verdicts changed:\n{mismatches}\nactual FAIL/WARN table:\n{table}"
    );
}
