//! Every line in and out of the engine: sent once it has its cores, read through the one
//! [`Wait`] past the observer ([`ObservedEngine`]), and a death or a reply that never came
//! charged.

use super::{Failure, Player};
use crate::blame::Owed;
use crate::engine::{Arrival, Event, Line, Session, Wait};
use crate::observer::{Cores, Heard, ObservedEngine};
use crate::usi::Message;
use std::time::{Duration, Instant};

impl Player {
    /// Sends one line (the observer follows it), once the engine has its cores.
    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        self.send_with(line, Cores::Take)
    }

    /// Sends one line, after the engine's cores if it takes them (the line is sent, and its
    /// clock starts, after that wait).
    pub(super) fn send_with(&mut self, line: &str, cores: Cores) -> Result<(), Failure> {
        let sent = self.running()?.follow(line, cores);
        self.note(sent.at_micros, '>', line);
        if line.starts_with("position ") {
            self.last_position = Some(line.to_owned());
        } else {
            self.last_command = Some(line.to_owned());
        }
        self.note_new_violations();
        let written = self.running()?.write(line);
        // A line that never reached the engine: it died of what came before.
        written.map_err(|e| self.died(format!("could not be sent `{line}` ({e})")))
    }

    /// The running process, or why a command to it fails.
    pub(super) fn running(&mut self) -> Result<&mut ObservedEngine<Session>, Failure> {
        (self.engine.running_mut())
            .ok_or_else(|| Failure::Crash("the engine is not running".into()))
    }

    /// The engine ended unasked (`how`): charged by what was sent to it, as certify and the
    /// fuzzer charge it ([`crate::blame::death`]); the game is lost by the crash.
    fn died(&mut self, how: String) -> Failure {
        if let Some(running) = self.engine.running_mut() {
            running.release_cores();
        }
        // An interrupt (Ctrl-C) killed it: its death says nothing of the engine.
        if crate::engine::interrupted().is_some() {
            return Failure::Crash(how);
        }
        let death = crate::blame::death(self.engine.observer());
        let suspects: Vec<String> = (self.engine.observer().sent().suspects().iter())
            .map(|command| format!("`{command}`"))
            .collect();
        self.charge(
            death.rule,
            format!("the engine {how} after {}", suspects.join(", ")),
        );
        // Ended here, so that no later `quit` judges the exit of an engine already charged.
        if let Some((mut session, _)) = self.stop_following() {
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
        let rule = crate::blame::missing_reply(owed, self.engine.observer());
        self.charge(rule, how.clone());
        Failure::Hang(how)
    }

    /// Reads the engine's output until `wanted` accepts a message or `deadline` passes; every
    /// stdout line comes judged. `Ok(None)` at the deadline: a line read after it is judged
    /// too, and ends the wait unanswered ([`Wait`]'s late-line policy).
    pub(super) fn pump(
        &mut self,
        deadline: Instant,
        mut wanted: impl FnMut(&Message, bool) -> bool,
    ) -> Result<Option<(Line, Message)>, Failure> {
        let deadline = self.cut_at.map_or(deadline, |at| deadline.min(at));
        let mut wait = Wait::until(self.running()?.session(), deadline);
        loop {
            let running = self.running()?;
            let (heard, late) = match running.next(&mut wait, None) {
                Arrival::OnTime(heard) => (heard, false),
                Arrival::Late(heard) => (heard, true),
                Arrival::Deadline => return Ok(None),
                Arrival::Over => {
                    let how = (running.session().termination())
                        .map_or("closed its output".to_owned(), |t| t.to_string());
                    return Err(self.died(how));
                }
            };
            match heard {
                Heard::Line {
                    line,
                    message,
                    stale,
                } => {
                    self.note(line.at_micros, '<', &line.text);
                    self.note_new_violations();
                    if !late && wanted(&message, stale) {
                        return Ok(Some((line, message)));
                    }
                }
                Heard::Other(Event::Line(line)) => self.note(line.at_micros, '!', &line.text),
                Heard::Other(Event::Exited { termination, .. }) => {
                    let at = self.running()?.session().elapsed_micros();
                    self.note(at, '#', &format!("{termination}"));
                    return Err(self.died(termination.to_string()));
                }
                Heard::Other(Event::Eof { stream, at_micros }) => {
                    self.note(at_micros, '#', &format!("{stream:?} closed"));
                }
            }
        }
    }
}
