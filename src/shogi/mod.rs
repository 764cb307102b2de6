//! The reference shogi rules: the oracle every verdict rests on.

pub mod attacks;
mod bitboard;
mod color;
mod hand;
mod movegen;
mod moves;
mod perft;
mod piece;
mod position;
mod sfen;
mod square;
mod zobrist;

pub use bitboard::Bitboard;
pub use color::Color;
pub use hand::Hand;
pub use movegen::{MAX_MOVES, MoveList, promotion_zone};
pub use moves::{Move, ParseMoveError};
pub use perft::{divide, perft, perft_full};
pub use piece::{Piece, PieceKind};
pub use position::{IllegalMoveError, Position};
pub use sfen::{SfenError, SfenErrorKind};
pub use square::{ParseSquareError, Square};
