//! The pace of each mix of sessions: the limits its searches get and the pauses between its
//! commands.

use std::ops::Range;
use std::time::Duration;

/// What kind of session to generate.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Mix {
    /// Everything: legal and illegal positions, garbage, every protocol interleaving.
    #[default]
    Full,
    /// Only legal positions searched with `go depth 1` (the throughput benchmark).
    Depth1,
    /// The full mix with millisecond limits and pauses, for in-process sessions that must take
    /// milliseconds ([`crate::harness`]).
    Quick,
}

/// The limits a mix gives searches (ms) and the pauses between commands.
pub(super) struct Pace {
    /// Slack added to every time the engine is given, so a loaded machine is not mistaken for
    /// a hang; a search without a time limit gets `untimed`.
    pub(super) slack: Duration,
    pub(super) untimed: Duration,
    /// Longest pause before `stop` or `ponderhit` (exclusive), and before stopping `go mate`.
    pub(super) pause: u64,
    pub(super) mate_pause: u64,
    /// Longest ponder phase (exclusive): long enough to see a `bestmove` leaked into it.
    pub(super) ponder_phase: u64,
    /// `go depth` and `go nodes` draw `i32`s, as they always did: the same seed must keep
    /// giving the same session.
    pub(super) depth: i32,
    pub(super) nodes: Range<i32>,
    pub(super) movetime: Range<u64>,
    pub(super) byoyomi: Range<u64>,
    pub(super) clock: Range<u64>,
    pub(super) increment: Range<u64>,
    pub(super) mate: Range<u64>,
    /// Sudden death near zero: the whole clock, no byoyomi or increment.
    pub(super) sudden: Range<u64>,
    /// Longest pause (exclusive) between a `go` and the command racing it.
    pub(super) race: u64,
}

pub(super) const FULL: Pace = Pace {
    slack: Duration::from_millis(3000),
    untimed: Duration::from_secs(10),
    pause: 30,
    mate_pause: 50,
    depth: 3,
    nodes: 100..5000,
    movetime: 10..60,
    byoyomi: 20..100,
    clock: 100..1000,
    increment: 10..50,
    mate: 50..300,
    ponder_phase: 2000,
    sudden: 0..100,
    race: 50,
};

/// Every search about a millisecond or less: depth 1, a few hundred nodes, byoyomi and
/// `movetime` of 1 ms, a clock of tens of ms. The slack stays in seconds: only a real hang
/// outlasts it.
const QUICK: Pace = Pace {
    slack: Duration::from_millis(2000),
    untimed: Duration::from_secs(5),
    pause: 2,
    mate_pause: 2,
    depth: 1,
    nodes: 50..300,
    movetime: 1..2,
    byoyomi: 1..2,
    clock: 5..30,
    increment: 1..2,
    mate: 1..4,
    ponder_phase: 5,
    sudden: 0..5,
    race: 2,
};

impl Mix {
    pub(super) fn pace(self) -> &'static Pace {
        match self {
            Mix::Quick => &QUICK,
            Mix::Full | Mix::Depth1 => &FULL,
        }
    }
}
