//! Synthetic event streams for the reporters' tests, with hostile engine text.

use super::event::{Event, RunInfo, ScenarioReport, StepFailure};
use super::timeline::{Timeline, Window, WindowKind};
use crate::engine::{Direction, TranscriptEntry};
use crate::observer::{ClockKind, ReplyDeadline, ReplyTiming, TimedSearch, TimedSearches};
use crate::rules::{Claims, Outcome, Profile, RuleId, Verdict};
use std::path::PathBuf;
use std::time::Duration;

/// Engine text meant to break every medium: terminal escapes (clear screen, OSC title, bell),
/// NUL, characters XML forbids, a CDATA terminator, Markdown and HTML injection, a code span
/// and an autolink.
pub const HOSTILE: &str = "Evil\u{1b}[2J\u{1b}]0;pwned\u{7}\0<script>alert(1)</script> | **x** [a](javascript:b) ]]> \u{fffe}\u{fffd} `tick` https://evil.example www.evil.example &amp;";

/// A scenario report holding `verdicts`, its outcome the worst of them.
pub fn scenario(name: &str, verdicts: Vec<Verdict>) -> ScenarioReport {
    let outcome = verdicts
        .iter()
        .map(|v| v.outcome)
        .max_by_key(|o| super::badness(*o))
        .unwrap_or(Outcome::Skip);
    ScenarioReport {
        name: name.to_owned(),
        file: format!("scenarios/{name}.yaml"),
        outcome,
        rules: verdicts.iter().map(|v| v.rule).collect(),
        verdicts,
        failure: None,
        skipped: None,
        engine_name: None,
        engine_author: None,
        advertised_options: None,
        missed_replies: Vec::new(),
        duration: Duration::from_millis(12),
        transcript_path: None,
        transcript_tail: Vec::new(),
        replay: format!("usicheck run scenarios/{name}.yaml -- ./engine"),
        timed_searches: Default::default(),
        timeline: None,
    }
}

/// A verdict on `rule` with the given outcome and reason, under `usi2`.
pub fn verdict(rule: RuleId, outcome: Outcome, reason: &str) -> Verdict {
    let mut verdict = Verdict::pass(Profile::Usi2, rule, None);
    verdict.outcome = outcome;
    verdict.reason = reason.to_owned();
    verdict
}

pub fn run_info(profile: Profile) -> RunInfo {
    RunInfo {
        usicheck_version: "0.1.0".into(),
        started_at: "2026-11-22T16:00:00Z".into(),
        profile,
        engine: vec!["./engine".into(), "--evil".into()],
        engine_name: Some(HOSTILE.into()),
        engine_author: Some("Author".into()),
        options: vec![("USI_Hash".into(), "16".into())],
        config: None,
        scenarios: 3,
        jobs: 1,
        selection: false,
    }
}

/// A run of three scenarios under `shogidokoro`: one passes, one fails USI-READY-001 (MUST)
/// with a hostile transcript, one warns on USI-STOP-002 (SHOULD); USI-READY-001 also passes in
/// the first scenario, so its worst verdict is FAIL from the second.
pub fn failing_run() -> Vec<Event> {
    let p = Profile::Shogidokoro;
    let none = Claims::default();
    let ready = crate::rule!("USI-READY-001");
    let stop = crate::rule!("USI-STOP-002");
    let handshake = crate::rule!("USI-HANDSHAKE-002");
    let pass = scenario(
        "handshake",
        vec![
            Verdict::pass(p, handshake, None),
            Verdict::pass(p, ready, None),
        ],
    );
    let mut fail = scenario(
        "isready-twice",
        vec![Verdict::violation(p, ready, None, &none, format!("got `{HOSTILE}`")).unwrap()],
    );
    fail.failure = Some(StepFailure {
        step: 4,
        line: Some(9),
        step_text: "expect: {line: readyok, within: 1s}".into(),
        expected: "readyok within 1 s".into(),
        actual: HOSTILE.into(),
    });
    fail.transcript_tail = vec!["0.001 > isready".into(), format!("0.002 < {HOSTILE}")];
    fail.timeline = Some(hostile_timeline());
    fail.transcript_path = Some(PathBuf::from("/tmp/usicheck-fixture/isready-twice.log"));
    let mut warn = scenario(
        "stop-late",
        vec![Verdict::violation(p, stop, None, &none, "bestmove after 1.5 s").unwrap()],
    );
    warn.timed_searches = late_stop();
    vec![
        Event::RunStarted(run_info(p)),
        Event::ScenarioStarted {
            name: pass.name.clone(),
            file: pass.file.clone(),
        },
        Event::ScenarioFinished(Box::new(pass)),
        Event::ScenarioFinished(Box::new(fail)),
        Event::ScenarioFinished(Box::new(warn)),
        Event::RunFinished {
            duration_ms: 1234,
            engine_cpu: None,
            interrupted: None,
            stale_waivers: Vec::new(),
        },
    ]
}

/// A run where everything judged passed and one scenario was skipped.
pub fn passing_run() -> Vec<Event> {
    let p = Profile::Shogidokoro;
    let mut skipped = scenario("usi2-only", Vec::new());
    skipped.skipped = Some("engine lacks USI 2.0".into());
    vec![
        Event::RunStarted(run_info(p)),
        Event::ScenarioFinished(Box::new(scenario(
            "handshake",
            vec![Verdict::pass(p, crate::rule!("USI-HANDSHAKE-002"), None)],
        ))),
        Event::ScenarioFinished(Box::new(skipped)),
        Event::RunFinished {
            duration_ms: 20,
            engine_cpu: None,
            interrupted: None,
            stale_waivers: Vec::new(),
        },
    ]
}

/// A run where the always-on checks flag one option line (USI-OPTION-002) in every session:
/// two scenarios that do not list the rule (they pass), and `option-grammar`, which lists it.
pub fn always_on_run() -> Vec<Event> {
    let p = Profile::Shogidokoro;
    let none = Claims::default();
    let grammar = crate::rule!("USI-OPTION-002");
    let observed = || {
        let mut v =
            Verdict::violation(p, grammar, None, &none, "trailing blank: `option name X`").unwrap();
        v.always_on = true;
        v
    };
    let mut events = vec![Event::RunStarted(run_info(p))];
    for name in ["isready-twice", "stop-when-idle", "option-grammar"] {
        let mut report = scenario(
            name,
            vec![Verdict::pass(p, crate::rule!("USI-READY-001"), None)],
        );
        report.rules = vec![crate::rule!("USI-READY-001")];
        if name == "option-grammar" {
            report.rules.push(grammar);
            report.outcome = Outcome::Fail;
        } else {
            report.outcome = Outcome::Pass;
        }
        report.verdicts.push(observed());
        events.push(Event::ScenarioFinished(Box::new(report)));
    }
    events.push(Event::RunFinished {
        duration_ms: 30,
        engine_cpu: None,
        interrupted: None,
        stale_waivers: Vec::new(),
    });
    events
}

/// [`passing_run`] of an engine that sent no `id name`.
pub fn nameless_run() -> Vec<Event> {
    let mut events = passing_run();
    if let Event::RunStarted(info) = &mut events[0] {
        info.engine_name = None;
    }
    events
}

/// The timeline of `isready-twice`: `isready`, then the hostile line as the evidence.
fn hostile_timeline() -> Timeline {
    let entries = [
        (1_000, Direction::ToEngine, "isready".to_owned()),
        (2_000, Direction::FromEngine, HOSTILE.to_owned()),
    ]
    .map(|(at_micros, direction, text)| TranscriptEntry {
        at_micros,
        direction,
        text,
    });
    let window = Window {
        kind: WindowKind::Silence,
        from_ms: 1.5,
        to_ms: 501.5,
        rule: Some(crate::rule!("USI-READY-001")),
        label: "no line matching `^readyok` for 500 ms".into(),
    };
    Timeline::new(&entries, 0, std::iter::empty(), Some(1), vec![window])
}

/// The one timed search of `stop-late`: `stop` answered 1.5 s later, 400 ms past its deadline.
fn late_stop() -> TimedSearches {
    let due = ReplyDeadline {
        at_micros: 1_100_000,
        since_micros: 0,
        rule: crate::rule!("USI-STOP-001"),
        kind: ClockKind::Stop,
        limit: "T-STOP 1000 ms + G after `stop`".into(),
        grace_micros: 100_000,
    };
    TimedSearches {
        kept: vec![TimedSearch::new(
            &due,
            Some(1_500_000),
            ReplyTiming::Late,
            false,
        )],
        omitted: 0,
    }
}
