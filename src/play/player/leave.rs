//! The end of a process: `quit`, its exit awaited and judged (or not, when the run's time cut
//! the game short).

use super::Player;
use crate::engine::Escalation;

impl Player {
    /// `quit`, the exit awaited (then the group killed); a reply still owed is judged.
    pub fn quit(&mut self) {
        self.leave(true);
    }

    /// `quit` as [`quit`](Self::quit) does, for a game the run's time cut short: nothing of
    /// the engine's leaving (a search still running, its exit) is judged.
    pub fn abandon(&mut self) {
        self.leave(false);
    }

    fn leave(&mut self, judged: bool) {
        let Some((mut session, cores)) = self.stop_following() else {
            return;
        };
        let at = session.elapsed_micros();
        let searching = self.engine.observer().protocol().searching();
        if judged {
            self.engine.observer_mut().on_send("quit", at);
        }
        self.note(at, '>', "quit");
        let report = session.quit(self.timeouts.quit);
        // Its cores go back once it has quit.
        drop(cores);
        // An interrupt (Ctrl-C) kills the engine: its exit and a reply it still owed say
        // nothing of it then.
        if !judged || crate::engine::interrupted().is_some() {
            return;
        }
        self.engine.observer_mut().on_end(session.elapsed_micros());
        // Signals were usicheck's: the engine ignored `quit`. Its own exit must be clean.
        if report.escalation != Escalation::None {
            let reason = format!(
                "still running {} ms after `quit`: ended by usicheck's signals",
                self.timeouts.quit.as_millis()
            );
            let rule = crate::blame::ignored_quit(searching);
            self.engine
                .observer_mut()
                .judge_mut()
                .violation(rule, None, reason);
        } else if let Some(termination) = report.termination {
            (self.engine.observer_mut()).on_asked_exit(&termination, "after `quit`");
        }
        self.note_new_violations();
    }
}
