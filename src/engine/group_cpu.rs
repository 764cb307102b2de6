//! What a process group is doing: the CPU time its processes have used so far, how many of
//! their threads are runnable, and how many processes it has, from `/proc`. A group, not a
//! process: an engine started through a wrapper script computes in the script's child, and
//! usicheck starts each engine in a group of its own. Once they have ended and been waited
//! for, what every engine process used together ([`reaped_cpu`]).

use std::path::Path;

/// One sample of a process group's CPU use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupCpu {
    /// User and system time, in clock ticks, of the processes now in the group.
    pub ticks: u64,
    /// Their threads runnable now (state `R`): computing, or waiting for a CPU on a loaded
    /// host, where their clock stands still although they are not idle.
    pub runnable_threads: usize,
    /// Processes now in the group (the leader and those it started).
    pub processes: u64,
}

/// A sample of each group of `groups` (`None` for a group with no process left, or where /proc
/// does not tell). One pass over /proc serves all the groups.
///
/// ```
/// use usicheck::engine::group_cpu;
/// let me = unsafe { libc::getpgrp() };
/// // This thread runs the call: it is runnable.
/// assert!(group_cpu(&[me])[0].unwrap().runnable_threads >= 1);
/// ```
pub fn group_cpu(groups: &[i32]) -> Vec<Option<GroupCpu>> {
    group_cpu_in(Path::new("/proc"), groups)
}

/// CPU time (user and system) of the processes this one started and waited for, and of the
/// descendants those waited for: every engine process of a run once it has ended, through a
/// wrapper script too, but not a process orphaned by a signal to its group before its parent
/// waited for it. The difference of two readings is what the processes reaped in between
/// used.
///
/// ```
/// use usicheck::engine::reaped_cpu;
/// let before = reaped_cpu();
/// let busy = "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done";
/// std::process::Command::new("sh").args(["-c", busy]).status().unwrap();
/// assert!(reaped_cpu() > before);
/// ```
pub fn reaped_cpu() -> std::time::Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let time = |t: libc::timeval| {
        std::time::Duration::from_secs(t.tv_sec as u64)
            + std::time::Duration::from_micros(t.tv_usec as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

fn group_cpu_in(proc_root: &Path, groups: &[i32]) -> Vec<Option<GroupCpu>> {
    let mut samples: Vec<Option<GroupCpu>> = vec![None; groups.len()];
    let Ok(processes) = std::fs::read_dir(proc_root) else {
        return samples;
    };
    for process in processes.flatten() {
        let name = process.file_name();
        if !name
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(process.path().join("stat")) else {
            continue;
        };
        let Some(fields) = StatFields::parse(&stat) else {
            continue;
        };
        if !groups.contains(&fields.group) {
            continue;
        }
        // The process's state is its main thread's; a search runs in another.
        let runnable = runnable_threads(&process.path());
        for (sample, _) in samples
            .iter_mut()
            .zip(groups)
            .filter(|(_, wanted)| **wanted == fields.group)
        {
            let sample = sample.get_or_insert_with(GroupCpu::default);
            sample.ticks += fields.ticks;
            sample.runnable_threads += runnable;
            sample.processes += 1;
        }
    }
    samples
}

fn runnable_threads(process: &Path) -> usize {
    let Ok(threads) = std::fs::read_dir(process.join("task")) else {
        return 0;
    };
    threads
        .flatten()
        .filter(|thread| {
            std::fs::read_to_string(thread.path().join("stat"))
                .ok()
                .and_then(|stat| StatFields::parse(&stat))
                .is_some_and(|fields| fields.state == 'R')
        })
        .count()
}

/// The fields of a `/proc/PID/stat` (or `task/TID/stat`) line that tell what it is doing.
#[derive(Debug, PartialEq, Eq)]
struct StatFields {
    state: char,
    group: i32,
    /// utime + stime.
    ticks: u64,
}

impl StatFields {
    /// The command name, in parentheses, may hold blanks and parentheses itself: the fields are
    /// counted after its last `)`.
    fn parse(stat: &str) -> Option<StatFields> {
        let fields: Vec<&str> = stat
            .get(stat.rfind(')')? + 1..)?
            .split_whitespace()
            .collect();
        // After the name: state(3) ppid(4) pgrp(5) … utime(14) stime(15), numbered from 1.
        let state = fields.first()?.chars().next()?;
        let group = fields.get(2)?.parse().ok()?;
        let user: u64 = fields.get(11)?.parse().ok()?;
        let system: u64 = fields.get(12)?.parse().ok()?;
        Some(StatFields {
            state,
            group,
            ticks: user + system,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(pid: u32, state: char, group: i32, utime: u64) -> String {
        format!(
            "{pid} (my (odd) engine) {state} 1 {group} {group} 0 -1 4194560 100 0 0 0 {utime} 5 0 \
             0 20 0 1 0 100 0 0"
        )
    }

    #[test]
    fn a_stat_line_gives_its_state_group_and_time_whatever_the_name() {
        assert_eq!(
            StatFields::parse(&stat(4242, 'S', 4240, 37)),
            Some(StatFields {
                state: 'S',
                group: 4240,
                ticks: 42
            })
        );
        assert_eq!(StatFields::parse("garbage"), None);
    }

    /// A fake /proc, removed when dropped: each process with its stat and its threads' stats.
    struct FakeProc(std::path::PathBuf);

    impl Drop for FakeProc {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn fake_proc(processes: &[(u32, i32, u64, &[char])]) -> FakeProc {
        let root = FakeProc(
            std::env::temp_dir().join(format!("usicheck-fake-proc-{}", std::process::id())),
        );
        std::fs::create_dir_all(root.0.join("self")).unwrap();
        for &(pid, group, utime, threads) in processes {
            let dir = root.0.join(pid.to_string());
            std::fs::create_dir_all(dir.join("task")).unwrap();
            std::fs::write(dir.join("stat"), stat(pid, 'S', group, utime)).unwrap();
            for (n, &state) in threads.iter().enumerate() {
                let thread = dir.join("task").join((pid + n as u32).to_string());
                std::fs::create_dir(&thread).unwrap();
                std::fs::write(thread.join("stat"), stat(pid, state, group, 0)).unwrap();
            }
        }
        root
    }

    #[test]
    fn a_group_sums_its_processes_and_counts_their_runnable_threads() {
        let root = fake_proc(&[
            (100, 100, 10, &['S']),
            (101, 100, 20, &['R', 'S', 'R']),
            (200, 200, 7, &['S', 'S']),
            (300, 300, 1, &['R']),
        ]);
        let samples = group_cpu_in(&root.0, &[100, 200, 400]);
        assert_eq!(
            samples,
            vec![
                Some(GroupCpu {
                    ticks: 40,
                    runnable_threads: 2,
                    processes: 2,
                }),
                Some(GroupCpu {
                    ticks: 12,
                    runnable_threads: 0,
                    processes: 1,
                }),
                None,
            ]
        );
    }
}
