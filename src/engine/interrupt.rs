//! Interruption: on SIGINT or SIGTERM usicheck kills every engine process group it started
//! and starts no new engine, so the run can write what it has and exit without leaving an
//! engine behind (each engine sits in its own process group, where the terminal's Ctrl-C does
//! not reach it).
//!
//! The registry holds the groups whose leader is not reaped yet: a pid cannot be reused
//! before it is reaped, so a signal sent from here never reaches an unrelated group.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::process::signal_group;

static LIVE_GROUPS: Mutex<BTreeSet<libc::pid_t>> = Mutex::new(BTreeSet::new());
/// The signal that interrupted the run; 0 while it was not interrupted.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

fn live_groups() -> MutexGuard<'static, BTreeSet<libc::pid_t>> {
    LIVE_GROUPS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records an engine's process group; `false` (and the group killed) when the run was
/// interrupted already.
pub(crate) fn register(pgid: libc::pid_t) -> bool {
    let mut groups = live_groups();
    groups.insert(pgid);
    if interrupted().is_some() {
        signal_group(pgid, libc::SIGKILL);
        return false;
    }
    true
}

/// Forgets a group, just before its leader is reaped.
pub(crate) fn unregister(pgid: libc::pid_t) {
    live_groups().remove(&pgid);
}

/// Interrupts the run: kills every live engine process group; later starts are refused.
///
/// ```no_run
/// usicheck::engine::interrupt(libc::SIGINT);
/// assert_eq!(usicheck::engine::interrupted(), Some(libc::SIGINT));
/// ```
pub fn interrupt(signal: i32) {
    // Set before taking the lock: a start that registers after this sees it.
    let _ = SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
    for &pgid in live_groups().iter() {
        signal_group(pgid, libc::SIGKILL);
    }
}

/// The signal that interrupted the run, if one did.
pub fn interrupted() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}
