//! Check generation: the attacker's candidate moves in a mate search.

use crate::shogi::{Move, Position, attacks};

/// The legal moves of `pos` that give check to the opponent's king, in generation order.
///
/// Built on [`Position::legal_moves`], so every rule that makes a move illegal (pins, nifu,
/// dead pieces, and uchifuzume: a pawn drop that mates) is honoured. A move checks directly when
/// the moved piece attacks the king from its destination; otherwise it can only check by
/// uncovering a slider, which is possible only from a square on a line through the king, and
/// only those moves are played out to test.
///
/// ```
/// use usicheck::shogi::{Position, mate::checking_moves};
/// let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1").unwrap();
/// let checks: Vec<String> = checking_moves(&pos).iter().map(|m| m.to_string()).collect();
/// assert!(checks.contains(&"G*5b".to_string()));
/// assert!(checking_moves(&Position::startpos()).is_empty());
/// ```
pub fn checking_moves(pos: &Position) -> Vec<Move> {
    let us = pos.side_to_move();
    let Some(king) = pos.king_square(!us) else {
        return Vec::new();
    };
    let occupied = pos.occupied();
    let lines_through_king = attacks::rook_pseudo(king) | attacks::bishop_pseudo(king);
    pos.legal_moves()
        .into_iter()
        .filter(|&mv| match mv {
            Move::Drop { kind, to } => {
                attacks::piece(us, kind, to, occupied.with(to)).contains(king)
            }
            Move::Normal { from, to, promote } => {
                let Some(piece) = pos.piece_at(from) else {
                    return false;
                };
                let kind = if promote {
                    piece.kind.promoted().unwrap_or(piece.kind)
                } else {
                    piece.kind
                };
                let occupied_after = occupied.without(from).with(to);
                attacks::piece(us, kind, to, occupied_after).contains(king)
                    || (lines_through_king.contains(from) && pos.after(mv).in_check())
            }
        })
        .collect()
}
