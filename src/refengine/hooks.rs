//! The faults' hooks: the places where a [`Fault`] changes what the engine does, each behind a
//! method named for it, so that the command loop (`commands.rs`) and the life of a `go`
//! (`go.rs`) read as the protocol plus these hooks. Single faults inside the protocol's own
//! conditions (a search limit, a match guard) stay where they act.

use super::setup::Setup;
use super::{Engine, Event, Fault, Flow, Mode, Running};
use crate::shogi::{Color, Position};
use crate::sim;
use crate::usi::{Command, GameResult, Go, MateLimit};
use std::time::Duration;

/// How long `ponder-leaks-bestmove` ponders before it answers.
const PONDER_LEAK: Duration = Duration::from_millis(400);

/// How long past its clock `occasional-late-byoyomi` holds an answer.
const LATE_BYOYOMI: Duration = Duration::from_millis(800);

/// What the `leak-per-game` fault keeps at each `usinewgame`.
const LEAK_PER_GAME: usize = 48 << 20;

impl Engine {
    /// Fault `startup-banner`: a line before any command.
    pub(super) fn startup_banner(&self) {
        if self.has(Fault::StartupBanner) {
            self.out
                .line("usicheck-refengine by the usicheck developers");
        }
    }

    /// Fault `deaf-while-searching`: while a search runs, only its end is read.
    pub(super) fn deaf_while_searching(&self) -> bool {
        self.running.is_some() && self.has(Fault::DeafWhileSearching)
    }

    /// Fault `hang-on-eof`: EOF is never acted on.
    pub(super) fn hang_on_eof(&self) {
        if self.has(Fault::HangOnEof) {
            hang(&self.clock);
        }
    }

    /// Faults that read a line wrongly (`carriage-return-kept`, `strict-whitespace`); returns
    /// whether the line is dropped unread.
    pub(super) fn misreads(&self, line: &mut String) -> bool {
        if self.has(Fault::CarriageReturnKept) && line.ends_with('\r') {
            line.pop();
            line.push('?');
        }
        self.has(Fault::StrictWhitespace) && (line.trim_matches(' ') != line || line.contains("  "))
    }

    /// Fault `echo-blank-lines`: a blank line is answered with one.
    pub(super) fn echo_blank_line(&self) {
        if self.has(Fault::EchoBlankLines) {
            self.out.line("");
        }
    }

    /// Whether a fault crashes the engine on `line`, read as `command`.
    pub(super) fn crashes_on(&self, line: &str, command: &Command) -> bool {
        if self.has(Fault::CrashOnBadNumber) && has_malformed_number(line) {
            return true;
        }
        match command {
            Command::Debug(_) => self.has(Fault::CrashOnDebug),
            // An unknown token (USI-GO-011), not a malformed number the parser also keeps
            // (`go btime abc`, USI-ROBUST-007, fault `crash-on-bad-number`).
            Command::Go(go) => {
                self.has(Fault::CrashOnUnknownGoToken)
                    && !go.extra.is_empty()
                    && !has_malformed_number(line)
            }
            Command::PonderHit(_) => {
                let has_args = line.split_whitespace().count() > 1;
                self.has(Fault::CrashOnPonderhitArgs) && has_args
            }
            Command::Raw(_) => self.has(Fault::CrashOnUnknownCommand),
            _ => false,
        }
    }

    /// Fault `unknown-command-reply`: an unknown command is answered.
    pub(super) fn unknown_command_reply(&self, text: &str) {
        if self.has(Fault::UnknownCommandReply) {
            self.out
                .line(&format!("Unknown command: {}", text.escape_debug()));
        }
    }

    /// Fault `search-on-position`: search output for a `position` no `go` followed.
    pub(super) fn search_on_position(&self) {
        if self.has(Fault::SearchOnPosition) {
            self.out.line("info depth 1 seldepth 1 score cp 0");
        }
    }

    /// The `id name` line of the handshake, as the faults shape it (another engine's, or none).
    pub(super) fn send_id_name(&self) {
        if self.has(Fault::FairyStockfishName) {
            self.out
                .line("id name Fairy-Stockfish (usicheck reference engine)");
        } else if !self.has(Fault::NoIdName) {
            self.out.line(concat!(
                "id name usicheck-refengine ",
                env!("CARGO_PKG_VERSION")
            ));
        }
    }

    /// The `id author` line of the handshake, as the faults shape it (not UTF-8, or none).
    pub(super) fn send_id_author(&self) {
        if self.has(Fault::ShiftJisAuthor) {
            // "将棋" in Shift_JIS: not valid UTF-8.
            self.out.bytes_line(b"id author usicheck \x8f\xab\x8a\xfb");
        } else if !self.has(Fault::NoIdAuthor) {
            self.out.line("id author usicheck developers");
        }
    }

    /// Fault `option-after-usiok`: the last `option` line, taken from `lines` to be sent after
    /// `usiok`.
    pub(super) fn option_after_usiok(&self, lines: &mut Vec<String>) -> Option<String> {
        if self.has(Fault::OptionAfterUsiok) {
            lines.pop()
        } else {
            None
        }
    }

    /// Faults `slow-usiok` and `heavy-init-at-usi`: a pause before `usiok`.
    pub(super) fn delay_usiok(&self) {
        if self.has(Fault::SlowUsiok) {
            self.clock.sleep(Duration::from_millis(2500));
        }
        if self.has(Fault::HeavyInitAtUsi) {
            self.clock.sleep(Duration::from_millis(1500));
        }
    }

    /// `usiok`, as the faults shape it (a trailing blank, or none).
    pub(super) fn send_usiok(&self) {
        if self.has(Fault::UsiokTrailingBlank) {
            self.out.line("usiok ");
        } else if !self.has(Fault::NoUsiok) {
            self.out.line("usiok");
        }
    }

    /// The reply to `isready`, as the faults shape it (none, one or two lines).
    pub(super) fn readyok_lines(&self) -> Vec<&'static str> {
        if self.has(Fault::NoReadyok) {
            return Vec::new();
        }
        let text = if self.has(Fault::DoubleSpacedOutput) {
            "readyok "
        } else {
            "readyok"
        };
        let copies = if self.has(Fault::DoubleReadyok) { 2 } else { 1 };
        vec![text; copies]
    }

    /// `isready` during a search: `readyok` at once, or (fault `readyok-after-search`) once the
    /// search has answered.
    pub(super) fn readyok_during_search(&mut self) {
        if self.has(Fault::ReadyokAfterSearch) {
            self.pending_readyok += 1;
        } else {
            self.readyok();
        }
    }

    /// Fault `info-while-idle`: search output in the reply to an idle `isready`.
    pub(super) fn info_while_idle(&self, reply: &mut Vec<&'static str>) {
        // In the same write as `readyok`, so that a process's line reaches usicheck with the
        // reply, as a simulated engine's does: written a moment later, which of the GUI's
        // waits it lands in would be a race.
        if self.has(Fault::InfoWhileIdle) {
            reply.push("info depth 1 seldepth 1 score cp 0");
        }
    }

    /// Fault `chatty-stdout`: a line that is no USI at the start of `isready`.
    pub(super) fn chatty_stdout(&self) {
        if self.has(Fault::ChattyStdout) {
            self.out.line("Loading evaluation files... done");
        }
    }

    /// The faults of `setoption` before it is applied: ignored after `usinewgame`, a crash on
    /// some names and values, `isready` unanswered from then on. Returns the flow when the
    /// option is not to be applied.
    pub(super) fn setoption_by_fault(&mut self, name: &str, value: Option<&str>) -> Option<Flow> {
        if self.newgame_seen && self.has(Fault::SetoptionAfterNewgameIgnored) {
            return Some(Flow::Continue);
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
            return Some(self.crash());
        }
        if self.has(Fault::CrashOnSecondButton) && name.eq_ignore_ascii_case("ResetStats") {
            return Some(self.crash());
        }
        if self.has(Fault::SetoptionBlocksIsready) && name.eq_ignore_ascii_case("ShowCurrMove") {
            self.deaf_to_isready = true;
        }
        None
    }

    /// The faults of `usinewgame`: a crash at the third, memory kept, a slow one, an unprompted
    /// `bestmove`.
    pub(super) fn newgame_by_fault(&mut self) -> Flow {
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
        self.unprompted_resign(Fault::UnpromptedBestmove);
        Flow::Continue
    }

    /// A `bestmove resign` no search asked for, under `fault`.
    pub(super) fn unprompted_resign(&self, fault: Fault) {
        if self.has(fault) {
            self.out.line("bestmove resign");
        }
    }

    /// Whether a fault crashes the engine on `gameover` with `result`.
    pub(super) fn crashes_on_gameover(&self, result: &GameResult) -> bool {
        let unknown = matches!(result, GameResult::Unknown | GameResult::Other(_));
        (self.has(Fault::CrashOnGameoverDraw) && *result == GameResult::Draw)
            || (self.has(Fault::CrashOnUnknownResult) && unknown)
            || (self.has(Fault::SecondGameCrash) && self.gameovers >= 2)
    }

    /// Faults `gameover-reply` (an answer to `gameover`) and `deaf-after-gameover` (`isready`
    /// unanswered from then on).
    pub(super) fn after_gameover_by_fault(&mut self) {
        if self.has(Fault::GameoverReply) {
            self.out.line("gameover acknowledged");
        }
        self.deaf_to_isready |= self.has(Fault::DeafAfterGameover);
    }

    /// Whether a search of `mode` goes on after `gameover` (faults `gameover-keeps-searching`,
    /// and `ponder-ignores-gameover` for a ponder search); otherwise it ends without a reply.
    pub(super) fn search_survives_gameover(&self, mode: Mode) -> bool {
        match mode {
            Mode::Ponder => {
                self.has(Fault::PonderIgnoresGameover) || self.has(Fault::GameoverKeepsSearching)
            }
            _ => self.has(Fault::GameoverKeepsSearching),
        }
    }

    /// Faults that leave `quit` unheeded: always, during a search, or before any `isready`.
    pub(super) fn ignores_quit(&self) -> bool {
        self.has(Fault::IgnoreQuit)
            || (self.has(Fault::QuitNeedsStop) && self.running.is_some())
            || (self.has(Fault::QuitNeedsIsready) && !self.seen_isready)
    }

    /// The exit status after `quit`: 0, or 3 with fault `nonzero-exit`.
    pub(super) fn exit_status(&self) -> i32 {
        if self.has(Fault::NonzeroExit) { 3 } else { 0 }
    }

    fn next_random(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A `go` a fault answers without a search (`reject-byoyomi`, a game that never ended for
    /// the engine) or crashes on (`crash-on-extended-time`): the flow, if so.
    pub(super) fn go_refused_by_fault(&self, go: &Go) -> Option<Flow> {
        if self.has(Fault::RejectByoyomi) && go.clock.byoyomi.is_some() {
            self.out.error_line("error: byoyomi is not supported");
            return Some(Flow::Continue);
        }
        let game_never_left = (self.has(Fault::ResignsAfterGameover) && self.gameovers > 0)
            || (self.has(Fault::UnknownResultKeepsGame) && self.unknown_result_seen);
        if game_never_left {
            self.out.line("bestmove resign");
            return Some(Flow::Continue);
        }
        let extended_time = go.clock.bbyoyomi.is_some() || go.clock.wbyoyomi.is_some();
        if self.has(Fault::CrashOnExtendedTime) && extended_time {
            return Some(self.crash());
        }
        None
    }

    /// `go` as a mate-only engine reads it (fault `checkmate-for-go`): `go mate` with the
    /// search's own time budget, `go mate infinite` when it has none (`go infinite`, `go ponder`,
    /// no clock).
    pub(super) fn as_go_mate(&self, go: &Go, side: Color) -> Go {
        let margin = self.options.network_delay_ms.max(0) as u64;
        let budget = if go.infinite || go.ponder {
            None
        } else {
            self.search_budget(go, Mode::Timed, side)
        };
        let limit = budget.map_or(MateLimit::Infinite, |b| {
            // `spawn_mate` keeps the margin back again.
            MateLimit::Millis(b.hard.as_millis() as u64 + margin)
        });
        Go {
            mate: Some(limit),
            ..go.clone()
        }
    }

    /// Fault `hang-on-position`: whether the search of `setup` never ends.
    pub(super) fn hangs_on_position(&self, setup: Option<&Setup>) -> bool {
        self.has(Fault::HangOnPosition) && setup.is_some_and(|s| hangs_on(&s.position))
    }

    /// The faults of `stop` during a search of `mode`: a slow one, a search ended without an
    /// answer, a `go mate` answered with `bestmove`. Returns whether the fault answered it (or
    /// left it unanswered).
    pub(super) fn stop_by_fault(&mut self, mode: Mode) -> bool {
        if self.has(Fault::SlowStop) {
            self.clock.sleep(Duration::from_secs(2));
        }
        let silent = match mode {
            Mode::Ponder => {
                self.has(Fault::PonderStopSilent) || self.has(Fault::NoBestmoveAfterStop)
            }
            Mode::Timed | Mode::Infinite => self.has(Fault::NoBestmoveAfterStop),
            Mode::Mate { .. } => false,
        };
        if silent {
            self.end_search_unanswered();
            return true;
        }
        if matches!(mode, Mode::Mate { .. }) && self.has(Fault::MateStopBestmove) {
            self.abort_search();
            self.out.line("bestmove resign");
            self.answer_held_readyoks();
            return true;
        }
        false
    }

    /// Whether the `bestmove` is sent twice (faults `double-bestmove`, and
    /// `occasional-double-bestmove` one time in five).
    pub(super) fn bestmove_twice(&mut self) -> bool {
        self.has(Fault::DoubleBestmove)
            || (self.has(Fault::OccasionalDoubleBestmove) && self.next_random().is_multiple_of(5))
    }

    /// Fault `self-ponder`: search output after a `bestmove`, with no search asked for.
    pub(super) fn self_ponder(&self) {
        if self.has(Fault::SelfPonder) {
            let (out, clock) = (self.out.clone(), self.clock.clone());
            // Well-formed search lines: their only fault is that no search was asked for.
            drop(self.clock.spawn(move || {
                for i in 1..=10 {
                    clock.sleep(Duration::from_millis(100));
                    out.line(&format!(
                        "info depth {i} seldepth {i} time {} nodes {} score cp 0",
                        i * 100,
                        i * 1000
                    ));
                }
            }));
        }
    }

    /// Starts the timer of `ponder-leaks-bestmove` (a `go ponder`) or of
    /// `occasional-late-byoyomi` (one `go` with `byoyomi` in five), holding the answer for the
    /// latter.
    pub(super) fn set_fault_timer(&mut self, running: &mut Running, go: &Go) {
        let after = if running.mode == Mode::Ponder && self.has(Fault::PonderLeaksBestmove) {
            PONDER_LEAK
        } else if running.mode == Mode::Timed
            && self.has(Fault::OccasionalLateByoyomi)
            && go.clock.byoyomi.is_some_and(|b| b > 0)
            && self.next_random().is_multiple_of(5)
        {
            running.held = true;
            let own = match running.root.side_to_move() {
                Color::Black => go.clock.btime,
                Color::White => go.clock.wtime,
            };
            let clock = own.unwrap_or(0) + go.clock.byoyomi.unwrap_or(0);
            Duration::from_millis(clock.max(0) as u64) + LATE_BYOYOMI
        } else {
            return;
        };
        let (tx, id, clock) = (self.tx.clone(), running.id, self.clock.clone());
        drop(self.clock.spawn(move || {
            clock.sleep(after);
            tx.send(Event::AnswerNow { id });
        }));
    }

    /// A fault's timer ran out: a held answer, or a ponder search still pondering, is sent now.
    pub(super) fn answer_now(&mut self, id: u64) {
        let Some(running) = self.running.as_mut().filter(|r| r.id == id) else {
            return;
        };
        let leaks = running.mode == Mode::Ponder && running.restart.is_none();
        if !(running.held || leaks) || running.stop_requested {
            return;
        }
        running.held = false;
        running.control.stop();
        running.collect();
        self.deliver_finished();
    }
}

/// Whether a `go` line has a number keyword followed by something that is not a number.
fn has_malformed_number(line: &str) -> bool {
    const NUMERIC: [&str; 12] = [
        "btime",
        "wtime",
        "byoyomi",
        "binc",
        "winc",
        "movestogo",
        "depth",
        "nodes",
        "movetime",
        "bbyoyomi",
        "wbyoyomi",
        "mate",
    ];
    let tokens: Vec<&str> = line.split_whitespace().collect();
    tokens.first() == Some(&"go")
        && tokens.windows(2).any(|w| {
            NUMERIC.contains(&w[0])
                && w[1] != "infinite"
                && !NUMERIC.contains(&w[1])
                && w[1].parse::<i64>().is_err()
        })
}

/// The board the `hang-on-position` fault never finishes searching: Black's king on 5i in check
/// from White's rook on 5e, two golds in hand (`15-ext/no-pass-in-check`), any move count.
const HANG_SFEN: &str = "4k4/9/9/9/4r4/9/9/9/4K4 b 2Gr2b2g4s4n4l18p 1";

fn hangs_on(pos: &Position) -> bool {
    Position::from_sfen(HANG_SFEN).is_ok_and(|hang| hang.key() == pos.key())
}

/// Never returns and never reads input again (faults that hang).
pub(super) fn hang(clock: &sim::Clock) -> ! {
    clock.park_forever()
}
