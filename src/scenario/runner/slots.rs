//! How many engines may search at once. Most of a scenario is waiting (silence windows,
//! deadlines), so a run keeps many scenarios in flight; but an engine's search needs a core,
//! and searches that starve each other miss their clocks. A scenario takes a slot before it
//! sends `go` and gives it back when the search's reply comes or its engine ends.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The search slots of one run, shared by its scenarios.
///
/// ```
/// use usicheck::scenario::runner::SearchSlots;
/// let slots = SearchSlots::new(1);
/// let first = slots.take();
/// assert_eq!(slots.free(), 0);
/// drop(first);
/// assert_eq!(slots.free(), 1);
/// ```
#[derive(Debug)]
pub struct SearchSlots {
    free: Mutex<usize>,
    freed: Condvar,
}

/// A slot held while the engine searches; dropping it frees the slot.
#[derive(Debug)]
pub struct SearchSlot {
    slots: Arc<SearchSlots>,
}

impl SearchSlots {
    /// `count` engines may search at once (at least one).
    pub fn new(count: usize) -> Arc<SearchSlots> {
        Arc::new(SearchSlots {
            free: Mutex::new(count.max(1)),
            freed: Condvar::new(),
        })
    }

    /// Waits for a free slot. A run interrupted meanwhile gets one at once: its scenarios are
    /// being cut short and must not wait for each other.
    pub fn take(self: &Arc<Self>) -> SearchSlot {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 && crate::engine::interrupted().is_none() {
            free = self
                .freed
                .wait_timeout(free, Duration::from_millis(100))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *free = free.saturating_sub(1);
        SearchSlot {
            slots: Arc::clone(self),
        }
    }

    /// Slots free now.
    pub fn free(&self) -> usize {
        *self.free.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for SearchSlot {
    fn drop(&mut self) {
        *self.slots.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.slots.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_second_search_waits_for_the_first_to_end() {
        let slots = SearchSlots::new(1);
        let first = slots.take();
        let waiter = {
            let slots = Arc::clone(&slots);
            std::thread::spawn(move || {
                let asked = Instant::now();
                let _second = slots.take();
                asked.elapsed()
            })
        };
        std::thread::sleep(Duration::from_millis(150));
        drop(first);
        let waited = waiter.join().unwrap();
        assert!(waited >= Duration::from_millis(100), "{waited:?}");
        assert_eq!(slots.free(), 1);
    }
}
