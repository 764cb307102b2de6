//! A game record: a base position plus moves, with repetition (sennichite) and perpetual-check
//! judgement (USI-RULES-003, USI-RULES-004).

use super::{Color, IllegalMoveError, Move, Position, SetupError, setup::parse_move};

/// How a repetition ends the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// The same position occurred a 4th time: a draw.
    Draw,
    /// The 4th occurrence came while `loser` gave check with every move since the first one.
    PerpetualCheck { loser: Color },
}

/// A base position and the moves played from it.
///
/// ```
/// use usicheck::shogi::{Game, Position, Repetition};
/// let mut game = Game::new(Position::startpos());
/// for _ in 0..3 {
///     for m in ["5i5h", "5a5b", "5h5i", "5b5a"] {
///         game.play(m.parse().unwrap()).unwrap();
///     }
/// }
/// assert_eq!(game.repetition_count(), 4);
/// assert_eq!(game.repetition(), Some(Repetition::Draw));
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    base: Position,
    current: Position,
    moves: Vec<Move>,
    /// (key, side to move in check) for the base and after each move.
    history: Vec<(u64, bool)>,
}

/// Occurrences of one position that end the game.
const REPETITIONS_TO_END: usize = 4;

impl Game {
    pub fn new(base: Position) -> Game {
        let history = vec![(base.key(), base.in_check())];
        Game {
            current: base.clone(),
            base,
            moves: Vec::new(),
            history,
        }
    }

    /// A game from a USI `position` command's base and moves; errors name the bad move.
    pub fn from_usi<S: AsRef<str>>(base: &str, moves: &[S]) -> Result<Game, SetupError> {
        let mut game = Game::new(Position::from_sfen(base)?);
        for (index, text) in moves.iter().enumerate() {
            let mv = parse_move(index, text.as_ref())?;
            game.play(mv).map_err(|e| SetupError::IllegalMove {
                index,
                text: text.as_ref().to_string(),
                sfen: e.sfen,
            })?;
        }
        Ok(game)
    }

    pub fn base(&self) -> &Position {
        &self.base
    }

    pub fn position(&self) -> &Position {
        &self.current
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plays a move if legal.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMoveError> {
        self.current.play(mv)?;
        self.moves.push(mv);
        self.history
            .push((self.current.key(), self.current.in_check()));
        Ok(())
    }

    /// How many times the current position (board, hands, side to move) has occurred.
    pub fn repetition_count(&self) -> usize {
        let key = self.current.key();
        self.history.iter().filter(|&&(k, _)| k == key).count()
    }

    /// Whether the current position ends the game by repetition, and how.
    pub fn repetition(&self) -> Option<Repetition> {
        repetition_of(&self.history, self.current.side_to_move())
    }
}

/// Whether the last of `history`'s positions, each given as (key, side to move in check) from
/// the oldest, ends the game by repetition, and how; `side_to_move` is the side to move in it.
pub fn repetition_of(history: &[(u64, bool)], side_to_move: Color) -> Option<Repetition> {
    let &(key, _) = history.last()?;
    let occurrences: Vec<usize> = history
        .iter()
        .enumerate()
        .filter(|&(_, &(k, _))| k == key)
        .map(|(i, _)| i)
        .collect();
    if occurrences.len() < REPETITIONS_TO_END {
        return None;
    }
    let first = occurrences[occurrences.len() - REPETITIONS_TO_END];
    let last = history.len() - 1;
    // history[i] arose from a move by the side not to move at i. The side to move at `first`
    // and at `last` is the same, so its moves created first+1, first+3, ...
    for (offset, checker) in [(1, side_to_move), (2, !side_to_move)] {
        if (first + offset..=last).step_by(2).all(|i| history[i].1) {
            return Some(Repetition::PerpetualCheck { loser: checker });
        }
    }
    Some(Repetition::Draw)
}
