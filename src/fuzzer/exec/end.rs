//! Ending the engine: `quit` and its exit within T-QUIT, and the `usiok` an engine writes
//! only as it exits.

use crate::fuzzer::oracle::Oracle;
use crate::fuzzer::transport::Transport;

use super::{Run, Step};

impl<'a, T: Transport> Run<'a, T> {
    /// After no `usiok` by its deadline: `quit`, and whether a `usiok` came as the engine
    /// exited (written, but held in a buffer it never flushed).
    pub(super) fn usiok_at_exit(&mut self) -> bool {
        if self.engine.session_mut().send("quit").is_err() {
            return false;
        }
        let deadline = self.until_end(self.now() + self.timeouts.quit);
        self.reply_by(deadline, |m| matches!(m, crate::usi::Message::UsiOk))
    }

    /// Ends the engine with `quit` (`sent` already): it must exit within T-QUIT.
    pub(super) fn await_exit(&mut self, sent: bool) -> Step {
        let within = self.within_end(self.timeouts.quit);
        if let Err(how) = self.engine.session_mut().quit(within, sent) {
            self.check_time()?;
            let v = self.violation(
                Oracle::Hang,
                crate::blame::ignored_quit(self.searching_at_quit),
                format!("did not exit after `quit` ({how})"),
            );
            return Err(self.fatal(v));
        }
        Ok(())
    }
}
