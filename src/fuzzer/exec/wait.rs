//! Waiting for what a command owes (a reply, `readyok`, the terminal reply of a search),
//! every wait bounded by a deadline through [`Wait`], and a missed reply that is a known
//! finding recovered from with `stop`.

use crate::blame::{Owed, missing_reply};
use crate::engine::{Arrival, Event, Stream, Wait};
use crate::fuzzer::oracle::{Oracle, Violation};
use crate::fuzzer::plan::{Cmd, Kind, Search};
use crate::fuzzer::transport::Transport;
use crate::observer::{GoKind, Observer};

use std::time::{Duration, Instant};

use super::{Released, Run, Step, Stop, Unmet};

/// Whether the engine owes no reply to a search.
fn owes_nothing(observer: &Observer) -> bool {
    observer.protocol().owed_search().is_none()
}

impl<'a, T: Transport> Run<'a, T> {
    /// Whether a stdout line `wanted` comes by `deadline`, read past the observer (the session
    /// ends after it); a line read after the deadline ends the wait ([`Wait`]).
    pub(super) fn reply_by(
        &mut self,
        deadline: Instant,
        wanted: impl Fn(&crate::usi::Message) -> bool,
    ) -> bool {
        let mut wait = Wait::until(self.engine.session(), deadline);
        loop {
            match wait.next(self.engine.session_mut()) {
                Arrival::OnTime(Event::Line(line))
                    if line.stream == Stream::Stdout
                        && wanted(&crate::usi::Message::parse(&line.text).0) =>
                {
                    return true;
                }
                Arrival::OnTime(Event::Exited { .. }) => return false,
                Arrival::OnTime(_) => {}
                Arrival::Late(_) | Arrival::Deadline | Arrival::Over => return false,
            }
        }
    }

    /// Waits for what `cmd`, just sent, owes; a reply the next command races (`raced`) is
    /// awaited only after it.
    pub(super) fn handle(&mut self, cmd: &'a Cmd, raced: bool) -> Step {
        match &cmd.kind {
            Kind::Go(search) => {
                self.last_go = Some(cmd);
                match *search {
                    Search::Timed(d) | Search::Mate(Some(d)) => {
                        self.raced_reply = Some(self.now() + d);
                    }
                    Search::Infinite | Search::Ponder(_) | Search::Mate(None) => {}
                }
            }
            Kind::Stop => {
                if self.engine.observer().protocol().owed_search().is_some() {
                    self.raced_reply = None;
                    self.await_terminal(self.timeouts.stop + Duration::from_secs(2))?;
                }
            }
            Kind::PonderHit => {
                if self.engine.observer().protocol().owed_search() == Some(GoKind::Ponder)
                    && let Some(Kind::Go(Search::Ponder(d))) = self.last_go.map(|go| &go.kind)
                {
                    self.raced_reply = Some(self.now() + *d);
                }
            }
            Kind::IsReady => self.await_readyok()?,
            Kind::GameOver => {
                self.raced_reply = None;
                let protocol = self.engine.observer().protocol();
                if protocol.search_kind().is_some() && protocol.owed_search().is_none() {
                    self.released.get_or_insert(Released {
                        at_micros: self.engine.session().elapsed_micros(),
                        stopped_before: self.conversation().stop_sent(),
                        last_info: None,
                    });
                    self.stop_known_released()?;
                }
            }
            Kind::Position(_)
            | Kind::NewGame
            | Kind::SetOption
            | Kind::Other
            | Kind::Sleep(_)
            | Kind::Quit => {}
        }
        if raced {
            return Ok(());
        }
        match self.raced_reply.take() {
            Some(due) if self.engine.observer().protocol().owed_search().is_some() => {
                self.await_terminal(due.saturating_duration_since(self.now()))
            }
            _ => Ok(()),
        }
    }

    pub(super) fn isready(&mut self) -> Step {
        self.send_line("isready")?;
        self.await_readyok()
    }

    fn await_readyok(&mut self) -> Step {
        let readyok = |o: &Observer| !o.protocol().awaiting_readyok();
        if self.engine.observer().protocol().search_kind().is_none() {
            let owed = match self.conversation().after_gameover() {
                true => Owed::ReadyokAfterGameover,
                false => Owed::Readyok,
            };
            return self.wait(readyok, self.timeouts.ready_idle, owed, "readyok");
        }
        // During a search `isready` is a ping, answered at once (USI-READY-006, optional and
        // not judged here); after a `gameover` that ended one, it is answered once the search
        // has stopped. A hung engine is not waited out for T-READY.
        let ping = self.timeouts.stop + Duration::from_secs(1);
        if self
            .read_until(readyok, self.until_end(self.now() + ping))?
            .is_none()
        {
            return Ok(());
        }
        self.check_time()?;
        if self.engine.observer().protocol().owed_search().is_none() {
            return self.readyok_after_gameover(ping);
        }
        // The engine answers `isready` only after its search, or hangs: the search is ended as
        // its command says, and a missing reply is charged to it.
        match self.raced_reply.take() {
            Some(due) => {
                self.await_terminal(due.saturating_duration_since(self.now()))?;
            }
            None => {
                if !self.conversation().stop_sent() {
                    self.send_line("stop")?;
                }
                self.await_terminal(self.timeouts.stop + Duration::from_secs(2))?;
            }
        }
        self.wait(
            readyok,
            self.timeouts.stop,
            Owed::Readyok,
            "readyok, nor after the search ended",
        )
    }

    /// Waits `within` for the outstanding search's reply; one that does not come is charged
    /// to the rule its absence breaks then ([`missing_reply`]: what the engine said meanwhile
    /// may decide it).
    pub(super) fn await_terminal(&mut self, within: Duration) -> Step {
        if self.engine.observer().protocol().abandoned_search() {
            self.await_behind_abandoned(within)?;
        } else {
            self.wait(owes_nothing, within, Owed::Search, "terminal reply")?;
        }
        // A second reply written together with the first is already read: judge it now, before
        // the next `go` could take it for its own.
        self.pump(self.now())
    }

    /// A reply owed behind a search `gameover` released without its reply: that search may
    /// still run (USI-GAMEOVER-004) or have ended silently as it should, and silence does not
    /// tell which. When the reply does not come in time, `stop` does: the abandoned search's
    /// reply, if it comes, is that rule's (the observer charges it); otherwise the reply
    /// missing is the current search's.
    fn await_behind_abandoned(&mut self, within: Duration) -> Step {
        let deadline = self.until_end(self.now() + within);
        if self.read_until(owes_nothing, deadline)?.is_none() {
            return Ok(());
        }
        self.check_time()?;
        self.raced_reply = None;
        self.send_line("stop")?;
        let after_stop = self.now() + self.timeouts.stop + Duration::from_secs(1);
        let unmet = self.read_until(owes_nothing, self.until_end(after_stop))?;
        self.check_time()?;
        if unmet.is_some() && !self.engine.observer().protocol().abandoned_search() {
            // The abandoned search answered `stop` (a known finding, counted): it was what the
            // engine was busy with.
            let v = self.violation(
                Oracle::Protocol,
                crate::blame::runs_on_after_gameover(),
                "the search `gameover` should have ended answered `stop`".into(),
            );
            return Err(self.fatal(v));
        }
        let how = match unmet {
            None => "it came only after `stop`",
            Some(_) => "nor after `stop`",
        };
        let v = self.violation(
            Oracle::Hang,
            missing_reply(Owed::Search, self.engine.observer()),
            format!("no terminal reply within {} ms ({how})", within.as_millis()),
        );
        Err(self.fatal(v))
    }

    /// Reads lines until `done` holds for the observer, a violation shows, or `within`
    /// passes (a hang): the reply `owed` missing, charged to the rule its absence breaks
    /// then.
    pub(super) fn wait(
        &mut self,
        done: impl Fn(&Observer) -> bool,
        within: Duration,
        owed: Owed,
        what: &str,
    ) -> Step {
        let deadline = self.until_end(self.now() + within);
        let missed = |run: &Self| {
            run.violation(
                Oracle::Hang,
                missing_reply(owed, run.engine.observer()),
                format!("no {what} within {} ms", within.as_millis()),
            )
        };
        match self.read_until(done, deadline)? {
            None => Ok(()),
            Some(Unmet::Deadline) => {
                self.check_time()?;
                self.missed_reply(missed(self))
            }
            Some(Unmet::Closed) => {
                let v = self.violation(
                    Oracle::Hang,
                    missing_reply(owed, self.engine.observer()),
                    format!("closed its output without {what}"),
                );
                Err(self.fatal(v))
            }
        }
    }

    /// Reads and judges lines until `done` holds for the observer (`None`), or says why it
    /// did not by `deadline`; the engine's death or a violation ends it. A line read after
    /// the deadline is judged and ends the wait unanswered ([`Wait`]).
    pub(super) fn read_until(
        &mut self,
        done: impl Fn(&Observer) -> bool,
        deadline: Instant,
    ) -> Result<Option<Unmet>, Stop> {
        let mut wait = Wait::until(self.engine.session(), deadline);
        loop {
            if done(self.engine.observer()) {
                return Ok(None);
            }
            match self.read_next(&mut wait)? {
                Arrival::OnTime(()) => {}
                Arrival::Late(()) | Arrival::Deadline => return Ok(Some(Unmet::Deadline)),
                Arrival::Over => {
                    if let Some(t) = self.engine.session().termination() {
                        return Err(self.fatal(self.exited(t)));
                    }
                    return Ok(Some(Unmet::Closed));
                }
            }
        }
    }

    /// A wait that ran out: a finding, unless it is known. A known missing reply to a search
    /// is asked for once with `stop` (the session goes on if it comes); anything else known
    /// ends the session quietly (the engine is stuck).
    fn missed_reply(&mut self, v: Violation) -> Step {
        if !self.known.contains(&v) {
            return Err(v.into());
        }
        if self.engine.observer().protocol().owed_search().is_none()
            || self.conversation().stop_sent()
        {
            return Err(Stop::Known(v));
        }
        self.known_met.push(v);
        self.raced_reply = None;
        self.send_line("stop")?;
        self.await_terminal(self.timeouts.stop)
    }

    /// Reads and judges everything until `until`: what was read by then, and the line read
    /// after it, if one was ([`Wait`]).
    pub(super) fn pump(&mut self, until: Instant) -> Step {
        let mut wait = Wait::until(self.engine.session(), self.until_end(until));
        while let Arrival::OnTime(()) | Arrival::Late(()) = self.read_next(&mut wait)? {}
        self.check_time()
    }
}
