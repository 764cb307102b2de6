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
//! - **agrees**: the reproducer's scenario (or the run's pre-flight) flags the finding's rule
//!   with the finding's outcome;
//! - **disagrees**: it does not, and the reproducer's own scenario charges (FAIL or WARN) a
//!   rule the run's pre-flight does not (what the engine shows in every session is not this
//!   finding's symptom) and that is no output-line rule (those the fuzzer notes and goes on
//!   past: findings of their own), while the finding's rule was not passed there: the
//!   symptom came back under another rule (printed with the verdict's reason);
//! - **preempted**: the finding's rule was not reached, because another reply than the one
//!   the finding quotes failed first under another rule: the finding's reply never came (Sjaak
//!   II rejects a legal move of a `position` now and then, and its search of what it holds
//!   instead answers an illegal best move in one run, a legal one with an illegal ponder move
//!   in the next). The very reply the finding quotes, charged to another rule, disagrees;
//! - **not reproduced**: none of these, or the reproducer's scenario judged the finding's rule
//!   and the engine passed it: the symptom did not recur (a race in real time went the other
//!   way, and what the engine did instead may be another of its deviations: gpsusi's `bestmove
//!   resign` in a mated `go infinite` comes before or after a `gameover` sent 12 ms later, and
//!   only after it does its next `go mate infinite` hang).
//!
//! A reproducer `usicheck run` refuses to load disagrees too (it replays to nothing).
//!
//! The campaign's reproducers are replayed together first, in one `usicheck run` of them all,
//! one engine process at a time and a process per scenario (`--jobs 1 --fresh-processes`):
//! each scenario runs as its own replay command runs it, and the engine's pre-flight (6–17 s
//! for an engine that ignores `stop` in `go infinite`) is paid once, not per finding. Each
//! finding that does not agree there is replayed alone, as its replay command says, until a
//! replay agrees, [`REPLAYS`] replays in all at most. The test fails on any disagreeing
//! replay, and on a campaign none of whose findings agrees (a test that reproduces nothing
//! proves nothing); a finding never reproduced is printed, not failed.
//!
//! The slow tier runs them, one engine per CI run (a few minutes each, over CI's budget for
//! the three): `USICHECK_REPLAY_TURN=0|1|2`, which .ci/run turns with the commit count as it
//! turns the real-time fault sweep's third, takes Fairy-Stockfish, Sjaak II or gpsusi; unset
//! (by hand), each test runs its engine.

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
    /// The finding's reply came, but late against a clock (charged to it): the race in real
    /// time that made the finding went the other way, as for [`Replay::NotReproduced`].
    Retimed(Vec<String>),
    /// The finding's rule was not reached: the reproducer's scenario stopped at another reply
    /// (`got`), charged to another rule; the finding's own reply never came.
    Preempted {
        got: String,
    },
}

/// Whether a charge of `rule` for `reason` is a clock's, for the finding's reply `line`
/// arriving after its deadline: the same reply at another time, not the finding's symptom
/// under another rule (a reply the finding saw too early cannot be late).
fn retimed(rule: &str, reason: &str, line: Option<&str>) -> bool {
    let clock = usicheck::observer::CLOCK_RULES
        .iter()
        .any(|clock| clock.as_str() == rule);
    let quoted = reason
        .strip_prefix('`')
        .and_then(|rest| rest.split_once('`'))
        .map(|(quoted, _)| quoted);
    clock && reason.contains(" after the deadline") && line.is_some() && quoted == line
}

/// The last `…` span of a verdict's reason: the line it quotes.
fn quoted_line(reason: &str) -> Option<&str> {
    let end = reason.rfind('`')?;
    let start = reason[..end].rfind('`')?;
    Some(&reason[start + 1..end])
}

/// The finding `expected` (`RULE OUTCOME`, its reply `line` when it has one) as the report of
/// a `usicheck run` of its reproducer (the scenario `name`) judged it, as the module comment
/// says. `report` may hold other reproducers' scenarios too: only `name`'s judgements and the
/// pre-flight's count.
fn judged(report: &Value, name: &str, expected: &str, line: Option<&str>) -> Replay {
    let rules = report["runs"][0]["rules"].as_array().expect("rules");
    let failing = |judged: &Value| matches!(judged["outcome"].as_str(), Some("FAIL" | "WARN"));
    let (expected_rule, expected_outcome) = expected.split_once(' ').expect("RULE OUTCOME");
    let mut agrees = false;
    let mut different = Vec::new();
    // Whether every different charge is a clock's, for the finding's own reply arriving late.
    let mut all_retimed = true;
    let mut passed = false;
    let mut not_reached = None;
    for rule in rules {
        let id = rule["rule"].as_str().unwrap();
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
            let outcome = charge["outcome"].as_str().unwrap_or_default();
            let reason = charge["reason"].as_str().unwrap_or_default();
            all_retimed &= retimed(id, reason, line);
            different.push(format!("{id} {outcome}: {reason}"));
        }
        if id == expected_rule {
            let grade = |j: &Value| j["outcome"] == expected_outcome;
            agrees = by(name, &grade).or(by("pre-flight", &grade)).is_some();
            passed = by(name, &|j| j["outcome"] == "PASS").is_some();
            not_reached = by(name, &|j| {
                j["outcome"] == "SKIP"
                    && j["reason"]
                        .as_str()
                        .is_some_and(|r| r.starts_with("not reached"))
            })
            .and_then(|j| quoted_line(j["reason"].as_str()?).map(str::to_owned));
        }
    }
    if agrees {
        Replay::Agrees
    } else if let Some(got) = not_reached.filter(|got| line.is_some_and(|l| l != got))
        && !different.is_empty()
    {
        // Another reply than the finding's failed first (an engine that searches a position
        // it misread answers differently run to run): its rule is that reply's, not a blame
        // of the finding's symptom. The same reply charged to another rule would disagree.
        Replay::Preempted { got }
    } else if !different.is_empty() && all_retimed {
        Replay::Retimed(different)
    } else if !different.is_empty() && !passed {
        Replay::Disagrees(different)
    } else {
        Replay::NotReproduced
    }
}

/// The report of `usicheck run` of `reproducers` against `engine` with `options`, one engine
/// process at a time, each scenario in a process of its own, as each replay command runs it:
/// `Err` with usicheck's message when it gives none (a reproducer it refuses).
fn run(reproducers: &[&Path], engine: &[&str], options: &[&str]) -> Result<Value, String> {
    let output = Command::new(USICHECK)
        .arg("run")
        .args(reproducers)
        .args(options)
        .args(["--jobs", "1", "--fresh-processes", "--format", "json", "--"])
        .args(engine)
        .output()
        .expect("usicheck runs");
    serde_json::from_slice::<Value>(&output.stdout)
        .map_err(|_| String::from_utf8_lossy(&output.stderr).trim().to_owned())
}

/// Whether this run takes the engine at `turn` (see the module comment).
fn takes(turn: usize) -> bool {
    let taken = std::env::var("USICHECK_REPLAY_TURN").ok();
    let taken = taken.and_then(|t| t.parse::<usize>().ok());
    taken.is_none_or(|taken| taken % 3 == turn)
}

/// One finding of a campaign: its reproducer, the scenario's name, `RULE OUTCOME` and the reply
/// line its detail quotes, if any.
struct Finding {
    reproducer: PathBuf,
    scenario: String,
    expected: String,
    line: Option<String>,
    oracle: String,
}

/// A 60 s campaign (seed 1) against `engine` with `options`, and each finding replayed, when
/// this run takes the engine at `turn`: all reproducers in one run first (one pre-flight for
/// them all), then each that did not agree alone, until it agrees.
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
    let findings: Vec<Finding> = (report["findings"].as_array().expect("findings").iter())
        .map(|finding| {
            let reproducer = dir.join(finding["reproducer"].as_str().unwrap());
            let text = std::fs::read_to_string(&reproducer).expect("the reproducer");
            let scenario = text
                .lines()
                .find_map(|l| l.strip_prefix("name: "))
                .unwrap()
                .trim_matches('"')
                .to_owned();
            Finding {
                reproducer,
                scenario,
                expected: format!(
                    "{} {}",
                    finding["rule"].as_str().unwrap(),
                    finding["grade"].as_str().unwrap()
                ),
                line: finding["detail"]
                    .as_str()
                    .and_then(quoted_line)
                    .map(str::to_owned),
                oracle: finding["oracle"].as_str().unwrap().to_owned(),
            }
        })
        .collect();
    eprintln!(
        "{name}: {} findings in {:.0} s",
        findings.len(),
        started.elapsed().as_secs_f64()
    );
    let at = Instant::now();
    let reproducers: Vec<&Path> = findings.iter().map(|f| f.reproducer.as_path()).collect();
    let together = run(&reproducers, engine, options);
    eprintln!(
        "{name}: the {} reproducers in one run ({:.1} s)",
        findings.len(),
        at.elapsed().as_secs_f64()
    );
    let (mut agreeing, mut wrong, mut unreproduced) = (0, Vec::new(), Vec::new());
    for finding in &findings {
        let Finding {
            reproducer,
            scenario,
            expected,
            line,
            oracle,
        } = finding;
        let judge = |report: Result<Value, String>| match report {
            Ok(report) => judged(&report, scenario, expected, line.as_deref()),
            Err(message) => Replay::Disagrees(vec![format!("no report: {message}")]),
        };
        let mut tries = Vec::new();
        if let Ok(report) = &together {
            tries.push(judged(report, scenario, expected, line.as_deref()));
            eprintln!(
                "{name}: {oracle} {expected}: {:?} (with the others)",
                tries[0]
            );
        }
        while tries.len() < REPLAYS && !tries.contains(&Replay::Agrees) {
            let at = Instant::now();
            let result = judge(run(&[reproducer], engine, options));
            eprintln!(
                "{name}: {oracle} {expected}: {result:?} ({:.1} s)",
                at.elapsed().as_secs_f64()
            );
            tries.push(result);
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
#[ignore = "slow tier: a Debian engine in real time, about 1.5 min, CI's turn 0"]
fn fairy_stockfish_findings_replay_to_their_rule() {
    findings_replay(0, &["/usr/games/fairy-stockfish"], &[]);
}

#[test]
#[ignore = "slow tier: a Debian engine in real time, about 2 min, CI's turn 1"]
fn sjaakii_findings_replay_to_their_rule() {
    findings_replay(1, &["/usr/games/sjaakii", "-usi"], &[]);
}

#[test]
#[ignore = "slow tier: a Debian engine in real time, about 3 min, CI's turn 2"]
fn gpsusi_findings_replay_to_their_rule() {
    findings_replay(2, &["/usr/games/gpsusi"], &["--option", "BookDepth=0"]);
}

/// A run report whose scenario `fuzz` judged `rule` as `outcome` with `reason`, and charged
/// USI-BESTMOVE-002 for `line`.
fn report_of(rule: &str, outcome: &str, reason: &str, line: &str) -> Value {
    serde_json::json!({"runs": [{"rules": [
        {"rule": "USI-BESTMOVE-002", "outcome": "FAIL", "judged_by": [
            {"scenario": "fuzz", "outcome": "FAIL", "reason": format!("`1b1a` is illegal: `{line}`")}
        ]},
        {"rule": rule, "outcome": outcome, "judged_by": [
            {"scenario": "fuzz", "outcome": outcome, "reason": reason}
        ]}
    ]}]})
}

#[test]
fn a_replay_stopped_by_another_reply_is_preempted_and_by_the_findings_own_reply_disagrees() {
    let finding = "bestmove 9c9d ponder 7g7f";
    let skipped = |line: &str| {
        report_of(
            "USI-PONDER-001",
            "SKIP",
            &format!(
                "not reached: step 5 failed: expected a legal `bestmove`; got illegal `{line}`"
            ),
            line,
        )
    };
    let other = "bestmove 1b1a ponder 3a3b";
    let expected = "USI-PONDER-001 WARN";
    assert_eq!(
        judged(&skipped(other), "fuzz", expected, Some(finding)),
        Replay::Preempted {
            got: other.to_owned()
        }
    );
    assert!(matches!(
        judged(&skipped(finding), "fuzz", expected, Some(finding)),
        Replay::Disagrees(_)
    ));
    assert!(matches!(
        judged(&skipped(other), "fuzz", expected, None),
        Replay::Disagrees(_)
    ));
    let warned = report_of("USI-PONDER-001", "WARN", "ponder move illegal", other);
    assert_eq!(
        judged(&warned, "fuzz", expected, Some(finding)),
        Replay::Agrees
    );
    let passed = report_of("USI-PONDER-001", "PASS", "", other);
    assert_eq!(
        judged(&passed, "fuzz", expected, Some(finding)),
        Replay::NotReproduced
    );
}

#[test]
fn a_replay_whose_reply_came_late_instead_of_early_is_retimed_not_a_disagreement() {
    let finding = "bestmove resign";
    let expected = "USI-GO-008 FAIL";
    let charged = |rule: &str, reason: &str| {
        serde_json::json!({"runs": [{"rules": [
            {"rule": rule, "outcome": "FAIL", "judged_by": [
                {"scenario": "fuzz", "outcome": "FAIL", "reason": reason}
            ]},
            {"rule": "USI-GO-008", "outcome": "SKIP", "judged_by": []}
        ]}]})
    };
    let replay = |report: &Value| judged(report, "fuzz", expected, Some(finding));
    let late = "`bestmove resign` 78 ms after the deadline (T-STOP 1000 ms + G after `stop`)";
    assert!(matches!(
        replay(&charged("USI-STOP-001", late)),
        Replay::Retimed(_)
    ));
    // Another reply late, or the finding's reply charged to a rule no clock owns: disagrees.
    let other = "`bestmove 7g7f` 78 ms after the deadline (T-STOP 1000 ms + G after `stop`)";
    assert!(matches!(
        replay(&charged("USI-STOP-001", other)),
        Replay::Disagrees(_)
    ));
    assert!(matches!(
        replay(&charged("USI-GO-002", late)),
        Replay::Disagrees(_)
    ));
}
