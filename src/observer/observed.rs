//! An engine driven with the observer beside it: every line written to it is followed, and
//! every stdout line it writes judged, before the driver's policy sees either, and the cores
//! it holds follow both. The scenario runner, the fuzzer's executor and `play` each drive one,
//! so that the glue between the one [`Wait`] and the one [`Observer`] exists once.
//!
//! ```
//! use std::collections::VecDeque;
//! use std::time::{Duration, Instant};
//! use usicheck::engine::{
//!     Arrival, Event, HeldCores, Line, Reading, SendError, Sink, Source, Termination, Wait,
//! };
//! use usicheck::observer::{Cores, Heard, ObservedEngine, Observer};
//! use usicheck::rules::{Claims, Profile};
//! use usicheck::usi::Message;
//!
//! /// An engine that answers `usi` a millisecond later on its clock, which only waits move.
//! struct Quick { start: Instant, at: u64, out: VecDeque<Line> }
//! impl Source for Quick {
//!     fn next_event(&mut self, deadline: Instant, _: Reading) -> Option<Event> {
//!         let line = self.out.pop_front();
//!         if line.is_none() {
//!             self.at = self.micros_at(deadline);
//!         }
//!         line.map(Event::Line)
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
//! impl Sink for Quick {
//!     fn send(&mut self, line: &str) -> Result<(), SendError> {
//!         if line == "usi" {
//!             let at = self.at + 1_000;
//!             self.out.extend([Line::stdout("id name Quick", at), Line::stdout("usiok", at)]);
//!         }
//!         Ok(())
//!     }
//!     fn send_raw(&mut self, _: &[u8]) -> Result<(), SendError> { Ok(()) }
//!     fn elapsed_micros(&self) -> u64 { self.at }
//! }
//!
//! let profile = Profile::Shogidokoro;
//! let observer = Observer::new(profile, Claims::default(), profile.timeouts());
//! let quick = Quick { start: Instant::now(), at: 0, out: VecDeque::new() };
//! let mut engine = ObservedEngine::new(quick, observer, HeldCores::default());
//! engine.send("usi", Cores::Take)?;
//! assert!(engine.observer().protocol().awaiting_usiok());
//! let mut wait = Wait::until(engine.session(), engine.session().now() + Duration::from_secs(1));
//! let Arrival::OnTime(Heard::Line { message: Message::IdName(name), .. }) =
//!     engine.next(&mut wait, None)
//! else {
//!     panic!("the engine's name")
//! };
//! assert_eq!(name, "Quick");
//! // A line reaches the driver judged: the observer has seen `usiok` already.
//! let Arrival::OnTime(Heard::Line { line, .. }) = engine.next(&mut wait, None) else {
//!     panic!("`usiok`")
//! };
//! assert_eq!(line.text, "usiok");
//! assert!(!engine.observer().protocol().awaiting_usiok());
//! assert!(matches!(engine.next(&mut wait, None), Arrival::Deadline));
//! # Ok::<(), SendError>(())
//! ```

use super::{Judge, Observer};
use crate::engine::{Arrival, Event, HeldCores, Line, SendError, Sink, Source, Stream, Wait};
use crate::rules::RuleId;
use crate::usi::{Command, Message};

/// Whether a line waits for the engine's cores before it goes out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cores {
    /// Waits for a search's cores unless they are held ([`HeldCores::before_sending`]): the
    /// line's clock starts after that wait.
    Take,
    /// Goes out at once with the cores held now (`play`'s ponder search takes none: pondering
    /// engines holding the cores their opponents wait for would wait on each other for ever).
    AsHeld,
}

/// A line followed on its way to the engine.
#[derive(Debug)]
pub struct Followed {
    /// The line as the observer parsed it.
    pub command: Command,
    /// When it went out, on the session's clock (µs).
    pub at_micros: u64,
}

/// What a wait read from an [`ObservedEngine`].
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one short-lived value per event read, never stored
pub enum Heard {
    /// A stdout line the observer has judged: its message, and whether it is a stale reply to
    /// an earlier `go`.
    Line {
        line: Line,
        message: Message,
        stale: bool,
    },
    /// A stderr line, the end of a stream or the engine's exit, as read: the observer judges
    /// stdout only.
    Other(Event),
}

/// An engine (a [`Session`](crate::engine::Session), or any [`Source`] that is a [`Sink`]),
/// the always-on [`Observer`] that follows it, and the [`HeldCores`] it holds from a command
/// until its answer: one driver's engine, written to and read only past the observer.
pub struct ObservedEngine<S> {
    session: S,
    observer: Observer,
    cores: HeldCores,
}

impl<S> ObservedEngine<S> {
    pub fn new(session: S, observer: Observer, cores: HeldCores) -> ObservedEngine<S> {
        ObservedEngine {
            session,
            observer,
            cores,
        }
    }

    pub fn session(&self) -> &S {
        &self.session
    }

    /// The engine itself, for what does not go past the observer: ending it, a fresh process
    /// in its place, a probe whose lines nothing judges.
    pub fn session_mut(&mut self) -> &mut S {
        &mut self.session
    }

    pub fn observer(&self) -> &Observer {
        &self.observer
    }

    /// For what the driver knows and the observer cannot see: a reply owed when a wait ran
    /// out, the exit it asked for, a fresh process.
    pub fn observer_mut(&mut self) -> &mut Observer {
        &mut self.observer
    }

    /// Gives the engine's cores back: it is ending, or has ended.
    pub fn release_cores(&mut self) {
        self.cores = HeldCores::default();
    }

    pub fn into_parts(self) -> (S, Observer, HeldCores) {
        (self.session, self.observer, self.cores)
    }

    /// Judges a stdout line (`misread`: see [`Observer::on_line`]), the cores updated after it;
    /// returns its message and whether it is a stale reply to an earlier `go`. The waits'
    /// lines come judged from [`Self::next`]; this is for those read otherwise (by `quit`).
    pub fn judge_line(
        &mut self,
        line: &Line,
        misread: Option<(RuleId, Option<&str>, &mut Judge)>,
    ) -> (Message, bool) {
        let judged = self.observer.on_line(line, misread);
        self.cores.update(self.observer.protocol().computing());
        judged
    }
}

impl<S: Sink> ObservedEngine<S> {
    /// Follows `line` about to be written (after the cores, if it takes them): stamped now on
    /// the session's clock, seen by the observer, the cores updated. Lines written together
    /// are each followed, then written at once ([`Self::write_raw`]).
    pub fn follow(&mut self, line: &str, cores: Cores) -> Followed {
        if cores == Cores::Take {
            self.cores.before_sending(&Command::parse(line));
        }
        let at_micros = self.session.elapsed_micros();
        let command = self.observer.on_send(line, at_micros);
        self.cores.update(self.observer.protocol().computing());
        Followed { command, at_micros }
    }

    /// Writes `line`, already followed, and a newline; a line that did not reach the engine
    /// cannot be what it dies of, and the observer is told.
    pub fn write(&mut self, line: &str) -> Result<(), SendError> {
        let written = self.session.send(line);
        self.unless_written(written)
    }

    /// Writes `bytes` as they are, their complete lines already followed.
    pub fn write_raw(&mut self, bytes: &[u8]) -> Result<(), SendError> {
        let written = self.session.send_raw(bytes);
        self.unless_written(written)
    }

    /// Follows `line`, then writes it.
    pub fn send(&mut self, line: &str, cores: Cores) -> Result<(), SendError> {
        self.follow(line, cores);
        self.write(line)
    }

    fn unless_written(&mut self, written: Result<(), SendError>) -> Result<(), SendError> {
        if written.is_err() {
            self.observer.on_unsent();
        }
        written
    }
}

impl<S: Source> ObservedEngine<S> {
    /// The next read of `wait` (on this engine), each stdout line judged first ([`Self::judge_line`]);
    /// the other events as they came.
    pub fn next(
        &mut self,
        wait: &mut Wait,
        misread: Option<(RuleId, Option<&str>, &mut Judge)>,
    ) -> Arrival<Heard> {
        match wait.next(&mut self.session) {
            Arrival::OnTime(event) => Arrival::OnTime(self.hear(event, misread)),
            Arrival::Late(event) => Arrival::Late(self.hear(event, misread)),
            Arrival::Deadline => Arrival::Deadline,
            Arrival::Over => Arrival::Over,
        }
    }

    fn hear(&mut self, event: Event, misread: Option<(RuleId, Option<&str>, &mut Judge)>) -> Heard {
        match event {
            Event::Line(line) if line.stream == Stream::Stdout => {
                let (message, stale) = self.judge_line(&line, misread);
                Heard::Line {
                    line,
                    message,
                    stale,
                }
            }
            other => Heard::Other(other),
        }
    }
}
