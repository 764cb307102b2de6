//! The pre-flight: one session before the scenarios (the handshake and a control search) that
//! establishes the session [`Facts`]. Each fact that fails is charged here, once, to the rule
//! that describes it, with its evidence; the scenarios then run with the facts, so a check
//! that needs a broken one is SKIP "not reached" at once instead of failing its own rule for
//! the same cause after waiting out its deadline.

use super::execute::run_scenario;
use super::settings::RunSettings;
use crate::engine::StartError;
use crate::observer::{Facts, UnansweredSearch, worst};
use crate::report::ScenarioReport;
use crate::rules::{Outcome, RuleId, Verdict};
use crate::scenario::Scenario;
use std::path::PathBuf;

/// The handshake, then a plain search the way every GUI sends it, a `go infinite` ended by
/// `stop`, `usinewgame` synchronised by `isready`, and the plain search again right after
/// `usinewgame`: whether the engine answers them (in time, and only them) decides whether the
/// searches of the scenarios, and the replies `stop` ends them with, are waited for, and
/// whether a `usinewgame` is followed by `isready`/`readyok` before the next search.
const PRE_FLIGHT: &str = "\
name: pre-flight handshake and control searches
description: >
  usi, usiok, isready, readyok, then one plain search under byoyomi and one `go infinite`
  ended by `stop`, once before the scenarios (no `usinewgame` before them: work done at it is
  USI-READY-007's, not the controls'); then `usinewgame` and `isready` (a `bestmove` before
  `readyok` answers no `go`: USI-GO-001), and the plain search again right after `usinewgame`
  (USI-READY-007).
rules: [USI-HANDSHAKE-004, USI-READY-001, USI-GO-002, USI-STOP-001, USI-READY-007]
steps:
  - handshake: {usinewgame: false}
  - send: position startpos
  - send: go btime 0 wtime 0 byoyomi 100
  - expect: {bestmove: any, within: 3100ms + G, rule: USI-GO-002}
  - send: position startpos
  - send: go infinite
  - sleep: 200ms
  - send: stop
  - expect: {bestmove: any, within: T-STOP, rule: USI-STOP-001}
  - send: usinewgame
  - send: isready
  - expect: {readyok: true, within: T-READY}
  - send: usinewgame
  - send: position startpos
  - send: go btime 0 wtime 0 byoyomi 100
  - expect: {bestmove: any, within: 100ms + G, rule: USI-READY-007, times_reply: true}
";

/// The 1-based step of [`PRE_FLIGHT`] that waits for the control search's `bestmove`.
const CONTROL_STEP: usize = 4;

/// The 1-based step of [`PRE_FLIGHT`] that waits for the `bestmove` `stop` asks for.
const STOP_STEP: usize = 9;

/// The 1-based step of [`PRE_FLIGHT`] that times the search right after `usinewgame`.
const NEWGAME_STEP: usize = 16;

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

/// `isready` during a `go infinite`, in a fresh session: run only when the pre-flight's
/// `stop` got no `bestmove`, to tell an engine that reads no command while it searches
/// (USI-GO-012) from one that reads `stop` but does not act on it (USI-STOP-001).
const INPUT_CONTROL: &str = "\
name: pre-flight input read while searching
description: isready during go infinite.
rules: [USI-GO-012]
steps:
  - handshake: {usinewgame: false}
  - send: position startpos
  - send: go infinite
  - sleep: 200ms
  - send: isready
  - expect: {readyok: true, within: 5s, rule: USI-GO-012}
";

const INCREMENT_GO: &str = "go btime 1000 wtime 1000 binc 100 winc 100";

/// The pre-flight scenario.
pub fn pre_flight_scenario() -> Scenario {
    crate::scenario::load_str("pre-flight", PRE_FLIGHT).expect("a valid scenario")
}

/// Runs the pre-flight against the engine of `settings` (streaming its transcript to
/// `transcript_path`), and returns its report with the facts it established.
pub fn run_pre_flight(
    settings: &RunSettings,
    transcript_path: Option<PathBuf>,
    replay: String,
) -> Result<(ScenarioReport, Facts), StartError> {
    let mut probe = settings.clone();
    probe.transcript_path = transcript_path;
    let mut report = run_scenario(
        &pre_flight_scenario(),
        "built-in pre-flight",
        &probe,
        replay.clone(),
    )?;
    let mut facts = facts_of(&report);
    if facts.unanswered_search.is_some() {
        probe.transcript_path = None;
        probe.facts = Facts {
            unanswered_search: None,
            ..facts.clone()
        };
        let control =
            crate::scenario::load_str("pre-flight", INCREMENT_CONTROL).expect("a valid scenario");
        let increment = run_scenario(&control, "built-in pre-flight", &probe, replay.clone())?;
        if increment.failure.is_none()
            && increment.skipped.is_none()
            && let Some(unanswered) = facts.unanswered_search.as_mut()
        {
            unanswered.byoyomi_only = true;
            unanswered.rule = crate::rule!("USI-GO-004");
            recharge_to_byoyomi(&mut report, settings, &unanswered.got);
        }
    }
    if facts.unanswered_stop.is_some() {
        probe.transcript_path = None;
        probe.facts = facts.clone();
        let control =
            crate::scenario::load_str("pre-flight", INPUT_CONTROL).expect("a valid scenario");
        let input = run_scenario(&control, "built-in pre-flight", &probe, replay)?;
        if let Some(failure) = input.failure.as_ref().filter(|_| input.skipped.is_none()) {
            facts.deaf_while_searching = Some(failure.actual.clone());
            add_input_verdicts(&mut report, &input);
        }
    }
    Ok((report, facts))
}

/// The verdicts of the input control (USI-GO-012) join the pre-flight's: it charged them.
fn add_input_verdicts(report: &mut ScenarioReport, input: &ScenarioReport) {
    let go_012 = crate::rule!("USI-GO-012");
    let charged = input
        .verdicts
        .iter()
        .filter(|v| v.rule == go_012 && !v.always_on && v.outcome != Outcome::Pass);
    // Their step numbers are the control's, not the pre-flight's: say which session it was.
    report.verdicts.extend(charged.cloned().map(|mut verdict| {
        let said = verdict.reason.split_once(": ").map_or("", |(_, said)| said);
        verdict.reason = format!("`isready` during `go infinite`, in a fresh session: {said}");
        verdict
    }));
    report.verdicts.sort_by_key(|v| v.rule);
    if !report.rules.contains(&go_012) {
        report.rules.push(go_012);
    }
    report.outcome = worst(&report.verdicts, &report.rules);
}

/// What the pre-flight's report shows about the engine.
pub fn facts_of(pre_flight: &ScenarioReport) -> Facts {
    let violated = |rule: RuleId, reason: &str| {
        pre_flight
            .verdicts
            .iter()
            .any(|v| v.rule == rule && v.outcome != Outcome::Pass && v.reason.starts_with(reason))
    };
    let failed_at = |step| pre_flight.failure.as_ref().filter(|f| f.step == step);
    let control = failed_at(CONTROL_STEP);
    Facts {
        no_readyok: violated(crate::rule!("USI-READY-001"), "no `readyok`")
            && !violated(crate::rule!("USI-HANDSHAKE-004"), ""),
        no_usiok: violated(crate::rule!("USI-HANDSHAKE-004"), "no `usiok`"),
        flushes_usiok: !violated(crate::rule!("USI-HANDSHAKE-004"), "")
            && !violated(crate::rule!("USI-ROBUST-006"), ""),
        unanswered_search: control.map(|failure| UnansweredSearch {
            byoyomi_only: false,
            rule: crate::rule!("USI-GO-002"),
            got: failure.actual.clone(),
        }),
        unanswered_stop: failed_at(STOP_STEP).map(|failure| failure.actual.clone()),
        slow_newgame: failed_at(NEWGAME_STEP).is_some(),
        stray_replies: pre_flight.verdicts.iter().any(|v| {
            v.rule == crate::rule!("USI-GO-001")
                && matches!(v.outcome, Outcome::Fail | Outcome::Warn)
        }),
        deaf_while_searching: None,
    }
}

/// The control search under `byoyomi` got no `bestmove` while the one with an increment did:
/// what the engine broke is `byoyomi` (USI-GO-004), not every search (USI-GO-002, which the
/// control step charged).
fn recharge_to_byoyomi(report: &mut ScenarioReport, settings: &RunSettings, got: &str) {
    let go_002 = crate::rule!("USI-GO-002");
    let go_004 = crate::rule!("USI-GO-004");
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
