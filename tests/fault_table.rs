//! The fault table: every fault of `usicheck engine --list-faults` must make certify flag
//! each rule the fault names (recall) and no other rule (precision). Where the suite cannot
//! (yet) tell, the difference is written down with the reason in `FAULT_GAPS`
//! (src/refengine/fault_gaps.rs), and the test checks those entries too, so a gap that
//! closes (or a new one) is noticed.
//!
//! The full table takes minutes, so it is `#[ignore]`d; the default run checks a sample.
//! src/refengine/fault_gaps.rs comes from the sweep (it prints one line per fault, with the
//! rules flagged only by missed deadlines apart: those are the machine's load, not blame, and
//! are not counted).

mod suite;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use usicheck::rules::{Profile, RuleId};
use usicheck::scenario::runner::RunSettings;

use usicheck::refengine::fault_gaps::{FAULT_GAPS, FaultGap};

/// One fault: its named rules and what the suite flagged.
struct Outcome {
    fault: String,
    named: BTreeSet<RuleId>,
    flagged: BTreeSet<RuleId>,
    /// Rules flagged only by missed deadlines, which a loaded machine can cause.
    deadline_only: BTreeSet<RuleId>,
    details: String,
}

fn list_faults() -> Vec<(String, BTreeSet<RuleId>)> {
    let output = std::process::Command::new(suite::USICHECK)
        .args(["engine", "--list-faults"])
        .output()
        .expect("usicheck engine --list-faults runs");
    String::from_utf8(output.stdout)
        .expect("UTF-8 fault list")
        .lines()
        .map(|line| {
            let mut cells = line.split('\t');
            let name = cells.next().expect("name").to_owned();
            let rules = cells
                .next()
                .expect("rules")
                .split(',')
                .map(|id| id.parse().expect("fault rules are catalogue IDs"))
                .collect();
            (name, rules)
        })
        .collect()
}

/// Runs the whole suite (under `usi2`, which applies every rule) against each fault.
fn sweep(faults: &[(String, BTreeSet<RuleId>)], parallel: usize) -> Vec<Outcome> {
    let scenarios = suite::bundled();
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..parallel {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some((fault, named)) = faults.get(index) else {
                        break;
                    };
                    let mut reports = Vec::new();
                    for profile in [Profile::Usi2, Profile::Usi1] {
                        let mut settings =
                            RunSettings::new(suite::reference_engine(&[fault]), profile);
                        // The reference engine answers in milliseconds; short waits keep
                        // faults that never answer (no-usiok, no-readyok, ignore-quit) from
                        // costing the full §0.3 timeouts in every scenario.
                        settings.timeouts.usiok = Duration::from_secs(5);
                        settings.timeouts.ready_silence = Duration::from_secs(3);
                        settings.timeouts.quit = Duration::from_secs(3);
                        let only_here: Vec<_> = scenarios
                            .iter()
                            .filter(|(_, s)| suite::widest_profile(s) == profile)
                            .cloned()
                            .collect();
                        reports.extend(suite::run(&settings, &only_here, 2));
                    }
                    let outcome = Outcome {
                        fault: fault.clone(),
                        named: named.clone(),
                        flagged: suite::violated(&reports),
                        deadline_only: suite::violated_only_by_deadlines(&reports),
                        details: suite::describe_violations(&reports),
                    };
                    // Progress as it happens: the full sweep takes minutes.
                    eprintln!(
                        "{}\tnamed [{}]\tflagged [{}]\tdeadlines only [{}]\n{}",
                        outcome.fault,
                        join(&outcome.named),
                        join(&outcome.flagged),
                        join(&outcome.deadline_only),
                        outcome.details
                    );
                    results.lock().unwrap().push(outcome);
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.fault.cmp(&b.fault));
    results
}

fn ids(list: &[&str]) -> BTreeSet<RuleId> {
    list.iter()
        .map(|id| id.parse().expect("catalogue ID"))
        .collect()
}

fn join(set: &BTreeSet<RuleId>) -> String {
    set.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(",")
}

/// Compares each fault with its expectation; returns the mismatches. With `tolerate_load`,
/// extra rules flagged only by missed deadlines are not counted (the sample runs while other
/// work loads the machine; the full sweep counts them).
fn check(outcomes: &[Outcome], tolerate_load: bool) -> String {
    let expected: BTreeMap<&str, &FaultGap> = FAULT_GAPS.iter().map(|e| (e.fault, e)).collect();
    let mut problems = String::new();
    for outcome in outcomes {
        let missed: BTreeSet<RuleId> = outcome
            .named
            .difference(&outcome.flagged)
            .copied()
            .collect();
        let extra: BTreeSet<RuleId> = outcome
            .flagged
            .difference(&outcome.named)
            .filter(|r| !(tolerate_load && outcome.deadline_only.contains(r)))
            .copied()
            .collect();
        let (want_missed, want_extra) = expected
            .get(outcome.fault.as_str())
            .map_or((BTreeSet::new(), BTreeSet::new()), |e| {
                (ids(e.missed), ids(e.extra))
            });
        if missed != want_missed || extra != want_extra {
            problems.push_str(&format!(
                "{}: missed [{}] (expected [{}]), extra [{}] (expected [{}])\n{}\n",
                outcome.fault,
                join(&missed),
                join(&want_missed),
                join(&extra),
                join(&want_extra),
                outcome.details
            ));
        }
    }
    problems
}

/// A sample small enough for the default test run (one fault at a time: heavy parallelism
/// makes timed steps miss their deadlines on a loaded machine).
const SAMPLE: &[&str] = &["no-id-name"];

#[test]
fn sampled_faults_fail_exactly_their_rules() {
    let faults: Vec<_> = list_faults()
        .into_iter()
        .filter(|(name, _)| SAMPLE.contains(&name.as_str()))
        .collect();
    assert_eq!(faults.len(), SAMPLE.len(), "every sampled fault exists");
    let problems = check(&sweep(&faults, 1), true);
    assert!(problems.is_empty(), "{problems}");
}

#[test]
#[ignore = "runs the whole suite once per fault (several minutes)"]
fn every_fault_fails_exactly_its_rules() {
    // `USICHECK_FAULTS=a,b` limits the sweep while working on a few faults.
    let only = std::env::var("USICHECK_FAULTS").ok();
    let faults: Vec<_> = list_faults()
        .into_iter()
        .filter(|(name, _)| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|f| f == name))
        })
        .collect();
    // `USICHECK_SWEEP_JOBS` faults at a time (each runs its suite with two engines).
    let parallel = std::env::var("USICHECK_SWEEP_JOBS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let outcomes = sweep(&faults, parallel);
    let proven = outcomes
        .iter()
        .filter(|o| o.named.iter().all(|r| o.flagged.contains(r)) && o.flagged.is_subset(&o.named))
        .count();
    println!("{proven} of {} faults proven exactly", outcomes.len());
    for outcome in &outcomes {
        println!(
            "{}\tnamed [{}]\tflagged [{}]",
            outcome.fault,
            join(&outcome.named),
            join(&outcome.flagged)
        );
    }
    let stale: Vec<&str> = FAULT_GAPS
        .iter()
        .map(|e| e.fault)
        .filter(|f| only.is_none() && !outcomes.iter().any(|o| o.fault == *f))
        .collect();
    assert!(
        stale.is_empty(),
        "expectations for unknown faults: {stale:?}"
    );
    // Extra rules flagged only by missed deadlines are load, not blame: printed above
    // ("deadlines only"), not counted, as in the sample.
    let problems = check(&outcomes, true);
    assert!(problems.is_empty(), "{problems}");
}
