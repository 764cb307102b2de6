//! The engine's USI command loop: reads its events, dispatches each command, and handles the
//! commands of an idle engine in full (`usi`, `isready`, `setoption`, `usinewgame`,
//! `gameover`, `quit`); `go` and what answers or ends a search are in [`super::go`], the faults'
//! hooks in [`super::hooks`].

use super::hooks::{LEAK_PER_GAME, hang, has_malformed_number};
use super::options::SetOutcome;
use super::setup::{self, SetupFailure};
use super::tt::Tt;
use super::{Engine, Event, Fault, Flow, Mode};
use crate::sim;
use crate::usi::{Command, GameResult};
use std::sync::PoisonError;
use std::time::Duration;

/// Longest silence during a slow `isready` (USI-READY-004 warns beyond 5 s).
const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(1);

impl Engine {
    pub(super) fn main_loop(&mut self) -> i32 {
        loop {
            let deaf = self.running.is_some() && self.has(Fault::DeafWhileSearching);
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
        if self.has(Fault::HangOnEof) {
            hang(&self.clock);
        }
        self.abort_search();
        Flow::Exit(0)
    }

    fn on_line(&mut self, mut line: String) -> Flow {
        if self.has(Fault::CarriageReturnKept) && line.ends_with('\r') {
            line.pop();
            line.push('?');
        }
        if self.has(Fault::StrictWhitespace)
            && (line.trim_matches(' ') != line || line.contains("  "))
        {
            return Flow::Continue;
        }
        if line.trim().is_empty() {
            if self.has(Fault::EchoBlankLines) {
                self.out.line("");
            }
            return Flow::Continue;
        }
        if self.has(Fault::CrashOnBadNumber) && has_malformed_number(&line) {
            return self.crash();
        }
        match Command::parse(&line) {
            Command::Usi => self.handshake(),
            Command::Debug(_) if self.has(Fault::CrashOnDebug) => return self.crash(),
            Command::Debug(_) | Command::Register(_) => {}
            Command::IsReady => self.isready(),
            Command::SetOption { name, value } => return self.setoption(&name, value.as_deref()),
            Command::UsiNewGame => return self.usinewgame(),
            Command::Position(cmd) => {
                match setup::setup(&cmd, self.last_good.as_ref(), &self.faults) {
                    Ok(s) => {
                        self.last_good = Some(s.clone());
                        self.setup = Ok(s);
                        if self.has(Fault::SearchOnPosition) {
                            self.out.line("info depth 1 seldepth 1 score cp 0");
                        }
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
            Command::Go(go) => {
                // An unknown token (USI-GO-011), not a malformed number the parser also keeps
                // (`go btime abc`, USI-ROBUST-007, fault `crash-on-bad-number`).
                if self.has(Fault::CrashOnUnknownGoToken)
                    && !go.extra.is_empty()
                    && !has_malformed_number(&line)
                {
                    return self.crash();
                }
                return self.go(&go);
            }
            Command::Stop => self.stop(),
            Command::PonderHit(clock) => {
                let has_args = line.split_whitespace().count() > 1;
                if self.has(Fault::CrashOnPonderhitArgs) && has_args {
                    return self.crash();
                }
                self.ponderhit(&clock);
            }
            Command::GameOver(result) => return self.gameover(&result),
            Command::Quit => {
                if self.has(Fault::IgnoreQuit)
                    || (self.has(Fault::QuitNeedsStop) && self.running.is_some())
                    || (self.has(Fault::QuitNeedsIsready) && !self.seen_isready)
                {
                    return Flow::Continue;
                }
                self.abort_search();
                return Flow::Exit(if self.has(Fault::NonzeroExit) { 3 } else { 0 });
            }
            Command::Raw(text) => {
                if self.has(Fault::CrashOnUnknownCommand) {
                    return self.crash();
                }
                if self.has(Fault::UnknownCommandReply) {
                    self.out
                        .line(&format!("Unknown command: {}", text.escape_debug()));
                }
            }
        }
        Flow::Continue
    }

    fn handshake(&mut self) {
        if self.has(Fault::FairyStockfishName) {
            self.out
                .line("id name Fairy-Stockfish (usicheck reference engine)");
        } else if !self.has(Fault::NoIdName) {
            self.out.line(concat!(
                "id name usicheck-refengine ",
                env!("CARGO_PKG_VERSION")
            ));
        }
        if self.has(Fault::ShiftJisAuthor) {
            // "将棋" in Shift_JIS: not valid UTF-8.
            self.out.bytes_line(b"id author usicheck \x8f\xab\x8a\xfb");
        } else if !self.has(Fault::NoIdAuthor) {
            self.out.line("id author usicheck developers");
        }
        let mut lines = self.options.advertise(&self.faults);
        let late = if self.has(Fault::OptionAfterUsiok) {
            lines.pop()
        } else {
            None
        };
        for line in &lines {
            self.out.line(line);
        }
        if self.has(Fault::SlowUsiok) {
            self.clock.sleep(Duration::from_millis(2500));
        }
        if self.has(Fault::HeavyInitAtUsi) {
            self.clock.sleep(Duration::from_millis(1500));
        }
        if self.has(Fault::UsiokTrailingBlank) {
            self.out.line("usiok ");
        } else if !self.has(Fault::NoUsiok) {
            self.out.line("usiok");
        }
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
            if self.has(Fault::ReadyokAfterSearch) {
                self.pending_readyok += 1;
            } else {
                self.readyok();
            }
            return;
        }
        if !self.initialise() {
            return;
        }
        self.newgame_seen = false;
        let mut reply = self.readyok_lines();
        // In the same write as `readyok`, so that a process's line reaches usicheck with the
        // reply, as a simulated engine's does: written a moment later, which of the GUI's
        // waits it lands in would be a race.
        if self.has(Fault::InfoWhileIdle) {
            reply.push("info depth 1 seldepth 1 score cp 0");
        }
        self.out.lines(&reply);
    }

    /// The heavy part of `isready`: (simulated) evaluation loading with keep-alive lines, hash
    /// allocation, and reports on the string options.
    ///
    /// Returns `false` when `quit` or EOF interrupted it (then no `readyok` is owed).
    fn initialise(&mut self) -> bool {
        if self.has(Fault::ChattyStdout) {
            self.out.line("Loading evaluation files... done");
        }
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
        if self.newgame_seen && self.has(Fault::SetoptionAfterNewgameIgnored) {
            return Flow::Continue;
        }
        let v = value.unwrap_or("");
        let crash = (self.has(Fault::CrashOnEmptyValue) && value == Some(""))
            || (self.has(Fault::CrashOnNonAsciiValue) && !v.is_ascii())
            || (self.has(Fault::CrashOnUsiPonder) && name.eq_ignore_ascii_case("USI_Ponder"))
            || (self.has(Fault::Int64SpinRejected)
                && v.trim()
                    .parse::<i64>()
                    .is_ok_and(|n| i32::try_from(n).is_err()));
        if crash {
            return self.crash();
        }
        if self.has(Fault::CrashOnSecondButton) && name.eq_ignore_ascii_case("ResetStats") {
            return self.crash();
        }
        if self.has(Fault::SetoptionBlocksIsready) && name.eq_ignore_ascii_case("ShowCurrMove") {
            self.deaf_to_isready = true;
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
        if self.has(Fault::CrashAtThirdNewgame) && self.newgames == 3 {
            return self.crash();
        }
        // Touched, so that it is resident, and kept until the process ends. A simulated
        // engine has no process whose memory anyone samples: there the leak would only swell
        // usicheck's own (a self-test sweep runs every fault in one process).
        if self.has(Fault::LeakPerGame) && !self.clock.is_simulated() {
            self.leaked.push(vec![1u8; LEAK_PER_GAME]);
        }
        if self.has(Fault::HeavyNewgame) {
            self.clock.sleep(Duration::from_millis(1500));
        }
        if self.has(Fault::UnpromptedBestmove) {
            self.out.line("bestmove resign");
        }
        Flow::Continue
    }

    fn gameover(&mut self, result: &GameResult) -> Flow {
        self.gameovers += 1;
        self.unknown_result_seen |= *result == GameResult::Unknown;
        let unknown = matches!(result, GameResult::Unknown | GameResult::Other(_));
        if (self.has(Fault::CrashOnGameoverDraw) && *result == GameResult::Draw)
            || (self.has(Fault::CrashOnUnknownResult) && unknown)
            || (self.has(Fault::SecondGameCrash) && self.gameovers >= 2)
        {
            return self.crash();
        }
        if self.has(Fault::GameoverReply) {
            self.out.line("gameover acknowledged");
        }
        self.deaf_to_isready |= self.has(Fault::DeafAfterGameover);
        let keep = match self.running.as_ref().map(|r| r.mode) {
            Some(Mode::Ponder) => {
                self.has(Fault::PonderIgnoresGameover) || self.has(Fault::GameoverKeepsSearching)
            }
            Some(_) => self.has(Fault::GameoverKeepsSearching),
            None => true,
        };
        if !keep {
            self.abort_search();
        }
        Flow::Continue
    }
}
