//! Checking a claimed mating line, as an engine sends it in `checkmate m1 … mn`.

use super::{Limits, MateResult, Solver};
use crate::shogi::{Move, Position};

/// Escape-search node budget of [`verify`] when its limits set none.
pub const DEFAULT_VERIFY_NODES: u64 = 200_000;

/// Why a line is not a correct mating line. Plies count from 1 (the attacker's first move).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MateLineError {
    #[error("the mate line is empty")]
    Empty,
    #[error("ply {ply}: {mv} is illegal")]
    IllegalMove { ply: usize, mv: Move },
    #[error("ply {ply}: attacker move {mv} does not give check")]
    NotCheck { ply: usize, mv: Move },
    #[error(
        "the line has {len} moves; a mate line has odd length and ends with the attacker's move"
    )]
    EvenLength { len: usize },
    #[error("the final position is not mate: the defender can play {escape}")]
    NotMate { escape: Move },
    #[error("ply {ply}: the line plays {played}, but {escape} escapes mate (proven)")]
    DefenderEscape {
        ply: usize,
        played: Move,
        escape: Move,
    },
}

/// Checks a mating line from `pos` (attacker to move).
///
/// Always verified, in this order (the first failure is returned): the line is not empty; every
/// move is legal in turn (uchifuzume included); every attacker move gives check; the length is
/// odd; the final position is mate (the defender has no legal move).
///
/// Then, within the budget of `limits` (its nodes, or [`DEFAULT_VERIFY_NODES`] when unset,
/// shared across all alternatives; its deadline and stop flag honoured): at every defender ply, each legal reply the line did not take is searched with
/// the df-pn solver, and a reply proven to escape mate ([`MateResult::NoMate`]) is reported as
/// [`MateLineError::DefenderEscape`]. Replies left unresolved by the budget are accepted, so a
/// line is rejected only on proof. Not checked: that the defender's reply was the longest
/// resistance, or that the attacker's mate is the shortest.
///
/// ```
/// use usicheck::shogi::{Position, mate::{verify, Limits, MateLineError}};
/// let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1").unwrap();
/// let line = |s: &str| s.split(' ').map(|m| m.parse().unwrap()).collect::<Vec<_>>();
/// assert_eq!(verify(&pos, &line("G*5b"), &Limits::new()), Ok(()));
/// assert_eq!(
///     verify(&pos, &line("G*5d"), &Limits::new()),
///     Err(MateLineError::NotCheck { ply: 1, mv: "G*5d".parse().unwrap() })
/// );
/// ```
pub fn verify(pos: &Position, line: &[Move], limits: &Limits) -> Result<(), MateLineError> {
    let positions = replay(pos, line)?;
    check_escapes(&positions, line, limits)
}

/// The structural checks of [`verify`] (everything but the escape search); on success, the
/// position before each move of the line.
pub(super) fn replay(pos: &Position, line: &[Move]) -> Result<Vec<Position>, MateLineError> {
    if line.is_empty() {
        return Err(MateLineError::Empty);
    }
    let mut positions = Vec::with_capacity(line.len() + 1);
    let mut current = pos.clone();
    for (i, &mv) in line.iter().enumerate() {
        let ply = i + 1;
        if !current.is_legal(mv) {
            return Err(MateLineError::IllegalMove { ply, mv });
        }
        let next = current.after(mv);
        if i.is_multiple_of(2) && !next.in_check() {
            return Err(MateLineError::NotCheck { ply, mv });
        }
        positions.push(current);
        current = next;
    }
    if line.len().is_multiple_of(2) {
        return Err(MateLineError::EvenLength { len: line.len() });
    }
    if let Some(&escape) = current.legal_moves().iter().next() {
        return Err(MateLineError::NotMate { escape });
    }
    Ok(positions)
}

/// Searches the defender's untaken replies for a proven escape, sharing the node budget.
fn check_escapes(
    positions: &[Position],
    line: &[Move],
    limits: &Limits,
) -> Result<(), MateLineError> {
    let alternatives: Vec<(usize, Position, Move)> = (1..line.len())
        .step_by(2)
        .flat_map(|i| {
            let pos = &positions[i];
            pos.legal_moves()
                .into_iter()
                .filter(move |&mv| mv != line[i])
                .map(move |mv| (i, pos.after(mv), mv))
        })
        .collect();
    let mut budget = limits.nodes.unwrap_or(DEFAULT_VERIFY_NODES);
    let mut solver = Solver::new(limits.clone());
    for (k, (i, after, escape)) in alternatives.iter().enumerate() {
        if budget == 0 {
            break;
        }
        let share = budget / (alternatives.len() - k) as u64;
        solver.limits_mut().nodes = Some(share.max(1));
        let result = solver.solve(after);
        budget = budget.saturating_sub(solver.nodes());
        if result == MateResult::NoMate {
            return Err(MateLineError::DefenderEscape {
                ply: i + 1,
                played: line[*i],
                escape: *escape,
            });
        }
    }
    Ok(())
}
