//! The USI protocol model: GUI → engine [`Command`]s and engine → GUI [`Message`]s, each with a
//! lenient parser and a canonical `Display`, plus the [`Diagnostic`]s the message parser finds.

mod bestmove;
mod checkmate;
mod command;
mod diagnostic;
mod go;
mod info;
mod lex;
mod message;
mod move_token;
mod option;
mod position;
pub mod rule;

pub use bestmove::BestMove;
pub use checkmate::Checkmate;
pub use command::{Command, GameResult, Register};
pub use diagnostic::Diagnostic;
pub use go::{Clock, Go, MateLimit};
pub use info::{Bound, CurrLine, Info, MATE_LIKE_CP, Score, ScoreValue};
pub use lex::strip_line_ending;
pub use message::{Message, Status};
pub use move_token::{MoveToken, SpecialMove};
pub use option::{OptionDecl, OptionKind, is_settable_option_name};
pub use position::{PositionCommand, StartPosition};

#[cfg(test)]
mod tests;
