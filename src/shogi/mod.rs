//! The reference shogi rules: the oracle every verdict rests on.
//!
//! ```
//! use usicheck::shogi::{perft, position_after, validate, Strictness};
//! let pos = position_after("startpos", &["7g7f", "3c3d"]).unwrap();
//! assert_eq!(validate(&pos, Strictness::Strict), Ok(()));
//! assert!(pos.is_legal("8h2b+".parse().unwrap()));
//! assert_eq!(perft(&pos, 1), pos.legal_moves().len() as u64);
//! ```

pub mod attacks;
mod bitboard;
mod color;
mod declaration;
mod game;
mod hand;
pub mod mate;
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
pub use declaration::{Declaration, REQUIRED_PIECES_IN_CAMP, declaration, missing_points};
pub use game::{Game, Repetition, repetition_of};
pub use hand::Hand;
pub use movegen::{MAX_MOVES, MoveList, promotion_zone};
pub use moves::{Move, ParseMoveError};
pub use perft::{divide, perft, perft_full};
pub use piece::{Piece, PieceKind};
pub use position::{IllegalMoveError, Position, Undo};
pub use setup::{SetupError, position_after};
pub use sfen::{SfenError, SfenErrorKind};
pub use square::{ParseSquareError, Square};
pub use validate::{InvalidReason, Strictness, validate};
