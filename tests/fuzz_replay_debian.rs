//! Findings replay to their rule against real engines (issue 47's Done-when): per Debian
//! engine, a 60 s `usicheck fuzz` campaign with a fixed seed, and each finding's reproducer
//! run with `usicheck run FILE -- ENGINE`, as its replay command says. tests/fuzz_replay.rs
//! proves the same in simulated time against the reference engine's faults; here the engines'
//! own deviations, in real time. Skipped with a message when the engine is not installed,
//! except in CI (`CI=true`), as tests/real_engines does.
//!
//! Real time makes some symptoms come and go (a reply a few ms late, a search that happens to
//! end before a `gameover`). A reproducer must still point to the same rule whenever its
//! symptom recurs, so each replay is one of:
//!
//! - **agrees**: the run flags the finding's rule with the finding's outcome;
//! - **disagrees**: it does not, and the reproducer's own scenario charges (FAIL or WARN) a
//!   rule the run's pre-flight does not (what the engine shows in every session is not this
//!   finding's symptom) and that is no output-line rule (those the fuzzer notes and goes on
//!   past: findings of their own), while the finding's rule was not passed there: the
//!   symptom came back under another rule (printed with the verdict's reason);
//! - **not reproduced**: neither, or the reproducer's scenario judged the finding's rule and
//!   the engine passed it: the symptom did not recur (a race in real time went the other way,
//!   and what the engine did instead may be another of its deviations: gpsusi's `bestmove
//!   resign` in a mated `go infinite` comes before or after a `gameover` sent 12 ms later, and
//!   only after it does its next `go mate infinite` hang).
//!
//! A reproducer `usicheck run` refuses to load disagrees too (it replays to nothing).
//!
//! The slow tier runs them, one engine per CI run (about 12 minutes for the three, over CI's
//! budget): `USICHECK_REPLAY_TURN=0|1|2`, which .ci/run turns with the commit count as it turns
//! the real-time fault sweep's third, takes Fairy-Stockfish, Sjaak II or gpsusi; unset (by
//! hand), each test runs its engine.
//!
//! Each finding is replayed until a replay agrees, at most [`REPLAYS`] times. The test fails
//! on any disagreeing replay, and on a campaign none of whose findings agrees (a test that
//! reproduces nothing proves nothing); a finding never reproduced is printed, not failed.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const USICHECK: &str = env!("CARGO_BIN_EXE_usicheck");

/// Replays per finding at most (until one agrees).
const REPLAYS: usize = 3;

/// The output-line rules: the fuzzer notes them and the session goes on, so a reproducer of
/// another finding may show them too (src/fuzzer/oracle.rs: `Oracle::Output`).
fn output_rule(rule: &str) -> bool {
    use usicheck::fuzzer::oracle::Oracle;
    let rule = usicheck::rules::catalogue()
        .lookup(rule)
        .expect("a rule of the catalogue");
    Oracle::of(rule.rule_id) == Oracle::Output
}

/// How one replay went.
#[derive(Debug, PartialEq)]
enum Replay {
    Agrees,
    Disagrees(Vec<String>),
    NotReproduced,
}

/// `usicheck run` of `reproducer` against `engine` with `options`; the run's verdicts judged
/// against `expected` (`RULE OUTCOME`), as the module comment says.
fn replay(
    reproducer: &Path,
    name: &str,
    engine: &[&str],
    options: &[&str],
    expected: &str,
) -> Replay {
    let output = Command::new(USICHECK)
        .arg("run")
        .arg(reproducer)
        .args(options)
        .args(["--format", "json", "--"])
        .args(engine)
        .output()
        .expect("usicheck runs");
    // A reproducer `usicheck run` refuses (an invalid scenario) replays to nothing at all.
    let Ok(report) = serde_json::from_slice::<Value>(&output.stdout) else {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        return Replay::Disagrees(vec![format!("no report: {stderr}")]);
    };
    let rules = report["runs"][0]["rules"].as_array().expect("rules");
    let failing = |judged: &Value| matches!(judged["outcome"].as_str(), Some("FAIL" | "WARN"));
    let mut flagged = Vec::new();
    let mut different = Vec::new();
    let mut passed = false;
    for rule in rules {
        let id = rule["rule"].as_str().unwrap();
        let outcome = rule["outcome"].as_str().unwrap();
        flagged.push(format!("{id} {outcome}"));
        let judged = rule["judged_by"].as_array().expect("judged_by");
        // The first judgement by `scenario` that `outcome` accepts.
        let by = |scenario: &str, outcome: &dyn Fn(&Value) -> bool| {
            judged.iter().find(|j| {
                outcome(j)
                    && j["scenario"]
                        .as_str()
                        .is_some_and(|s| s.starts_with(scenario))
            })
        };
        if let Some(charge) = by(name, &failing)
            && by("pre-flight", &failing).is_none()
            && !output_rule(id)
        {
            let reason = charge["reason"].as_str().unwrap_or_default();
            different.push(format!("{id} {outcome}: {reason}"));
        }
        if expected.split(' ').next() == Some(id) {
            passed = by(name, &|j| j["outcome"] == "PASS").is_some();
        }
    }
    if flagged.iter().any(|f| f == expected) {
        Replay::Agrees
    } else if !different.is_empty() && !passed {
        Replay::Disagrees(different)
    } else {
        Replay::NotReproduced
    }
}

/// Whether this run takes the engine at `turn` (see the module comment).
fn takes(turn: usize) -> bool {
    let taken = std::env::var("USICHECK_REPLAY_TURN").ok();
    let taken = taken.and_then(|t| t.parse::<usize>().ok());
    taken.is_none_or(|taken| taken % 3 == turn)
}

/// A 60 s campaign (seed 1) against `engine` with `options`, and each finding replayed, when
/// this run takes the engine at `turn`.
fn findings_replay(turn: usize, engine: &[&str], options: &[&str]) {
    if !takes(turn) {
        eprintln!("skipped: USICHECK_REPLAY_TURN takes another engine this run");
        return;
    }
    if !Path::new(engine[0]).is_file() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{} is missing in CI (.ci/run installs it)",
            engine[0]
        );
        eprintln!("skipped: {} not installed (see .ci/run)", engine[0]);
        return;
    }
    let name = Path::new(engine[0]).file_name().unwrap().to_string_lossy();
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "usicheck-fuzz-replay-{name}-{}",
        std::process::id()
    ));
    let started = Instant::now();
    let output = Command::new(USICHECK)
        .args(["fuzz", "--time", "60s", "--seed", "1", "--format", "json"])
        .args(options)
        .arg("--report-dir")
        .arg(&dir)
        .arg("--out")
        .arg(dir.join("out"))
        .arg("--")
        .args(engine)
        .output()
        .expect("usicheck fuzz runs");
    let report: Value = serde_json::from_slice(&output.stdout).expect("report.json on stdout");
    let findings = report["findings"].as_array().expect("findings");
    eprintln!(
        "{name}: {} findings in {:.0} s",
        findings.len(),
        started.elapsed().as_secs_f64()
    );
    let (mut agreeing, mut wrong, mut unreproduced) = (0, Vec::new(), Vec::new());
    for finding in findings {
        let expected = format!(
            "{} {}",
            finding["rule"].as_str().unwrap(),
            finding["grade"].as_str().unwrap()
        );
        let reproducer = dir.join(finding["reproducer"].as_str().unwrap());
        let text = std::fs::read_to_string(&reproducer).expect("the reproducer");
        let scenario = text
            .lines()
            .find_map(|l| l.strip_prefix("name: "))
            .unwrap()
            .trim_matches('"')
            .to_owned();
        let mut tries = Vec::new();
        for _ in 0..REPLAYS {
            let at = Instant::now();
            let result = replay(&reproducer, &scenario, engine, options, &expected);
            eprintln!(
                "{name}: {} {expected}: {result:?} ({:.1} s)",
                finding["oracle"].as_str().unwrap(),
                at.elapsed().as_secs_f64()
            );
            let agrees = result == Replay::Agrees;
            tries.push(result);
            if agrees {
                break;
            }
        }
        if tries.contains(&Replay::Agrees) {
            agreeing += 1;
        }
        let other: Vec<&Replay> = tries
            .iter()
            .filter(|r| matches!(r, Replay::Disagrees(_)))
            .collect();
        if !other.is_empty() {
            wrong.push(format!(
                "{expected} ({}) replays as {other:?}",
                reproducer.display()
            ));
        } else if !tries.contains(&Replay::Agrees) {
            unreproduced.push(expected);
        }
    }
    eprintln!(
        "{name}: {} findings, {agreeing} agree, {} disagree, {} not reproduced {unreproduced:?}; {:.0} s in all",
        findings.len(),
        wrong.len(),
        unreproduced.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(wrong.is_empty(), "{name}:\n{}", wrong.join("\n"));
    assert!(
        findings.is_empty() || agreeing > 0,
        "{name}: no finding reproduced"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
#[ignore = "slow tier: a Debian engine in real time, about 4.5 min, CI's turn 0"]
fn fairy_stockfish_findings_replay_to_their_rule() {
    findings_replay(0, &["/usr/games/fairy-stockfish"], &[]);
}

#[test]
#[ignore = "slow tier: a Debian engine in real time, about 5 min, CI's turn 1"]
fn sjaakii_findings_replay_to_their_rule() {
    findings_replay(1, &["/usr/games/sjaakii", "-usi"], &[]);
}

#[test]
#[ignore = "slow tier: a Debian engine in real time, about 3 min, CI's turn 2"]
fn gpsusi_findings_replay_to_their_rule() {
    findings_replay(2, &["/usr/games/gpsusi"], &["--option", "BookDepth=0"]);
}
