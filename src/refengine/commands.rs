//! The engine's USI command loop: reads its events, dispatches each command, and handles the
//! commands of an idle engine in full (`usi`, `isready`, `setoption`, `usinewgame`,
//! `gameover`, `quit`); `go` and what answers or ends a search are in [`super::go`], the faults'
//! hooks in [`super::hooks`].

use super::hooks::hang;
use super::options::SetOutcome;
use super::setup::{self, SetupFailure};
use super::tt::Tt;
use super::{Engine, Event, Fault, Flow};
use crate::sim;
use crate::usi::{Command, GameResult};
use std::sync::PoisonError;
use std::time::Duration;

/// Longest silence during a slow `isready` (USI-READY-004 warns beyond 5 s).
const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(1);

impl Engine {
    pub(super) fn main_loop(&mut self) -> i32 {
        loop {
            let deaf = self.deaf_while_searching();
            let event = if deaf {
                match self.rx.recv_until(None) {
                    Some(done @ Event::Done { .. }) => done,
                    Some(other) => {
                        self.backlog.push_back(other);
                        continue;
                    }
                    None => return 0,
                }
            } else if let Some(event) = self.backlog.pop_front() {
                event
            } else {
                match self.rx.recv_until(None) {
                    Some(event) => event,
                    None => return 0,
                }
            };
            let flow = match event {
                Event::Line(line) => self.on_line(line),
                Event::Eof => self.on_eof(),
                Event::Done { id } => {
                    self.on_done(id);
                    Flow::Continue
                }
                Event::AnswerNow { id } => {
                    self.answer_now(id);
                    Flow::Continue
                }
            };
            if let Flow::Exit(code) = flow {
                self.out.flush();
                return code;
            }
        }
    }

    pub(super) fn crash(&self) -> Flow {
        Flow::Exit(1)
    }

    fn on_eof(&mut self) -> Flow {
        self.hang_on_eof();
        self.abort_search();
        Flow::Exit(0)
    }

    fn on_line(&mut self, mut line: String) -> Flow {
        if self.misreads(&mut line) {
            return Flow::Continue;
        }
        if line.trim().is_empty() {
            self.echo_blank_line();
            return Flow::Continue;
        }
        let command = Command::parse(&line);
        if self.crashes_on(&line, &command) {
            return self.crash();
        }
        match command {
            Command::Usi => self.handshake(),
            Command::Debug(_) | Command::Register(_) => {}
            Command::IsReady => self.isready(),
            Command::SetOption { name, value } => return self.setoption(&name, value.as_deref()),
            Command::UsiNewGame => return self.usinewgame(),
            Command::Position(cmd) => {
                match setup::setup(&cmd, self.last_good.as_ref(), &self.faults) {
                    Ok(s) => {
                        self.last_good = Some(s.clone());
                        self.setup = Ok(s);
                        self.search_on_position();
                    }
                    Err(SetupFailure::Error(reason)) => {
                        self.out.line(&format!("info string error: {reason}"));
                        self.setup = Err(reason);
                    }
                    // The position before stays the one to search.
                    Err(SetupFailure::Ignored(reason)) => {
                        self.out.line(&format!("info string error: {reason}"));
                    }
                    Err(SetupFailure::Exit) => return self.crash(),
                    Err(SetupFailure::Hang) => hang(&self.clock),
                    // What a Rust engine's `unwrap` prints; a real panic would take usicheck
                    // down with the simulated engine it runs in process.
                    Err(SetupFailure::Panic(reason)) => {
                        self.out.error_line(&format!(
                            "thread 'main' panicked at src/position.rs:88:14:\n{reason}"
                        ));
                        return Flow::Exit(101);
                    }
                }
            }
            Command::Go(go) => return self.go(&go),
            Command::Stop => self.stop(),
            Command::PonderHit(clock) => self.ponderhit(&clock),
            Command::GameOver(result) => return self.gameover(&result),
            Command::Quit => {
                if self.ignores_quit() {
                    return Flow::Continue;
                }
                self.abort_search();
                return Flow::Exit(self.exit_status());
            }
            Command::Raw(text) => self.unknown_command_reply(&text),
        }
        Flow::Continue
    }

    fn handshake(&mut self) {
        self.send_id_name();
        self.send_id_author();
        let mut lines = self.options.advertise(&self.faults);
        let late = self.option_after_usiok(&mut lines);
        for line in &lines {
            self.out.line(line);
        }
        self.delay_usiok();
        self.send_usiok();
        if let Some(line) = late {
            self.out.line(&line);
        }
    }

    pub(super) fn readyok(&self) {
        self.out.lines(&self.readyok_lines());
    }

    fn isready(&mut self) {
        self.seen_isready = true;
        if self.deaf_to_isready {
            return;
        }
        if self.running.is_some() {
            // UCI ping: answer without disturbing the search.
            self.readyok_during_search();
            return;
        }
        if !self.initialise() {
            return;
        }
        self.newgame_seen = false;
        let mut reply = self.readyok_lines();
        self.info_while_idle(&mut reply);
        self.out.lines(&reply);
    }

    /// The heavy part of `isready`: (simulated) evaluation loading with keep-alive lines, hash
    /// allocation, and reports on the string options.
    ///
    /// Returns `false` when `quit` or EOF interrupted it (then no `readyok` is owed).
    fn initialise(&mut self) -> bool {
        self.chatty_stdout();
        let total =
            Duration::from_millis(self.init_ms.max(self.options.slow_init_ms.max(0) as u64));
        let start = self.clock.now();
        let elapsed = |clock: &sim::Clock| clock.now() - start;
        let mut last_sign_of_life = start;
        while elapsed(&self.clock) < total {
            let wait = total
                .saturating_sub(elapsed(&self.clock))
                .min(KEEP_ALIVE_INTERVAL);
            // Input keeps arriving meanwhile: keep it for later, but leave at once on quit.
            match self.rx.recv_until(Some(self.clock.now() + wait)) {
                Some(Event::Line(line)) if Command::parse(&line) == Command::Quit => {
                    self.backlog.push_back(Event::Line(line));
                    return false;
                }
                Some(Event::Eof) => {
                    self.backlog.push_back(Event::Eof);
                    return false;
                }
                Some(event) => self.backlog.push_back(event),
                None => {}
            }
            let due = self.clock.now() - last_sign_of_life >= KEEP_ALIVE_INTERVAL;
            if due && elapsed(&self.clock) < total && !self.has(Fault::SilentSlowInit) {
                self.out.line("info string initialising");
                last_sign_of_life = self.clock.now();
            }
        }
        if self.options.hash_mb != self.tt_mb && !self.has(Fault::LazyHashAllocation) {
            self.allocate_hash();
        }
        if !self.options.note.is_empty() {
            self.out
                .line(&format!("info string note: {}", self.options.note));
        }
        if !self.options.book_file.is_empty() {
            self.out.line(&format!(
                "info string book file {} ignored: the book is built in",
                self.options.book_file
            ));
        }
        true
    }

    fn allocate_hash(&mut self) {
        *self.tt.lock().unwrap_or_else(PoisonError::into_inner) = Tt::new(self.options.hash_mb);
        self.tt_mb = self.options.hash_mb;
    }

    fn setoption(&mut self, name: &str, value: Option<&str>) -> Flow {
        if let Some(flow) = self.setoption_by_fault(name, value) {
            return flow;
        }
        match self.options.set(name, value, &self.faults) {
            SetOutcome::Applied => {}
            SetOutcome::ClearHash if self.has(Fault::CrashOnButton) => return self.crash(),
            SetOutcome::ClearHash => self
                .tt
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clear(),
            // Only a well-formed `setoption` of an unknown name: a missing name is a
            // malformed argument (USI-ROBUST-007), another fault's business.
            SetOutcome::Unknown(_) if self.has(Fault::CrashOnUnknownOption) && !name.is_empty() => {
                return self.crash();
            }
            SetOutcome::Rejected(why) | SetOutcome::Unknown(why) => {
                self.out.line(&format!("info string {why}"));
            }
        }
        Flow::Continue
    }

    fn usinewgame(&mut self) -> Flow {
        self.newgame_seen = true;
        self.newgame_ever = true;
        self.newgames += 1;
        self.newgame_by_fault()
    }

    fn gameover(&mut self, result: &GameResult) -> Flow {
        self.gameovers += 1;
        self.unknown_result_seen |= *result == GameResult::Unknown;
        if self.crashes_on_gameover(result) {
            return self.crash();
        }
        self.after_gameover_by_fault();
        let keep = self
            .running
            .as_ref()
            .is_none_or(|r| self.search_survives_gameover(r.mode));
        if !keep {
            self.end_search_unanswered();
        }
        Flow::Continue
    }
}
