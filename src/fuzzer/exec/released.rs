//! A search `gameover` released from its reply: checked idle before the next `go`, told
//! from an engine deaf to `isready`, and recovered from when it runs on as a known finding.

use crate::fuzzer::oracle::{Oracle, Violation};
use crate::fuzzer::transport::Transport;
use crate::observer::Observer;
use std::time::Duration;

use super::{RELEASED_WATCH, Run, Step, Stop};

impl<'a, T: Transport> Run<'a, T> {
    /// No `readyok` within `waited` of `isready` after a `gameover` released a search: the
    /// search still runs, or the engine ignores `isready`. `stop` (unless one went before the
    /// `gameover`) and T-STOP more, then a plain search, tell which: the rule is
    /// [`crate::blame::after_release`]'s.
    pub(super) fn readyok_after_gameover(&mut self, waited: Duration) -> Step {
        let stopped_before = self.released.as_ref().is_some_and(|r| r.stopped_before);
        if !self.conversation().stop_sent() {
            self.send_line("stop")?;
        }
        let after_stop = self.now() + self.timeouts.stop + Duration::from_secs(1);
        let answered = |o: &Observer| !o.protocol().awaiting_readyok();
        self.read_until(answered, self.until_end(after_stop))?;
        self.check_time()?;
        let readyok_came = !self.engine.observer().protocol().awaiting_readyok();
        let what = if !readyok_came {
            "nor later"
        } else if self.engine.observer().protocol().search_kind().is_none() {
            "its search answered `stop` only later"
        } else {
            "it came only later"
        };
        let answers_search = !readyok_came && self.answers_a_search();
        let rule = crate::blame::after_release(crate::blame::AfterRelease {
            stopped_before,
            readyok_came,
            answers_search,
        });
        // A search that runs on after `gameover` is protocol, as everywhere (one finding
        // group); a late answer to `stop`, or none to `isready`, is a hang, as when awaited.
        let oracle = if rule == crate::blame::runs_on_after_gameover() {
            Oracle::Protocol
        } else {
            Oracle::Hang
        };
        let v = Violation {
            waited: Some(waited),
            ..self.violation(
                oracle,
                rule,
                format!(
                    "no `readyok` within {} ms of `isready` after `stop` or `gameover` ended a \
                     search ({what})",
                    waited.as_millis()
                ),
            )
        };
        Err(self.fatal(v))
    }

    /// Whether the engine answers a plain search now, sent past the observer (the session
    /// ends after it): an engine deaf to `isready` alone from one that reads nothing.
    fn answers_a_search(&mut self) -> bool {
        for line in ["position startpos", "go btime 0 wtime 0 byoyomi 100"] {
            if self.engine.session_mut().send(line).is_err() {
                return false;
            }
        }
        let within = self.timeouts.stop + Duration::from_secs(1);
        let deadline = self.until_end(self.now() + within);
        self.reply_by(deadline, |m| matches!(m, crate::usi::Message::BestMove(_)))
    }

    /// A search `gameover` released, from an engine known to run such searches on
    /// (USI-GAMEOVER-004): `stop` at once ends it, a reply to it counted as the finding met
    /// again, instead of T-STOP waited out before the next `go`, and before the engine is sent
    /// what it may block on behind that search (Fairy-Stockfish's `usinewgame`).
    pub(super) fn stop_known_released(&mut self) -> Step {
        let v = self.violation(
            Oracle::Protocol,
            crate::blame::runs_on_after_gameover(),
            "the search `gameover` ended answered a `stop` sent at once".into(),
        );
        if !self.known.contains(&v) || self.conversation().stop_sent() {
            return Ok(());
        }
        // A reply already written ended the search by itself.
        self.pump(self.now())?;
        if self.released.is_none() {
            return Ok(());
        }
        self.send_line("stop")?;
        let ended = |o: &Observer| o.protocol().search_kind().is_none();
        self.read_until(ended, self.until_end(self.now() + RELEASED_WATCH))?;
        self.check_time()?;
        if self.released.is_none() {
            self.known_met.push(v);
        }
        Ok(())
    }

    /// Before a new `go`, a search `gameover` released without its reply must be idle by
    /// T-STOP after the `gameover` (USI-GAMEOVER-004's check): no search line in
    /// [`RELEASED_WATCH`] from then on, and no reply to a `stop` sent then (the reproducer's
    /// two silences). An engine that ignores `gameover` (Fairy-Stockfish:
    /// "Unknown command") would otherwise block on the new `go` behind that search, and its
    /// silence be charged to the new search. A known finding is recovered from with `stop`.
    pub(super) fn check_released_search(&mut self) -> Step {
        let Some(released) = &self.released else {
            return Ok(());
        };
        let idle_by = released.at_micros + self.timeouts.stop.as_micros() as u64;
        let to_idle = idle_by.saturating_sub(self.engine.session().elapsed_micros());
        self.pump(self.now() + Duration::from_micros(to_idle))?;
        if self.released.is_none() {
            // Its reply came: it ended.
            return Ok(());
        }
        // Then silence for a while, as the reproducer checks it: a line read before (the reply
        // to a command, say an `info` with `readyok`) is no search running on.
        let watch_from = self.engine.session().elapsed_micros();
        self.pump(self.now() + RELEASED_WATCH)?;
        let mut deaf = false;
        let ran_on = match self.released.as_ref().map(|r| r.last_info.clone()) {
            Some(Some((at, text))) if at > watch_from => Some(format!("`{text}`")),
            // Its reply came then.
            None => Some(format!(
                "`{}`",
                self.last_message.clone().unwrap_or_default()
            )),
            Some(_) => {
                self.send_line("stop")?;
                self.pump(self.now() + RELEASED_WATCH)?;
                match (&self.released, self.last_message.clone()) {
                    (None, reply) => Some(format!(
                        "`{}` to a `stop` sent then",
                        reply.unwrap_or_default()
                    )),
                    // Silent: idle, or deaf behind that search (Fairy-Stockfish's `usinewgame`
                    // waits for it): `isready` tells.
                    (Some(_), _) => {
                        self.send_line("isready")?;
                        let answered = |o: &Observer| !o.protocol().awaiting_readyok();
                        let by = self.until_end(self.now() + self.timeouts.stop);
                        deaf = self.read_until(answered, by)?.is_some();
                        self.check_time()?;
                        deaf.then(|| {
                            "no reply to a `stop` sent then, nor `readyok` to an `isready`".into()
                        })
                    }
                }
            }
        };
        let Some(evidence) = ran_on else {
            self.released = None;
            return Ok(());
        };
        let v = self.violation(
            Oracle::Protocol,
            crate::blame::runs_on_after_gameover(),
            format!(
                "the search `gameover` ended ran on past T-STOP ({} ms): {evidence}",
                self.timeouts.stop.as_millis()
            ),
        );
        if !self.known.contains(&v) {
            return Err(v.into());
        }
        if deaf {
            return Err(Stop::Known(v));
        }
        self.known_met.push(v);
        if self.released.is_some() {
            if !self.conversation().stop_sent() {
                self.send_line("stop")?;
            }
            let after_stop = self.now() + self.timeouts.stop + Duration::from_secs(1);
            self.read_until(
                |o| o.protocol().search_kind().is_none(),
                self.until_end(after_stop),
            )?;
            self.check_time()?;
        }
        self.released = None;
        Ok(())
    }
}
