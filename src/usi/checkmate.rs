//! `checkmate <moves…>|nomate|timeout|notimplemented`, the end of a `go mate` search.

use super::lex::Tokens;
use super::move_token::MoveToken;
use super::{Diagnostic, rule};
use std::fmt;

/// The reply to `go mate`.
///
/// ```
/// use usicheck::usi::{Checkmate, Message, rule};
/// let (msg, _) = Message::parse("checkmate G*5b");
/// assert!(matches!(msg, Message::Checkmate(Checkmate::Mate(ref m)) if m.len() == 1));
/// let (msg, diags) = Message::parse("checkmate");
/// assert_eq!(msg, Message::Checkmate(Checkmate::Mate(vec![])));
/// assert_eq!(diags[0].rule, rule::MATE_010);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Checkmate {
    /// The mating sequence (empty for a bare `checkmate`, which is itself a violation).
    Mate(Vec<MoveToken>),
    NoMate,
    Timeout,
    NotImplemented,
}

impl Checkmate {
    pub(crate) fn parse_args(mut tokens: Tokens<'_>, diags: &mut Vec<Diagnostic>) -> Checkmate {
        let outcome = match tokens.peek() {
            None => {
                diags.push(Diagnostic::new(
                    rule::MATE_010,
                    "bare `checkmate` without moves or result word",
                ));
                return Checkmate::Mate(Vec::new());
            }
            Some("nomate") => Checkmate::NoMate,
            Some("timeout") => Checkmate::Timeout,
            Some("notimplemented") => Checkmate::NotImplemented,
            Some(_) => return Checkmate::Mate(parse_sequence(tokens, diags)),
        };
        tokens.next();
        if let Some(extra) = tokens.next() {
            diags.push(Diagnostic::new(
                rule::MATE_010,
                format!("unexpected `{extra}` after the result word"),
            ));
        }
        outcome
    }
}

fn parse_sequence(tokens: Tokens<'_>, diags: &mut Vec<Diagnostic>) -> Vec<MoveToken> {
    let moves: Vec<MoveToken> = tokens.map(MoveToken::parse).collect();
    if let [MoveToken::Invalid(word)] = moves.as_slice()
        && word == "none"
    {
        diags.push(Diagnostic::new(
            rule::MATE_010,
            "`checkmate none` is not one of the four forms",
        ));
        diags.push(Diagnostic::new(
            rule::EXT_017,
            "YaneuraOu mate-engine `checkmate none`",
        ));
        return moves;
    }
    if let Some(bad) = moves.iter().find(|m| m.as_move().is_none()) {
        let rule = if matches!(bad, MoveToken::Special(_)) {
            rule::MATE_010
        } else {
            rule::POSITION_006
        };
        diags.push(Diagnostic::new(
            rule,
            MoveToken::invalid_reason(&bad.to_string()),
        ));
    }
    moves
}

impl fmt::Display for Checkmate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Checkmate::Mate(moves) => {
                f.write_str("checkmate")?;
                for mv in moves {
                    write!(f, " {mv}")?;
                }
                Ok(())
            }
            Checkmate::NoMate => f.write_str("checkmate nomate"),
            Checkmate::Timeout => f.write_str("checkmate timeout"),
            Checkmate::NotImplemented => f.write_str("checkmate notimplemented"),
        }
    }
}
