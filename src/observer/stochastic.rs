//! `Stochastic_Ponder` (YaneuraOu, USI-EXT-016): with the option on, an engine ponders on the
//! position before the predicted move (the opponent to move) and searches the real one from
//! `ponderhit`. The protocol traffic is unchanged; only the `info` lines of the ponder search
//! are of a position one ply earlier than the one it was given, which GUIs show as they come.
//! Those lines are judged in that position, with a note, instead of being charged as illegal.

use super::board::resolve;
use super::line_check::illegal_in_sequence;
use crate::shogi::Position;
use crate::usi::{Command, Info, MoveToken, PositionCommand};

/// What the observer follows of `Stochastic_Ponder`: whether it was set, and the position a
/// ponder search may be reporting on.
#[derive(Clone, Debug, Default)]
pub struct StochasticPonder {
    /// `setoption name Stochastic_Ponder value true` was sent, and not undone since.
    on: bool,
    /// The position before the last move of the last `position` line.
    before_last: Option<Position>,
    /// Until the reply of a `go ponder` sent with the option on: that position.
    pondered: Option<Position>,
}

impl StochasticPonder {
    /// Follows a command sent to the engine.
    pub fn on_send(&mut self, command: &Command) {
        match command {
            Command::SetOption { name, value }
                if name.eq_ignore_ascii_case("Stochastic_Ponder") =>
            {
                self.on = value
                    .as_deref()
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
            }
            Command::Position(position) => self.before_last = before_last_move(position),
            Command::Go(go) => {
                self.pondered = self.before_last.clone().filter(|_| self.on && go.ponder);
            }
            _ => {}
        }
    }

    /// The search answered: its lines are over.
    pub fn on_reply(&mut self) {
        self.pondered = None;
    }

    /// The position `info` is of, when it is not `given` (the position of the search) but the
    /// one before the predicted move of a `Stochastic_Ponder` search: its `pv` and `currmove`
    /// are illegal in `given` and legal there.
    ///
    /// ```
    /// use usicheck::observer::StochasticPonder;
    /// use usicheck::usi::{Command, Message};
    /// let mut stochastic = StochasticPonder::default();
    /// for line in ["setoption name Stochastic_Ponder value true", "position startpos moves 7g7f 3c3d", "go ponder btime 0 wtime 0 byoyomi 1000"] {
    ///     stochastic.on_send(&Command::parse(line));
    /// }
    /// let given = usicheck::shogi::position_after("startpos", &["7g7f", "3c3d"]).unwrap();
    /// let info = |line| match Message::parse(line).0 { Message::Info(info) => info, _ => unreachable!() };
    /// assert!(stochastic.earlier_position(&info("info depth 1 time 1 pv 3c3d 2g2f"), &given).is_some());
    /// assert!(stochastic.earlier_position(&info("info depth 1 time 1 pv 2g2f 8c8d"), &given).is_none());
    /// ```
    pub fn earlier_position(&self, info: &Info, given: &Position) -> Option<&Position> {
        let before = self.pondered.as_ref()?;
        let currmove = info.currmove.as_slice();
        let fits = |position: &Position| {
            info.pv
                .as_deref()
                .is_none_or(|pv| illegal_in_sequence(position, pv).is_none())
                && currmove.iter().all(|token| match token {
                    MoveToken::Move(mv) => position.is_legal(*mv),
                    _ => true,
                })
        };
        let moves = info.pv.is_some() || !currmove.is_empty();
        (moves && !fits(given) && fits(before)).then_some(before)
    }
}

/// The position before the last move of `position`; `None` without moves, or when the line
/// is not a legal position.
fn before_last_move(position: &PositionCommand) -> Option<Position> {
    let mut earlier = position.clone();
    earlier.moves.as_mut()?.pop()?;
    resolve(&earlier)
}
