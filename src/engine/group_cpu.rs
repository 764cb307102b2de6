//! The CPU time a process group has used so far: the user and system time of every process in
//! it, from `/proc/PID/stat`. A group, not a process: an engine started through a wrapper
//! script computes in the script's child, and usicheck starts each engine in a group of its own.

/// The CPU time, in clock ticks, used so far by the processes now in each group of `groups`
/// (`None` for a group with no process left, or where /proc does not tell). One pass over
/// /proc serves all the groups.
///
/// ```
/// use usicheck::engine::group_cpu_ticks;
/// let me = unsafe { libc::getpgrp() };
/// assert!(group_cpu_ticks(&[me])[0].is_some());
/// ```
pub fn group_cpu_ticks(groups: &[i32]) -> Vec<Option<u64>> {
    let mut ticks = vec![None; groups.len()];
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return ticks;
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
        let Some((group, used)) = group_and_ticks(&stat) else {
            continue;
        };
        for (slot, _) in ticks
            .iter_mut()
            .zip(groups)
            .filter(|(_, wanted)| **wanted == group)
        {
            *slot = Some(slot.unwrap_or(0) + used);
        }
    }
    ticks
}

/// The process group and utime + stime of a `/proc/PID/stat` line. The command name, in
/// parentheses, may hold blanks and parentheses itself: the fields are counted after its last
/// `)`.
fn group_and_ticks(stat: &str) -> Option<(i32, u64)> {
    let fields: Vec<&str> = stat
        .get(stat.rfind(')')? + 1..)?
        .split_whitespace()
        .collect();
    // After the name: state(3) ppid(4) pgrp(5) … utime(14) stime(15), numbered from 1.
    let group = fields.get(2)?.parse().ok()?;
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some((group, user + system))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_its_group_and_time_whatever_the_name() {
        let stat = "4242 (my (odd) engine) S 1 4240 4240 0 -1 4194560 100 0 0 0 37 5 0 0 20 0 \
                    1 0 100 0 0";
        assert_eq!(group_and_ticks(stat), Some((4240, 42)));
        assert_eq!(group_and_ticks("garbage"), None);
    }
}
