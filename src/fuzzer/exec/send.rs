//! Writing the commands: one write per group sent together, each line counted in its
//! coverage cell and followed by the observer (through the [`ObservedEngine`](crate::observer::ObservedEngine)); a failed write is the engine gone or
//! deaf.

use crate::fuzzer::coverage::{Gap, Sent};
use crate::fuzzer::oracle::Oracle;
use crate::fuzzer::plan::{Cmd, Kind};
use crate::fuzzer::transport::Transport;
use crate::observer::{Cores, complete_lines};
use crate::usi::Command;

use super::{Run, Step};

impl<'a, T: Transport> Run<'a, T> {
    /// Sends `cmds` in one write (pauses are waited out instead).
    pub(super) fn write(&mut self, cmds: &'a [Cmd]) -> Step {
        if let [cmd] = cmds {
            if let Kind::Sleep(d) = cmd.kind {
                return self.pump(self.now() + d);
            }
            // `quit` is written by the executor's end of the engine.
            if matches!(cmd.kind, Kind::Quit) {
                self.last_sent = Some(cmd);
                self.note_sent(&cmd.text, false);
                self.engine.follow(&cmd.text, Cores::Take);
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
                    self.engine.follow(line, Cores::Take);
                }
                bytes.extend_from_slice(cmd.text.as_bytes());
            } else {
                self.note_sent(&cmd.text, same_write);
                self.engine.follow(&cmd.text, Cores::Take);
                bytes.extend_from_slice(cmd.text.as_bytes());
                bytes.push(b'\n');
            }
        }
        let written = self.engine.write_raw(&bytes);
        self.sent(written.is_ok())
    }

    /// Counts the line about to be sent in its coverage cell: the engine's state before it (the
    /// observer's [`Conversation`](crate::observer::Conversation)'s), what it is, and how long
    /// after the previous write (`same_write`: in the same one). For `quit`, notes whether a
    /// search runs as it goes out (the exit is judged by that).
    pub(super) fn note_sent(&mut self, line: &str, same_write: bool) {
        if Command::parse(line) == Command::Quit {
            self.searching_at_quit = self.engine.observer().protocol().searching();
        }
        let now = self.now();
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
        let written = self.engine.send(line, Cores::Take);
        self.sent(written.is_ok())
    }

    /// A failed send means the engine is gone (or not reading): find out which. Its exit is
    /// awaited as long as after `quit`: on a loaded machine a death can take long to be reaped,
    /// and a dead engine must not be charged with not reading.
    fn sent(&mut self, ok: bool) -> Step {
        if ok {
            return Ok(());
        }
        self.pump(self.now() + self.timeouts.quit)?;
        let v = self.violation(
            Oracle::Hang,
            crate::blame::unread(),
            "stopped reading its input".into(),
        );
        Err(self.fatal(v))
    }
}
