//! The engine's process group: observing the leader's exit, signalling, and reaping.
//!
//! The leader is observed with `waitid(WNOWAIT)` and reaped only once the session has sent its
//! last signal to the group: while the leader is unreaped its pid, which is also the group id,
//! cannot be reused, so a signal can never reach an unrelated process group.

use std::io;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Instant;

use super::event::{Event, Termination};
use super::queue::EventQueue;

/// Sends `signal` to every process in the group led by `pgid`.
pub(crate) fn signal_group(pgid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: plain syscall; ESRCH (group already gone) is fine to ignore.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

/// Lets the watcher thread reap the leader once the session no longer signals the group.
#[derive(Debug, Default)]
pub(crate) struct ReapPermit {
    granted: Mutex<bool>,
    changed: Condvar,
}

impl ReapPermit {
    pub(crate) fn grant(&self) {
        *self.granted.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.changed.notify_all();
    }

    fn wait(&self) {
        let mut granted = self.granted.lock().unwrap_or_else(|p| p.into_inner());
        while !*granted {
            granted = self
                .changed
                .wait(granted)
                .unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// Starts the thread that reports the leader's exit as an event and reaps it when permitted.
pub(crate) fn spawn_exit_watcher(
    pid: libc::pid_t,
    queue: Arc<EventQueue>,
    clock: Instant,
    permit: Arc<ReapPermit>,
) -> io::Result<()> {
    thread::Builder::new()
        .name("engine-exit".into())
        .spawn(move || {
            if let Some(termination) = wait_exit_without_reaping(pid) {
                queue.push_unbounded(Event::Exited {
                    termination,
                    at_micros: clock.elapsed().as_micros() as u64,
                });
            }
            permit.wait();
            super::interrupt::unregister(pid);
            reap(pid);
        })
        .map(drop)
}

fn wait_exit_without_reaping(pid: libc::pid_t) -> Option<Termination> {
    loop {
        // SAFETY: zeroed siginfo_t is a valid out-parameter for waitid.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: pid is our own unreaped child; info is a valid pointer.
        let result = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if result == 0 {
            // SAFETY: waitid succeeded for a child exit, so the SIGCHLD fields are set.
            let status = unsafe { info.si_status() };
            return Some(match info.si_code {
                libc::CLD_EXITED => Termination::Exited(status),
                libc::CLD_DUMPED => Termination::Signalled {
                    signal: status,
                    core_dumped: true,
                },
                _ => Termination::Signalled {
                    signal: status,
                    core_dumped: false,
                },
            });
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return None;
        }
    }
}

fn reap(pid: libc::pid_t) {
    let mut status = 0;
    // SAFETY: reaps our own child; EINTR retried.
    while unsafe { libc::waitpid(pid, &mut status, 0) } == -1
        && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
    {}
}
