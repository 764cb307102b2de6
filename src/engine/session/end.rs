//! Ending a session: `quit`, then SIGTERM and SIGKILL to the process group as needed, and
//! releasing the engine to be reaped (also on drop).

use std::time::{Duration, Instant};

use super::{Escalation, QuitReport, Seen, Session, Wire};
use crate::engine::CpuWait;
use crate::engine::event::Event;
use crate::engine::process::signal_group;
use crate::engine::transcript::Direction;
use crate::engine::wait::{Arrival, Wait};

impl Session {
    /// Ends the engine: sends `quit` and waits up to `timeout`, then SIGTERM to the process
    /// group and `term_grace`, then SIGKILL and `kill_grace`. Finally SIGKILLs whatever is left
    /// of the group and lets the engine be reaped. Takes at most
    /// `timeout + term_grace + kill_grace + exit_grace` (plus the send timeout), and the
    /// machine's load: a `timeout` that is not zero is a deadline a check may judge, extended
    /// once as every such deadline is ([`Session::quit_unjudged`] is not).
    pub fn quit(&mut self, timeout: Duration) -> QuitReport {
        self.end_after_quit(timeout, true)
    }

    /// As [`Session::quit`], with `quit` already sent when `send_quit` is false (in a write
    /// with other commands).
    pub fn end_after_quit(&mut self, timeout: Duration, send_quit: bool) -> QuitReport {
        self.end(timeout, send_quit, !timeout.is_zero())
    }

    /// As [`Session::quit`] for an exit no check judges (the engine failed already): `grace`
    /// is not extended by the machine's load, which would only give a stuck engine's search
    /// threads more time on the cores the other sessions need.
    pub fn quit_unjudged(&mut self, grace: Duration) -> QuitReport {
        self.end(grace, true, false)
    }

    fn end(&mut self, timeout: Duration, send_quit: bool, judged: bool) -> QuitReport {
        let start = self.now();
        let mut seen = Seen::new(self.options.seen_limits, Event::weight);
        let escalation = if self.finished {
            Escalation::None
        } else {
            // The engine's threads' CPU wait so far: what the machine's load takes from its
            // exit is measured from here.
            let cpu_wait = (judged && !self.is_simulated()).then(|| CpuWait::of(self.pid));
            if send_quit {
                let _ = self.send("quit");
            }
            if self.wait_exit(start + timeout, &mut seen)
                || (judged && self.wait_held_up(start, cpu_wait.as_ref(), &mut seen))
            {
                Escalation::None
            } else if self.signal_and_wait(libc::SIGTERM, self.options.term_grace, &mut seen) {
                Escalation::Sigterm
            } else if self.signal_and_wait(libc::SIGKILL, self.options.kill_grace, &mut seen) {
                Escalation::Sigkill
            } else {
                Escalation::Unkillable
            }
        };
        self.finish(&mut seen);
        QuitReport {
            termination: self.termination,
            escalation,
            seen,
            elapsed: self.now() - start,
        }
    }

    /// After the exit's deadline passed: waits once more as long as the machine's load held
    /// usicheck (its worst stall since `since`, [`crate::engine::stall`]) or the engine (its
    /// threads' longest wait for a CPU since `cpu_wait`, [`CpuWait`]) up, as every other
    /// deadline of a check is extended, so that no signal goes to an engine that had no
    /// time to exit. An engine that ignores `quit` waits for input, not for a CPU, and gets
    /// no more time. Whether it exited then.
    fn wait_held_up(
        &mut self,
        since: Instant,
        cpu_wait: Option<&CpuWait>,
        seen: &mut Seen,
    ) -> bool {
        if self.is_simulated() {
            return false;
        }
        let usicheck = crate::engine::stall::worst_between(since, self.now());
        let engine = cpu_wait.map_or(Duration::ZERO, |before| {
            CpuWait::of(self.pid).longest_since(before)
        });
        let held_up = usicheck.max(engine);
        if held_up.is_zero() {
            return false;
        }
        let who = if usicheck >= engine {
            "usicheck itself was held up that long"
        } else {
            "the engine waited that long for a CPU"
        };
        self.note_at_now(
            Direction::Note,
            format!(
                "waiting {} ms more for the exit: {who}",
                held_up.as_millis()
            ),
        );
        self.wait_exit(self.now() + held_up, seen)
    }

    fn signal_and_wait(&mut self, signal: libc::c_int, grace: Duration, seen: &mut Seen) -> bool {
        let name = if signal == libc::SIGTERM {
            "SIGTERM"
        } else {
            "SIGKILL"
        };
        self.note_at_now(
            Direction::Note,
            format!("sent {name} to process group {}", self.pid),
        );
        self.signal(signal);
        self.wait_exit(self.now() + grace, seen)
    }

    /// Waits until the leader's exit has been observed (perhaps still held back).
    fn wait_exit(&mut self, deadline: Instant, seen: &mut Seen) -> bool {
        let mut wait = Wait::for_exit(self, deadline);
        while self.termination.is_none() && self.held_exit.is_none() {
            match wait.next(self) {
                Arrival::OnTime(event) | Arrival::Late(event) => seen.push(event),
                Arrival::Deadline | Arrival::Over => break,
            }
        }
        self.termination.is_some() || self.held_exit.is_some()
    }

    /// Kills what is left of the group, collects the last output briefly, and releases the
    /// engine to be reaped. The group is never signalled again afterwards.
    fn finish(&mut self, seen: &mut Seen) {
        if self.finished {
            return;
        }
        self.signal(libc::SIGKILL);
        self.stdin = None;
        let mut wait = Wait::for_exit(self, self.now() + self.options.exit_grace);
        while !self.is_over() {
            match wait.next(self) {
                Arrival::OnTime(event) | Arrival::Late(event) => seen.push(event),
                Arrival::Deadline | Arrival::Over => break,
            }
        }
        if let Some((event, _)) = self.held_exit.take() {
            seen.push(self.accept(event));
        }
        self.finished = true;
        if let Wire::Process {
            queue, reap_permit, ..
        } = &self.wire
        {
            reap_permit.grant();
            queue.close();
        }
        if let Err(error) = self.transcript.flush() {
            eprintln!("usicheck: transcript file: {error}");
        }
    }

    fn signal(&mut self, signal: libc::c_int) {
        match &mut self.wire {
            Wire::Process { .. } => signal_group(self.pid, signal),
            Wire::Simulated(wire) => wire.kill(signal),
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let mut seen = Seen::new(self.options.seen_limits, Event::weight);
        self.finish(&mut seen);
    }
}
