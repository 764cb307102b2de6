//! Confirmation: a failing session run again before its finding counts, so that a hang of a
//! loaded machine is not reported as the engine's.

use super::groups::{counted_in_group, keep_as_found, learn};
use super::{Shared, ToShrink, exec, plan};
use crate::fuzzer::known::Known;
use crate::fuzzer::oracle::{Oracle, Violation};
use crate::fuzzer::{Config, Finding};
use std::sync::atomic::Ordering;

/// Confirms a failing session by re-running it synchronised ([`plan::synced`]) and counts the
/// confirmed violation in its group; the first of a group is learnt and queued to be shrunk
/// and written ([`super::shrink_next`]). A failure the re-run does not repeat (a hang on a loaded
/// machine) is counted as unconfirmed, not reported. When the run's time runs out first, the
/// finding keeps the session as it failed, up to the command after which it showed. A
/// violation of a group confirmed meanwhile (by a session that began before this one knew it)
/// is counted in it without a re-run.
pub(super) fn record(
    shared: &Shared,
    index: u64,
    cmds: &[plan::Cmd],
    known: &Known,
    first: Violation,
    late_after_newgame: bool,
) {
    if counted_in_group(&mut shared.groups.lock().expect("no panics"), &first, index) {
        return;
    }
    let config = shared.config;
    let original = cmds;
    let mut cmds = plan::synced(cmds);
    let mut again = exec::run(config, &cmds, shared.end, known).ok();
    // A search right after `usinewgame` late, in time where `isready` settles the new game
    // first: the session as found, run again, tells the work at `usinewgame` from a hang of
    // the machine.
    let settled_in_time = again
        .as_ref()
        .is_some_and(|r| !r.cut && r.violation.is_none());
    if late_after_newgame && settled_in_time && crate::engine::interrupted().is_none() {
        cmds = original.to_vec();
        again = exec::run(config, &cmds, shared.end, known)
            .ok()
            .map(|mut r| {
                r.violation = (r.violation.take())
                    .filter(|_| r.late_after_newgame)
                    .map(|v| newgame_work(config, v));
                r
            });
    }
    let first = match late_after_newgame && settled_in_time {
        true => newgame_work(config, first),
        false => first,
    };
    // An interrupted re-run had its engine killed: it confirms nothing.
    if crate::engine::interrupted().is_some() {
        return;
    }
    // The run's time ran out first: the failure is kept as it was found.
    if again.as_ref().is_some_and(|r| r.cut) {
        let found = crate::fuzzer::shrink::as_found(original, &first);
        keep_as_found(shared, index, found, original.len(), first, true);
        return;
    }
    let confirmed = again.and_then(|r| {
        let v = r.violation?;
        let repeated = first.oracle != Oracle::Hang || v.key() == first.key();
        repeated.then_some((v, r.transcript))
    });
    let Some((mut v, mut transcript)) = confirmed else {
        shared.unconfirmed.fetch_add(1, Ordering::Relaxed);
        return;
    };
    // A `quit` ignored during a search, where one sent idle is ignored as well: the engine
    // ignores every `quit` (USI-QUIT-001), as the certify pre-flight's idle `quit` shows
    // first; the idle control is the finding.
    if v.rule == crate::blame::ignored_quit(true) {
        let idle = vec![plan::Cmd::line("quit", plan::Kind::Quit)];
        if let Some(control) = exec::run(config, &idle, shared.end, known).ok()
            && let Some(ignored) = control.violation.or(control.known_end)
            && ignored.rule == crate::blame::ignored_quit(false)
        {
            (cmds, v, transcript) = (idle, ignored, control.transcript);
        }
    }
    let cmds = cmds.as_slice();
    {
        let mut groups = shared.groups.lock().expect("no panics");
        if counted_in_group(&mut groups, &v, index) {
            return;
        }
        groups.insert(
            v.key(),
            Finding {
                violation: v.clone(),
                count: 1,
                session: index,
                original_len: cmds.len(),
                shrunk_len: cmds.len(),
                cut_by_time: false,
                scenario_yaml: String::new(),
                transcript: String::new(),
                path: None,
            },
        );
    }
    // Known from now on, while it waits to shrink: the other sessions go on past it.
    learn(shared, cmds, &v);
    shared.to_shrink.lock().expect("no panics").push(ToShrink {
        index,
        cmds: cmds.to_vec(),
        known: known.clone(),
        violation: v,
        at_newgame: late_after_newgame && settled_in_time,
        transcript,
    });
}

/// A search reply late against its clock, right after a `usinewgame` not followed by
/// `isready`, where the settled session was in time: charged to the work at `usinewgame`
/// ([`crate::blame::late_search`]).
pub(super) fn newgame_work(config: &Config, late: Violation) -> Violation {
    let rule = crate::blame::late_search(late.rule, true, true);
    let detail = format!(
        "{} (in time where `isready` follows `usinewgame`)",
        late.detail
    );
    let grading = (config.profile, &config.claims);
    Violation::graded_under(grading, late.oracle, rule, detail, late.step)
}
