//! The USI protocol model: GUI → engine [`Command`]s and engine → GUI messages, each with a
//! lenient parser and a canonical `Display`, plus the [`Diagnostic`]s the parser finds.

mod command;
mod diagnostic;
mod go;
mod lex;
mod position;
pub mod rule;

pub use command::{Command, GameResult, Register};
pub use diagnostic::Diagnostic;
pub use go::{Clock, Go, MateLimit};
pub use lex::strip_line_ending;
pub use position::{PositionCommand, StartPosition};

#[cfg(test)]
mod tests;
