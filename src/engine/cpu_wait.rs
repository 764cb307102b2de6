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
    fn a_process_that_is_gone_tells_nothing() {
        assert_eq!(CpuWait::of(i32::MAX), CpuWait::default());
    }
}
