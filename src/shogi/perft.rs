//! Perft: counting the leaves of the legal-move tree, the standard move-generator test.

use super::{Move, Position};

/// Leaf count at `depth`, counting the last ply in bulk (moves are counted, not played).
///
/// ```
/// use usicheck::shogi::{perft, Position};
/// assert_eq!(perft(&Position::startpos(), 2), 900);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => pos
            .legal_moves()
            .into_iter()
            .map(|m| perft(&pos.after(m), depth - 1))
            .sum(),
    }
}

/// Leaf count at `depth` by playing every move down to the leaves (no bulk counting), the
/// make-move workload a search does.
///
/// ```
/// use usicheck::shogi::{perft_full, Position};
/// assert_eq!(perft_full(&Position::startpos(), 2), 900);
/// ```
pub fn perft_full(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.legal_moves()
        .into_iter()
        .map(|m| perft_full(&pos.after(m), depth - 1))
        .sum()
}

/// Per-move leaf counts at `depth` (`depth >= 1`), in generation order; their sum is `perft`.
///
/// ```
/// use usicheck::shogi::{divide, Position};
/// let d = divide(&Position::startpos(), 2);
/// assert_eq!(d.len(), 30);
/// assert!(d.iter().all(|&(_, n)| n == 30));
/// ```
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .into_iter()
        .map(|m| (m, perft(&pos.after(m), depth.saturating_sub(1))))
        .collect()
}
