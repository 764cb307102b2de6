//! The proof that every check can fail, through `usicheck selftest` (what users run too):
//! every fault of `usicheck engine --list-faults` must make each rule it names fail in the
//! bundled scenarios that check the rule, and the clean engine must pass them; a rotating
//! sample of faults runs the whole suite and must flag exactly what the committed gap table
//! (src/refengine/fault_gaps.tsv) says. The whole exact sweep takes about half an hour, so it
//! is `#[ignore]`d; `usicheck selftest --exact --write src/refengine/fault_gaps.tsv`
//! regenerates the table.

use assert_cmd::Command;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};
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

/// How many faults the default run sweeps through the whole suite.
const SAMPLE: usize = 2;

/// `SAMPLE` faults, a different pair each day (`USICHECK_FAULTS=a,b` to choose).
fn sample() -> Vec<String> {
    if let Ok(list) = std::env::var("USICHECK_FAULTS") {
        return list.split(',').map(str::to_owned).collect();
    }
    let day = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        / 86_400;
    let stride = Fault::ALL.len() / SAMPLE;
    (0..SAMPLE)
        .map(|i| {
            let index = (day as usize + i * stride) % Fault::ALL.len();
            Fault::ALL[index].name().to_owned()
        })
        .collect()
}

#[test]
fn a_rotating_sample_flags_exactly_what_the_gap_table_says() {
    let faults = sample();
    eprintln!("sampled faults: {}", faults.join(", "));
    let mut args = vec!["--exact"];
    for fault in &faults {
        args.extend(["--fault", fault.as_str()]);
    }
    selftest(&args);
}

#[test]
#[ignore = "runs the whole suite once per fault (about half an hour on 2 cores)"]
fn every_fault_flags_exactly_what_the_gap_table_says() {
    selftest(&["--exact"]);
}
