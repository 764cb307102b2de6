//! The pre-flight: one session before the scenarios (the handshake and a control search) that
//! establishes the session [`Facts`]. Each fact that fails is charged here, once, to the rule
//! that describes it, with its evidence; the scenarios then run with the facts, so a check
//! that needs a broken one is SKIP "not reached" at once instead of failing its own rule for
//! the same cause after waiting out its deadline.

use super::execute::run_scenario;
use super::settings::RunSettings;
use super::warm::WarmProcess;
use crate::blame::{Fact, Facts, Missed, Owed, UnansweredSearch};
use crate::engine::StartError;
use crate::observer::{CLOCK_RULES, rank, worst};
use crate::report::ScenarioReport;
use crate::rules::{Outcome, RuleId, Verdict};
use crate::scenario::{Scenario, Step};
use std::path::PathBuf;

/// One control of the pre-flight: the steps after the handshake, and the rules its checks
/// name, the last that of the step that completes it.
struct Control {
    rules: &'static [RuleId],
    steps: &'static str,
}

/// A plain search the way every GUI sends it; `gameover` and the next game (its `usinewgame`
/// synchronised by `isready`: a `bestmove` before `readyok` answers no `go`, USI-GO-001); the
/// plain search again right after `usinewgame`; a `go infinite` ended by `stop`. Whether the
/// engine answers them (in time, and only them) decides whether the searches of the scenarios,
/// what follows a `gameover` and the replies `stop` ends searches with are waited for, and
/// whether a `usinewgame` is followed by `isready`/`readyok` before the next search. The
/// `stop` comes last: unanswered, it leaves a search running.
const CONTROLS: [Control; 4] = [
    Control {
        rules: &[Fact::UnansweredSearch.rule()],
        steps: "  - send: position startpos
  - send: go btime 0 wtime 0 byoyomi 100
  - expect: {bestmove: any, within: 3100ms + G, rule: USI-GO-002}
",
    },
    Control {
        rules: &[
            Fact::DeafAfterGameover.rule(),
            Fact::StuckAfterGameover.rule(),
        ],
        steps: "  - send: gameover win
  - send: isready
  - expect: {readyok: true, rule: USI-READY-005}
  - send: usinewgame
  - send: isready
  - expect: {readyok: true, within: T-READY}
  - send: position startpos
  - send: go btime 0 wtime 0 byoyomi 100
  - expect: {bestmove: legal, within: 3100ms + G, rule: USI-GAMEOVER-002}
",
    },
    Control {
        rules: &[Fact::SlowNewgame.rule()],
        steps: "  - send: usinewgame
  - send: position startpos
  - send: go btime 0 wtime 0 byoyomi 100
  - expect: {bestmove: any, within: 100ms + G, rule: USI-READY-007, times_reply: true}
",
    },
    Control {
        rules: &[Fact::UnansweredStop.rule()],
        steps: "  - send: position startpos
  - send: go infinite
  - sleep: 200ms
  - send: stop
  - expect: {bestmove: any, within: T-STOP, rule: USI-STOP-001}
",
    },
];

/// The pre-flight from control `first` on, after the handshake (no `usinewgame` before the
/// first search: work done at it is USI-READY-007's, not the controls').
fn pre_flight_from(first: usize) -> Scenario {
    let controls = &CONTROLS[first..];
    let handshake = [Fact::NoUsiok.rule(), Fact::NoReadyok.rule()];
    let rules: Vec<String> = handshake
        .into_iter()
        .chain(controls.iter().flat_map(|c| c.rules.iter().copied()))
        .map(|rule| rule.to_string())
        .collect();
    let steps: String = controls.iter().map(|c| c.steps).collect();
    let text = format!(
        "name: pre-flight handshake and control searches\n\
         description: >\n  usi, usiok, isready, readyok, then the control searches, once before \
         the scenarios.\n\
         rules: [{}]\n\
         steps:\n  - handshake: {{usinewgame: false}}\n{steps}",
        rules.join(", ")
    );
    crate::scenario::load_str("pre-flight", &text).expect("a valid scenario")
}

/// The pre-flight scenario: the handshake and every control.
pub fn pre_flight_scenario() -> Scenario {
    pre_flight_from(0)
}

/// The 1-based step of `scenario` that checks `rule`, if one does.
fn step_checking(scenario: &Scenario, rule: RuleId) -> Option<usize> {
    let checks = |step: &Step| matches!(step, Step::Expect(expect) if expect.rule == Some(rule));
    scenario
        .steps
        .iter()
        .position(checks)
        .map(|index| index + 1)
}

/// The control a session that ran the controls from `first` on ended in: the first whose last
/// check did not pass; `None` when it completed them all, or ended at the handshake.
fn first_incomplete(first: usize, report: &ScenarioReport) -> Option<usize> {
    // Ended at the handshake: no session gets further.
    if report.failure.is_none() && report.skipped.is_none() || ended_at_handshake(report) {
        return None;
    }
    (first..CONTROLS.len()).find(|&index| {
        let check = *CONTROLS[index]
            .rules
            .last()
            .expect("a control checks a rule");
        !report
            .verdicts
            .iter()
            .any(|v| v.rule == check && !v.always_on && v.outcome == Outcome::Pass)
    })
}

/// Whether the session failed at its handshake (the first step of every pre-flight session).
fn ended_at_handshake(report: &ScenarioReport) -> bool {
    report.failure.as_ref().is_some_and(|f| f.step == 1)
}

/// The control search again, with an increment instead of `byoyomi`, in a fresh session: run
/// only when the first got no `bestmove`, to tell an engine that does not take `byoyomi`
/// from one that answers no search.
const INCREMENT_CONTROL: &str = "\
name: pre-flight control search with an increment
description: A plain search with an increment instead of byoyomi.
rules: [USI-GO-002]
steps:
  - handshake: {usinewgame: false}
  - send: position startpos
  - send: go btime 1000 wtime 1000 binc 100 winc 100
  - expect: {bestmove: any, within: 5s}
";

/// `isready`, then `stop`, during a `go infinite`, in a fresh session: run only when the
/// pre-flight's `stop` got no `bestmove`, to tell an engine that reads no command while it
/// searches (USI-GO-012) from one that reads `stop` but sends no `bestmove` (USI-STOP-001).
/// The `stop` lets an engine that holds its `readyok` until the search ends (USI-READY-006,
/// its own scenario's) answer: it reads while searching.
const INPUT_CONTROL: &str = "\
name: pre-flight input read while searching
description: isready, then stop, during go infinite.
rules: [USI-GO-012]
steps:
  - handshake: {usinewgame: false}
  - send: position startpos
  - send: go infinite
  - sleep: 200ms
  - send: isready
  - send: stop
  - expect: {readyok: true, within: 5s, rule: USI-GO-012}
";

/// `quit` right after `usiok`, as a GUI that only reads the options sends it, in a fresh
/// session: run where the pre-flight's `quit` (after `isready`) was obeyed, to tell an engine
/// that ignores `quit` until it has had `isready` (USI-HANDSHAKE-006).
const QUIT_CONTROL: &str = "\
name: pre-flight quit before isready
description: usi, usiok, quit.
rules: [USI-HANDSHAKE-006]
steps:
  - send: usi
  - expect: usiok
  - send: quit
  - expect_exit: {within: T-QUIT, rule: USI-HANDSHAKE-006}
";

const INCREMENT_GO: &str = "go btime 1000 wtime 1000 binc 100 winc 100";

/// Runs the pre-flight against the engine of `settings` (streaming its transcript to
/// `transcript_path`), and returns its report with the facts it established.
pub fn run_pre_flight(
    settings: &RunSettings,
    transcript_path: Option<PathBuf>,
    replay: String,
) -> Result<(ScenarioReport, Facts), StartError> {
    let mut probe = settings.clone();
    probe.transcript_path = transcript_path;
    // Each session of the pre-flight shows facts of its own process.
    probe.reuse_processes = false;
    let scenario = pre_flight_scenario();
    let mut report = run_scenario(
        &scenario,
        "built-in pre-flight",
        &probe,
        replay.clone(),
        &mut WarmProcess::default(),
    )?;
    let mut next = first_incomplete(0, &report).map(|index| index + 1);
    let mut sessions = vec![(scenario, report.clone())];
    let mut facts = facts_of(&sessions);
    // An engine that never answers `isready` is judged on everything else: every control runs
    // in a fresh session whose handshake does not wait for `readyok`.
    if ended_at_handshake(&report) && facts.no_readyok {
        next = Some(0);
    }
    // Each later session is fresh and knows the facts so far; its transcript goes on in the
    // first one's file, after a note of what it checks, so that every verdict the pre-flight
    // reports has its lines there.
    let later = std::cell::Cell::new(1);
    let run = |scenario: &Scenario, facts: Facts, what: &str| {
        later.set(later.get() + 1);
        let note = format!(
            "pre-flight, session {} in a process of its own: {what}",
            later.get()
        );
        let probe = RunSettings {
            facts,
            transcript_continues: Some(note),
            ..probe.clone()
        };
        run_scenario(
            scenario,
            "built-in pre-flight",
            &probe,
            replay.clone(),
            &mut WarmProcess::default(),
        )
    };
    let control =
        |text: &str| crate::scenario::load_str("pre-flight", text).expect("a valid scenario");
    // A control the session did not complete may leave the engine out of step (a search
    // running, a reply owed): the controls after it run in a fresh session, so that each fact
    // is established whichever other one fails.
    while let Some(first) = next.filter(|&i| i < CONTROLS.len()) {
        let scenario = pre_flight_from(first);
        let what = match first {
            0 => "the handshake without waiting for `readyok`, then the control searches",
            _ => "the control searches from the one the session before did not complete",
        };
        let rest = run(&scenario, facts.clone(), what)?;
        add_continued(&mut report, &rest);
        next = first_incomplete(first, &rest).map(|index| index + 1);
        sessions.push((scenario, rest));
        facts = facts_of(&sessions);
    }
    if facts.unanswered_search.is_some() {
        let unknown = Facts {
            unanswered_search: None,
            ..facts.clone()
        };
        let what = "the control search with an increment instead of byoyomi";
        let increment = run(&control(INCREMENT_CONTROL), unknown, what)?;
        if increment.failure.is_none()
            && increment.skipped.is_none()
            && let Some(unanswered) = facts.unanswered_search.as_mut()
        {
            unanswered.byoyomi_only = true;
            recharge_to_byoyomi(&mut report, settings, &unanswered.got);
        }
    }
    if facts.ignores_quit.is_none() && !facts.no_usiok {
        let what = "`quit` right after `usiok`";
        let quit = run(&control(QUIT_CONTROL), facts.clone(), what)?;
        if let Some(failure) = quit.failure.as_ref().filter(|_| quit.skipped.is_none()) {
            facts.quit_needs_isready = Some(failure.actual.clone());
            let rule = Fact::QuitNeedsIsready.rule();
            add_control_verdicts(&mut report, &quit, rule, what);
        }
    }
    if facts.unanswered_stop.is_some() {
        let what = "`isready`, then `stop`, during `go infinite`";
        let input = run(&control(INPUT_CONTROL), facts.clone(), what)?;
        if let Some(failure) = input.failure.as_ref().filter(|_| input.skipped.is_none()) {
            facts.deaf_while_searching = Some(failure.actual.clone());
            let rule = Fact::DeafWhileSearching.rule();
            add_control_verdicts(&mut report, &input, rule, what);
        }
    }
    Ok((report, facts))
}

/// The verdicts of a session that continued the controls join the pre-flight's: each rule
/// keeps its worst, and what the first session did not reach is what the next one found.
fn add_continued(report: &mut ScenarioReport, rest: &ScenarioReport) {
    for verdict in &rest.verdicts {
        let same = |v: &Verdict| v.rule == verdict.rule && v.always_on == verdict.always_on;
        match report.verdicts.iter_mut().find(|v| same(v)) {
            Some(kept) if rank(kept.outcome) >= rank(verdict.outcome) => {}
            Some(kept) => *kept = verdict.clone(),
            None => report.verdicts.push(verdict.clone()),
        }
    }
    report.verdicts.sort_by_key(|v| v.rule);
    for rule in &rest.rules {
        if !report.rules.contains(rule) {
            report.rules.push(*rule);
        }
    }
    report.outcome = worst(&report.verdicts, &report.rules);
}

/// The verdicts a control run in a fresh session charged to its `rule` join the
/// pre-flight's; `what` says what the control sent.
fn add_control_verdicts(
    report: &mut ScenarioReport,
    control: &ScenarioReport,
    rule: RuleId,
    what: &str,
) {
    let charged = control
        .verdicts
        .iter()
        .filter(|v| v.rule == rule && !v.always_on && v.outcome != Outcome::Pass);
    // Their step numbers are the control's, not the pre-flight's: say which session it was.
    report.verdicts.extend(charged.cloned().map(|mut verdict| {
        let said = verdict.reason.split_once(": ").map_or("", |(_, said)| said);
        verdict.reason = format!("{what}, in a fresh session: {said}");
        verdict
    }));
    report.verdicts.sort_by_key(|v| v.rule);
    if !report.rules.contains(&rule) {
        report.rules.push(rule);
    }
    report.outcome = worst(&report.verdicts, &report.rules);
}

/// What the pre-flight's sessions (each scenario with its report) show about the engine.
fn facts_of(sessions: &[(Scenario, ScenarioReport)]) -> Facts {
    // Charged, not merely unreached (a continued session may skip what the first charged).
    let charged = |rule: RuleId| {
        (sessions.iter().flat_map(|(_, report)| &report.verdicts))
            .find(|v| v.rule == rule && matches!(v.outcome, Outcome::Fail | Outcome::Warn))
    };
    let violated = |rule: RuleId| charged(rule).is_some();
    // A reply owed and never sent, as the runner charged it (typed: never read from words).
    let missed = |owed: Owed, fact: Fact| {
        let missed = |m: &Missed| m.owed == owed && m.rule == fact.rule();
        sessions
            .iter()
            .any(|(_, report)| report.missed_replies.iter().any(missed))
    };
    let failed_at = |rule: RuleId| {
        sessions.iter().find_map(|(scenario, report)| {
            let step = step_checking(scenario, rule)?;
            report.failure.as_ref().filter(|f| f.step == step)
        })
    };
    let got = |fact: Fact| failed_at(fact.rule()).map(|failure| failure.actual.clone());
    let no_usiok = Fact::NoUsiok.rule();
    Facts {
        no_readyok: missed(Owed::Readyok, Fact::NoReadyok) && !violated(no_usiok),
        no_usiok: missed(Owed::Usiok, Fact::NoUsiok),
        flushes_usiok: !violated(no_usiok) && !violated(crate::blame::no_usiok(true)),
        unanswered_search: got(Fact::UnansweredSearch).map(|got| UnansweredSearch {
            byoyomi_only: false,
            got,
        }),
        unanswered_stop: got(Fact::UnansweredStop),
        slow_newgame: got(Fact::SlowNewgame).is_some(),
        stray_replies: charged(Fact::StrayReplies.rule()).is_some(),
        deaf_while_searching: None,
        deaf_after_gameover: got(Fact::DeafAfterGameover),
        stuck_after_gameover: got(Fact::StuckAfterGameover),
        quit_needs_isready: None,
        ignores_quit: charged(Fact::IgnoresQuit.rule()).map(|v| v.reason.clone()),
        late_search: CLOCK_RULES.iter().copied().find(|&clock| violated(clock)),
        advertised_options: (sessions.iter())
            .find_map(|(_, report)| report.advertised_options.clone()),
    }
}

/// The control search under `byoyomi` got no `bestmove` while the one with an increment did:
/// what the engine broke is `byoyomi` (USI-GO-004), not every search (USI-GO-002, which the
/// control step charged).
fn recharge_to_byoyomi(report: &mut ScenarioReport, settings: &RunSettings, got: &str) {
    let go_002 = Fact::UnansweredSearch.rule();
    let go_004 = Fact::UnansweredByoyomi.rule();
    report
        .verdicts
        .retain(|v| v.always_on || v.rule != go_002 || v.outcome == Outcome::Pass);
    let reason = format!(
        "`go btime 0 wtime 0 byoyomi 100` got no `bestmove` ({got}), while `{INCREMENT_GO}` \
         in a fresh session did: the engine does not take `byoyomi`"
    );
    if let Some(verdict) =
        Verdict::violation(settings.profile, go_004, None, &settings.claims, reason)
    {
        report.verdicts.push(verdict);
    }
    report.verdicts.sort_by_key(|v| v.rule);
    if !report.rules.contains(&go_004) {
        report.rules.push(go_004);
    }
    report.outcome = worst(&report.verdicts, &report.rules);
}
