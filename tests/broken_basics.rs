//! Engines whose basics are broken (a search never answered, or answered in the wrong form)
//! get one verdict per cause: `usicheck certify` of each such fault of the reference engine
//! flags exactly the rules the fault names (with the gap table's explained corrections), alone
//! and paired with a narrow fault, whose rules are flagged too unless the broad fault makes
//! their checks unreachable (then SKIP). The engine runs simulated (`--simulate`): the same
//! verdicts every run, whatever the machine's load.

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeSet;
use usicheck::refengine::fault_gaps::gap_of;
use usicheck::refengine::faults::Fault;

/// `usicheck certify --simulate` of the reference engine with `faults`: the FAIL and WARN
/// rules, and every rule's outcome.
fn certify(faults: &[&str]) -> (BTreeSet<String>, Vec<(String, String)>) {
    certify_in(&["--simulate"], faults)
}

/// `usicheck certify ARGS` of the reference engine with `faults`, as [`certify`].
fn certify_in(args: &[&str], faults: &[&str]) -> (BTreeSet<String>, Vec<(String, String)>) {
    let usicheck = env!("CARGO_BIN_EXE_usicheck");
    let mut command = Command::new(usicheck);
    command.arg("certify").args(args);
    command.args(["--format", "json", "--", usicheck, "engine"]);
    for fault in faults {
        command.args(["--fault", fault]);
    }
    let output = command.output().expect("usicheck runs");
    let report: Value = serde_json::from_slice(&output.stdout).expect("report.json on stdout");
    let outcomes: Vec<(String, String)> = report["runs"][0]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|rule| {
            (
                rule["rule"].as_str().unwrap().to_owned(),
                rule["outcome"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let flagged = outcomes
        .iter()
        .filter(|(_, outcome)| outcome == "FAIL" || outcome == "WARN")
        .map(|(rule, _)| rule.clone())
        .collect();
    (flagged, outcomes)
}

/// The rules `fault` is expected to flag: those it names, with the gap table's corrections
/// (src/refengine/fault_gaps.tsv: a second violation it really commits, a check no scenario
/// reaches).
fn named(fault: &str) -> BTreeSet<String> {
    let fault: Fault = fault.parse().expect("a fault of the catalogue");
    let gap = gap_of(fault);
    let extra = gap.into_iter().flat_map(|g| g.extra.iter());
    fault
        .rules()
        .iter()
        .map(|r| r.as_str().to_owned())
        .chain(extra.map(|r| r.as_str().to_owned()))
        .filter(|r| !gap.is_some_and(|g| g.missed.iter().any(|m| m.as_str() == r)))
        .collect()
}

/// The faults that break a basic every later check depends on; `broken-basics` breaks four
/// at once (`isready`, `byoyomi`, the SFEN board, an illegal move list).
const BROKEN_BASICS: [&str; 7] = [
    "checkmate-for-go",
    "reject-byoyomi",
    "stale-after-rejected-sfen",
    "mirrored-pv",
    "hang-on-position",
    "no-readyok",
    "broken-basics",
];

/// What `broken-basics` must be charged with: one rule per broken basic, nothing else.
const FOUR_BASICS: [&str; 4] = [
    "USI-READY-001",
    "USI-GO-004",
    "USI-POSITION-001",
    "USI-POSITION-011",
];

#[test]
fn four_broken_basics_are_charged_each_once_to_its_rule() {
    let (flagged, outcomes) = certify(&["broken-basics"]);
    assert_eq!(flagged, BTreeSet::from(FOUR_BASICS.map(str::to_owned)));
    assert_eq!(named("broken-basics"), flagged, "no gap-table entry");
    // A check that needs a search under `byoyomi` answered is not reached, not failed: the
    // colours check searches with `byoyomi 0`.
    let byoyomi = outcomes.iter().find(|(rule, _)| rule == "USI-GO-003");
    assert_eq!(
        byoyomi.map(|(_, o)| o.as_str()),
        Some("SKIP"),
        "{outcomes:?}"
    );
}

#[test]
#[ignore = "slow tier: a certify of the reference engine in real time"]
fn four_broken_basics_are_charged_each_once_as_a_process() {
    let (flagged, _) = certify_in(&["--jobs", "2"], &["broken-basics"]);
    assert_eq!(flagged, BTreeSet::from(FOUR_BASICS.map(str::to_owned)));
}

#[test]
fn each_broken_basic_is_charged_once_to_its_own_rule() {
    let mut wrong = String::new();
    for fault in BROKEN_BASICS {
        let (flagged, _) = certify(&[fault]);
        if flagged != named(fault) {
            wrong.push_str(&format!(
                "{fault}: flagged {flagged:?}, names {:?}\n",
                named(fault)
            ));
        }
    }
    // MultiPV lines out of order break no rule.
    let (flagged, _) = certify(&["multipv-out-of-order"]);
    if !flagged.is_empty() {
        wrong.push_str(&format!("multipv-out-of-order: flagged {flagged:?}\n"));
    }
    assert!(wrong.is_empty(), "{wrong}");
}

/// (broad fault, narrow fault, the narrow fault's rules the broad one makes unreachable, why).
type Pair = (
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static str,
);

const PAIRS: [Pair; 12] = [
    (
        "checkmate-for-go",
        "swapped-clocks",
        &["USI-GO-003"],
        "the colour check needs a `bestmove`, and no search gets one",
    ),
    (
        "checkmate-for-go",
        "carriage-return-kept",
        &[],
        "CR LF input is checked on `readyok` before the search",
    ),
    (
        "checkmate-for-go",
        "no-id-author",
        &[],
        "the handshake needs no search",
    ),
    (
        "reject-byoyomi",
        "swapped-clocks",
        &["USI-GO-003"],
        "the colour check searches under byoyomi",
    ),
    (
        "reject-byoyomi",
        "carriage-return-kept",
        &[],
        "CR LF input is checked on `readyok` before the search",
    ),
    (
        "reject-byoyomi",
        "double-increment",
        &["USI-GO-006"],
        "a search with an increment is answered; the one with byoyomi and an increment, which \
         double-increment overruns (its gap entry), is rejected",
    ),
    (
        "stale-after-rejected-sfen",
        "swapped-clocks",
        &[],
        "only a rejected tsume position is answered from the one before",
    ),
    (
        "mirrored-pv",
        "bestmove-extra-tokens",
        &[],
        "the pv is judged apart from the bestmove",
    ),
    ("mirrored-pv", "double-readyok", &[], "independent"),
    (
        "hang-on-position",
        "pv-without-time",
        &[],
        "only one position is never answered",
    ),
    (
        "hang-on-position",
        "crash-on-unknown-command",
        &[],
        "independent",
    ),
    (
        "no-readyok",
        "readyok-after-search",
        &["USI-READY-006"],
        "isready during a search needs a `readyok`, and none ever comes",
    ),
];

#[test]
fn a_broken_basic_and_a_narrow_fault_are_charged_each_once() {
    let mut wrong = String::new();
    for (broad, narrow, unreachable, why) in PAIRS {
        let (flagged, outcomes) = certify(&[broad, narrow]);
        let expected: BTreeSet<String> = named(broad)
            .into_iter()
            .chain(named(narrow))
            .filter(|rule| !unreachable.contains(&rule.as_str()))
            .collect();
        if flagged != expected {
            wrong.push_str(&format!(
                "{broad} + {narrow}: flagged {flagged:?}, expected {expected:?} ({why})\n"
            ));
        }
        for rule in unreachable {
            let outcome = outcomes.iter().find(|(r, _)| r == rule).map(|(_, o)| o);
            if outcome.is_none_or(|o| o != "SKIP") {
                wrong.push_str(&format!(
                    "{broad} + {narrow}: {rule} is {outcome:?}, not SKIP ({why})\n"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong}");
}
