//! Mate search for tsume (mating problems) and `go mate`: a df-pn solver ([`solve`]) and a
//! checker for claimed mating lines ([`verify`]).
//!
//! The side to move is the attacker: every attacker move must give check, and the defender (who
//! must have a king) is mated when in check with no legal move. The attacker may have no king,
//! as in most tsume problems. Every rule of [`Position::legal_moves`] applies, including
//! uchifuzume: a pawn drop that mates is illegal, so it is never part of a solution.
//!
//! ```
//! use usicheck::shogi::{Position, mate::{self, Limits, MateResult}};
//! let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").unwrap();
//! let MateResult::Mate(line) = mate::solve(&pos, &Limits::new().with_nodes(10_000)) else {
//!     panic!("F-MATE1 is a mate in 1");
//! };
//! assert_eq!(line, vec!["G*5b".parse().unwrap()]);
//! assert_eq!(mate::verify(&pos, &line, &Limits::new()), Ok(()));
//! assert_eq!(mate::solve(&Position::startpos(), &Limits::new()), MateResult::NoMate);
//! ```

mod checks;
mod dfpn;
mod table;
mod verify;

#[cfg(test)]
mod tests;

pub use checks::checking_moves;
pub use dfpn::Solver;
pub use verify::{DEFAULT_VERIFY_NODES, MateLineError, verify};

use super::{Move, Position};
use crate::sim::Clock;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Longest line searched by default, in plies (attacker and defender moves).
pub const DEFAULT_MAX_PLIES: u32 = 255;
/// Table slots by default (36 bytes each: 9 MiB at most; a table grows as a search fills it).
pub const DEFAULT_TABLE_ENTRIES: usize = 1 << 18;

/// The budget of a mate search. Every limit is optional; the search polls the clock and the
/// stop flag every 256 nodes, so it overruns a deadline by well under a millisecond.
///
/// ```
/// use usicheck::shogi::mate::Limits;
/// use std::{sync::{Arc, atomic::AtomicBool}, time::Duration};
/// let stop = Arc::new(AtomicBool::new(false));
/// let limits = Limits::new()
///     .with_nodes(1_000_000)
///     .with_time(Duration::from_millis(500))
///     .with_stop(stop.clone());
/// assert_eq!(limits.nodes, Some(1_000_000));
/// ```
#[derive(Clone, Debug)]
pub struct Limits {
    /// Stop after about this many nodes (each node is one expansion).
    pub nodes: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop as soon as this flag is set (e.g. by a USI `stop` on another thread).
    pub stop: Option<Arc<AtomicBool>>,
    /// Lines longer than this many plies are not searched (the position counts as not mated
    /// along them, and a root refuted only that way is `Unknown`, never `NoMate`).
    pub max_plies: u32,
    /// Transposition-table size in entries: the solver's memory is bounded by it.
    pub table_entries: usize,
    /// Where the deadline's time comes from; a simulated clock is also charged the
    /// expansions (see [`crate::sim::Clock::work`]).
    pub clock: Clock,
}

impl Limits {
    /// No node, time or stop limit; default ply limit and table size.
    pub fn new() -> Limits {
        Limits {
            nodes: None,
            deadline: None,
            stop: None,
            max_plies: DEFAULT_MAX_PLIES,
            table_entries: DEFAULT_TABLE_ENTRIES,
            clock: Clock::Real,
        }
    }

    pub fn with_nodes(mut self, nodes: u64) -> Limits {
        self.nodes = Some(nodes);
        self
    }

    pub fn with_deadline(mut self, deadline: Instant) -> Limits {
        self.deadline = Some(deadline);
        self
    }

    /// A deadline `time` from now.
    pub fn with_time(self, time: Duration) -> Limits {
        let deadline = self.clock.now() + time;
        self.with_deadline(deadline)
    }

    pub fn with_clock(mut self, clock: Clock) -> Limits {
        self.clock = clock;
        self
    }

    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> Limits {
        self.stop = Some(stop);
        self
    }

    pub fn with_max_plies(mut self, plies: u32) -> Limits {
        self.max_plies = plies;
        self
    }

    pub fn with_table_entries(mut self, entries: usize) -> Limits {
        self.table_entries = entries;
        self
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::new()
    }
}

/// The outcome of a mate search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateResult {
    /// A mating line: attacker first, odd length, every attacker move a check, ending in mate,
    /// with the defender choosing (among proven replies) the longest stored resistance. It
    /// always passes the structural checks of [`verify`] (the solver replays it before
    /// answering); it is not guaranteed to be the shortest mate, nor the defender's longest
    /// resistance.
    Mate(Vec<Move>),
    /// Proven: the attacker has no forced mate (repetitions count as failures for the
    /// attacker, as perpetual check loses; the proof never relied on the ply limit).
    NoMate,
    /// The budget ran out, `stop` was set, only the ply limit refuted the attacker, the proof
    /// numbers saturated, or (after a proof) the line could not be rebuilt within the budget.
    Unknown,
}

/// Solves `pos` for the side to move within `limits`; see [`Solver`] to reuse the table or
/// read the node count. `pos` should pass [`crate::shogi::validate`] with
/// [`crate::shogi::Strictness::Lenient`] (in particular, the defender is not already in check).
pub fn solve(pos: &Position, limits: &Limits) -> MateResult {
    Solver::new(limits.clone()).solve(pos)
}
