//! How long an engine waited for a CPU: the time its threads were runnable but not running,
//! which Linux counts per thread in `/proc/PID/task/TID/schedstat` (second field, ns).
//!
//! usicheck lets one engine per core compute ([`super::SearchSlots`]), but other programs on a
//! loaded machine still take the CPU from it: an engine whose reply missed its deadline by
//! less than it waited for a CPU meanwhile was starved, and its clock says nothing.

use std::time::Duration;

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
}

/// The CPU waits of one process's threads since a start, sampled now and then so that a
/// thread that ends before the reply still counts: an engine that searches on a thread of its
/// own often joins it before it prints `bestmove`, and /proc forgets an ended thread.
///
/// ```
/// use usicheck::engine::CpuWaitWatch;
/// use std::time::Duration;
/// let pid = std::process::id() as i32;
/// let mut watch = CpuWaitWatch::start(pid);
/// std::thread::spawn(|| std::thread::sleep(Duration::from_millis(1))).join().unwrap();
/// watch.sample();
/// assert!(watch.longest() < Duration::from_secs(1));
/// ```
#[derive(Clone, Debug, Default)]
pub struct CpuWaitWatch {
    pid: Option<i32>,
    start: CpuWait,
    /// The last value seen of every thread seen since the start, ended ones included.
    latest: CpuWait,
    sampled_at: Option<std::time::Instant>,
}

/// Samples closer together than this add /proc reads, not information.
const SAMPLE_EVERY: Duration = Duration::from_millis(10);

impl CpuWaitWatch {
    /// Starts watching process `pid`.
    pub fn start(pid: i32) -> CpuWaitWatch {
        let start = CpuWait::of(pid);
        CpuWaitWatch {
            pid: Some(pid),
            latest: start.clone(),
            start,
            sampled_at: Some(std::time::Instant::now()),
        }
    }

    /// Samples the threads unless the last sample is recent (call it at each engine line).
    pub fn sample(&mut self) {
        if self
            .sampled_at
            .is_some_and(|at| at.elapsed() < SAMPLE_EVERY)
        {
            return;
        }
        self.sample_now();
    }

    fn sample_now(&mut self) {
        let Some(pid) = self.pid else {
            return;
        };
        for (tid, waited) in CpuWait::of(pid).threads {
            match self
                .latest
                .threads
                .iter_mut()
                .find(|(seen, _)| *seen == tid)
            {
                Some(seen) => seen.1 = waited,
                None => self.latest.threads.push((tid, waited)),
            }
        }
        self.sampled_at = Some(std::time::Instant::now());
    }

    /// The longest one thread waited for a CPU since the start, sampling now.
    pub fn longest(&mut self) -> Duration {
        self.sample_now();
        self.latest.longest_since(&self.start)
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
    fn a_thread_that_ended_keeps_its_last_wait() {
        let mut watch = CpuWaitWatch {
            pid: None,
            start: CpuWait {
                threads: vec![(1, 0)],
            },
            latest: CpuWait {
                threads: vec![(1, 0), (7, 200_000_000)],
            },
            sampled_at: None,
        };
        // Thread 7 is gone from /proc (here: no process to sample at all).
        assert_eq!(watch.longest(), Duration::from_millis(200));
    }

    #[test]
    fn a_process_that_is_gone_tells_nothing() {
        assert_eq!(CpuWait::of(i32::MAX), CpuWait::default());
    }
}
