//! Applying the parts of a USI `position` command: a base plus a list of moves.

use super::{Move, ParseMoveError, Position, SfenError};

/// Why a `position` command's base or moves cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Sfen(#[from] SfenError),
    /// Move `index` (0-based) is not USI move notation.
    #[error("move {} ({text:?}) is not a USI move: {error}", index + 1)]
    BadMove {
        index: usize,
        text: String,
        error: ParseMoveError,
    },
    /// Move `index` (0-based) is well-formed but illegal in `sfen`.
    #[error("move {} ({text}) is illegal in {sfen}", index + 1)]
    IllegalMove {
        index: usize,
        text: String,
        sfen: String,
    },
}

/// The position reached from `base` (`startpos`, `sfen ...` or bare SFEN fields) after `moves`.
///
/// ```
/// use usicheck::shogi::{position_after, SetupError};
/// let pos = position_after("startpos", &["7g7f", "3c3d", "8h2b"]).unwrap();
/// assert_eq!(pos.to_sfen(), "lnsgkgsnl/1r5B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL w B 4");
/// let err = position_after("startpos", &["7g7f", "7g7f"]).unwrap_err();
/// assert!(matches!(err, SetupError::IllegalMove { index: 1, .. }));
/// ```
pub fn position_after<S: AsRef<str>>(base: &str, moves: &[S]) -> Result<Position, SetupError> {
    let mut pos = Position::from_sfen(base)?;
    for (index, text) in moves.iter().enumerate() {
        let mv = parse_move(index, text.as_ref())?;
        if !pos.is_legal(mv) {
            return Err(SetupError::IllegalMove {
                index,
                text: text.as_ref().to_string(),
                sfen: pos.to_sfen(),
            });
        }
        pos.play_unchecked(mv);
    }
    Ok(pos)
}

pub(crate) fn parse_move(index: usize, text: &str) -> Result<Move, SetupError> {
    text.parse().map_err(|error| SetupError::BadMove {
        index,
        text: text.to_string(),
        error,
    })
}
