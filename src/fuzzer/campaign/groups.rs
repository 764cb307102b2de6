//! The finding groups (one per oracle and rule): a violation counted in its group, or kept
//! as the first of a new one, and learnt so that later sessions go on past it.

use super::{Shared, plan};
use crate::fuzzer::Finding;
use crate::fuzzer::finding;
use crate::fuzzer::known::Known;
use crate::fuzzer::oracle::{Oracle, Violation};
use crate::rules::RuleId;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

/// Counts `v`, shown by session `index`, in its group if it has one already.
pub(super) fn counted_in_group(
    groups: &mut BTreeMap<(Oracle, RuleId), Finding>,
    v: &Violation,
    index: u64,
) -> bool {
    let Some(group) = groups.get_mut(&v.key()) else {
        return false;
    };
    group.count += 1;
    group.session = group.session.min(index);
    true
}

/// Counts a known finding met again: in its group, or as waived.
pub(super) fn met_again(shared: &Shared, index: u64, v: Violation) {
    shared.known.fetch_add(1, Ordering::Relaxed);
    if counted_in_group(&mut shared.groups.lock().expect("no panics"), &v, index) {
        return;
    }
    *shared
        .waived_met
        .lock()
        .expect("no panics")
        .entry(v.key())
        .or_default() += 1;
}

/// From now on `v` is known: sessions count it instead of ending on it, and what triggered it
/// ([`plan::Trigger::of`]) is mostly avoided if meeting it again is costly
/// ([`Known::costly`]).
pub(super) fn learn(shared: &Shared, cmds: &[plan::Cmd], v: &Violation) {
    let mut steering = shared.steering.lock().expect("no panics");
    steering.known.add(v);
    if Known::costly(v) {
        steering.plan.avoid_trigger_of(cmds, v);
    }
}

/// Counts a non-fatal violation in its group; the first of a group gets, as its reproducer,
/// the session up to the command after which it showed (not shrunk: it does not end a
/// session, so shrinking has no failure to keep).
pub(super) fn note(shared: &Shared, index: u64, cmds: &[plan::Cmd], v: Violation) {
    let prefix = crate::fuzzer::shrink::as_found(cmds, &v);
    keep_as_found(shared, index, prefix, cmds.len(), v, false);
}

/// Counts `v` in its group, or makes it the first of its group with `reproducer` as found
/// (cut from a session of `original_len` commands, not shrunk).
pub(super) fn keep_as_found(
    shared: &Shared,
    index: u64,
    reproducer: &[plan::Cmd],
    original_len: usize,
    v: Violation,
    cut_by_time: bool,
) {
    let mut groups = shared.groups.lock().expect("no panics");
    if counted_in_group(&mut groups, &v, index) {
        return;
    }
    let origin = finding::Origin::campaign(shared.config.seed, index, original_len);
    // The replay command carries the campaign's `--option`s.
    let yaml = finding::scenario_yaml(reproducer, &v, &origin, &[]);
    let path = shared
        .config
        .out
        .as_ref()
        .and_then(|dir| finding::write(dir, &finding::stem(&v), &yaml, "").ok());
    groups.insert(
        v.key(),
        Finding {
            violation: v,
            count: 1,
            session: index,
            original_len,
            shrunk_len: reproducer.len(),
            cut_by_time,
            scenario_yaml: yaml,
            transcript: String::new(),
            path,
        },
    );
}
