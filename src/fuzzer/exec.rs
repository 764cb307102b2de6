//! Runs one command list against a fresh engine, judging every line, and reports the first
//! violation.

use super::oracle::{Checker, Oracle, Violation, legal_when_sfen_mirrored};
use super::plan::{Cmd, Kind, Search};
use crate::engine::{
    EngineCommand, Escalation, Event, Session, SessionOptions, StartError, Stream, Termination,
    Timeouts, sanitise,
};
use crate::observer::reply_rule;
use crate::usi::Command;
use std::time::{Duration, Instant};

/// The options the fuzzer sets before every session (the ponder faults need `USI_Ponder`).
pub const PRELUDE_OPTIONS: &[(&str, &str)] = &[("USI_Ponder", "true")];

/// What one session showed.
pub struct SessionResult {
    pub violation: Option<Violation>,
    /// Always-on violations that leave the protocol in step (a line's grammar): noted, the
    /// first of each rule, while the session goes on exploring.
    pub noted: Vec<Violation>,
    /// `go` commands the engine answered (positions checked).
    pub answered: u64,
    /// The whole exchange, as the driver recorded it (only kept with a violation).
    pub transcript: String,
}

/// Runs `cmds` against a fresh `engine` process.
pub fn run(
    engine: &EngineCommand,
    cmds: &[Cmd],
    timeouts: &Timeouts,
) -> Result<SessionResult, StartError> {
    let mut session = Session::start(engine, SessionOptions::default())?;
    let mut run = Run {
        session: &mut session,
        checker: Checker::default(),
        step: None,
        last_sent: None,
        last_position: None,
        last_message: None,
        timeouts,
        noted: Vec::new(),
    };
    let violation = run.all(cmds).err();
    let answered = run.checker.answered;
    let noted = std::mem::take(&mut run.noted);
    if violation.is_some() {
        session.quit(Duration::ZERO);
    }
    let mut transcript = Vec::new();
    if violation.is_some() {
        session
            .transcript()
            .write_to(&mut transcript)
            .expect("writing to memory");
    }
    Ok(SessionResult {
        violation,
        noted,
        answered,
        transcript: String::from_utf8_lossy(&transcript).into_owned(),
    })
}

struct Run<'a> {
    session: &'a mut Session,
    checker: Checker,
    step: Option<usize>,
    /// The last command sent other than `isready`.
    last_sent: Option<&'a Cmd>,
    /// The last `position` line sent, whose misreading may explain an illegal reply.
    last_position: Option<&'a Cmd>,
    /// The engine's last line on either stream, for the report of an exit.
    last_message: Option<String>,
    timeouts: &'a Timeouts,
    /// Non-fatal violations seen so far, one per rule.
    noted: Vec<Violation>,
}

type Step = Result<(), Violation>;

impl<'a> Run<'a> {
    fn all(&mut self, cmds: &'a [Cmd]) -> Step {
        self.send_line("usi")?;
        self.wait(
            |_| false,
            |line| line == "usiok",
            self.timeouts.usiok,
            "USI-HANDSHAKE-004",
            "usiok",
        )?;
        for (name, value) in PRELUDE_OPTIONS {
            self.send_line(&format!("setoption name {name} value {value}"))?;
        }
        self.isready()?;
        self.send_line("usinewgame")?;
        for (i, cmd) in cmds.iter().enumerate() {
            self.step = Some(i);
            self.command(cmd)?;
        }
        self.step = Some(cmds.len());
        if self.checker.pending.is_some() {
            self.send_line("stop")?;
            self.await_terminal(self.timeouts.stop + Duration::from_secs(2), "USI-STOP-001")?;
        }
        self.isready()?;
        let report = self.session.quit(self.timeouts.quit);
        if report.escalation != Escalation::None {
            return Err(self.violation(
                Oracle::Hang,
                "USI-QUIT-001",
                format!("did not exit after `quit` ({:?})", report.escalation),
            ));
        }
        Ok(())
    }

    fn command(&mut self, cmd: &'a Cmd) -> Step {
        if let Kind::Sleep(d) = cmd.kind {
            return self.pump(Instant::now() + d);
        }
        // `isready` is what shows that an earlier command killed the engine: blame the earlier.
        if !matches!(cmd.kind, Kind::IsReady) {
            self.last_sent = Some(cmd);
        }
        if cmd.raw {
            let sent = self.session.send_raw(cmd.text.as_bytes());
            self.sent(sent.is_ok())?;
        } else {
            self.send_line(&cmd.text)?;
        }
        match &cmd.kind {
            Kind::Position(p) => {
                self.checker.position = p.as_deref().cloned();
                self.last_position = Some(cmd);
            }
            Kind::Go(search) => {
                self.checker.start(*search);
                match *search {
                    Search::Timed(d) | Search::Mate(Some(d)) => {
                        self.await_terminal(d, self.reply_rule(&cmd.text))?
                    }
                    Search::Infinite | Search::Ponder(_) | Search::Mate(None) => {}
                }
            }
            Kind::Stop => {
                if self.checker.pending.is_some() {
                    self.await_terminal(
                        self.timeouts.stop + Duration::from_secs(2),
                        "USI-STOP-001",
                    )?;
                }
            }
            Kind::PonderHit => {
                if let Some(pending) = &self.checker.pending
                    && let Search::Ponder(d) = pending.search
                {
                    self.checker.pending.as_mut().expect("pending").search = Search::Timed(d);
                    self.await_terminal(d, "USI-PONDER-004")?;
                }
            }
            Kind::IsReady => self.await_readyok()?,
            Kind::GameOver => {
                self.checker.game_over();
            }
            Kind::NewGame | Kind::SetOption | Kind::Other | Kind::Sleep(_) => {}
        }
        Ok(())
    }

    /// The rule a missing reply to the `go` in `line` breaks, as the observer's clock
    /// charges a late one (byoyomi, increment, sudden death, `movetime`, `go mate`); for a
    /// depth or node limit, one terminal reply per `go`.
    fn reply_rule(&self, line: &str) -> &'static str {
        let side = self.checker.position.as_ref().map(|p| p.side_to_move());
        match Command::parse(line) {
            Command::Go(go) => reply_rule(&go, side).map_or("USI-GO-002", |rule| rule.as_str()),
            _ => "USI-GO-002",
        }
    }

    fn send_line(&mut self, line: &str) -> Step {
        let sent = self.session.send(line);
        self.sent(sent.is_ok())
    }

    /// A failed send means the engine is gone (or not reading): find out which.
    fn sent(&mut self, ok: bool) -> Step {
        if ok {
            return Ok(());
        }
        self.pump(Instant::now() + Duration::from_millis(500))?;
        Err(self.violation(
            Oracle::Hang,
            "USI-ROBUST-001",
            "stopped reading its input".into(),
        ))
    }

    fn isready(&mut self) -> Step {
        self.send_line("isready")?;
        self.await_readyok()
    }

    fn await_readyok(&mut self) -> Step {
        self.checker.readyok_owed += 1;
        self.wait(
            |c| c.readyok_owed == 0,
            |_| false,
            self.timeouts.ready_idle,
            "USI-READY-001",
            "readyok",
        )
    }

    fn await_terminal(&mut self, within: Duration, rule: &'static str) -> Step {
        // An engine still busy with a search `gameover` should have ended answers nothing
        // else: that is the deviation, not the new search's deadline.
        let rule = if self.checker.abandoned.is_some() {
            "USI-GAMEOVER-004"
        } else {
            rule
        };
        self.wait(
            |c| c.pending.is_none(),
            |_| false,
            within,
            rule,
            "terminal reply",
        )?;
        // A second reply written together with the first is already read: judge it now, before
        // the next `go` could take it for its own.
        self.pump(Instant::now())
    }

    /// Reads lines until `done` holds for the checker (or a line satisfies `line_done`), a
    /// violation shows, or `within` passes (a hang).
    fn wait(
        &mut self,
        done: impl Fn(&Checker) -> bool,
        line_done: impl Fn(&str) -> bool,
        within: Duration,
        rule: &'static str,
        what: &str,
    ) -> Step {
        let deadline = Instant::now() + within;
        loop {
            if done(&self.checker) {
                return Ok(());
            }
            match self.session.next_event(deadline) {
                Some(Event::Line(line)) => {
                    if line_done(&line.text) && line.stream == Stream::Stdout {
                        return Ok(());
                    }
                    self.judge(line)?;
                }
                Some(Event::Exited { termination, .. }) => return Err(self.exited(termination)),
                Some(Event::Eof { .. }) => {}
                None => {
                    if let Some(t) = self.session.termination() {
                        return Err(self.exited(t));
                    }
                    if Instant::now() >= deadline {
                        return Err(self.violation(
                            Oracle::Hang,
                            rule,
                            format!("no {what} within {} ms", within.as_millis()),
                        ));
                    }
                    if self.session.is_over() {
                        return Err(self.violation(
                            Oracle::Hang,
                            rule,
                            format!("closed its output without {what}"),
                        ));
                    }
                }
            }
        }
    }

    /// Reads and judges everything until `until`.
    fn pump(&mut self, until: Instant) -> Step {
        while let Some(event) = self.session.next_event(until) {
            match event {
                Event::Line(line) => self.judge(line)?,
                Event::Exited { termination, .. } => return Err(self.exited(termination)),
                Event::Eof { .. } => {}
            }
        }
        Ok(())
    }

    fn judge(&mut self, line: crate::engine::Line) -> Step {
        let found = if line.stream == Stream::Stdout {
            let search = self.checker.pending.as_ref().map(|p| p.search);
            self.checker
                .line(&line.text)
                .map(|found| self.blame_misread_sfen(found, search, &line.text))
        } else {
            None
        };
        self.last_message = Some(line.text);
        match found {
            // A malformed line does not put the protocol out of step: note it, go on.
            Some((Oracle::Output, rule, detail)) => {
                if !self.noted.iter().any(|v| v.rule == rule) {
                    let violation = self.violation(Oracle::Output, rule, detail);
                    self.noted.push(violation);
                }
                Ok(())
            }
            Some((oracle, rule, detail)) => Err(self.violation(oracle, rule, detail)),
            None => Ok(()),
        }
    }

    /// An illegal reply that is legal in the board read with mirrored files is charged to the
    /// `sfen` form of `position` (USI-POSITION-001), not to the move generator.
    fn blame_misread_sfen(
        &self,
        found: (Oracle, &'static str, String),
        search: Option<Search>,
        reply: &str,
    ) -> (Oracle, &'static str, String) {
        let (Oracle::Legality, Some(position), Some(search)) =
            (found.0, self.last_position, search)
        else {
            return found;
        };
        match legal_when_sfen_mirrored(&position.text, search, reply) {
            Some(true) => (
                Oracle::Legality,
                "USI-POSITION-001",
                format!(
                    "{}, but legal with the SFEN board's files mirrored (9 read as 1): the engine \
                     misread `position sfen`",
                    found.2
                ),
            ),
            _ => found,
        }
    }

    /// The engine ended before `quit`: a crash on a signal, otherwise a controlled exit.
    fn exited(&self, termination: Termination) -> Violation {
        let rule = self.rule_for_exit();
        let said = self
            .last_message
            .as_deref()
            .map(|m| format!(", last line `{}`", sanitise(m)))
            .unwrap_or_default();
        let last_text = self.last_sent.map_or("", |c| c.text.as_str());
        let after = format!("after `{}`", sanitise(last_text.trim_end()));
        match termination {
            Termination::Signalled { .. } => {
                self.violation(Oracle::Crash, rule, format!("{termination} {after}{said}"))
            }
            Termination::Exited(_) => {
                self.violation(Oracle::Exit, rule, format!("{termination} {after}{said}"))
            }
        }
    }

    /// The rule an exit breaks, from the command that provoked it.
    fn rule_for_exit(&self) -> &'static str {
        let Some(last) = self.last_sent else {
            return "USI-ROBUST-001";
        };
        match &last.kind {
            Kind::Other if last.text.trim_start().starts_with("debug") => "USI-ROBUST-010",
            Kind::Position(_) => "USI-POSITION-011",
            // The fuzzer's `go` lines are well formed: dying on one leaves it unanswered.
            Kind::Go(Search::Mate(_)) => "USI-MATE-002",
            Kind::Go(_) => "USI-GO-002",
            Kind::SetOption => "USI-OPTION-010",
            Kind::GameOver => "USI-GAMEOVER-001",
            Kind::PonderHit => "USI-STOP-005",
            Kind::Stop => "USI-STOP-002",
            _ => "USI-ROBUST-001",
        }
    }

    fn violation(&self, oracle: Oracle, rule: &'static str, detail: String) -> Violation {
        Violation {
            oracle,
            rule,
            detail,
            step: self.step,
        }
    }
}
