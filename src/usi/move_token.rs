//! A move slot in engine output: a USI move, a special word, or something malformed.

use crate::shogi::Move;
use std::fmt;

/// The non-move words engines write where a move may stand: `resign` and `win` (valid in
/// `bestmove`), and the USI 2.0 endings of a `pv` (USI-EXT-007).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SpecialMove {
    Resign,
    Win,
    RepDraw,
    RepWin,
    RepLose,
    RepSup,
    RepInf,
}

impl SpecialMove {
    pub const ALL: [SpecialMove; 7] = [
        SpecialMove::Resign,
        SpecialMove::Win,
        SpecialMove::RepDraw,
        SpecialMove::RepWin,
        SpecialMove::RepLose,
        SpecialMove::RepSup,
        SpecialMove::RepInf,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            SpecialMove::Resign => "resign",
            SpecialMove::Win => "win",
            SpecialMove::RepDraw => "rep_draw",
            SpecialMove::RepWin => "rep_win",
            SpecialMove::RepLose => "rep_lose",
            SpecialMove::RepSup => "rep_sup",
            SpecialMove::RepInf => "rep_inf",
        }
    }

    fn from_word(word: &str) -> Option<SpecialMove> {
        SpecialMove::ALL.into_iter().find(|s| s.as_str() == word)
    }
}

/// One move token as the engine wrote it. Malformed tokens are kept so the checker can quote
/// them; the parser never rejects a line because of one.
///
/// ```
/// use usicheck::usi::{MoveToken, SpecialMove};
/// assert!(matches!(MoveToken::parse("7g7f"), MoveToken::Move(_)));
/// assert_eq!(MoveToken::parse("rep_draw"), MoveToken::Special(SpecialMove::RepDraw));
/// assert_eq!(MoveToken::parse("B@5e"), MoveToken::Invalid("B@5e".into()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MoveToken {
    Move(Move),
    Special(SpecialMove),
    Invalid(String),
}

impl MoveToken {
    pub fn parse(token: &str) -> MoveToken {
        match token.parse::<Move>() {
            Ok(mv) => MoveToken::Move(mv),
            Err(_) => match SpecialMove::from_word(token) {
                Some(special) => MoveToken::Special(special),
                None => MoveToken::Invalid(token.to_string()),
            },
        }
    }

    pub fn as_move(&self) -> Option<Move> {
        match self {
            MoveToken::Move(mv) => Some(*mv),
            _ => None,
        }
    }

    /// Why an invalid token is not a move, for diagnostics.
    pub(crate) fn invalid_reason(token: &str) -> String {
        match token.parse::<Move>() {
            Err(err) => format!("`{token}` is not a USI move: {err}"),
            Ok(_) => format!("`{token}` is not allowed here"),
        }
    }
}

impl From<Move> for MoveToken {
    fn from(mv: Move) -> MoveToken {
        MoveToken::Move(mv)
    }
}

impl fmt::Display for MoveToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveToken::Move(mv) => write!(f, "{mv}"),
            MoveToken::Special(special) => f.write_str(special.as_str()),
            MoveToken::Invalid(token) => f.write_str(token),
        }
    }
}
