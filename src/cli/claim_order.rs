//! Which scenario a worker of `run` or `certify` takes next. A worker that keeps a warm process
//! takes the next scenario that may run in it; one that keeps none takes the next that needs a
//! process of its own. So a warm process is not ended for a scenario that could never use it,
//! and a process is started for a scenario that could have run warm only once no scenario
//! needs one of its own: each start costs a slow starter (gpsusi) two to three seconds of a
//! core.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

/// The scenarios not yet taken, in two lines, each in the order to take them; a scenario that
/// may run warm fits a process whose handshake had its key (the options it sets).
pub struct ClaimOrder<K> {
    lines: Mutex<Lines<K>>,
}

struct Lines<K> {
    /// Scenarios that need a process started for them.
    fresh: VecDeque<usize>,
    /// Scenarios that may run in a process an earlier one left warm, with their keys.
    warm: VecDeque<(usize, K)>,
}

impl<K: PartialEq> ClaimOrder<K> {
    /// The scenarios `fresh` (that need a process of their own) and `warm` (that may run in a
    /// warm one whose handshake had their key), each in the order to take them.
    pub fn new(fresh: Vec<usize>, warm: Vec<(usize, K)>) -> ClaimOrder<K> {
        ClaimOrder {
            lines: Mutex::new(Lines {
                fresh: fresh.into(),
                warm: warm.into(),
            }),
        }
    }

    /// The next scenario for a worker that keeps a warm process with key `kept`, or none: the
    /// first that may run in it, else the first that needs a process of its own, else the
    /// first left; `None` once all are taken.
    pub fn next(&self, kept: Option<&K>) -> Option<usize> {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        let fits = kept.and_then(|kept| lines.warm.iter().position(|(_, key)| key == kept));
        if let Some((index, _)) = fits.and_then(|at| lines.warm.remove(at)) {
            return Some(index);
        }
        let lines = &mut *lines;
        (lines.fresh.pop_front()).or_else(|| lines.warm.pop_front().map(|(index, _)| index))
    }
}

#[cfg(test)]
mod tests {
    use super::ClaimOrder;

    #[test]
    fn a_warm_process_goes_to_a_scenario_that_can_use_it() {
        let order = ClaimOrder::new(vec![0, 1], vec![(2, "plain"), (3, "ponder"), (4, "plain")]);
        let plain = Some(&"plain");
        assert_eq!(
            order.next(None),
            Some(0),
            "none kept: one that needs its own"
        );
        assert_eq!(order.next(plain), Some(2), "one that may run in it");
        assert_eq!(order.next(plain), Some(4), "past one with other options");
        assert_eq!(order.next(plain), Some(1), "none left for it: its own");
        assert_eq!(
            order.next(plain),
            Some(3),
            "none else left: the process is ended"
        );
        assert_eq!(order.next(None), None);
    }

    #[test]
    fn a_process_is_started_for_a_warm_scenario_only_when_none_needs_its_own() {
        let order = ClaimOrder::new(vec![0], vec![(1, ()), (2, ())]);
        assert_eq!(order.next(Some(&())), Some(1));
        assert_eq!(order.next(None), Some(0));
        assert_eq!(order.next(None), Some(2));
        assert_eq!(order.next(None), None);
    }
}
