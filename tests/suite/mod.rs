//! Running the bundled suite in-process (the library the `certify` command uses), for the
//! certification and fault-table tests.
#![allow(dead_code)] // each test crate uses its own subset

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use usicheck::engine::EngineCommand;
use usicheck::report::ScenarioReport;
use usicheck::rules::{Outcome, Profile, RuleId};
use usicheck::scenario::runner::{RunSettings, run_scenario};
use usicheck::scenario::{BUNDLED, Scenario, load_str};

/// The usicheck binary under test.
pub const USICHECK: &str = env!("CARGO_BIN_EXE_usicheck");

/// The reference engine with the given faults.
pub fn reference_engine(faults: &[&str]) -> EngineCommand {
    let mut command = EngineCommand::new(USICHECK).arg("engine");
    for fault in faults {
        command = command.arg("--fault").arg(*fault);
    }
    command
}

/// Every bundled scenario with its name.
pub fn bundled() -> Vec<(String, Scenario)> {
    BUNDLED
        .iter()
        .map(|(name, yaml)| {
            (
                (*name).to_owned(),
                load_str(name, yaml).expect("bundled scenarios load"),
            )
        })
        .collect()
}

/// Runs `scenarios` that apply under `settings`, `jobs` at a time, in plan order.
pub fn run(
    settings: &RunSettings,
    scenarios: &[(String, Scenario)],
    jobs: usize,
) -> Vec<ScenarioReport> {
    let planned: Vec<&(String, Scenario)> = scenarios
        .iter()
        .filter(|(_, s)| settings.not_applicable(s).is_none())
        .collect();
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some((name, scenario)) = planned.get(index) else {
                        break;
                    };
                    let report =
                        run_scenario(scenario, name, settings, format!("usicheck run {name}"))
                            .expect("the engine starts");
                    results.lock().unwrap().push((index, report));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, report)| report).collect()
}

/// Violations the reference engine is known to commit, as (rule, scenario, evidence). The
/// certification test fails when one disappears, so the list stays honest; the fault table
/// does not count them against a fault. Empty: the reference engine has no known deviation.
pub const KNOWN_REFERENCE_DEVIATIONS: &[(&str, &str, &str)] = &[];

fn known_reference_deviation(rule: RuleId, file: &str) -> bool {
    KNOWN_REFERENCE_DEVIATIONS
        .iter()
        .any(|(r, f, _)| rule.as_str() == *r && file == *f)
}

/// A violation verdict: FAIL, WARN or INFO.
pub fn is_violation(outcome: Outcome) -> bool {
    matches!(outcome, Outcome::Fail | Outcome::Warn | Outcome::Info)
}

/// The rules with a violation verdict in any report, the reference engine's known deviations
/// aside.
pub fn violated(reports: &[ScenarioReport]) -> BTreeSet<RuleId> {
    reports
        .iter()
        .flat_map(|r| r.verdicts.iter().map(move |v| (r, v)))
        .filter(|(r, v)| is_violation(v.outcome) && !known_reference_deviation(v.rule, &r.file))
        .map(|(_, v)| v.rule)
        .collect()
}

/// The rules whose every violation is a missed deadline ("nothing matching within", or a
/// reply "… ms after the deadline").
pub fn violated_only_by_deadlines(reports: &[ScenarioReport]) -> BTreeSet<RuleId> {
    let all = violated(reports);
    let other: BTreeSet<RuleId> = reports
        .iter()
        .flat_map(|r| r.verdicts.iter().map(move |v| (r, v)))
        .filter(|(r, v)| {
            is_violation(v.outcome)
                && !known_reference_deviation(v.rule, &r.file)
                && !v.reason.contains("nothing matching within")
                && !v.reason.contains("ms after the deadline")
        })
        .map(|(_, v)| v.rule)
        .collect();
    all.difference(&other).copied().collect()
}

/// Each violation as `RULE OUTCOME scenario: reason`, for assertion messages.
pub fn describe_violations(reports: &[ScenarioReport]) -> String {
    let mut out = String::new();
    for report in reports {
        for verdict in report.verdicts.iter().filter(|v| is_violation(v.outcome)) {
            out.push_str(&format!(
                "{} {} {}: {}\n",
                verdict.rule, verdict.outcome, report.name, verdict.reason
            ));
        }
    }
    out
}

/// The profile a scenario is judged under when a test runs each scenario once: `usi2` (which
/// applies every rule) when it can, else the first profile the scenario lists.
pub fn widest_profile(scenario: &Scenario) -> Profile {
    if scenario.applies_to(Profile::Usi2) {
        Profile::Usi2
    } else {
        scenario.profiles[0]
    }
}
