//! Warm engine processes (`scenario::runner::WarmProcess`): a scenario run in the process an
//! earlier clean scenario left judges what it judges in a process of its own, and a process
//! in doubt is not kept. The engine runs simulated: the default tier.

mod suite;

use std::collections::BTreeMap;
use usicheck::report::ScenarioReport;
use usicheck::rules::{Outcome, Profile};
use usicheck::scenario::runner::RunSettings;

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
            std::fs::read_to_string(path).is_ok_and(|t| t.contains("the warm engine process"))
        })
        .count();
    std::fs::remove_dir_all(&transcripts).unwrap();
    let names = scenarios.iter().map(|(name, _)| name.clone());
    (names.zip(reports).collect(), warm)
}

/// The clean engine, and faults that break what a warm process goes through between
/// scenarios (`isready`, a game left on, a later game, a `position` left without its `go`):
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
