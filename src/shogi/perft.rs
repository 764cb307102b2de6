//! Perft: counting the leaves of the legal-move tree, the standard move-generator test.

use super::{Move, Position};

/// One move buffer per remaining ply, reused across siblings.
fn buffers(depth: u32) -> Vec<Vec<Move>> {
    (0..depth)
        .map(|_| Vec::with_capacity(super::MAX_MOVES))
        .collect()
}

/// Leaf count at `depth`, counting the last ply in bulk (moves are counted, not played).
///
/// ```
/// use usicheck::shogi::{perft, Position};
/// assert_eq!(perft(&Position::startpos(), 2), 900);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut pos = pos.clone();
    bulk(&mut pos, depth, &mut buffers(depth))
}

fn bulk(pos: &mut Position, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    if depth == 1 {
        return pos.count_legal_moves();
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    pos.legal_moves_into(moves);
    let mut n = 0;
    for &mv in moves.iter() {
        let undo = pos.make(mv);
        n += bulk(pos, depth - 1, rest);
        pos.unmake(mv, undo);
    }
    n
}

/// Leaf count at `depth` by playing every move down to the leaves with make/unmake (no bulk
/// counting): the workload a search does.
///
/// ```
/// use usicheck::shogi::{perft_full, Position};
/// assert_eq!(perft_full(&Position::startpos(), 2), 900);
/// ```
pub fn perft_full(pos: &Position, depth: u32) -> u64 {
    let mut pos = pos.clone();
    full(&mut pos, depth, &mut buffers(depth))
}

fn full(pos: &mut Position, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    pos.legal_moves_into(moves);
    let mut n = 0;
    for &mv in moves.iter() {
        let undo = pos.make(mv);
        n += full(pos, depth - 1, rest);
        pos.unmake(mv, undo);
    }
    n
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
