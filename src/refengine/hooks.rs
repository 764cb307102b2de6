//! The faults' hooks: where a [`Fault`] changes what the engine does, each behind a method or
//! function named for it, so the command loop and the search's life read as the protocol.

use super::{Engine, Event, Fault, Mode, Running};
use crate::shogi::{Color, Position};
use crate::sim;
use crate::usi::{Go, MateLimit};
use std::time::Duration;

/// How long `ponder-leaks-bestmove` ponders before it answers.
const PONDER_LEAK: Duration = Duration::from_millis(400);

/// How long past its clock `occasional-late-byoyomi` holds an answer.
const LATE_BYOYOMI: Duration = Duration::from_millis(800);

/// What the `leak-per-game` fault keeps at each `usinewgame`.
pub(super) const LEAK_PER_GAME: usize = 48 << 20;

impl Engine {
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

    pub(super) fn next_random(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
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
pub(super) fn has_malformed_number(line: &str) -> bool {
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

pub(super) fn hangs_on(pos: &Position) -> bool {
    Position::from_sfen(HANG_SFEN).is_ok_and(|hang| hang.key() == pos.key())
}

/// Never returns and never reads input again (faults that hang).
pub(super) fn hang(clock: &sim::Clock) -> ! {
    clock.park_forever()
}
