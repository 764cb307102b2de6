//! The `position` command.

use super::lex::Tokens;
use crate::shogi::Move;
use std::fmt;

/// Where a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StartPosition {
    Startpos,
    /// The SFEN fields (board, side, hand and the optional move count) as written, joined by
    /// single spaces. Kept as text: turning it into a position is the checker's job.
    Sfen(String),
}

/// `position startpos|sfen <sfen> [moves <m>…]`.
///
/// `moves` is `None` when the keyword is absent and `Some(vec![])` for a present-but-empty list
/// (USI-POSITION-003), so both spellings can be sent exactly.
///
/// ```
/// use usicheck::usi::{Command, PositionCommand, StartPosition};
/// let cmd = Command::parse("position  startpos moves 7g7f 3c3d\r");
/// let Command::Position(pos) = &cmd else { panic!() };
/// assert_eq!(pos.start, StartPosition::Startpos);
/// assert_eq!(pos.moves.as_ref().unwrap().len(), 2);
/// assert_eq!(cmd.to_string(), "position startpos moves 7g7f 3c3d");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PositionCommand {
    pub start: StartPosition,
    pub moves: Option<Vec<Move>>,
    /// The remainder of the line from the first token after `moves` that is not a USI move, or
    /// from the first token after `startpos` that is not `moves`. A lenient engine applies the
    /// moves before it. (After `sfen`, every token up to `moves` belongs to the SFEN text.)
    pub unparsed: Option<String>,
}

impl PositionCommand {
    /// `position startpos moves …` (no `moves` keyword when `moves` is empty).
    pub fn startpos(moves: Vec<Move>) -> PositionCommand {
        PositionCommand {
            start: StartPosition::Startpos,
            moves: (!moves.is_empty()).then_some(moves),
            unparsed: None,
        }
    }

    /// `position sfen <sfen> moves …` (no `moves` keyword when `moves` is empty).
    pub fn sfen(sfen: impl Into<String>, moves: Vec<Move>) -> PositionCommand {
        PositionCommand {
            start: StartPosition::Sfen(sfen.into()),
            moves: (!moves.is_empty()).then_some(moves),
            unparsed: None,
        }
    }

    /// Parses the tokens after `position`; `None` if neither `startpos` nor `sfen` follows.
    pub(crate) fn parse_args(mut tokens: Tokens<'_>) -> Option<PositionCommand> {
        let start = match tokens.next()? {
            "startpos" => StartPosition::Startpos,
            "sfen" => {
                let mut fields = String::new();
                while let Some(tok) = tokens.peek().filter(|&t| t != "moves") {
                    tokens.next();
                    if !fields.is_empty() {
                        fields.push(' ');
                    }
                    fields.push_str(tok);
                }
                StartPosition::Sfen(fields)
            }
            _ => return None,
        };
        let mut position = PositionCommand {
            start,
            moves: None,
            unparsed: None,
        };
        if tokens.peek() == Some("moves") {
            tokens.next();
            let mut moves = Vec::new();
            while let Some(tok) = tokens.peek() {
                match tok.parse::<Move>() {
                    Ok(mv) => moves.push(mv),
                    Err(_) => break,
                }
                tokens.next();
            }
            position.moves = Some(moves);
        }
        let rest = tokens.rest();
        if !rest.is_empty() {
            position.unparsed = Some(rest.to_string());
        }
        Some(position)
    }
}

impl fmt::Display for PositionCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.start {
            StartPosition::Startpos => f.write_str("position startpos")?,
            StartPosition::Sfen(sfen) if sfen.is_empty() => f.write_str("position sfen")?,
            StartPosition::Sfen(sfen) => write!(f, "position sfen {sfen}")?,
        }
        if let Some(moves) = &self.moves {
            f.write_str(" moves")?;
            for mv in moves {
                write!(f, " {mv}")?;
            }
        }
        if let Some(rest) = &self.unparsed {
            write!(f, " {rest}")?;
        }
        Ok(())
    }
}
