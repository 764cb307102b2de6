//! The reference shogi rules: the oracle every verdict rests on.

mod color;
mod moves;
mod piece;
mod square;

pub use color::Color;
pub use moves::{Move, ParseMoveError};
pub use piece::{Piece, PieceKind};
pub use square::{ParseSquareError, Square};
