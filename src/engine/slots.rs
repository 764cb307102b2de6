//! How many engines may compute at once. Most of a scenario is waiting (silence windows,
//! deadlines), so a run keeps many scenarios in flight; but an engine that starts up, prepares
//! or searches needs a core, and engines that starve each other miss their clocks. An engine
//! takes its cores before it starts and before the first command after it went idle, and
//! gives them back once it has answered what it computed (`usiok`, `readyok`, its search's
//! reply) or ends, or lends them while it is measured idle (see [`HeldCores::watch`]). How
//! many cores a search takes is the run's choice: one in `certify` and `fuzz`, which measure
//! no strength (a search's other threads share what the others leave); in `play`, whose games
//! measure strength, the threads its options set, or fewer once its searches were seen to use
//! fewer ([`SearchSlots::saw_search_threads`]).

use crate::usi::Command;
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

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
    state: Mutex<Cores>,
    freed: Condvar,
    cores: usize,
    /// Cores one search may take: the engine's declared threads, at most all.
    declared_search_cores: usize,
}

/// The cores not taken, and the takers waiting for theirs, served first come first served: a
/// search that needs every core would otherwise wait for as long as one-core start-ups keep
/// taking each core freed.
#[derive(Debug, Default)]
struct Cores {
    free: usize,
    /// The waiting takers' tickets, oldest first.
    queue: std::collections::VecDeque<u64>,
    next_ticket: u64,
    /// The most threads a search was seen running at once, once one was.
    seen_search_threads: Option<usize>,
}

/// Whether engine option `name` sets how many threads one search uses: `Threads` (the common
/// name) or `Thread` (gpsusi).
fn sets_search_threads(name: &str) -> bool {
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
            state: Mutex::new(Cores {
                free: cores,
                ..Cores::default()
            }),
            freed: Condvar::new(),
            cores,
            declared_search_cores: search_threads.clamp(1, cores),
        })
    }

    /// The cores one search takes: as many as the most threads a search was seen running
    /// ([`saw_search_threads`](Self::saw_search_threads)), at most the declared threads; all
    /// of these until a search was seen.
    pub fn search_cores(&self) -> usize {
        let declared = self.declared_search_cores;
        self.lock()
            .seen_search_threads
            .map_or(declared, |seen| seen.clamp(1, declared))
    }

    /// Records that a search ran `threads` threads at once (none: no evidence). An engine
    /// may be set more threads than its searches use: a search that held a core it left
    /// idle kept an engine waiting for nothing.
    ///
    /// ```
    /// use usicheck::engine::SearchSlots;
    /// let slots = SearchSlots::new(4, 4);
    /// assert_eq!(slots.search_cores(), 4, "none seen yet: the declared threads");
    /// slots.saw_search_threads(1);
    /// assert_eq!(slots.search_cores(), 1);
    /// slots.saw_search_threads(3);
    /// slots.saw_search_threads(2);
    /// assert_eq!(slots.search_cores(), 3, "the most seen");
    /// slots.saw_search_threads(9);
    /// assert_eq!(slots.search_cores(), 4, "at most the declared");
    /// ```
    pub fn saw_search_threads(&self, threads: usize) {
        if threads == 0 {
            return;
        }
        let mut state = self.lock();
        state.seen_search_threads = Some(
            state
                .seen_search_threads
                .map_or(threads, |seen| seen.max(threads)),
        );
    }

    /// Waits for `cores` free cores (at most all): one for an engine's start-up,
    /// [`search_cores`](Self::search_cores) for what follows. Takers are served in the order
    /// they asked: one is not overtaken by a later one that needs fewer cores. A run
    /// interrupted meanwhile gets them at once: its scenarios are being cut short and must not
    /// wait for each other.
    pub fn take(self: &Arc<Self>, cores: usize) -> SearchSlot {
        let cores = cores.clamp(1, self.cores);
        let mut state = self.lock();
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.queue.push_back(ticket);
        while !(state.queue.front() == Some(&ticket) && state.free >= cores)
            && super::interrupted().is_none()
        {
            state = self
                .freed
                .wait_timeout(state, Duration::from_millis(100))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        state.queue.retain(|&waiting| waiting != ticket);
        state.free = state.free.saturating_sub(cores);
        // The next in line may fit in what is left.
        self.freed.notify_all();
        SearchSlot {
            slots: Arc::clone(self),
            cores,
        }
    }

    /// `cores` free cores (at most all) if they are free now and no taker waits for its own.
    pub fn try_take(self: &Arc<Self>, cores: usize) -> Option<SearchSlot> {
        let cores = cores.clamp(1, self.cores);
        let mut state = self.lock();
        if state.free < cores || !state.queue.is_empty() {
            return None;
        }
        state.free -= cores;
        Some(SearchSlot {
            slots: Arc::clone(self),
            cores,
        })
    }

    /// Cores free now.
    pub fn free(&self) -> usize {
        self.lock().free
    }

    /// Takers waiting for their cores now.
    pub fn waiting(&self) -> usize {
        self.lock().queue.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cores> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for SearchSlot {
    fn drop(&mut self) {
        let mut state = self.slots.lock();
        state.free = (state.free + self.cores).min(self.slots.cores);
        // Waiters need different numbers of cores: each checks for itself.
        self.slots.freed.notify_all();
    }
}

/// The cores one engine holds, following the commands it is sent and what it owes.
///
/// An engine may compute after any command, so it holds cores from the first command after it
/// went idle until it answers: a search's for `go` and `ponderhit`, and for `usinewgame` (it may
/// be heavy, and a `go` right after it then never waits for cores, which would hide the heavy
/// work a check looks for); one core for any other (`isready` prepares on one thread, or
/// answers at once): a multi-threaded engine does not keep every core from the others while it
/// loads its tables.
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
    holding: Arc<Mutex<Holding>>,
    /// Whether the engine owed a computed answer at the last update.
    computing: bool,
}

/// What one engine holds, shared with the lender ([`lend_idle_cores`]).
#[derive(Debug, Default)]
struct Holding {
    slots: Option<Arc<SearchSlots>>,
    slot: Option<SearchSlot>,
    /// Its CPU time at the last sample, and since when it has not changed (or a command was
    /// sent, which may start work).
    cpu_ticks: Option<u64>,
    quiet_since: Option<Instant>,
    /// Cores lent while the engine owes an answer, to take back when it computes again.
    lent: usize,
    /// While a search runs: its threads runnable at the last sample.
    search_threads: Option<usize>,
}

/// How long an engine that holds cores must be idle before it lends them: no clock tick
/// (10 ms) in its process group, and no thread runnable at any sample, so that an engine
/// starved of a CPU on a loaded host keeps its cores. Searching, starting up or preparing, an
/// engine computes all the time; one that sleeps (a simulated slow `isready`), waits for
/// `stop` with its search done, or was sent a command that owes no answer does not, and other
/// engines may compute meanwhile.
const IDLE_BEFORE_LENDING: Duration = Duration::from_millis(100);
/// How often the lender samples the watched engines.
const LEND_SAMPLE: Duration = Duration::from_millis(50);

impl HeldCores {
    /// A new engine: one core for its start-up, until its `usiok` (or its first command other
    /// than `usi`); none without slots.
    pub fn starting(slots: Option<&Arc<SearchSlots>>) -> HeldCores {
        let cores = HeldCores::idle(slots);
        lock(&cores.holding).slot = slots.map(|slots| slots.take(1));
        cores
    }

    /// An engine already running and idle: it holds no core until its next command.
    pub fn idle(slots: Option<&Arc<SearchSlots>>) -> HeldCores {
        HeldCores {
            holding: Arc::new(Mutex::new(Holding {
                slots: slots.cloned(),
                ..Holding::default()
            })),
            computing: false,
        }
    }

    /// Watches the engine's process group (led by `pid`): while it holds cores but has been
    /// idle for 100 ms since the last command, it lends them to other engines,
    /// and takes them back as soon as it computes again and they are free, else at its next
    /// command. A simulated engine (pid 0: it runs in usicheck's process, on simulated time)
    /// has no process group to sample, and is not watched: group 0 would be the kernel's.
    pub fn watch(&self, pid: i32) {
        if pid <= 0 || lock(&self.holding).slots.is_none() {
            return;
        }
        lock(&WATCHED).push((pid, Arc::downgrade(&self.holding)));
        LENDER.call_once(|| {
            // Without the lender thread, cores are only held and given back, never lent.
            drop(
                std::thread::Builder::new()
                    .name("usicheck-lender".into())
                    .spawn(lend_idle_cores),
            );
        });
        WATCH_ADDED.notify_one();
    }

    /// Before `command` is sent, waits for the cores it needs (see [`HeldCores`]) unless they
    /// are held already (no clock runs yet). `quit` takes none: the engine is leaving. `usi`
    /// keeps the start-up's core: an engine computes from its launch, and one that gave its
    /// core back to wait for a search's would go on computing beside the engines it waits for
    /// (16 slow starters launched at once on 2 cores took 16 s for a `usiok` that takes 2 s
    /// alone).
    pub fn before_sending(&mut self, command: &Command) {
        if matches!(command, Command::Quit) {
            return;
        }
        let (slots, held, needed) = {
            let mut holding = lock(&self.holding);
            let Some(slots) = holding.slots.clone() else {
                return;
            };
            holding.quiet_since = Some(Instant::now());
            holding.lent = 0;
            if matches!(command, Command::Go(_) | Command::PonderHit(_)) {
                holding.search_threads.get_or_insert(0);
            }
            let needed = match command {
                Command::Go(_) | Command::PonderHit(_) | Command::UsiNewGame => {
                    slots.search_cores()
                }
                _ => 1,
            };
            match &holding.slot {
                Some(_) if matches!(command, Command::Usi) => return,
                Some(slot) if slot.cores() >= needed => return,
                // Give back what is held before waiting, or two engines could wait on each
                // other.
                _ => (slots, holding.slot.take(), needed),
            }
        };
        drop(held);
        let slot = slots.take(needed);
        let mut holding = lock(&self.holding);
        holding.slot = Some(slot);
        holding.quiet_since = Some(Instant::now());
    }

    /// After each line sent or read, with whether the engine owes an answer it computes:
    /// gives the cores back when it has just given its last such answer.
    pub fn update(&mut self, computing: bool) {
        if self.computing && !computing {
            let released = {
                let mut holding = lock(&self.holding);
                holding.lent = 0;
                holding.search_threads = None;
                holding.slot.take()
            };
            drop(released);
        }
        self.computing = computing;
    }

    /// Cores held now (lent ones not counted).
    pub fn held(&self) -> usize {
        lock(&self.holding)
            .slot
            .as_ref()
            .map_or(0, SearchSlot::cores)
    }
}

/// The engines the lender follows, by process group; it sleeps on [`WATCH_ADDED`] while there
/// are none.
static WATCHED: Mutex<Vec<(i32, Weak<Mutex<Holding>>)>> = Mutex::new(Vec::new());
static WATCH_ADDED: Condvar = Condvar::new();
static LENDER: std::sync::Once = std::sync::Once::new();

/// The lender thread: samples the watched engines' CPU time, lends the cores of those idle for
/// [`IDLE_BEFORE_LENDING`], and gives them back to those that compute again, if free: a
/// waiting take would stall every engine it follows.
fn lend_idle_cores() {
    loop {
        let (groups, watched): (Vec<i32>, Vec<Arc<Mutex<Holding>>>) = {
            let mut list = lock(&WATCHED);
            list.retain(|(_, weak)| weak.strong_count() > 0);
            while list.is_empty() {
                list = WATCH_ADDED
                    .wait(list)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            list.iter()
                .filter_map(|(group, weak)| Some((*group, weak.upgrade()?)))
                .unzip()
        };
        let samples = super::group_cpu(&groups);
        let now = Instant::now();
        for (holding, sample) in watched.iter().zip(samples) {
            let ticks = sample.map(|cpu| cpu.ticks);
            let lent = {
                let mut holding = lock(holding);
                let runnable = sample.map_or(0, |cpu| cpu.runnable_threads);
                let busy = ticks != holding.cpu_ticks || runnable > 0;
                // Threads runnable in two samples in a row: a thread that reads a command is
                // runnable for microseconds, a search's for the whole search.
                if let Some(before) = holding.search_threads {
                    holding.search_threads = Some(runnable);
                    if let Some(slots) = &holding.slots {
                        slots.saw_search_threads(before.min(runnable));
                    }
                }
                if busy || ticks.is_none() {
                    holding.cpu_ticks = ticks;
                    holding.quiet_since = Some(now);
                }
                let holding = &mut *holding;
                if busy
                    && holding.lent > 0
                    && holding.slot.is_none()
                    && let Some(slots) = &holding.slots
                {
                    holding.slot = slots.try_take(holding.lent);
                    if holding.slot.is_some() {
                        holding.lent = 0;
                    }
                }
                let idle = holding
                    .quiet_since
                    .is_some_and(|since| now.duration_since(since) >= IDLE_BEFORE_LENDING);
                match holding.slot.take_if(|_| idle) {
                    Some(slot) => {
                        holding.lent = slot.cores();
                        Some(slot)
                    }
                    None => None,
                }
            };
            drop(lent);
        }
        drop(watched);
        std::thread::sleep(LEND_SAMPLE);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;

    /// A shell script in a process group of its own, killed with its group when dropped.
    struct Group(std::process::Child);

    impl Group {
        fn start(script: &str) -> Group {
            use std::os::unix::process::CommandExt;
            let child = std::process::Command::new("sh")
                .args(["-c", script])
                .process_group(0)
                .spawn()
                .expect("sh starts");
            Group(child)
        }

        fn pid(&self) -> i32 {
            self.0.id() as i32
        }
    }

    impl Drop for Group {
        fn drop(&mut self) {
            crate::engine::process::signal_group(self.pid(), libc::SIGKILL);
            let _ = self.0.wait();
        }
    }

    /// Polls `held` until it gives `cores`, for at most `within`.
    fn holds_within(engine: &HeldCores, cores: usize, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while engine.held() != cores {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    #[test]
    #[ignore = "slow tier: core lending timed on this machine"]
    fn an_idle_engine_lends_its_cores_and_a_busy_one_keeps_them() {
        let slots = SearchSlots::new(2, 1);
        let sleeper = Group::start("sleep 30");
        let idle = HeldCores::starting(Some(&slots));
        idle.watch(sleeper.pid());
        // The shell waits, idle, for its child, which computes: the group counts.
        let wrapper = Group::start("sh -c 'while :; do :; done'; true");
        let busy = HeldCores::starting(Some(&slots));
        busy.watch(wrapper.pid());
        assert!(
            holds_within(&idle, 0, Duration::from_secs(5)),
            "the sleeper lends"
        );
        std::thread::sleep(IDLE_BEFORE_LENDING * 2);
        assert_eq!(busy.held(), 1, "the computing engine keeps its core");
        assert_eq!(slots.free(), 1);
    }

    /// The search cores after a `go` to an engine declaring two threads whose search is
    /// `script`, watched for 600 ms.
    fn search_cores_after_searching(script: &str) -> usize {
        let slots = SearchSlots::new(2, 2);
        let engine = Group::start(script);
        let mut cores = HeldCores::idle(Some(&slots));
        cores.watch(engine.pid());
        cores.before_sending(&Command::parse("go btime 0 wtime 0 byoyomi 1000"));
        cores.update(true);
        std::thread::sleep(Duration::from_millis(600));
        slots.search_cores()
    }

    #[test]
    #[ignore = "slow tier: threads sampled on this machine"]
    fn a_search_on_one_of_two_declared_threads_makes_the_next_take_one_core() {
        assert_eq!(search_cores_after_searching("while :; do :; done"), 1);
    }

    #[test]
    #[ignore = "slow tier: threads sampled on this machine"]
    fn a_search_on_both_declared_threads_keeps_two_cores_for_the_next() {
        let two = "(while :; do :; done) & while :; do :; done";
        assert_eq!(search_cores_after_searching(two), 2);
    }

    #[test]
    #[ignore = "slow tier: core lending timed on this machine"]
    fn a_lent_core_comes_back_when_the_engine_computes_again() {
        let slots = SearchSlots::new(1, 1);
        let engine = Group::start("sleep 3; while :; do :; done");
        let cores = HeldCores::starting(Some(&slots));
        cores.watch(engine.pid());
        assert!(
            holds_within(&cores, 0, Duration::from_secs(3)),
            "lent while asleep"
        );
        assert!(
            holds_within(&cores, 1, Duration::from_secs(5)),
            "taken back"
        );
    }

    #[test]
    fn an_engine_without_a_process_group_of_its_own_is_not_watched() {
        let slots = SearchSlots::new(2, 1);
        let simulated = HeldCores::starting(Some(&slots));
        simulated.watch(0);
        let watched = lock(&WATCHED);
        assert!(watched.iter().all(|(pid, _)| *pid > 0), "{watched:?}");
    }

    #[test]
    fn a_start_up_keeps_its_one_core_through_usi_and_takes_a_search_after_usiok() {
        let slots = SearchSlots::new(2, 2);
        let mut engine = HeldCores::starting(Some(&slots));
        engine.before_sending(&Command::parse("usi"));
        engine.update(true);
        assert_eq!(slots.free(), 1, "`usi` needs no search's cores");
        engine.update(false);
        assert_eq!(slots.free(), 2, "`usiok` gives the core back");
        engine.before_sending(&Command::parse("isready"));
        assert_eq!(slots.free(), 1, "`isready` prepares on one core");
        engine.before_sending(&Command::parse("position startpos"));
        assert_eq!(slots.free(), 1);
        engine.before_sending(&Command::parse("go btime 0 wtime 0 byoyomi 1000"));
        assert_eq!(slots.free(), 0, "the search takes its two");
    }

    #[test]
    fn a_search_takes_the_cores_searches_were_seen_to_use() {
        let slots = SearchSlots::new(2, 2);
        slots.saw_search_threads(1);
        let mut engine = HeldCores::idle(Some(&slots));
        engine.before_sending(&Command::parse("go btime 0 wtime 0 byoyomi 1000"));
        assert_eq!(slots.free(), 1, "one thread seen, one core taken");
    }

    #[test]
    fn an_engine_not_watched_keeps_its_cores_however_idle() {
        let slots = SearchSlots::new(1, 1);
        let cores = HeldCores::starting(Some(&slots));
        std::thread::sleep(IDLE_BEFORE_LENDING * 2);
        assert_eq!(cores.held(), 1);
    }

    #[test]
    fn a_second_search_waits_for_the_first_to_end() {
        let slots = SearchSlots::new(1, 1);
        let first = slots.take(1);
        // Set just before the first slot is given back: whenever the waiter gets its slot
        // (a loaded machine may start it late), the first must be gone by then.
        let released = Arc::new(AtomicBool::new(false));
        let waiter = {
            let slots = Arc::clone(&slots);
            let released = Arc::clone(&released);
            std::thread::spawn(move || {
                let _second = slots.take(1);
                released.load(Ordering::SeqCst)
            })
        };
        std::thread::sleep(Duration::from_millis(150));
        released.store(true, Ordering::SeqCst);
        drop(first);
        assert!(waiter.join().unwrap(), "the second took a slot still held");
        assert_eq!(slots.free(), 1);
    }

    #[test]
    fn a_search_that_needs_every_core_is_not_overtaken_by_later_narrow_takers() {
        let slots = SearchSlots::new(2, 2);
        let start_up = slots.take(1);
        let wide = {
            let slots = Arc::clone(&slots);
            std::thread::spawn(move || slots.take(2).cores())
        };
        while slots.waiting() == 0 {
            std::thread::yield_now();
        }
        assert_eq!(slots.free(), 1);
        assert!(
            slots.try_take(1).is_none(),
            "a free core, but the wide taker is first"
        );
        let narrow = {
            let slots = Arc::clone(&slots);
            std::thread::spawn(move || slots.take(1).cores())
        };
        while slots.waiting() < 2 {
            std::thread::yield_now();
        }
        drop(start_up);
        assert_eq!(wide.join().unwrap(), 2);
        assert_eq!(narrow.join().unwrap(), 1);
        assert_eq!(slots.free(), 2);
    }

    #[test]
    #[ignore = "slow tier: core lending timed on this machine"]
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
