//! How long an engine waited for a CPU: the time its threads were runnable but not running,
//! which Linux counts per thread in `/proc/PID/task/TID/schedstat` (second field, ns).
//!
//! usicheck lets one engine per core compute ([`super::SearchSlots`]), but other programs on a
//! loaded machine still take the CPU from it: an engine whose reply missed its deadline by
//! less than it waited for a CPU meanwhile was starved, and its clock says nothing.

use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

/// The CPU wait of each thread of one process at one moment.
///
/// ```
/// use usicheck::engine::CpuWait;
/// let before = CpuWait::of(std::process::id() as i32);
/// let after = CpuWait::of(std::process::id() as i32);
/// assert!(after.longest_since(&before) < std::time::Duration::from_secs(1));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuWait {
    /// (thread id, nanoseconds waited for a CPU so far).
    threads: Vec<(u32, u64)>,
}

impl CpuWait {
    /// A sample of process `pid`'s threads; empty where /proc does not tell (the process is
    /// gone, or the kernel keeps no scheduler statistics).
    pub fn of(pid: i32) -> CpuWait {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return CpuWait::default();
        };
        let threads = tasks
            .flatten()
            .filter_map(|task| {
                let tid = task.file_name().to_str()?.parse().ok()?;
                let stat = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
                let waited = stat.split_whitespace().nth(1)?.parse().ok()?;
                Some((tid, waited))
            })
            .collect();
        CpuWait { threads }
    }

    /// The longest any one thread waited for a CPU between `earlier` and this sample (a
    /// thread started since counts from zero). One thread, not the sum: a search's reply
    /// comes from one thread, and several threads waiting at once lose no more time than one.
    pub fn longest_since(&self, earlier: &CpuWait) -> Duration {
        let waited = self
            .threads
            .iter()
            .map(|&(tid, now)| {
                let before = earlier
                    .threads
                    .iter()
                    .find(|(earlier_tid, _)| *earlier_tid == tid)
                    .map_or(0, |&(_, ns)| ns);
                now.saturating_sub(before)
            })
            .max()
            .unwrap_or(0);
        Duration::from_nanos(waited)
    }

    /// Takes each thread's value from `later`, keeping threads `later` no longer shows.
    fn update(&mut self, later: CpuWait) {
        for (tid, ns) in later.threads {
            match self.threads.iter_mut().find(|(known, _)| *known == tid) {
                Some(entry) => entry.1 = ns,
                None => self.threads.push((tid, ns)),
            }
        }
    }
}

/// How often the watched processes are sampled: a thread that ends between two samples takes
/// at most this much of its wait with it.
const SAMPLE_EVERY: Duration = Duration::from_millis(5);

/// The CPU wait that can have delayed an engine's reply to a command with a time limit, in two
/// windows: from the command until the engine's first line after it (a wait there delays the
/// moment it reads the command and starts its clock), and from `late` on, the last stretch
/// before the deadline (a wait there delays the reply itself). A wait in between is what a
/// time-managed engine absorbs: it keeps its time by the wall clock.
///
/// From `late` on a background thread samples the process every 5 ms until the
/// watch is dropped, so a thread that ends before the reply still counts (the reference engine
/// joins its search thread before it prints `bestmove`, and /proc forgets a thread that ended).
/// An engine that prints nothing before `late` has the two windows meet: its whole wait counts.
///
/// ```
/// use std::time::{Duration, Instant};
/// use usicheck::engine::CpuWaitWatch;
/// let me = std::process::id() as i32;
/// let watch = CpuWaitWatch::start(me, Instant::now() + Duration::from_millis(10));
/// std::thread::sleep(Duration::from_millis(20));
/// assert!(watch.longest() < Duration::from_secs(1));
/// ```
/// Clones share the watch.
#[derive(Clone, Debug)]
pub struct CpuWaitWatch {
    watched: Arc<Mutex<Watched>>,
}

#[derive(Debug)]
struct Watched {
    pid: i32,
    /// The wait when the command was sent.
    at_command: CpuWait,
    /// The wait when the engine's first line after the command came, or at `late` if none
    /// came before.
    first_line: Option<CpuWait>,
    late: Instant,
    /// The first sample taken at or after `late`.
    late_start: Option<CpuWait>,
    /// Each thread's latest value from `late` on, threads that ended since included.
    latest: CpuWait,
}

impl Watched {
    fn sample(&mut self, now: Instant) {
        if now < self.late {
            return;
        }
        let sample = CpuWait::of(self.pid);
        match self.late_start {
            None => {
                self.first_line.get_or_insert_with(|| sample.clone());
                self.late_start = Some(sample.clone());
                self.latest = sample;
            }
            Some(_) => self.latest.update(sample),
        }
    }

    fn longest(&self) -> Duration {
        let early = match &self.first_line {
            Some(first) => first.longest_since(&self.at_command),
            // No line yet and the late window not open: the early window is still running.
            None => CpuWait::of(self.pid).longest_since(&self.at_command),
        };
        let late = self
            .late_start
            .as_ref()
            .map_or(Duration::ZERO, |start| self.latest.longest_since(start));
        early + late
    }
}

/// The watches the sampler thread follows; it sleeps on [`WATCH_ADDED`] while there are none.
static WATCHES: Mutex<Vec<Weak<Mutex<Watched>>>> = Mutex::new(Vec::new());
static WATCH_ADDED: Condvar = Condvar::new();
static SAMPLER: std::sync::Once = std::sync::Once::new();

impl CpuWaitWatch {
    /// Watches process `pid` from now, when a command with a time limit was sent; its late
    /// window opens at `late`.
    pub fn start(pid: i32, late: Instant) -> CpuWaitWatch {
        let mut watched = Watched {
            pid,
            at_command: CpuWait::of(pid),
            first_line: None,
            late,
            late_start: None,
            latest: CpuWait::default(),
        };
        watched.sample(Instant::now());
        let watched = Arc::new(Mutex::new(watched));
        SAMPLER.call_once(|| {
            // Without a sampler a watch still samples when asked: ended threads then go
            // uncounted, as with a plain `CpuWait`.
            drop(
                std::thread::Builder::new()
                    .name("usicheck-cpu-wait".into())
                    .spawn(sample_forever),
            );
        });
        lock(&WATCHES).push(Arc::downgrade(&watched));
        WATCH_ADDED.notify_one();
        CpuWaitWatch { watched }
    }

    /// The engine printed a line: the first one after the command closes the early window.
    pub fn engine_wrote(&self) {
        let mut watched = lock(&self.watched);
        if watched.first_line.is_none() {
            watched.first_line = Some(CpuWait::of(watched.pid));
        }
    }

    /// The longest any one thread waited for a CPU in each window so far, added (zero where
    /// /proc does not tell).
    pub fn longest(&self) -> Duration {
        let mut watched = lock(&self.watched);
        watched.sample(Instant::now());
        watched.longest()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn sample_forever() {
    loop {
        let live: Vec<Arc<Mutex<Watched>>> = {
            let mut watches = lock(&WATCHES);
            watches.retain(|watch| watch.strong_count() > 0);
            while watches.is_empty() {
                watches = WATCH_ADDED
                    .wait(watches)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            watches.iter().filter_map(Weak::upgrade).collect()
        };
        let now = Instant::now();
        for watched in live {
            lock(&watched).sample(now);
        }
        std::thread::sleep(SAMPLE_EVERY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_wait_is_one_threads_growth() {
        let earlier = CpuWait {
            threads: vec![(1, 1_000_000), (2, 5_000_000)],
        };
        let later = CpuWait {
            threads: vec![(1, 301_000_000), (2, 5_000_000), (3, 20_000_000)],
        };
        assert_eq!(later.longest_since(&earlier), Duration::from_millis(300));
        assert_eq!(earlier.longest_since(&later), Duration::ZERO);
    }

    #[test]
    fn a_thread_that_ended_keeps_its_last_value() {
        let mut latest = CpuWait {
            threads: vec![(1, 10), (2, 50)],
        };
        latest.update(CpuWait {
            threads: vec![(1, 40), (3, 5)],
        });
        assert_eq!(latest.threads, vec![(1, 40), (2, 50), (3, 5)]);
    }

    #[test]
    fn a_watch_adds_the_wait_before_the_first_line_to_the_wait_since_late() {
        let wait = |one, two| CpuWait {
            threads: vec![(1, one), (2, two)],
        };
        let mut watched = Watched {
            pid: i32::MAX,
            at_command: wait(0, 0),
            first_line: Some(wait(5_000_000, 0)),
            late: Instant::now(),
            late_start: Some(wait(400_000_000, 1_000_000)),
            latest: wait(400_000_000, 1_000_000),
        };
        // Thread 2 waits 30 ms late in the search, then ends; the process is gone, so the
        // next sample adds nothing. Thread 1's 395 ms mid-search wait does not count.
        watched.latest.update(CpuWait {
            threads: vec![(2, 31_000_000)],
        });
        watched.sample(Instant::now());
        assert_eq!(watched.longest(), Duration::from_millis(35));
    }

    #[test]
    fn a_process_that_is_gone_tells_nothing() {
        assert_eq!(CpuWait::of(i32::MAX), CpuWait::default());
    }
}
