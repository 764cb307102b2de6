//! The reference shogi rules: the oracle every verdict rests on.

pub mod attacks;
mod bitboard;
mod color;
mod declaration;
mod game;
mod hand;
mod movegen;
mod moves;
mod perft;
mod piece;
mod position;
mod setup;
mod sfen;
mod square;
mod validate;
mod zobrist;

pub use bitboard::Bitboard;
pub use color::Color;
pub use declaration::{Declaration, REQUIRED_PIECES_IN_CAMP, declaration};
pub use game::{Game, Repetition};
pub use hand::Hand;
pub use movegen::{MAX_MOVES, MoveList, promotion_zone};
pub use moves::{Move, ParseMoveError};
pub use perft::{divide, perft, perft_full};
pub use piece::{Piece, PieceKind};
pub use position::{IllegalMoveError, Position};
pub use setup::{SetupError, position_after};
pub use sfen::{SfenError, SfenErrorKind};
pub use square::{ParseSquareError, Square};
pub use validate::{InvalidReason, Strictness, validate};
