//! The session's waits: expecting a line, asserting silence, draining what arrived. All are
//! built on [`Wait`], the only reader of a session's events.

use std::time::{Duration, Instant};

use super::{ExpectError, Found, Patience, Seen, Session, Unmet};
use crate::engine::event::{Event, Termination};
use crate::engine::line::{Line, Stream};
use crate::engine::wait::{Arrival, Reading, Source, Wait};

impl Session {
    /// Waits for a stdout line satisfying `matches`, for a fixed time (a [`Duration`]) or
    /// with a keep-alive ([`Patience::KeepAlive`]).
    ///
    /// Fails with [`Unmet::Timeout`] at the deadline, [`Unmet::Exited`] if the engine ends
    /// (after its last output is read), or [`Unmet::Eof`] if it closes stdout and keeps running.
    pub fn expect(
        &mut self,
        mut matches: impl FnMut(&Line) -> bool,
        patience: impl Into<Patience>,
    ) -> Result<Found, Box<ExpectError>> {
        let patience = patience.into();
        let start = self.now();
        let mut wait = Wait::until(self, start + patience.first_deadline());
        let mut seen = Seen::new(self.options.seen_limits, Event::weight);
        loop {
            let kind = match wait.next(self) {
                Arrival::OnTime(Event::Line(line))
                    if line.stream == Stream::Stdout && matches(&line) =>
                {
                    return Ok(Found { line, seen });
                }
                Arrival::OnTime(event) => {
                    if let (Patience::KeepAlive { idle, cap }, Event::Line(line)) =
                        (patience, &event)
                        && line.stream == Stream::Stdout
                    {
                        let idle_end = (self.now() + idle).min(start + cap);
                        wait.extend_to(self, idle_end);
                    }
                    seen.push(event);
                    continue;
                }
                Arrival::Late(event) => {
                    seen.push(event);
                    Unmet::Timeout
                }
                Arrival::Deadline if self.stdout_eof => Unmet::Eof,
                Arrival::Deadline => Unmet::Timeout,
                Arrival::Over => match self.termination {
                    Some(termination) => Unmet::Exited(termination),
                    None => Unmet::Eof,
                },
            };
            return Err(Box::new(ExpectError {
                kind,
                seen,
                waited: self.now() - start,
            }));
        }
    }

    /// Asserts that no stdout line satisfying `matches` arrives for `duration`.
    ///
    /// Returns what was seen (ending early if nothing more can arrive), or the offending line.
    pub fn expect_silence(
        &mut self,
        mut matches: impl FnMut(&Line) -> bool,
        duration: Duration,
    ) -> Result<Seen, Box<Found>> {
        let mut wait = Wait::until(self, self.now() + duration);
        let mut seen = Seen::new(self.options.seen_limits, Event::weight);
        loop {
            match wait.next(self) {
                Arrival::OnTime(Event::Line(line))
                    if line.stream == Stream::Stdout && matches(&line) =>
                {
                    return Err(Box::new(Found { line, seen }));
                }
                Arrival::OnTime(event) => seen.push(event),
                Arrival::Late(event) => {
                    seen.push(event);
                    return Ok(seen);
                }
                Arrival::Deadline | Arrival::Over => return Ok(seen),
            }
        }
    }

    /// Everything already received, without waiting.
    pub fn drain(&mut self) -> Seen {
        let mut wait = Wait::until(self, self.now());
        let mut seen = Seen::new(self.options.seen_limits, Event::weight);
        while let Arrival::OnTime(event) | Arrival::Late(event) = wait.next(self) {
            seen.push(event);
        }
        seen
    }
}

impl Source for Session {
    fn next_event(&mut self, deadline: Instant, _: Reading) -> Option<Event> {
        self.read_event(deadline)
    }

    fn now(&self) -> Instant {
        Session::now(self)
    }

    fn micros_at(&self, instant: Instant) -> u64 {
        Session::micros_at(self, instant)
    }

    fn termination(&self) -> Option<Termination> {
        self.termination
    }

    fn is_over(&self) -> bool {
        Session::is_over(self)
    }

    fn stdout_closed(&self) -> bool {
        self.stdout_eof
    }

    fn exit_grace(&self) -> Duration {
        self.options.exit_grace
    }
}
