//! Values captured from the session for `${…}` substitution.

use crate::observer::append_moves;
use crate::scenario::Capture;

/// The last `bestmove` and `checkmate` seen, the last `position` line sent, and the option of
/// the running `for_each_option` round.
#[derive(Clone, Debug, Default)]
pub struct Captures {
    pub bestmove: Option<String>,
    pub ponder: Option<String>,
    pub checkmate: Option<String>,
    pub position: Option<String>,
    pub option_name: Option<String>,
}

impl Captures {
    /// The value of one capture, `None` when the session has not produced it.
    ///
    /// ```
    /// use usicheck::scenario::Capture;
    /// use usicheck::scenario::runner::Captures;
    /// let c = Captures { bestmove: Some("7g7f".into()), ponder: Some("3c3d".into()),
    ///     checkmate: None, position: Some("position startpos".into()), option_name: None };
    /// assert_eq!(c.value(Capture::PositionWithPonder).unwrap(), "position startpos moves 7g7f 3c3d");
    /// assert_eq!(c.value(Capture::CheckmateMoves), None);
    /// ```
    pub fn value(&self, capture: Capture) -> Option<String> {
        match capture {
            Capture::BestmoveMove => self.bestmove.clone(),
            Capture::BestmovePonder => self.ponder.clone(),
            Capture::CheckmateMoves => self.checkmate.clone(),
            Capture::Position => self.position.clone(),
            Capture::OptionName => self.option_name.clone(),
            Capture::PositionWithBestmove => Some(append_moves(
                self.position.as_ref()?,
                &[self.bestmove.as_ref()?],
            )),
            Capture::PositionWithPonder => Some(append_moves(
                self.position.as_ref()?,
                &[self.bestmove.as_ref()?, self.ponder.as_ref()?],
            )),
        }
    }

    /// Why a capture has no value, for the SKIP reason.
    pub fn missing_reason(capture: Capture) -> String {
        match capture {
            Capture::BestmovePonder | Capture::PositionWithPonder => {
                "the engine's bestmove had no ponder move".to_owned()
            }
            other => format!("`${{{}}}` has no value yet", other.name()),
        }
    }
}
