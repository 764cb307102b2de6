//! Every line in and out of the engine: sent once it has its cores, read through the one
//! [`Wait`], judged by the observer, and a death or a reply that never came charged.

use super::{Failure, Player};
use crate::blame::Owed;
use crate::engine::{Arrival, Event, HeldCores, Line, Stream, Wait};
use crate::usi::{Command, Message};
use std::time::{Duration, Instant};

impl Player {
    /// Sends one line (the observer follows it), once the engine has its cores.
    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        self.send_taking_cores(line, true)
    }

    /// Sends one line; `take_cores`: waits for the engine's cores first (the line is sent, and
    /// its clock starts, after that wait).
    pub(super) fn send_taking_cores(
        &mut self,
        line: &str,
        take_cores: bool,
    ) -> Result<(), Failure> {
        if take_cores {
            self.cores.before_sending(&Command::parse(line));
        }
        let at = self
            .session
            .as_ref()
            .ok_or_else(|| Failure::Crash("the engine is not running".into()))?
            .elapsed_micros();
        self.note(at, '>', line);
        self.observer.on_send(line, at);
        self.cores.update(self.observer.protocol().computing());
        if line.starts_with("position ") {
            self.last_position = Some(line.to_owned());
        } else {
            self.last_command = Some(line.to_owned());
        }
        self.note_new_violations();
        let sent = self
            .session
            .as_mut()
            .ok_or_else(|| Failure::Crash("the engine is not running".into()))?
            .send(line);
        sent.map_err(|e| {
            // The line never reached the engine: it died of what came before.
            self.observer.on_unsent();
            self.died(format!("could not be sent `{line}` ({e})"))
        })
    }

    /// The engine ended unasked (`how`): charged by what was sent to it, as certify and the
    /// fuzzer charge it ([`crate::blame::death`]); the game is lost by the crash.
    fn died(&mut self, how: String) -> Failure {
        self.cores = HeldCores::default();
        // An interrupt (Ctrl-C) killed it: its death says nothing of the engine.
        if crate::engine::interrupted().is_some() {
            return Failure::Crash(how);
        }
        let death = crate::blame::death(&self.observer);
        let suspects: Vec<String> = (self.observer.sent().suspects().iter())
            .map(|command| format!("`{command}`"))
            .collect();
        self.charge(
            death.rule,
            format!("the engine {how} after {}", suspects.join(", ")),
        );
        // Ended here, so that no later `quit` judges the exit of an engine already charged.
        if let Some(mut session) = self.session.take() {
            session.quit(Duration::ZERO);
        }
        Failure::Crash(how)
    }

    /// A reply the engine owes never came (`how`): charged as certify and the fuzzer charge
    /// it ([`crate::blame::missing_reply`]); the game is lost by the hang.
    pub(super) fn unanswered(&mut self, owed: Owed, how: String) -> Failure {
        if crate::engine::interrupted().is_some() {
            return Failure::Hang(how);
        }
        let rule = crate::blame::missing_reply(owed, &self.observer);
        self.charge(rule, how.clone());
        Failure::Hang(how)
    }

    /// Reads the engine's output until `wanted` accepts a message or `deadline` passes; every
    /// stdout line is judged. `Ok(None)` at the deadline: a line read after it is judged too,
    /// and ends the wait unanswered ([`Wait`]'s late-line policy).
    pub(super) fn pump(
        &mut self,
        deadline: Instant,
        mut wanted: impl FnMut(&Message, bool) -> bool,
    ) -> Result<Option<(Line, Message)>, Failure> {
        let deadline = self.cut_at.map_or(deadline, |at| deadline.min(at));
        let mut wait = match &self.session {
            Some(session) => Wait::until(session, deadline),
            None => return Err(Failure::Crash("the engine is not running".into())),
        };
        loop {
            let session = self
                .session
                .as_mut()
                .ok_or_else(|| Failure::Crash("the engine is not running".into()))?;
            let (event, late) = match wait.next(session) {
                Arrival::OnTime(event) => (event, false),
                Arrival::Late(event) => (event, true),
                Arrival::Deadline => return Ok(None),
                Arrival::Over => {
                    let how = session
                        .termination()
                        .map_or("closed its output".to_owned(), |t| t.to_string());
                    return Err(self.died(how));
                }
            };
            match event {
                Event::Line(line) if line.stream == Stream::Stdout => {
                    self.note(line.at_micros, '<', &line.text);
                    let (message, stale) = self.observer.on_line(&line, None);
                    self.cores.update(self.observer.protocol().computing());
                    self.note_new_violations();
                    if !late && wanted(&message, stale) {
                        return Ok(Some((line, message)));
                    }
                }
                Event::Line(line) => self.note(line.at_micros, '!', &line.text),
                Event::Exited { termination, .. } => {
                    let at = session.elapsed_micros();
                    self.note(at, '#', &format!("{termination}"));
                    return Err(self.died(termination.to_string()));
                }
                Event::Eof { stream, at_micros } => {
                    self.note(at_micros, '#', &format!("{stream:?} closed"));
                }
            }
        }
    }
}
