//! The shrinking queue: confirmed findings wait their turn (the last quarter of `--time`, by
//! half the workers), then shrink within their share of the time left and are written.

use super::confirm::newgame_work;
use super::groups::learn;
use super::{Shared, exec, plan};
use crate::fuzzer::known::Known;
use crate::fuzzer::oracle::Violation;
use crate::fuzzer::{finding, shrink};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// A confirmed finding, known from its confirmation on, and the session that showed it.
pub(super) struct ToShrink {
    pub(super) index: u64,
    pub(super) cmds: Vec<plan::Cmd>,
    pub(super) known: Known,
    pub(super) violation: Violation,
    /// The violation is the work at `usinewgame` ([`newgame_work`]), as each candidate's is.
    pub(super) at_newgame: bool,
    pub(super) transcript: String,
}

/// Whether confirmed findings are shrunk now rather than more sessions run: at once without
/// `--time`; with it, in the last quarter of the time, so that exploring is not held up by
/// hangs re-run one candidate after another.
pub(super) fn shrinking_is_due(shared: &Shared) -> bool {
    match (shared.end, shared.config.time) {
        (Some(end), Some(time)) => Instant::now() + time / 4 >= end,
        _ => true,
    }
}

/// How many workers shrink at once: under `--time`, half of them (rounded up), so that the
/// others go on exploring in the last quarter; otherwise all.
fn shrinkers(shared: &Shared) -> usize {
    let jobs = shared.config.jobs.max(1);
    match shared.end {
        Some(_) => jobs.div_ceil(2),
        None => jobs,
    }
}

/// Shrinks the next confirmed finding, if any and if fewer than [`shrinkers`] workers are
/// shrinking; false if it did not.
pub(super) fn shrink_next(shared: &Shared) -> bool {
    let limit = shrinkers(shared);
    let (job, left) = {
        let mut queue = shared.to_shrink.lock().expect("no panics");
        if shared.shrinking.load(Ordering::Relaxed) >= limit {
            return false;
        }
        let Some(job) = queue.pop() else {
            return false;
        };
        shared.shrinking.fetch_add(1, Ordering::Relaxed);
        (job, queue.len())
    };
    // The time left is shared by the findings still to shrink, `limit` at a time.
    let share = 1 + left / limit;
    let end = shared
        .end
        .map(|end| Instant::now() + end.saturating_duration_since(Instant::now()) / share as u32);
    shrink_finding(shared, job, end);
    shared.shrinking.fetch_sub(1, Ordering::Relaxed);
    true
}

/// Shrinks a confirmed finding by `shrink_end`, then writes it; a finding shrinking moves onto
/// another group, or onto a waived rule, is counted there.
pub(super) fn shrink_finding(shared: &Shared, job: ToShrink, shrink_end: Option<Instant>) {
    let config = shared.config;
    let ToShrink {
        index,
        cmds,
        known,
        violation: v,
        at_newgame,
        transcript,
    } = job;
    let (cmds, known) = (cmds.as_slice(), &known);
    let budget = shrink::Budget {
        runs: config.shrink_runs,
    };
    let out_of_time = || shrink_end.is_some_and(|end| Instant::now() >= end);
    let mut cut_by_time = false;
    let (min, violation) = shrink::shrink(cmds, v.clone(), budget, |candidate| {
        // Interrupted: no more engines; a candidate whose engine the interrupt killed
        // reproduces nothing. Out of time: no more engines either.
        if crate::engine::interrupted().is_some() || out_of_time() {
            cut_by_time |= out_of_time();
            return None;
        }
        let result = exec::run(config, candidate, shrink_end, known).ok()?;
        if crate::engine::interrupted().is_some() {
            return None;
        }
        cut_by_time |= result.cut;
        // A candidate late right after `usinewgame` shows the work at it, as the confirmed
        // finding did.
        let violation = match at_newgame && result.late_after_newgame {
            true => result.violation.map(|late| newgame_work(config, late)),
            false => result.violation,
        };
        // A death moved back to the command that caused it may be a known finding (a crash
        // on `go` recorded earlier): it still shows where the death belongs.
        violation.or(result.known_end)
    });
    let origin = finding::Origin::campaign(config.seed, index, cmds.len());
    let yaml = finding::scenario_yaml(&min, &violation, &origin, &[]);
    let mut groups = shared.groups.lock().expect("no panics");
    let mut group = groups.remove(&v.key()).expect("inserted above");
    if let Some(same) = groups.get_mut(&violation.key()) {
        // Shrinking charged a death to an earlier command, whose group exists already.
        same.count += group.count;
        same.session = same.session.min(group.session);
        return;
    }
    if known.contains(&violation) {
        // …or whose rule a baseline waives.
        drop(groups);
        *shared
            .waived_met
            .lock()
            .expect("no panics")
            .entry(violation.key())
            .or_default() += group.count;
        return;
    }
    let path = config
        .out
        .as_ref()
        .and_then(|dir| finding::write(dir, &finding::stem(&violation), &yaml, &transcript).ok());
    learn(shared, &min, &violation);
    group.violation = violation;
    group.shrunk_len = min.len();
    group.cut_by_time = cut_by_time;
    group.scenario_yaml = yaml;
    group.transcript = transcript;
    group.path = path;
    groups.insert(group.violation.key(), group);
}
