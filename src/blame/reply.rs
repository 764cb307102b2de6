//! The rule a reply that never came breaks, whichever driver waited for it. A clock times a
//! reply that comes (the observer charges a late one to the clock's rule as it arrives); one
//! that never comes at all is a missing reply.

use crate::observer::Observer;
use crate::rules::RuleId;

/// A reply the engine owes whatever the GUI's purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owed {
    /// `usiok` for `usi`.
    Usiok,
    /// `readyok` for `isready`.
    Readyok,
    /// `readyok` for an `isready` after `gameover`, with no new game or search since.
    ReadyokAfterGameover,
    /// The outstanding search's terminal reply (`bestmove`, or `checkmate` for `go mate`).
    Search,
}

/// A reply the engine owed and never sent, and the rule it was charged to: kept typed with a
/// scenario's report, so that what later checks depend on is read from it, not from words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missed {
    pub owed: Owed,
    pub rule: RuleId,
}

/// The rule `owed` breaks if it never comes: USI-HANDSHAKE-004, USI-READY-001 (after
/// `gameover`, USI-READY-005, the pre-flight's check of just that), and for a
/// search USI-GO-002 under a clock, or the rule of the `stop`, `go mate` or `ponderhit` the
/// reply is due for ([`crate::observer::Protocol::missing_search_reply_rule`]).
///
/// ```
/// use usicheck::blame::{Owed, missing_reply};
/// use usicheck::observer::Observer;
/// use usicheck::rules::{Claims, Profile};
/// let profile = Profile::Shogidokoro;
/// let mut observer = Observer::new(profile, Claims::default(), profile.timeouts());
/// assert_eq!(missing_reply(Owed::Readyok, &observer), usicheck::rule!("USI-READY-001"));
/// let after_gameover = missing_reply(Owed::ReadyokAfterGameover, &observer);
/// assert_eq!(after_gameover, usicheck::rule!("USI-READY-005"));
/// observer.on_send("position startpos", 0);
/// observer.on_send("go btime 0 wtime 0 byoyomi 1000", 10);
/// assert_eq!(missing_reply(Owed::Search, &observer), usicheck::rule!("USI-GO-002"));
/// observer.on_send("stop", 20);
/// assert_eq!(missing_reply(Owed::Search, &observer), usicheck::rule!("USI-STOP-001"));
/// ```
pub fn missing_reply(owed: Owed, observer: &Observer) -> RuleId {
    match owed {
        Owed::Usiok => crate::rule!("USI-HANDSHAKE-004"),
        Owed::Readyok => crate::rule!("USI-READY-001"),
        Owed::ReadyokAfterGameover => crate::rule!("USI-READY-005"),
        Owed::Search => observer
            .protocol()
            .missing_search_reply_rule()
            .unwrap_or(crate::rule!("USI-GO-002")),
    }
}

/// The rule a `usiok` missing by its deadline breaks: USI-HANDSHAKE-004, unless it arrived
/// once the engine was asked to `quit` and exited (`at_exit`): then it was written but held
/// in a buffer the engine never flushed (USI-ROBUST-006), the same whichever driver saw it.
///
/// ```
/// use usicheck::blame::no_usiok;
/// assert_eq!(no_usiok(false), usicheck::rule!("USI-HANDSHAKE-004"));
/// assert_eq!(no_usiok(true), usicheck::rule!("USI-ROBUST-006"));
/// ```
pub fn no_usiok(at_exit: bool) -> RuleId {
    match at_exit {
        true => crate::rule!("USI-ROBUST-006"),
        false => crate::rule!("USI-HANDSHAKE-004"),
    }
}

/// The clocks of a search, which time a reply that comes.
const SEARCH_CLOCK_RULES: [RuleId; 4] = [
    crate::rule!("USI-GO-004"),
    crate::rule!("USI-GO-005"),
    crate::rule!("USI-GO-007"),
    crate::rule!("USI-GO-009"),
];

/// What a search reply that never came at all breaks where a step checking `step_rule` waited
/// for it: a clock times a reply that comes, so under a search's clock the absence is a
/// missing reply ([`missing_reply`]); any other check owns the absence (`None`).
///
/// ```
/// use usicheck::blame::never_answered;
/// use usicheck::observer::Observer;
/// use usicheck::rules::{Claims, Profile};
/// let profile = Profile::Shogidokoro;
/// let mut observer = Observer::new(profile, Claims::default(), profile.timeouts());
/// observer.on_send("position startpos", 0);
/// observer.on_send("go btime 0 wtime 0 byoyomi 1000", 10);
/// let clock = Some(usicheck::rule!("USI-GO-004"));
/// assert_eq!(never_answered(clock, &observer), Some(usicheck::rule!("USI-GO-002")));
/// assert_eq!(never_answered(Some(usicheck::rule!("USI-ROBUST-003")), &observer), None);
/// ```
pub fn never_answered(step_rule: Option<RuleId>, observer: &Observer) -> Option<RuleId> {
    step_rule
        .filter(|rule| SEARCH_CLOCK_RULES.contains(rule))
        .map(|_| missing_reply(Owed::Search, observer))
}
