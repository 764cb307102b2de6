//! Checking `checkmate` replies: a mating line is verified move by move, and `nomate` is
//! refuted when a bounded search finds a mate.

use crate::shogi::Position;
use crate::usi::MoveToken;

/// Why a claimed mating line is wrong, or `Ok` when it mates.
///
/// A line is correct when it has an odd number of legal moves, every attacker move gives
/// check, and the defender is checkmated at the end.
///
/// ```
/// use usicheck::scenario::runner::verify_mate;
/// use usicheck::shogi::Position;
/// use usicheck::usi::MoveToken;
/// let pos = Position::from_sfen("sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1").unwrap();
/// assert!(verify_mate(&pos, &[MoveToken::parse("G*5b")]).is_ok());
/// assert!(verify_mate(&pos, &[MoveToken::parse("G*4b")]).is_err());
/// ```
pub fn verify_mate(start: &Position, line: &[MoveToken]) -> Result<(), String> {
    if line.is_empty() {
        return Err("the mating line is empty".into());
    }
    let mut pos = start.clone();
    for (index, token) in line.iter().enumerate() {
        let Some(mv) = token.as_move() else {
            return Err(format!("move {} `{token}` is not a move", index + 1));
        };
        if !pos.is_legal(mv) {
            return Err(format!("move {} `{mv}` is illegal", index + 1));
        }
        if index % 2 == 0 && !pos.gives_check(mv) {
            return Err(format!(
                "attacker move {} `{mv}` does not give check",
                index + 1
            ));
        }
        pos.play_unchecked(mv);
    }
    if !pos.is_checkmate() {
        return Err(format!(
            "after {} moves the defender is not checkmated",
            line.len()
        ));
    }
    Ok(())
}

/// Whether the side to move mates within `max_plies` (odd) by checks only; `None` when the
/// node budget runs out first.
///
/// ```
/// use usicheck::scenario::runner::find_mate;
/// use usicheck::shogi::Position;
/// let pos = Position::from_sfen("sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1").unwrap();
/// assert_eq!(find_mate(&pos, 1, 10_000), Some(true));
/// assert_eq!(find_mate(&Position::startpos(), 3, 100_000), Some(false));
/// ```
pub fn find_mate(pos: &Position, max_plies: u32, node_budget: u64) -> Option<bool> {
    let mut budget = node_budget;
    attacker_mates(pos, max_plies, &mut budget)
}

fn attacker_mates(pos: &Position, plies: u32, budget: &mut u64) -> Option<bool> {
    if plies == 0 {
        return Some(false);
    }
    for &mv in pos.legal_moves().iter() {
        if !pos.gives_check(mv) {
            continue;
        }
        *budget = budget.checked_sub(1)?;
        if defender_mated(&pos.after(mv), plies - 1, budget)? {
            return Some(true);
        }
    }
    Some(false)
}

fn defender_mated(pos: &Position, plies: u32, budget: &mut u64) -> Option<bool> {
    let replies = pos.legal_moves();
    if replies.is_empty() {
        return Some(pos.in_check());
    }
    if plies == 0 {
        return Some(false);
    }
    for &mv in replies.iter() {
        *budget = budget.checked_sub(1)?;
        if !attacker_mates(&pos.after(mv), plies - 1, budget)? {
            return Some(false);
        }
    }
    Some(true)
}
