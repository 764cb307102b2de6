//! Warm engine processes (`scenario::runner::WarmProcess`): a scenario run in the process an
//! earlier clean scenario left judges what it judges in a process of its own, and a process
//! in doubt is not kept. The engine runs simulated: the default tier.

mod suite;

use std::collections::BTreeMap;
use usicheck::report::ScenarioReport;
use usicheck::rules::{Outcome, Profile};
use usicheck::scenario::runner::{RunSettings, WARM_NOTE};

/// What a scenario's report judges: its outcome, its failure and every verdict but the
/// always-on passes (a warm scenario did not see the handshake lines those judge).
fn judged(report: &ScenarioReport) -> (Outcome, Option<String>, Vec<String>) {
    let verdicts = report
        .verdicts
        .iter()
        .filter(|v| !(v.always_on && v.outcome == Outcome::Pass))
        .map(|v| format!("{} {:?} {}", v.rule, v.outcome, v.reason))
        .collect();
    let failure = report.failure.as_ref().map(|f| format!("{f:?}"));
    (report.outcome, failure, verdicts)
}

/// The bundled suite under `usi2` against the reference engine with `faults`, one worker (so
/// that the warm process passes from each scenario to the next in plan order): each
/// scenario's report by name, and how many ran in a warm process.
fn certify(faults: &[&str], reuse: bool) -> (BTreeMap<String, ScenarioReport>, usize) {
    let scenarios: Vec<_> = suite::bundled()
        .into_iter()
        .filter(|(_, s)| s.applies_to(Profile::Usi2))
        .collect();
    let mut settings = RunSettings::new(suite::reference_engine(faults), Profile::Usi2);
    settings.reuse_processes = reuse;
    let transcripts = std::env::temp_dir().join(format!(
        "usicheck-warm-{}-{}-{reuse}",
        faults.join("+"),
        std::process::id()
    ));
    std::fs::create_dir_all(&transcripts).unwrap();
    let reports = suite::run_recording(&settings, &scenarios, 1, Some(&transcripts));
    let warm = scenarios
        .iter()
        .filter(|(name, _)| {
            let path = suite::transcript_file(&transcripts, name);
            std::fs::read_to_string(path).is_ok_and(|t| t.contains(WARM_NOTE))
        })
        .count();
    std::fs::remove_dir_all(&transcripts).unwrap();
    let names = scenarios.iter().map(|(name, _)| name.clone());
    (names.zip(reports).collect(), warm)
}

/// The clean engine, and faults that break what a warm process goes through between
/// scenarios (`isready`, a game left on, a later game, a `position` left without its `go`,
/// what the engine says after a scenario's last step):
/// every scenario judges the same warm as fresh. A fault that shows in a warm process runs its scenario again in a fresh one, so its
/// verdict and its replay command agree.
#[test]
fn warm_processes_judge_as_fresh_ones() {
    for faults in [
        &[][..],
        &["crash-at-third-newgame"],
        &["gameover-reply"],
        &["deaf-after-gameover"],
        &["double-readyok"],
        &["resigns-after-gameover"],
        &["search-on-position"],
        // A line after a scenario's last step (a second `bestmove`) is judged in that
        // scenario, as the `quit` that ends a fresh process reads it, not by the settling
        // exchange (21 scenarios lost USI-GO-002 so).
        &["double-bestmove"],
        &["self-ponder"],
    ] {
        let (fresh, none_warm) = certify(faults, false);
        assert_eq!(none_warm, 0, "{faults:?}: --fresh-processes kept none warm");
        let (warm, kept) = certify(faults, true);
        if faults.is_empty() {
            assert!(
                kept >= 40,
                "the clean engine served only {kept} scenarios warm"
            );
        }
        for (name, report) in &fresh {
            assert_eq!(
                judged(report),
                judged(&warm[name]),
                "{faults:?}: {name} judged otherwise in a warm process"
            );
        }
    }
}

/// A scenario `name`: a handshake, an `isready` answered (USI-READY-001), then the steps
/// `last`.
fn scenario(name: &str, last: &str) -> usicheck::scenario::Scenario {
    let yaml = format!(
        "name: {name}\nrules: [USI-READY-001]\nsteps:\n  - handshake: {{}}\n  \
         - send: isready\n  - expect: {{readyok: true, rule: USI-READY-001}}\n{last}"
    );
    usicheck::scenario::load_str(&format!("{name}.yaml"), &yaml).expect("the scenario loads")
}

/// A scenario whose step 5 fails once the engine answered its `isready`, leaving it idle.
fn failing_step(name: &str) -> usicheck::scenario::Scenario {
    scenario(
        name,
        "  - send: isready\n  - expect: {line: '^never', within: 100ms, rule: USI-READY-001}\n",
    )
}

/// A process in doubt is not kept: one left with a `position` waiting for its `go` (it may be
/// searching on it, silently), or whose engine said what no command asked for (a search on a
/// `position` alone). A clean one is, which shows the check can see a warm run, and so is one
/// whose step failed in the process started for it but left the engine idle.
#[test]
fn a_process_in_doubt_is_not_kept_warm() {
    use usicheck::scenario::runner::{WarmProcess, run_scenario};
    let clean = scenario("clean", "");
    let unsearched = scenario("unsearched", "  - send: position startpos\n");
    // A `position`, a pause, then its search: a search line on the `position` alone is output
    // no command asked for.
    let searched = scenario(
        "searched",
        "  - send: position startpos\n  \
         - expect_silence: {for: 100ms, pattern: '^bestmove', rule: USI-READY-001}\n  \
         - send: go btime 0 wtime 0 byoyomi 100\n  \
         - expect: {bestmove: legal, within: 5s, rule: USI-READY-001}\n",
    );
    let dir = std::env::temp_dir().join(format!("usicheck-warm-doubt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Whether the scenario after `first`, against an engine with `faults`, ran warm.
    let next_runs_warm = |first: &usicheck::scenario::Scenario, faults: &[&str]| {
        let mut settings = RunSettings::new(suite::reference_engine(faults), Profile::Usi2);
        let mut warm = WarmProcess::default();
        run_scenario(first, "first.yaml", &settings, String::new(), &mut warm).unwrap();
        let transcript = dir.join(format!("after-{}-{}.log", first.name, faults.join("+")));
        settings.transcript_path = Some(transcript.clone());
        run_scenario(&clean, "clean.yaml", &settings, String::new(), &mut warm).unwrap();
        // Ending the process kept after it writes out the transcript.
        drop(warm);
        std::fs::read_to_string(transcript).is_ok_and(|t| t.contains(WARM_NOTE))
    };
    assert!(next_runs_warm(&clean, &[]), "a clean process is kept");
    // A step failed in the process started for the scenario: its verdicts stand there, and
    // the engine left idle is kept.
    let failed = failing_step("failed");
    assert!(
        next_runs_warm(&failed, &[]),
        "a failed step leaving the engine idle"
    );
    assert!(
        next_runs_warm(&searched, &[]),
        "a searched `position` is kept"
    );
    assert!(
        !next_runs_warm(&unsearched, &[]),
        "a `position` waits for its `go`"
    );
    assert!(
        !next_runs_warm(&searched, &["search-on-position"]),
        "search output unasked"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `second` in the process a clean scenario left warm, against the reference engine with
/// `faults`: its report and its transcript.
fn after_a_warm_one(
    second: &usicheck::scenario::Scenario,
    faults: &[&str],
) -> (ScenarioReport, String) {
    use usicheck::scenario::runner::{WarmProcess, run_scenario};
    let dir = std::env::temp_dir().join(format!(
        "usicheck-warm-{}-{}",
        second.name,
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut settings = RunSettings::new(suite::reference_engine(faults), Profile::Usi2);
    let mut warm = WarmProcess::default();
    let clean = scenario("clean", "");
    run_scenario(&clean, "clean.yaml", &settings, String::new(), &mut warm).unwrap();
    let transcript = dir.join(format!("{}.log", second.name));
    settings.transcript_path = Some(transcript.clone());
    let report = run_scenario(second, "second.yaml", &settings, String::new(), &mut warm)
        .expect("the scenario runs");
    drop(warm);
    let text = std::fs::read_to_string(&transcript).expect("the transcript");
    std::fs::remove_dir_all(&dir).unwrap();
    (report, text)
}

/// The outcome `report` gives `rule`, if it judged it.
fn outcome_of(report: &ScenarioReport, rule: &str) -> Option<Outcome> {
    (report.verdicts.iter())
        .find(|v| v.rule.to_string() == rule)
        .map(|v| v.outcome)
}

/// Asserts that `text` keeps the warm attempt, then the note `again` of why the scenario ran
/// again, then that run from its start in a process of its own.
fn assert_ran_again(text: &str, again: &str) {
    let (warm_attempt, rerun) = text.split_once(again).expect("the note of the run again");
    assert!(warm_attempt.contains(WARM_NOTE), "{text}");
    assert!(
        rerun.contains(" # started ") && rerun.contains("> usi\n"),
        "{text}"
    );
    assert!(!rerun.contains(WARM_NOTE), "{text}");
}

/// A scenario whose step fails in a warm process runs again in a process of its own, and its
/// transcript keeps both: the warm attempt, then a note of the step that failed there, then
/// the run whose verdicts stand, from its start.
#[test]
fn a_run_again_after_a_warm_failure_says_why_after_the_warm_attempt() {
    let failing = failing_step("failing");
    let (report, text) = after_a_warm_one(&failing, &[]);
    assert_eq!(report.failure.as_ref().map(|f| f.step), Some(5));
    let again = "run again in a process of its own: in the warm process above, step 5";
    assert_ran_again(&text, again);
    // The warm process is ended, not kept: the run again's process takes its place.
    let warm_attempt = text.split_once(again).unwrap().0;
    assert!(!warm_attempt.contains("kept warm"), "{text}");
}

/// A scenario whose ending is charged in a warm process (an engine that ignores the `quit`
/// that ends it) runs again in a process of its own: how an engine takes `quit` may depend on
/// what the warm process went through before, which no replay command shows.
#[test]
fn a_warm_run_whose_ending_was_charged_runs_again_in_a_process_of_its_own() {
    // A `position` left without its `go`: the process is not kept, but ended with `quit`.
    let unsearched = scenario("unsearched", "  - send: position startpos\n");
    let (report, text) = after_a_warm_one(&unsearched, &["ignore-quit"]);
    assert_eq!(
        outcome_of(&report, "USI-QUIT-001"),
        Some(Outcome::Fail),
        "{report:?}"
    );
    assert_ran_again(
        &text,
        "run again in a process of its own: in the warm process above, its ending was \
         charged to USI-QUIT-001",
    );
}

/// A warm process slow to answer `isready` is stuck in what came before (gpsusi, having
/// resigned a game, computes without end at the next position with White to move): after
/// 5 s, not T-READY's 30 s, it is ended at once, without T-QUIT's wait, and the scenario runs
/// again in a process of its own, whose verdicts stand (here the search holds `readyok` back:
/// USI-READY-006, a WARN, after T-READY's cap).
#[test]
fn a_warm_process_slow_to_answer_isready_is_doubted_within_seconds() {
    let yaml = "name: held\nrules: [USI-READY-006]\nsteps:\n  - handshake: {}\n  \
                - send: position startpos\n  - send: go infinite\n  - send: isready\n  \
                - expect: {readyok: true, rule: USI-READY-006}\n";
    let held = usicheck::scenario::load_str("held.yaml", yaml).unwrap();
    let (report, text) = after_a_warm_one(&held, &["readyok-after-search"]);
    assert_eq!(
        outcome_of(&report, "USI-READY-006"),
        Some(Outcome::Warn),
        "{report:?}"
    );
    let again = "run again in a process of its own: in the warm process above, step 5 \
                 (`- expect: {readyok: true, rule: USI-READY-006}`) failed: nothing within \
                 5000 ms, which a warm process takes for doubt";
    assert_ran_again(&text, again);
    // The warm attempt, from its `isready` to its last line (the process ended).
    let warm_attempt = text.split_once(again).unwrap().0;
    // Without the note's own opening (its time and `#`).
    let warm_attempt = warm_attempt.rsplit_once('\n').unwrap().0;
    let at = |line: &str| -> f64 { line.split(' ').next().unwrap().parse().unwrap() };
    let lines: Vec<&str> = warm_attempt.lines().collect();
    let isready = lines
        .iter()
        .rposition(|l| l.ends_with("> isready"))
        .unwrap();
    let waited = at(lines[lines.len() - 1]) - at(lines[isready]);
    assert!((5.0..5.5).contains(&waited), "{waited} s: {warm_attempt}");
}
