//! `bestmove <move>|resign|win [ponder <move>]`.

use super::lex::Tokens;
use super::move_token::{MoveToken, SpecialMove};
use super::{Diagnostic, rule};
use crate::shogi::Move;
use std::fmt;

/// The end of a normal search.
///
/// ```
/// use usicheck::usi::{Message, MoveToken, SpecialMove, rule};
/// let (msg, diags) = Message::parse("bestmove resign ponder 3c3d");
/// let Message::BestMove(bm) = msg else { panic!() };
/// assert_eq!(bm.best, MoveToken::Special(SpecialMove::Resign));
/// assert_eq!(diags[0].rule, rule::BESTMOVE_005);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BestMove {
    pub best: MoveToken,
    pub ponder: Option<MoveToken>,
}

impl BestMove {
    /// `bestmove <best> [ponder <ponder>]`.
    ///
    /// ```
    /// use usicheck::usi::BestMove;
    /// let m = "7g7f".parse().unwrap();
    /// assert_eq!(BestMove::new(m, None).to_string(), "bestmove 7g7f");
    /// assert_eq!(BestMove::resign().to_string(), "bestmove resign");
    /// ```
    pub fn new(best: Move, ponder: Option<Move>) -> BestMove {
        BestMove {
            best: best.into(),
            ponder: ponder.map(MoveToken::from),
        }
    }

    pub fn resign() -> BestMove {
        BestMove {
            best: MoveToken::Special(SpecialMove::Resign),
            ponder: None,
        }
    }

    /// The entering-king declaration (USI-BESTMOVE-004).
    pub fn win() -> BestMove {
        BestMove {
            best: MoveToken::Special(SpecialMove::Win),
            ponder: None,
        }
    }

    /// Parses the tokens after `bestmove`; `None` when no move follows.
    pub(crate) fn parse_args(
        mut tokens: Tokens<'_>,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<BestMove> {
        let Some(best_token) = tokens.next() else {
            diags.push(Diagnostic::new(
                rule::BESTMOVE_001,
                "`bestmove` without a move",
            ));
            return None;
        };
        let best = MoveToken::parse(best_token);
        match &best {
            MoveToken::Move(_) | MoveToken::Special(SpecialMove::Resign | SpecialMove::Win) => {}
            MoveToken::Special(special) => diags.push(Diagnostic::new(
                rule::EXT_007,
                format!(
                    "`{}` may end a pv but is not a valid bestmove",
                    special.as_str()
                ),
            )),
            MoveToken::Invalid(token) => diags.push(Diagnostic::new(
                rule::BESTMOVE_007,
                MoveToken::invalid_reason(token),
            )),
        }
        let mut ponder = None;
        match tokens.next() {
            None => {}
            Some("ponder") => match tokens.next() {
                None => diags.push(Diagnostic::new(
                    rule::BESTMOVE_001,
                    "`ponder` without a move",
                )),
                Some(token) => {
                    let mv = MoveToken::parse(token);
                    if mv.as_move().is_none() {
                        diags.push(Diagnostic::new(
                            rule::PONDER_001,
                            MoveToken::invalid_reason(token),
                        ));
                    }
                    if matches!(best, MoveToken::Special(_)) {
                        diags.push(Diagnostic::new(
                            rule::BESTMOVE_005,
                            format!("`ponder` after `{best}`"),
                        ));
                    }
                    ponder = Some(mv);
                }
            },
            Some(other) => diags.push(Diagnostic::new(
                rule::BESTMOVE_001,
                format!("unexpected `{other}` after the move"),
            )),
        }
        if let Some(extra) = tokens.next() {
            diags.push(Diagnostic::new(
                rule::BESTMOVE_001,
                format!("unexpected `{extra}` at the end of `bestmove`"),
            ));
        }
        Some(BestMove { best, ponder })
    }
}

impl fmt::Display for BestMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bestmove {}", self.best)?;
        if let Some(ponder) = &self.ponder {
            write!(f, " ponder {ponder}")?;
        }
        Ok(())
    }
}
