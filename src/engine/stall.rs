//! How late usicheck's own threads got to run: the host's scheduling delay.
//!
//! A timing verdict compares the time a reply was read with a deadline. On a loaded machine
//! usicheck's reader runs late, and the engine gets less of the CPU than its clock assumes; a
//! reply that missed its deadline by less than that delay says nothing about the engine. A
//! watcher thread sleeps 2 ms at a time and records by how much each sleep overran; timing
//! verdicts ask [`worst_between`] for the largest overrun around the search they judge.

use std::collections::VecDeque;
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// The watcher's sleep: 500 wake-ups a second, too few to cost anything measurable.
const TICK: Duration = Duration::from_millis(2);
/// Overruns this short are timer noise, not load: not recorded.
const NOISE: Duration = Duration::from_millis(2);
/// Recorded overruns kept, the oldest dropped first (minutes of a heavily loaded run).
const KEPT: usize = 16_384;

/// What the watcher saw.
struct Watched {
    /// (when the watcher woke, by how much its sleep overran), in order of waking.
    overruns: VecDeque<(Instant, Duration)>,
    /// When it last woke: a stall still going on shows as a long time since.
    last_wake: Option<Instant>,
}

static WATCHED: Mutex<Watched> = Mutex::new(Watched {
    overruns: VecDeque::new(),
    last_wake: None,
});
static WATCHER: Once = Once::new();

/// Starts the watcher, once per process; sessions call it as they start.
pub fn watch() {
    WATCHER.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("usicheck-stall-watch".into())
            .spawn(|| {
                loop {
                    let asleep = Instant::now();
                    std::thread::sleep(TICK);
                    let woke = Instant::now();
                    record(woke, woke.duration_since(asleep).saturating_sub(TICK));
                }
            });
        // Without a watcher nothing is recorded: every timing verdict is judged as measured.
        drop(spawned);
    });
}

/// The watcher woke at `woke`, `overrun` later than it asked to.
pub(crate) fn record(woke: Instant, overrun: Duration) {
    let mut watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
    watched.last_wake = Some(woke);
    if overrun > NOISE {
        if watched.overruns.len() == KEPT {
            watched.overruns.pop_front();
        }
        watched.overruns.push_back((woke, overrun));
    }
}

/// The largest delay usicheck's threads suffered between `from` and `to` (zero when the
/// watcher never ran late there, or does not run).
///
/// ```
/// use std::time::{Duration, Instant};
/// use usicheck::engine::stall;
/// stall::watch();
/// let from = Instant::now();
/// std::thread::sleep(Duration::from_millis(20));
/// assert!(stall::worst_between(from, Instant::now()) < Duration::from_secs(5));
/// ```
pub fn worst_between(from: Instant, to: Instant) -> Duration {
    let watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
    // After a stall the caller may run before the watcher (both were held up): a watcher
    // that has not woken since before `to` is in a stall it has not recorded yet.
    let ongoing = watched
        .last_wake
        .filter(|last| *last <= to)
        .map_or(Duration::ZERO, |last| {
            Instant::now()
                .saturating_duration_since(last)
                .saturating_sub(TICK)
        });
    watched
        .overruns
        .iter()
        // A wake-up at `woke` after an overrun `d` means no thread ran in [woke - d, woke].
        .filter(|(woke, overrun)| {
            *woke >= from && woke.checked_sub(*overrun).is_none_or(|began| began <= to)
        })
        .map(|(_, overrun)| *overrun)
        .chain([ongoing].into_iter().filter(|d| *d > NOISE))
        .max()
        .unwrap_or(Duration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_overrun_inside_the_window_counts() {
        let base = Instant::now() + Duration::from_secs(3600);
        record(base, Duration::from_millis(30));
        record(base + Duration::from_secs(1), Duration::from_millis(120));
        record(base + Duration::from_secs(2), Duration::from_millis(50));
        let at = |s: u64| base + Duration::from_millis(s);
        assert_eq!(worst_between(at(500), at(2500)), Duration::from_millis(120));
        assert_eq!(worst_between(at(1500), at(2500)), Duration::from_millis(50));
        // The stall that ended at 2000 ms began at 1950 ms: it overlaps a window ending there.
        assert_eq!(worst_between(at(1960), at(1970)), Duration::from_millis(50));
        assert_eq!(worst_between(at(2100), at(3000)), Duration::ZERO);
    }
}
