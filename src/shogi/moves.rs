//! USI move notation: `7g7f`, `8h2b+`, `P*3d`.
//!
//! Parsing here is purely syntactic: any pair of squares is a well-formed move. Whether the move
//! is legal in a position is a separate question, so the checker can tell "well-formed but
//! illegal" apart from "not a move at all".

use super::{PieceKind, Square};
use std::fmt;
use std::str::FromStr;

/// A move as written in USI: a board move (with optional promotion) or a drop from hand.
///
/// ```
/// use usicheck::shogi::{Move, PieceKind, Square};
/// let m: Move = "8h2b+".parse().unwrap();
/// assert_eq!(m, Move::Normal { from: "8h".parse().unwrap(), to: "2b".parse().unwrap(), promote: true });
/// assert_eq!(m.to_string(), "8h2b+");
/// let d: Move = "P*3d".parse().unwrap();
/// assert_eq!(d, Move::Drop { kind: PieceKind::Pawn, to: Square::new(3, 4).unwrap() });
/// assert!("B@5e".parse::<Move>().is_err());
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    Normal {
        from: Square,
        to: Square,
        promote: bool,
    },
    /// `kind` is always an unpromoted hand kind (never the king).
    Drop { kind: PieceKind, to: Square },
}

impl Move {
    /// The destination square.
    #[inline]
    pub const fn to(self) -> Square {
        match self {
            Move::Normal { to, .. } | Move::Drop { to, .. } => to,
        }
    }

    /// The origin square, `None` for drops.
    #[inline]
    pub const fn from(self) -> Option<Square> {
        match self {
            Move::Normal { from, .. } => Some(from),
            Move::Drop { .. } => None,
        }
    }

    #[inline]
    pub const fn is_drop(self) -> bool {
        matches!(self, Move::Drop { .. })
    }

    #[inline]
    pub const fn is_promotion(self) -> bool {
        matches!(self, Move::Normal { promote: true, .. })
    }
}

/// Why a token is not a USI move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    #[error("empty move")]
    Empty,
    #[error("drop written with '@' instead of '*' (USI writes drops as P*5e)")]
    AtSignDrop,
    #[error("'{0}' cannot be dropped (drops take P, L, N, S, G, B or R)")]
    BadDropPiece(char),
    #[error("bad square '{0}': expected file 1-9 and rank a-i")]
    BadSquare(String),
    #[error("move from a square to itself")]
    NullMove,
    #[error("not a USI move: expected 7g7f, 8h2b+ or P*3d")]
    Malformed,
}

impl FromStr for Move {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        let b = s.as_bytes();
        if b.is_empty() {
            return Err(ParseMoveError::Empty);
        }
        if b.len() == 4 && (b[1] == b'*' || b[1] == b'@') {
            if b[1] == b'@' {
                return Err(ParseMoveError::AtSignDrop);
            }
            let letter = b[0] as char;
            let kind = PieceKind::from_usi_letter(letter)
                .filter(|k| k.is_hand_kind())
                .ok_or(ParseMoveError::BadDropPiece(letter))?;
            let to = parse_square(&s[2..])?;
            return Ok(Move::Drop { kind, to });
        }
        let promote = match b.len() {
            4 => false,
            5 if b[4] == b'+' => true,
            _ => return Err(ParseMoveError::Malformed),
        };
        if !s.is_char_boundary(2) {
            return Err(ParseMoveError::Malformed);
        }
        let from = parse_square(&s[..2])?;
        let to = parse_square(&s[2..4])?;
        if from == to {
            return Err(ParseMoveError::NullMove);
        }
        Ok(Move::Normal { from, to, promote })
    }
}

fn parse_square(s: &str) -> Result<Square, ParseMoveError> {
    s.parse()
        .map_err(|_| ParseMoveError::BadSquare(s.to_string()))
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Move::Normal { from, to, promote } => {
                write!(f, "{from}{to}")?;
                if promote {
                    f.write_str("+")?;
                }
                Ok(())
            }
            Move::Drop { kind, to } => write!(f, "{}*{to}", kind.usi_letter()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_moves() {
        for bad in [
            "", "7g7", "7g7f++", "0a1b", "7j7f", "K*5e", "+*5e", "7g7g", "p*5e", "7g7f=", "é1a",
        ] {
            assert!(bad.parse::<Move>().is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn round_trips_every_square_pair_and_drop() {
        for from in Square::all() {
            for to in Square::all().filter(|&t| t != from) {
                for promote in [false, true] {
                    let m = Move::Normal { from, to, promote };
                    assert_eq!(m.to_string().parse::<Move>(), Ok(m));
                }
            }
        }
        for kind in PieceKind::HAND_ORDER {
            for to in Square::all() {
                let m = Move::Drop { kind, to };
                assert_eq!(m.to_string().parse::<Move>(), Ok(m));
            }
        }
    }
}
