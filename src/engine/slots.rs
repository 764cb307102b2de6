//! How many engines may compute at once. Most of a scenario is waiting (silence windows,
//! deadlines), so a run keeps many scenarios in flight; but an engine that starts up, prepares
//! or searches needs a core, and engines that starve each other miss their clocks. An engine
//! takes its cores before it starts and before the first command after it went idle, and
//! gives them back once it has answered what it computed (`usiok`, `readyok`, its search's
//! reply) or ends.

use crate::usi::Command;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The cores of one run, shared by its scenarios' engines.
///
/// ```
/// use usicheck::engine::SearchSlots;
/// let slots = SearchSlots::new(2, 1);
/// let search = slots.take(slots.search_cores());
/// assert_eq!(slots.free(), 1);
/// drop(search);
/// assert_eq!(slots.free(), 2);
/// ```
#[derive(Debug)]
pub struct SearchSlots {
    /// Cores not taken.
    free: Mutex<usize>,
    freed: Condvar,
    cores: usize,
    /// Cores one search takes (the engine's threads, at most all).
    search_cores: usize,
}

/// Whether engine option `name` sets how many threads one search uses: `Threads` (the common
/// name) or `Thread` (gpsusi).
pub fn sets_search_threads(name: &str) -> bool {
    ["Threads", "Thread"]
        .iter()
        .any(|known| name.eq_ignore_ascii_case(known))
}

/// The threads `--option` settings give one search, if they set them.
///
/// ```
/// let options = vec![("Threads".to_owned(), Some(" 4".to_owned()))];
/// assert_eq!(usicheck::engine::threads_set_by(&options), Some(4));
/// ```
pub fn threads_set_by(options: &[(String, Option<String>)]) -> Option<usize> {
    options
        .iter()
        .find(|(name, _)| sets_search_threads(name))
        .and_then(|(_, value)| value.as_deref()?.trim().parse().ok())
}

/// Cores held while the engine computes; dropping the slot gives them back.
#[derive(Debug)]
pub struct SearchSlot {
    slots: Arc<SearchSlots>,
    cores: usize,
}

impl SearchSlot {
    /// The cores held.
    pub fn cores(&self) -> usize {
        self.cores
    }
}

impl SearchSlots {
    /// `cores` shared by engines whose searches use `search_threads` threads each. Start-up
    /// takes one core.
    pub fn new(cores: usize, search_threads: usize) -> Arc<SearchSlots> {
        let cores = cores.max(1);
        Arc::new(SearchSlots {
            free: Mutex::new(cores),
            freed: Condvar::new(),
            cores,
            search_cores: search_threads.clamp(1, cores),
        })
    }

    /// The cores one search takes.
    pub fn search_cores(&self) -> usize {
        self.search_cores
    }

    /// Waits for `cores` free cores (at most all): one for an engine's start-up,
    /// [`search_cores`](Self::search_cores) for what follows. A run interrupted
    /// meanwhile gets them at once: its scenarios are being cut short and must not wait for
    /// each other.
    pub fn take(self: &Arc<Self>, cores: usize) -> SearchSlot {
        let cores = cores.clamp(1, self.cores);
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free < cores && super::interrupted().is_none() {
            free = self
                .freed
                .wait_timeout(free, Duration::from_millis(100))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *free = free.saturating_sub(cores);
        SearchSlot {
            slots: Arc::clone(self),
            cores,
        }
    }

    /// Cores free now.
    pub fn free(&self) -> usize {
        *self.free.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for SearchSlot {
    fn drop(&mut self) {
        let mut free = self.slots.free.lock().unwrap_or_else(|e| e.into_inner());
        *free = (*free + self.cores).min(self.slots.cores);
        // Waiters need different numbers of cores: each checks for itself.
        self.slots.freed.notify_all();
    }
}

/// The cores one engine holds, following the commands it is sent and what it owes.
///
/// An engine may compute after any command (`usinewgame` may be heavy), so it holds its cores
/// from the first command after it went idle until it answers; a `go` right after `usinewgame`
/// then never waits for a core, which would hide the heavy work a check looks for.
///
/// ```
/// use usicheck::engine::{HeldCores, SearchSlots};
/// use usicheck::usi::Command;
/// let slots = SearchSlots::new(2, 2);
/// let mut engine = HeldCores::starting(Some(&slots));
/// assert_eq!(slots.free(), 1);
/// engine.before_sending(&Command::parse("usinewgame"));
/// assert_eq!(slots.free(), 0);
/// engine.update(false);
/// assert_eq!(slots.free(), 0, "usinewgame owes nothing, yet may keep the engine busy");
/// engine.before_sending(&Command::parse("go btime 0 wtime 0 byoyomi 1000"));
/// engine.update(true);
/// engine.update(false);
/// assert_eq!(slots.free(), 2, "the search answered");
/// ```
#[derive(Debug, Default)]
pub struct HeldCores {
    slots: Option<Arc<SearchSlots>>,
    held: Option<SearchSlot>,
    /// Whether the engine owed a computed answer at the last update.
    computing: bool,
}

impl HeldCores {
    /// A new engine: one core for its start-up, until its first command (none without slots).
    pub fn starting(slots: Option<&Arc<SearchSlots>>) -> HeldCores {
        HeldCores {
            slots: slots.cloned(),
            held: slots.map(|slots| slots.take(1)),
            computing: false,
        }
    }

    /// Before `command` is sent, waits for a search's cores unless they are held already (no
    /// clock runs yet). `quit` takes none: the engine is leaving.
    pub fn before_sending(&mut self, command: &Command) {
        let Some(slots) = &self.slots else {
            return;
        };
        if matches!(command, Command::Quit) {
            return;
        }
        let held = self.held.as_ref().map_or(0, SearchSlot::cores);
        if held < slots.search_cores() {
            // Give back what is held before waiting, or two engines could wait on each other.
            self.held = None;
            self.held = Some(slots.take(slots.search_cores()));
        }
    }

    /// After each line sent or read, with whether the engine owes an answer it computes:
    /// gives the cores back when it has just given its last such answer.
    pub fn update(&mut self, computing: bool) {
        if self.computing && !computing {
            self.held = None;
        }
        self.computing = computing;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn a_second_search_waits_for_the_first_to_end() {
        let slots = SearchSlots::new(1, 1);
        let first = slots.take(1);
        let waiter = {
            let slots = Arc::clone(&slots);
            std::thread::spawn(move || {
                let asked = Instant::now();
                let _second = slots.take(1);
                asked.elapsed()
            })
        };
        std::thread::sleep(Duration::from_millis(150));
        drop(first);
        let waited = waiter.join().unwrap();
        assert!(waited >= Duration::from_millis(100), "{waited:?}");
        assert_eq!(slots.free(), 1);
    }

    #[test]
    fn a_search_with_two_threads_waits_for_two_free_cores() {
        let slots = SearchSlots::new(2, 2);
        let start_up = slots.take(1);
        assert_eq!(slots.free(), 1);
        let waiter = {
            let slots = Arc::clone(&slots);
            std::thread::spawn(move || {
                let asked = Instant::now();
                let search = slots.take(slots.search_cores());
                (asked.elapsed(), search.cores())
            })
        };
        std::thread::sleep(Duration::from_millis(150));
        drop(start_up);
        let (waited, cores) = waiter.join().unwrap();
        assert!(waited >= Duration::from_millis(100), "{waited:?}");
        assert_eq!(cores, 2);
    }
}
