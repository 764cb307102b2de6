//! What the executor needs of an engine, whatever carries its lines: send a line, read what
//! comes back with a deadline, end it. An engine process ([`Session`]) and an engine loop
//! running in-process on in-memory pipes ([`crate::harness`]) are driven by the same
//! [`super::exec::drive`], hence judged alike.

use crate::engine::{Escalation, Session, Sink, Source};
use std::time::Duration;

/// A running engine, every call bounded by a deadline: its events are read through a
/// [`crate::engine::Wait`], its commands written through its [`Sink`].
pub trait Transport: Source + Sink {
    /// Sends `quit` (unless `sent`: it went out with other commands) and ends the engine
    /// within about `timeout`; `Err` says how it failed to exit by itself.
    fn quit(&mut self, timeout: Duration, sent: bool) -> Result<(), String>;
    /// The whole exchange so far, as text.
    fn transcript(&self) -> String;
}

impl Transport for Session {
    fn quit(&mut self, timeout: Duration, sent: bool) -> Result<(), String> {
        match Session::end_after_quit(self, timeout, !sent).escalation {
            Escalation::None => Ok(()),
            escalation => Err(format!("{escalation:?}")),
        }
    }

    fn transcript(&self) -> String {
        let mut text = Vec::new();
        Session::transcript(self)
            .write_to(&mut text)
            .expect("writing to memory");
        String::from_utf8_lossy(&text).into_owned()
    }
}
