//! The commands a GUI's game loop sends: the handshake (restarting a crashed process), a new
//! game, searches and ponder, `stop` and `gameover`, each reply awaited within its bound.

use super::{Failure, Player, Reply};
use crate::blame::Owed;
use crate::engine::{HeldCores, Patience, Session, SessionOptions};
use crate::observer::Cores;
use crate::usi::{Message, OptionKind};
use std::time::{Duration, Instant};

impl Player {
    /// Starts the process if it is not running (again after a crash) and does the
    /// handshake: `usi`, `usiok`, the options.
    pub fn ensure_started(&mut self) -> Result<(), Failure> {
        if let Some(running) = self.engine.running_mut() {
            if !running.session().is_over() {
                return Ok(());
            }
            // Ended: its cores go back before the next process takes its own.
            running.release_cores();
        }
        // Start-up computes too (gpsusi loads its tables for a second).
        let cores = HeldCores::starting(self.slots.as_ref());
        let session = match Session::start(&self.config.command, SessionOptions::default()) {
            Ok(session) => session,
            Err(e) => return Err(Failure::Crash(format!("cannot start: {e}"))),
        };
        cores.watch(session.pid());
        self.follow(session, cores);
        self.send("usi")?;
        let deadline = Instant::now() + self.timeouts.usiok;
        let mut declared = Vec::new();
        let mut name = None;
        let usiok = self.pump(deadline, |message, _| {
            match message {
                Message::IdName(n) => name = Some(n.clone()),
                Message::Option(decl) => {
                    let vars = match &decl.kind {
                        OptionKind::Combo { vars, .. } => vars.clone(),
                        _ => Vec::new(),
                    };
                    declared.push((decl.name.clone(), vars));
                }
                _ => {}
            }
            matches!(message, Message::UsiOk)
        })?;
        self.name = name.or(self.name.take());
        self.declared = declared;
        if usiok.is_none() {
            let how = format!("no `usiok` within {} ms", self.timeouts.usiok.as_millis());
            return Err(self.unanswered(Owed::Usiok, how));
        }
        let mut settings: Vec<String> = Vec::new();
        for (option, value) in &self.match_options {
            let fits = self.declared.iter().any(|(name, vars)| {
                name.eq_ignore_ascii_case(option) && (vars.is_empty() || vars.contains(value))
            });
            if fits {
                settings.push(format!("setoption name {option} value {value}"));
            }
        }
        for (option, value) in &self.config.options {
            settings.push(match value {
                Some(value) => format!("setoption name {option} value {value}"),
                None => format!("setoption name {option}"),
            });
        }
        for line in settings {
            self.send(&line)?;
        }
        Ok(())
    }

    /// `isready` until `readyok` (keep-alive lines restart the wait), then `usinewgame`.
    pub fn new_game(&mut self) -> Result<(), Failure> {
        self.ensure_started()?;
        self.send("isready")?;
        let patience = Patience::KeepAlive {
            idle: self.timeouts.ready_silence,
            cap: self.timeouts.ready_cap,
        };
        let start = Instant::now();
        let cap = start + self.timeouts.ready_cap;
        loop {
            let idle = Instant::now() + patience.first_deadline();
            // A `readyok` read before this `isready` was sent answers an earlier one.
            match self.pump(idle.min(cap), |_, _| true)? {
                Some((_, Message::ReadyOk))
                    if !self.engine.observer().protocol().awaiting_readyok() =>
                {
                    break;
                }
                Some(_) if Instant::now() < cap => {}
                _ => {
                    let how = format!(
                        "no `readyok` (silence {} ms, cap {} ms)",
                        self.timeouts.ready_silence.as_millis(),
                        self.timeouts.ready_cap.as_millis()
                    );
                    return Err(self.unanswered(Owed::Readyok, how));
                }
            }
        }
        self.send("usinewgame")
    }

    /// Sends `position` and `go`, and waits up to `patience` after `go` for the `bestmove`.
    pub fn search(&mut self, position: &str, go: &str, patience: Duration) -> Reply {
        if let Err(failure) = self.send(position).and_then(|()| self.send(go)) {
            return Reply::Failed(failure);
        }
        self.await_best(patience)
    }

    /// Sends `position` with the predicted move and `go ponder …`: the engine thinks on the
    /// opponent's time until `ponderhit` or `stop`. Neither takes a core: pondering engines
    /// holding the cores their opponents wait for would wait on each other for ever.
    pub fn ponder(&mut self, position: &str, go_ponder: &str) -> Result<(), Failure> {
        self.send_with(position, Cores::AsHeld)?;
        self.send_with(go_ponder, Cores::AsHeld)
    }

    /// The predicted move was played: `ponderhit`, and the `bestmove` awaited up to
    /// `patience` from it (the engine's clock runs from `ponderhit`).
    pub fn ponderhit(&mut self, patience: Duration) -> Reply {
        if let Err(failure) = self.send("ponderhit") {
            return Reply::Failed(failure);
        }
        self.await_best(patience)
    }

    /// The `bestmove` of the search just started (the last line sent), within `patience`.
    fn await_best(&mut self, patience: Duration) -> Reply {
        let sent = match self.running() {
            Ok(running) => running.session().elapsed_micros(),
            Err(failure) => return Reply::Failed(failure),
        };
        let cpu_wait = self.engine.observer().protocol().engine_cpu_wait();
        let deadline = Instant::now() + patience;
        let mut score = None;
        match self.pump(deadline, |message, stale| {
            if let Message::Info(info) = message
                && info.multipv.is_none_or(|k| k == 1)
                && info.score.is_some()
            {
                score = info.score;
            }
            !stale && matches!(message, Message::BestMove(_))
        }) {
            Ok(Some((line, Message::BestMove(best)))) => {
                let used = line.at_micros.saturating_sub(sent);
                let held_up = (self.engine.observer().protocol())
                    .held_up_between(sent, line.at_micros, &cpu_wait)
                    .most();
                Reply::Best {
                    best,
                    used: Duration::from_micros(used),
                    held_up: Duration::from_micros(held_up),
                    score,
                }
            }
            Ok(_) => Reply::NoReply,
            Err(failure) => Reply::Failed(failure),
        }
    }

    /// `stop` to a search whose move will not be played (a ponder miss, a search past its
    /// time, the game over), and its `bestmove` awaited for T-STOP.
    pub fn stop(&mut self) -> Result<(), Failure> {
        self.send("stop")?;
        let deadline = Instant::now() + self.timeouts.stop;
        match self.pump(deadline, |message, stale| {
            !stale && matches!(message, Message::BestMove(_))
        })? {
            Some(_) => Ok(()),
            None => {
                let how = format!(
                    "no `bestmove` within {} ms of `stop`",
                    self.timeouts.stop.as_millis()
                );
                Err(self.unanswered(Owed::Search, how))
            }
        }
    }

    /// Stops a search still running, its `bestmove` awaited for T-STOP (no reply is judged
    /// by the observer, not by the referee: the game is over).
    pub fn end_search(&mut self) {
        if self.engine.observer().protocol().searching() {
            let _ = self.stop();
        }
    }

    /// `gameover RESULT` (`win`, `lose`, `draw`: the engine's point of view).
    pub fn gameover(&mut self, result: &str) {
        let _ = self.send(&format!("gameover {result}"));
    }
}
