//! Writing the commands: one write per group sent together, each line counted in its
//! coverage cell and followed by the observer; a failed write is the engine gone or deaf.

use crate::fuzzer::coverage::{Gap, Sent};
use crate::fuzzer::oracle::Oracle;
use crate::fuzzer::plan::{Cmd, Kind};
use crate::fuzzer::transport::Transport;
use crate::observer::complete_lines;
use crate::usi::Command;

use super::{Run, Step};

impl<'a, T: Transport> Run<'a, T> {
    /// Sends `cmds` in one write (pauses are waited out instead).
    pub(super) fn write(&mut self, cmds: &'a [Cmd]) -> Step {
        if let [cmd] = cmds {
            if let Kind::Sleep(d) = cmd.kind {
                return self.pump(self.session.now() + d);
            }
            // `quit` is written by the executor's end of the engine.
            if matches!(cmd.kind, Kind::Quit) {
                self.last_sent = Some(cmd);
                self.note_sent(&cmd.text, false);
                self.follow_sent(&cmd.text);
                return Ok(());
            }
        }
        let mut bytes = Vec::new();
        for (k, cmd) in cmds.iter().enumerate() {
            // `isready` is what shows that an earlier command killed the engine: blame the
            // earlier.
            if !matches!(cmd.kind, Kind::IsReady) {
                self.last_sent = Some(cmd);
            }
            let same_write = k > 0;
            if cmd.raw {
                for line in complete_lines(&cmd.text) {
                    self.note_sent(line, same_write);
                    self.follow_sent(line);
                }
                bytes.extend_from_slice(cmd.text.as_bytes());
            } else {
                self.note_sent(&cmd.text, same_write);
                self.follow_sent(&cmd.text);
                bytes.extend_from_slice(cmd.text.as_bytes());
                bytes.push(b'\n');
            }
        }
        let sent = self.session.send_raw(&bytes);
        self.sent(sent.is_ok())
    }

    /// Counts the line about to be sent in its coverage cell: the engine's state before it (the
    /// observer's [`Conversation`](crate::observer::Conversation)'s), what it is, and how long
    /// after the previous write (`same_write`: in the same one).
    pub(super) fn note_sent(&mut self, line: &str, same_write: bool) {
        let now = self.session.now();
        let gap = match self.last_write {
            _ if same_write => Gap::SameWrite,
            Some(last) => Gap::after(now - last),
            None => Gap::Longer,
        };
        let state = self.conversation().state();
        self.coverage.note(state, Sent::of(line), gap);
        if !same_write {
            self.last_write = Some(now);
        }
    }

    pub(super) fn send_line(&mut self, line: &str) -> Step {
        self.note_sent(line, false);
        self.follow_sent(line);
        let sent = self.session.send(line);
        self.sent(sent.is_ok())
    }

    /// The observer follows every line sent, at the session clock's time.
    fn follow_sent(&mut self, line: &str) {
        let command = Command::parse(line);
        if command == Command::Quit {
            self.searching_at_quit = self.observer.protocol().searching();
        }
        self.cores.before_sending(&command);
        let now = self.session.elapsed_micros();
        self.observer.on_send(line, now);
        self.cores.update(self.observer.protocol().computing());
    }

    /// A failed send means the engine is gone (or not reading): find out which. Its exit is
    /// awaited as long as after `quit`: on a loaded machine a death can take long to be reaped,
    /// and a dead engine must not be charged with not reading.
    fn sent(&mut self, ok: bool) -> Step {
        if ok {
            return Ok(());
        }
        self.observer.on_unsent();
        self.pump(self.session.now() + self.timeouts.quit)?;
        let v = self.violation(
            Oracle::Hang,
            crate::blame::unread(),
            "stopped reading its input".into(),
        );
        Err(self.fatal(v))
    }
}
