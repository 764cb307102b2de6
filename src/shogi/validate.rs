//! Whether a position could arise in a real game, with every reason it could not.

use super::{Bitboard, Color, Piece, PieceKind, Position, Square, movegen::is_dead_square};
use std::fmt;

/// How strictly to validate.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Strictness {
    /// Every rule of a real game.
    #[default]
    Strict,
    /// Tsume (mating problem) positions: the side to move (the attacker) may have no king.
    Lenient,
    /// Accept anything the parser accepts, e.g. perft stress positions with impossible material.
    Unchecked,
}

/// One reason a position is not legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvalidReason {
    /// A side has no king (allowed for the side to move under [`Strictness::Lenient`]).
    MissingKing(Color),
    /// A side has more than one king.
    TooManyKings { color: Color, count: u32 },
    /// The side that just moved is in check: its opponent could capture the king.
    OpponentInCheck(Color),
    /// Two unpromoted pawns of one side on a file.
    Nifu { color: Color, file: u8 },
    /// A pawn or lance on the last rank or a knight on the last two: it could never move.
    DeadPiece { square: Square, piece: Piece },
    /// More pieces of a kind (board, promoted or not, plus both hands) than the standard set has.
    TooManyPieces {
        kind: PieceKind,
        count: u32,
        max: u32,
    },
}

impl fmt::Display for InvalidReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            InvalidReason::MissingKing(c) => write!(f, "{c} has no king"),
            InvalidReason::TooManyKings { color, count } => write!(f, "{color} has {count} kings"),
            InvalidReason::OpponentInCheck(c) => {
                write!(
                    f,
                    "{c} is in check but it is {}'s turn (the king could be captured)",
                    !c
                )
            }
            InvalidReason::Nifu { color, file } => {
                write!(f, "{color} has two unpromoted pawns on file {file} (nifu)")
            }
            InvalidReason::DeadPiece { square, piece } => {
                write!(f, "{piece} on {square} can never move (dead piece)")
            }
            InvalidReason::TooManyPieces { kind, count, max } => {
                write!(
                    f,
                    "{count} pieces of kind {} in total, at most {max} exist",
                    kind.usi_letter()
                )
            }
        }
    }
}

/// Pieces per base kind in the standard set (both sides together); kings are counted per side.
const MAX_PIECES: [(PieceKind, u32); 7] = [
    (PieceKind::Pawn, 18),
    (PieceKind::Lance, 4),
    (PieceKind::Knight, 4),
    (PieceKind::Silver, 4),
    (PieceKind::Gold, 4),
    (PieceKind::Bishop, 2),
    (PieceKind::Rook, 2),
];

/// Checks `pos` and returns every reason it is illegal (none for [`Strictness::Unchecked`]).
///
/// ```
/// use usicheck::shogi::{validate, InvalidReason, Position, Strictness, Color};
/// assert_eq!(validate(&Position::startpos(), Strictness::Strict), Ok(()));
/// let tsume = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").unwrap();
/// assert_eq!(validate(&tsume, Strictness::Strict), Err(vec![InvalidReason::MissingKing(Color::Black)]));
/// assert_eq!(validate(&tsume, Strictness::Lenient), Ok(()));
/// ```
pub fn validate(pos: &Position, strictness: Strictness) -> Result<(), Vec<InvalidReason>> {
    if strictness == Strictness::Unchecked {
        return Ok(());
    }
    let mut reasons = Vec::new();
    for color in Color::ALL {
        let kings = pos.pieces_of(color, PieceKind::King).count();
        let may_lack_king = strictness == Strictness::Lenient && color == pos.side_to_move();
        if kings == 0 && !may_lack_king {
            reasons.push(InvalidReason::MissingKing(color));
        } else if kings > 1 {
            reasons.push(InvalidReason::TooManyKings {
                color,
                count: kings,
            });
        }
    }
    let waiting = !pos.side_to_move();
    if pos.king_attacked(waiting) {
        reasons.push(InvalidReason::OpponentInCheck(waiting));
    }
    for color in Color::ALL {
        let pawns = pos.pieces_of(color, PieceKind::Pawn);
        for file in 1..=9 {
            if (pawns & Bitboard::file(file)).has_more_than_one() {
                reasons.push(InvalidReason::Nifu { color, file });
            }
        }
    }
    for square in pos.occupied() {
        if let Some(piece) = pos.piece_at(square)
            && is_dead_square(piece.color, piece.kind, square)
        {
            reasons.push(InvalidReason::DeadPiece { square, piece });
        }
    }
    for (kind, max) in MAX_PIECES {
        let on_board: u32 = PieceKind::ALL
            .into_iter()
            .filter(|k| k.unpromoted() == kind)
            .map(|k| pos.pieces_of_kind(k).count())
            .sum();
        let count = on_board
            + Color::ALL
                .into_iter()
                .map(|c| pos.hand(c).count(kind) as u32)
                .sum::<u32>();
        if count > max {
            reasons.push(InvalidReason::TooManyPieces { kind, count, max });
        }
    }
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(reasons)
    }
}
