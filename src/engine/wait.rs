//! Waiting on an engine: the one loop that reads its events until a deadline, for every driver
//! (the scenario runner, the fuzzer, `play`, `init`, the harness and the session's own waits),
//! from a [`Source`]; and the [`Sink`] the same drivers write to.
//!
//! The late-line policy, the same for every caller: each event carries the time usicheck read
//! it, and a wait reads until its deadline. Under a flood the queue never runs dry, so the
//! deadline is seen on the events' stamps, not on an empty queue: the first event read after
//! the deadline is the wait's last. It comes as [`Arrival::Late`], to be judged like any other
//! line, and it never satisfies the wait: a reply that came after the deadline is a reply
//! missing at the deadline, charged once (the observer's clock checks judge its lateness). A
//! caller keeps it for its next wait if it has one (the scenario runner does).
//!
//! ```
//! use std::time::{Duration, Instant};
//! use usicheck::engine::{Arrival, Event, Line, Reading, Source, Termination, Wait};
//!
//! /// Lines stamped a millisecond apart, without end: a flood.
//! struct Flood { at: u64, start: Instant }
//! impl Source for Flood {
//!     fn next_event(&mut self, _: Instant, _: Reading) -> Option<Event> {
//!         self.at += 1_000;
//!         Some(Event::Line(Line::stdout("info depth 1", self.at)))
//!     }
//!     fn now(&self) -> Instant { self.start + Duration::from_micros(self.at) }
//!     fn micros_at(&self, instant: Instant) -> u64 {
//!         instant.duration_since(self.start).as_micros() as u64
//!     }
//!     fn termination(&self) -> Option<Termination> { None }
//!     fn is_over(&self) -> bool { false }
//!     fn stdout_closed(&self) -> bool { false }
//!     fn exit_grace(&self) -> Duration { Duration::from_millis(100) }
//! }
//!
//! let mut flood = Flood { at: 0, start: Instant::now() };
//! let mut wait = Wait::until(&flood, flood.start + Duration::from_millis(10));
//! let mut on_time = 0;
//! let late = loop {
//!     match wait.next(&mut flood) {
//!         Arrival::OnTime(_) => on_time += 1,
//!         Arrival::Late(Event::Line(line)) => break line.at_micros,
//!         other => panic!("{other:?}"),
//!     }
//! };
//! assert_eq!((on_time, late), (10, 11_000));
//! // The late line was the wait's last.
//! assert!(matches!(wait.next(&mut flood), Arrival::Deadline));
//! ```

use super::{Event, SendError, Termination};
use std::time::{Duration, Instant};

/// What a wait reads from: an engine process or a simulated engine
/// ([`Session`](super::Session)), or an engine loop running in process
/// ([`crate::harness`]).
pub trait Source {
    /// The next event, waiting until `deadline` at most; `None` on timeout or when nothing
    /// more can arrive. Only a [`Wait`] can call it: no other code holds a [`Reading`].
    fn next_event(&mut self, deadline: Instant, reading: Reading) -> Option<Event>;
    /// The present on the engine's clock: the machine's, or a simulated engine's world.
    fn now(&self) -> Instant;
    /// `instant` on the time base of the events' stamps.
    fn micros_at(&self, instant: Instant) -> u64;
    /// How the engine ended, once its exit has been delivered.
    fn termination(&self) -> Option<Termination>;
    /// True once nothing more can arrive.
    fn is_over(&self) -> bool;
    /// True once the engine closed its stdout.
    fn stdout_closed(&self) -> bool;
    /// How long after the engine closes its stdout its exit may take to be seen.
    fn exit_grace(&self) -> Duration;
}

/// A source borrowed is a source: a driver that borrows its engine (the fuzzer's executor)
/// waits on it as on one it owns.
impl<S: Source + ?Sized> Source for &mut S {
    fn next_event(&mut self, deadline: Instant, reading: Reading) -> Option<Event> {
        (**self).next_event(deadline, reading)
    }
    fn now(&self) -> Instant {
        (**self).now()
    }
    fn micros_at(&self, instant: Instant) -> u64 {
        (**self).micros_at(instant)
    }
    fn termination(&self) -> Option<Termination> {
        (**self).termination()
    }
    fn is_over(&self) -> bool {
        (**self).is_over()
    }
    fn stdout_closed(&self) -> bool {
        (**self).stdout_closed()
    }
    fn exit_grace(&self) -> Duration {
        (**self).exit_grace()
    }
}

/// What a driver writes to, the other way from a [`Source`]: an engine process or a simulated
/// engine ([`Session`](super::Session)), or an engine loop running in process
/// ([`crate::harness`]).
pub trait Sink {
    /// Writes `line` and a newline.
    fn send(&mut self, line: &str) -> Result<(), SendError>;
    /// Writes `bytes` as they are (no newline added).
    fn send_raw(&mut self, bytes: &[u8]) -> Result<(), SendError>;
    /// Microseconds since the engine started: the time base of every event, and the time
    /// a line written now is stamped with.
    fn elapsed_micros(&self) -> u64;
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn send(&mut self, line: &str) -> Result<(), SendError> {
        (**self).send(line)
    }
    fn send_raw(&mut self, bytes: &[u8]) -> Result<(), SendError> {
        (**self).send_raw(bytes)
    }
    fn elapsed_micros(&self) -> u64 {
        (**self).elapsed_micros()
    }
}

/// The proof that a read comes from a [`Wait`]: only this module makes one, so every read of
/// an engine's events keeps the one late-line policy (the compiler is the guard).
#[derive(Debug)]
pub struct Reading(());

/// How the next read of a [`Wait`] went: with the event read, or (a driver's wait over a
/// `Wait`) with what it made of it.
#[derive(Debug)]
pub enum Arrival<T = Event> {
    /// An event read by the deadline.
    OnTime(T),
    /// The first event read after the deadline: the wait's last (see the module's policy).
    Late(T),
    /// The deadline passed with nothing read after it, or after the late event.
    Deadline,
    /// Nothing more can arrive: the engine's exit was delivered, or it closed its stdout and
    /// did not exit within the exit grace.
    Over,
}

/// One wait until a deadline (see the module's late-line policy).
#[derive(Debug)]
pub struct Wait {
    deadline: Instant,
    deadline_micros: u64,
    /// Whether a closed stdout ends the wait after the exit grace (a wait for lines), or
    /// only the exit does (a wait for the exit).
    lines: bool,
    /// When a closed stdout stops the wait, if the exit does not come first.
    closed_until: Option<Instant>,
    late_seen: bool,
}

impl Wait {
    /// A wait for the engine's lines until `deadline`: it ends early once nothing more can
    /// arrive, or the exit grace after the engine closed its stdout.
    pub fn until(source: &impl Source, deadline: Instant) -> Wait {
        Wait {
            deadline,
            deadline_micros: source.micros_at(deadline),
            lines: true,
            closed_until: None,
            late_seen: false,
        }
    }

    /// A wait for the engine's exit until `deadline`: a closed stdout does not end it (an
    /// engine may close its output well before it exits).
    pub fn for_exit(source: &impl Source, deadline: Instant) -> Wait {
        Wait {
            lines: false,
            ..Wait::until(source, deadline)
        }
    }

    /// The deadline.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Moves the deadline to `deadline` (a keep-alive line restarts the wait's time).
    pub fn extend_to(&mut self, source: &impl Source, deadline: Instant) {
        self.deadline = deadline;
        self.deadline_micros = source.micros_at(deadline);
    }

    /// Whether nothing more is to be read. For lines, the delivered exit is the end: it comes
    /// after the last output read (or its grace), and what a grandchild still writes on the
    /// pipes is not the engine's. For the exit, the end of everything.
    fn ended(&self, source: &impl Source) -> bool {
        source.is_over() || self.lines && source.termination().is_some()
    }

    /// Reads the next event, or says why none will come within this wait.
    pub fn next(&mut self, source: &mut impl Source) -> Arrival {
        if self.late_seen {
            return Arrival::Deadline;
        }
        loop {
            if self.ended(source) {
                return Arrival::Over;
            }
            let mut until = self.deadline;
            if self.lines && source.stdout_closed() {
                let now = source.now();
                let grace_end = *self
                    .closed_until
                    .get_or_insert_with(|| now + source.exit_grace());
                until = until.min(grace_end);
            }
            match source.next_event(until, Reading(())) {
                Some(event) if event.at_micros() > self.deadline_micros => {
                    self.late_seen = true;
                    return Arrival::Late(event);
                }
                Some(event) => return Arrival::OnTime(event),
                None if self.ended(source) => return Arrival::Over,
                None if self.closed_until.is_some_and(|end| source.now() >= end) => {
                    return Arrival::Over;
                }
                None if source.now() >= self.deadline => return Arrival::Deadline,
                None => {}
            }
        }
    }
}
