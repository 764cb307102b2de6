//! Certifies a real engine from Debian (installed by `.ci/run`) with the bundled suite and
//! compares every FAIL and WARN rule with its expected list, tests/expected/<engine>.tsv.
//!
//! Each row is `rule<TAB>outcome<TAB>evidence<TAB>why`: the rule's worst verdict over the run
//! (`A|B` accepts either, for verdicts that depend on timing: the file's comments say which
//! race), a piece of text its reason must contain when it is FAIL, WARN or SKIP (the engine
//! line or behaviour that proves it, or why it was not reached; `A || B` accepts either, for a
//! deviation that shows one way or another depending on timing), and the deviation in words. Every FAIL or WARN must be
//! listed; a listed rule must get one of its outcomes. Skipped with a message when the binary
//! is absent, except in CI (`CI=true`).
//!
//! `.ci/run` certifies each engine once, as users do (`usicheck certify --report-dir
//! $USICHECK_CI_REPORTS/<engine> -- /usr/games/<engine> …`); the tests then read that run's
//! report.json instead of certifying the engine again.
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

/// The outcomes report.json names, to read them back.
const OUTCOMES: [Outcome; 5] = [
    Outcome::Pass,
    Outcome::Fail,
    Outcome::Warn,
    Outcome::Skip,
    Outcome::Info,
];

/// The worst verdict of each rule judged in a run, with the reasons of the verdicts that gave
/// it (`reason [scenario]`).
type Worst = BTreeMap<String, (Outcome, Vec<String>)>;

/// Certifies `binary ARGS…` with `options` (or reads the run `.ci/run` made) and compares the
/// result with `table`.
pub fn certify_matches(binary: &str, args: &[&str], options: &[(&str, &str)], table: &str) {
    if !Path::new(binary).is_file() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{binary} is missing in CI (.ci/run installs it)"
        );
        eprintln!("skipped: {binary} not installed (see .ci/run)");
        return;
    }
    let worst = match ci_report(binary, args, options) {
        Some(worst) => worst,
        None => certify(binary, args, options),
    };
    compare(binary, &worst, table);
}

/// The verdicts of `$USICHECK_CI_REPORTS/<engine>/report.json`, when `.ci/run` wrote it; it
/// must have certified the same command with the same options.
fn ci_report(binary: &str, args: &[&str], options: &[(&str, &str)]) -> Option<Worst> {
    let dir = std::env::var_os("USICHECK_CI_REPORTS")?;
    let name = Path::new(binary).file_name()?;
    let path = Path::new(&dir).join(name).join("report.json");
    let text = std::fs::read_to_string(&path).ok()?;
    let at = path.display();
    let report: serde_json::Value = serde_json::from_str(&text).expect("report.json is JSON");
    let run = &report["runs"][0];
    let argv: Vec<&str> = std::iter::once(binary)
        .chain(args.iter().copied())
        .collect();
    assert_eq!(
        run["engine"],
        serde_json::json!(argv),
        "{at}: another engine"
    );
    assert_eq!(run["profile"], "shogidokoro", "{at}: another profile");
    let set = run["options"].to_string();
    for (name, value) in options {
        assert!(
            set.contains(name) && set.contains(value),
            "{at}: options {set}"
        );
    }
    eprintln!("verdicts of {at}");
    let mut worst = Worst::new();
    for rule in run["rules"].as_array().expect("rules") {
        let outcome = OUTCOMES
            .into_iter()
            .find(|o| rule["outcome"] == o.as_str())
            .expect("an outcome");
        let reasons = rule["judged_by"]
            .as_array()
            .expect("judged_by")
            .iter()
            .filter(|judged| judged["outcome"] == outcome.as_str())
            .map(|judged| {
                let reason = judged["reason"].as_str().unwrap_or_default();
                format!(
                    "{reason} [{}]",
                    judged["scenario"].as_str().unwrap_or_default()
                )
            })
            .collect();
        worst.insert(
            rule["rule"].as_str().unwrap().to_owned(),
            (outcome, reasons),
        );
    }
    Some(worst)
}

/// Certifies `binary ARGS…` with `options` here, two scenarios at a time.
fn certify(binary: &str, args: &[&str], options: &[(&str, &str)]) -> Worst {
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
    let mut worst = Worst::new();
    for report in &reports {
        for verdict in &report.verdicts {
            let reason = format!("{} [{}]", verdict.reason, report.name);
            let entry = worst
                .entry(verdict.rule.as_str().to_owned())
                .or_insert((verdict.outcome, Vec::new()));
            if badness(verdict.outcome) > badness(entry.0) {
                *entry = (verdict.outcome, Vec::new());
            }
            if verdict.outcome == entry.0 {
                entry.1.push(reason);
            }
        }
    }
    worst
}

/// Compares the worst verdicts with the expected table; every rule's worst outcome is printed
/// (`--nocapture`), to see which way a race went.
fn compare(binary: &str, worst: &Worst, table: &str) {
    let expected = expected(table);
    let mut mismatches = String::new();
    for (rule, (outcome, reasons)) in worst {
        let violation = matches!(outcome, Outcome::Fail | Outcome::Warn);
        let reason = reasons.first().map_or("", String::as_str);
        if expected.get(rule).is_some_and(|row| row.outcomes.len() > 1) {
            eprintln!("{rule}: {outcome} (a row of several outcomes): {reason}");
        }
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
            // A listed SKIP is "not reached" for the reason the row gives, like a violation.
            Some(row)
                if (violation || *outcome == Outcome::Skip)
                    && !reasons
                        .iter()
                        .any(|r| row.evidence.iter().any(|e| r.contains(e))) =>
            {
                mismatches.push_str(&format!(
                    "{rule}: evidence `{}` not in: {}\n",
                    row.evidence.join("` or `"),
                    reasons.join(" / ")
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
        .map(|(rule, (outcome, reasons))| {
            let reason = reasons.first().map_or("", String::as_str);
            format!("{rule}\t{outcome}\t{}\n", reason.replace(['\t', '\n'], " "))
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "{binary} verdicts changed:\n{mismatches}\nactual FAIL/WARN table:\n{table}"
    );
}
