//! The proof that every check can fail, through `usicheck selftest` (what users run too),
//! with the reference engine in simulated time (in process, no real second spent waiting,
//! the same verdicts every run): every fault of `usicheck engine --list-faults` must make each
//! rule it names fail in the bundled scenarios that check the rule, and the clean engine must
//! pass them; every fault against the whole suite must flag exactly what the committed gap
//! table (src/refengine/fault_gaps.tsv) says; and a fixed sample of 200 fault pairs must flag
//! what their two faults flag alone, less what one keeps from being checked. A fixed sample of
//! faults runs the whole suite as processes in real time too (`--real`: what only a process
//! shows); every pair, and every fault in real time, are ignored tests.
use assert_cmd::Command;
use std::sync::Mutex;
use usicheck::refengine::faults::Fault;

/// One self-test at a time: each already keeps the cores busy, and a loaded machine makes the
/// clean engine's replies late.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn selftest(args: &[&str]) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let output = Command::cargo_bin("usicheck")
        .unwrap()
        .arg("selftest")
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "usicheck selftest {}: exit {:?}\n{stdout}\n{}",
        args.join(" "),
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("faults"),
        "the summary is printed:\n{stdout}"
    );
}

#[test]
fn every_fault_fails_the_rules_it_names_and_the_clean_engine_passes() {
    selftest(&[]);
}

/// The faults the default run sweeps through the whole suite in real time, a fixed list (the same commit
/// always tests the same faults; `USICHECK_FAULTS=a,b` chooses others): a hang (its timeouts
/// count), two broken basics the pre-flight's facts must contain, and the quality fault certify
/// must pass.
const SAMPLE: [&str; 4] = [
    "hang-on-position",
    "checkmate-for-go",
    "reject-byoyomi",
    "ignore-byoyomi",
];

fn sample() -> Vec<String> {
    match std::env::var("USICHECK_FAULTS") {
        Ok(list) => list.split(',').map(str::to_owned).collect(),
        Err(_) => SAMPLE.iter().map(|f| (*f).to_owned()).collect(),
    }
}

#[test]
fn the_sample_is_made_of_faults() {
    for name in SAMPLE {
        assert!(
            Fault::ALL.iter().any(|f| f.name() == name),
            "{name} is not a fault"
        );
    }
}

#[test]
fn every_fault_and_a_sample_of_pairs_flag_exactly_what_the_gap_table_says() {
    selftest(&["--exact", "--pairs", "200", "--seed", "1"]);
}

#[test]
fn a_fixed_sample_flags_exactly_what_the_gap_table_says_in_real_time() {
    let faults = sample();
    eprintln!("swept faults: {}", faults.join(", "));
    let mut args = vec!["--exact", "--real"];
    for fault in &faults {
        args.extend(["--fault", fault.as_str()]);
    }
    selftest(&args);
}

#[test]
#[ignore = "runs the whole suite once per pair of faults (about 13,000 pairs: hours)"]
fn every_pair_of_faults_flags_what_its_faults_flag_alone() {
    selftest(&["--exact", "--pairs", "all"]);
}

#[test]
#[ignore = "runs the whole suite once per fault as processes (about half an hour on 2 cores)"]
fn every_fault_flags_exactly_what_the_gap_table_says_in_real_time() {
    selftest(&["--exact", "--real"]);
}
