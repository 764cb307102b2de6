//! Symptoms a driver works out from a whole exchange rather than one wait: what a search
//! `gameover` released became, which of several rules one reply broke is its charge, and
//! whose a late search after `usinewgame` is.

use crate::rules::RuleId;

/// What a search `gameover` released showed when an `isready` after it went unanswered for
/// T-STOP and more, and a `stop` followed: whether a `stop` went before the `gameover`
/// (`stopped_before`), whether the `readyok` came at all (`readyok_came`, late), and, where
/// it never came, whether a plain search sent then was answered (`answers_search`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AfterRelease {
    pub stopped_before: bool,
    pub readyok_came: bool,
    pub answers_search: bool,
}

/// The rule an `isready` left unanswered after a `gameover` released a search breaks.
///
/// A `readyok` that comes late is the late end's: USI-GAMEOVER-004 (the search ran on past
/// `gameover`), or USI-STOP-001 when a `stop` had asked for the end first. One that never
/// comes, not even after the `stop`, is no late end: an engine that still answers a search
/// ignores `isready` after `gameover` (USI-READY-005); one that answers nothing reads no
/// command while its search runs on (USI-GO-012), as the pre-flight charges each.
///
/// ```
/// use usicheck::blame::{AfterRelease, after_release};
/// let deaf = AfterRelease { stopped_before: false, readyok_came: false, answers_search: false };
/// assert_eq!(after_release(deaf), usicheck::rule!("USI-GO-012"));
/// let ignores_isready = AfterRelease { answers_search: true, ..deaf };
/// assert_eq!(after_release(ignores_isready), usicheck::rule!("USI-READY-005"));
/// let late = AfterRelease { readyok_came: true, ..deaf };
/// assert_eq!(after_release(late), usicheck::rule!("USI-GAMEOVER-004"));
/// let stopped = AfterRelease { stopped_before: true, ..late };
/// assert_eq!(after_release(stopped), usicheck::rule!("USI-STOP-001"));
/// ```
pub fn after_release(seen: AfterRelease) -> RuleId {
    match seen {
        AfterRelease {
            readyok_came: false,
            answers_search: true,
            ..
        } => crate::rule!("USI-READY-005"),
        AfterRelease {
            readyok_came: false,
            ..
        } => crate::rule!("USI-GO-012"),
        AfterRelease {
            stopped_before: true,
            ..
        } => crate::rule!("USI-STOP-001"),
        AfterRelease { .. } => runs_on_after_gameover(),
    }
}

/// The rule a search `gameover` released breaks by running on (its output or its reply
/// after T-STOP, or a `stop` it answers): USI-GAMEOVER-004.
///
/// ```
/// assert_eq!(usicheck::blame::runs_on_after_gameover(), usicheck::rule!("USI-GAMEOVER-004"));
/// ```
pub fn runs_on_after_gameover() -> RuleId {
    crate::rule!("USI-GAMEOVER-004")
}

/// Whether `rule`, which the observer charged on one engine line, is that line's charge,
/// where the line was a terminal reply of the wrong kind for the search it answered
/// (`wrong_kind`: a `checkmate` answering a normal `go`, USI-GO-002, or a `bestmove`
/// answering `go mate`, USI-MATE-002): such a reply is that, not also late against the clock
/// of the reply it should have been (the runner's "already charged"). Any other rule stands.
///
/// ```
/// use usicheck::blame::one_line;
/// let (kind, clock) = (usicheck::rule!("USI-GO-002"), usicheck::rule!("USI-GO-004"));
/// assert!(!one_line(clock, true));
/// assert!(one_line(kind, true));
/// assert!(one_line(clock, false));
/// ```
pub fn one_line(rule: RuleId, wrong_kind: bool) -> bool {
    !(wrong_kind && crate::observer::CLOCK_RULES.contains(&rule))
}

/// The rule a search reply late against its clock (`clock_rule`) breaks: where the search
/// was the first after a `usinewgame` not followed by `isready` (`after_newgame`) and the
/// same session with `isready`/`readyok` after each `usinewgame` had it in time
/// (`in_time_when_settled`), the work done at `usinewgame` delayed it (USI-READY-007, as the
/// pre-flight's control shows it); otherwise the clock's.
///
/// ```
/// use usicheck::blame::late_search;
/// let clock = usicheck::rule!("USI-GO-004");
/// assert_eq!(late_search(clock, true, true), usicheck::rule!("USI-READY-007"));
/// assert_eq!(late_search(clock, true, false), clock);
/// assert_eq!(late_search(clock, false, true), clock);
/// ```
pub fn late_search(clock_rule: RuleId, after_newgame: bool, in_time_when_settled: bool) -> RuleId {
    match after_newgame && in_time_when_settled {
        true => crate::rule!("USI-READY-007"),
        false => clock_rule,
    }
}
