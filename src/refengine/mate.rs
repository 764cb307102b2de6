//! The `go mate` boundary. The engine asks [`solve`] for a verdict; it is shaped like the
//! planned df-pn solver (`shogi::mate::solve`), so that solver plugs in by replacing the body
//! of [`solve`]. Until then this is a bounded iterative-deepening AND/OR search: it finds short
//! mates, proves "no mate" only when the whole check tree is exhausted, and otherwise gives up.

use crate::shogi::{Move, Position};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Budget of one mate search.
pub struct Limits<'a> {
    pub nodes: Option<u64>,
    pub deadline: Option<Instant>,
    pub stop: &'a AtomicBool,
}

/// A mate search verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// A mating line from the root, attacker first, odd length.
    Mate(Vec<Move>),
    /// Proven: no sequence of checks mates.
    NoMate,
    /// The budget ran out first.
    Unknown,
}

/// Longest mate the fallback searches for, in plies.
const MAX_PLIES: u32 = 31;

/// Solves the position for the side to move.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use usicheck::refengine::mate::{solve, Limits, MateResult};
/// use usicheck::shogi::Position;
/// let stop = AtomicBool::new(false);
/// let limits = Limits { nodes: None, deadline: None, stop: &stop };
/// let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1").unwrap();
/// assert_eq!(solve(&pos, &limits), MateResult::Mate(vec!["G*5b".parse().unwrap()]));
/// assert_eq!(solve(&Position::startpos(), &limits), MateResult::NoMate);
/// ```
pub fn solve(pos: &Position, limits: &Limits<'_>) -> MateResult {
    let mut s = Solver {
        limits,
        nodes: 0,
        cut_by_depth: false,
        out_of_budget: false,
    };
    for plies in (1..=MAX_PLIES).step_by(2) {
        s.cut_by_depth = false;
        let mut line = Vec::new();
        if s.attack(pos, plies, &mut line) {
            return MateResult::Mate(line);
        }
        if s.out_of_budget {
            return MateResult::Unknown;
        }
        if !s.cut_by_depth {
            return MateResult::NoMate;
        }
    }
    MateResult::Unknown
}

struct Solver<'a, 'b> {
    limits: &'a Limits<'b>,
    nodes: u64,
    /// Some line was cut by the depth limit, so a failure proves nothing.
    cut_by_depth: bool,
    out_of_budget: bool,
}

impl Solver<'_, '_> {
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(64) {
            let late = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
            let spent = self.limits.nodes.is_some_and(|n| self.nodes >= n);
            if late || spent || self.limits.stop.load(Ordering::Relaxed) {
                self.out_of_budget = true;
            }
        }
        !self.out_of_budget
    }

    /// OR node: some check leads to mate within `plies`.
    fn attack(&mut self, pos: &Position, plies: u32, line: &mut Vec<Move>) -> bool {
        if !self.tick() {
            return false;
        }
        if plies == 0 {
            self.cut_by_depth = true;
            return false;
        }
        for &m in pos.legal_moves().iter() {
            let next = pos.after(m);
            if !next.in_check() {
                continue;
            }
            line.push(m);
            if self.defend(&next, plies - 1, line) {
                return true;
            }
            line.pop();
            if self.out_of_budget {
                return false;
            }
        }
        false
    }

    /// AND node: every reply still loses; appends the longest-resisting reply's line.
    fn defend(&mut self, pos: &Position, plies: u32, line: &mut Vec<Move>) -> bool {
        let replies = pos.legal_moves();
        if replies.is_empty() {
            return true;
        }
        if plies == 0 {
            self.cut_by_depth = true;
            return false;
        }
        let mut longest: Vec<Move> = Vec::new();
        for &r in replies.iter() {
            let mut sub = vec![r];
            if !self.attack(&pos.after(r), plies - 1, &mut sub) {
                return false;
            }
            if sub.len() > longest.len() {
                longest = sub;
            }
        }
        line.extend(longest);
        true
    }
}
