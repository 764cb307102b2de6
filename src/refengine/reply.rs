//! The terminal replies, `bestmove` and `checkmate`, with the faults that bend them.

use super::faults::{Fault, FaultSet};
use super::info;
use super::search::{SearchResult, illegal_variant};
use crate::shogi::mate::MateResult;
use crate::shogi::{Move, Position, Square};

/// `bestmove resign` or `bestmove win`.
///
/// ```
/// use usicheck::refengine::{faults::FaultSet, reply};
/// assert_eq!(reply::special("win", &FaultSet::none()), "bestmove win");
/// ```
pub fn special(word: &str, faults: &FaultSet) -> String {
    if faults.has(Fault::PonderAfterResign) {
        format!("bestmove {word} ponder 5a4b")
    } else {
        format!("bestmove {word}")
    }
}

/// The `bestmove` line for a search of `root`; `resign` when it found no legal move. The
/// ponder move is sent only when `USI_Ponder` is on.
pub fn bestmove(
    result: &SearchResult,
    root: &Position,
    ponder_on: bool,
    faults: &FaultSet,
) -> String {
    let Some(best) = result.best else {
        if faults.has(Fault::MoveWhenMated)
            && let Some(step) = king_step(root)
        {
            return format!("bestmove {step}");
        }
        if faults.has(Fault::NoneToken) {
            return "bestmove (none)".to_string();
        }
        return special("resign", faults);
    };
    let side = root.side_to_move();
    let mut text = if faults.has(Fault::PassBestmove) && root.in_check() {
        "pass".to_string()
    } else if faults.has(Fault::IllegalBestmove) {
        illegal_variant(root, best).to_string()
    } else {
        info::move_text(best, side, faults)
    };
    if faults.has(Fault::DoubleSpacedOutput) {
        text.insert(0, ' ');
    }
    let mut line = format!("bestmove {text}");
    let ponder = if faults.has(Fault::IllegalPonder) {
        Some(illegal_variant(&root.after(best), best))
    } else {
        result.ponder
    };
    if let Some(p) = ponder.filter(|_| ponder_on) {
        line.push_str(" ponder ");
        line.push_str(&info::move_text(p, !side, faults));
    }
    if faults.has(Fault::BestmoveExtraTokens) {
        line.push_str(" score cp 0");
    }
    line
}

/// The `checkmate` lines (normally one) for a mate search of `root`; `stopped` tells a `stop`
/// from an expired limit.
///
/// ```
/// use usicheck::refengine::{faults::FaultSet, reply};
/// use usicheck::shogi::{Position, mate::MateResult};
/// let root = Position::startpos();
/// assert_eq!(reply::checkmate(MateResult::Unknown, &root, true, &FaultSet::none()), ["checkmate timeout"]);
/// ```
pub fn checkmate(
    result: MateResult,
    root: &Position,
    stopped: bool,
    faults: &FaultSet,
) -> Vec<String> {
    let text = match result {
        MateResult::Mate(_) if faults.has(Fault::NomateOnMate) => "checkmate nomate".to_string(),
        MateResult::Mate(mut line) => {
            if faults.has(Fault::NonMatingCheckmate) {
                if line.len() >= 3 {
                    line.truncate(line.len() - 2);
                } else if let Some(&other) = root.legal_moves().iter().find(|&&m| m != line[0]) {
                    line = vec![other];
                }
            }
            if faults.has(Fault::IllegalCheckmate) {
                line[0] = illegal_variant(root, line[0]);
            }
            format!(
                "checkmate {}",
                info::line_text(&line, root.side_to_move(), faults).join(" ")
            )
        }
        MateResult::NoMate if faults.has(Fault::EmptyCheckmate) => "checkmate ".to_string(),
        MateResult::NoMate => "checkmate nomate".to_string(),
        MateResult::Unknown if faults.has(Fault::SilentMateTimeout) && !stopped => {
            return Vec::new();
        }
        MateResult::Unknown if faults.has(Fault::CheckmateNone) => "checkmate none".to_string(),
        MateResult::Unknown if faults.has(Fault::EmptyCheckmate) => "checkmate ".to_string(),
        MateResult::Unknown if faults.has(Fault::NomateOnTimeout) => "checkmate nomate".to_string(),
        // Only the distance bound ended the search: "no mate in N" to a UCI reader.
        MateResult::Unknown if faults.has(Fault::MateLimitAsDistance) && !stopped => {
            "checkmate nomate".to_string()
        }
        MateResult::Unknown => "checkmate timeout".to_string(),
    };
    let copies = if faults.has(Fault::DoubleCheckmate) {
        2
    } else {
        1
    };
    vec![text; copies]
}

/// A king step to any neighbouring square, legal or not (`move-when-mated`).
fn king_step(pos: &Position) -> Option<Move> {
    let from = pos.king_square(pos.side_to_move())?;
    let to = [
        (0i8, -1i8),
        (0, 1),
        (-1, 0),
        (1, 0),
        (-1, -1),
        (1, 1),
        (-1, 1),
        (1, -1),
    ]
    .iter()
    .find_map(|&(df, dr)| {
        let file = u8::try_from(from.file() as i8 + df).ok()?;
        let rank = u8::try_from(from.rank() as i8 + dr).ok()?;
        Square::new(file, rank)
    })?;
    Some(Move::Normal {
        from,
        to,
        promote: false,
    })
}
