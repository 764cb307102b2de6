//! The fuzzer's view of the observer's verdicts: which kind of check a violated rule is (the
//! key that groups findings, and whether the session can go on).
//!
//! Every engine line is judged by the same [`Observer`](crate::observer::Observer) as in
//! `usicheck run`, so a finding replays with `run` to the same rule and severity; a misread
//! position (an illegal reply legal on a misread board) is the observer's diagnosis too.

use crate::observer::{CLOCK_RULES, LEGALITY_RULES, MISREAD_RULES};
use crate::rules::{Claims, Outcome, Profile, RuleId, Verdict};
use std::fmt;
use std::time::Duration;

/// Which oracle a violation comes from; with the rule it is the key that groups findings.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Oracle {
    /// A move in `bestmove`, `ponder`, `pv` or `checkmate` that the rules reject (or that
    /// shows a misread position), or a `bestmove win`, `checkmate` or `nomate` the position
    /// refutes.
    Legality,
    /// A reply missing, doubled or out of place for the protocol state.
    Protocol,
    /// A line the observer flags that leaves the protocol in step (grammar, encoding, free
    /// text, `info` out of place): noted once, the session goes on.
    Output,
    /// Killed by a signal.
    Crash,
    /// Exited by itself (with status and last message), not after `quit`.
    Exit,
    /// A deadline passed without the reply, or the reply came after it.
    Hang,
}

impl Oracle {
    /// Whether the engine died: a crash or an exit nobody asked for.
    pub const fn is_death(self) -> bool {
        matches!(self, Oracle::Crash | Oracle::Exit)
    }

    pub const fn name(self) -> &'static str {
        match self {
            Oracle::Legality => "legality",
            Oracle::Protocol => "protocol",
            Oracle::Output => "output",
            Oracle::Crash => "crash",
            Oracle::Exit => "exit",
            Oracle::Hang => "hang",
        }
    }

    /// The oracle of an observer verdict on `rule`. Only [`Oracle::Output`] lets a session
    /// go on: the others put the exchange out of step or are what a finding reproduces.
    ///
    /// ```
    /// use usicheck::fuzzer::oracle::Oracle;
    /// assert_eq!(Oracle::of(usicheck::rule!("USI-BESTMOVE-002")), Oracle::Legality);
    /// assert_eq!(Oracle::of(usicheck::rule!("USI-POSITION-001")), Oracle::Legality);
    /// assert_eq!(Oracle::of(usicheck::rule!("USI-GO-004")), Oracle::Hang);
    /// assert_eq!(Oracle::of(usicheck::rule!("USI-ROBUST-009")), Oracle::Output);
    /// ```
    pub fn of(rule: RuleId) -> Oracle {
        if LEGALITY_RULES.contains(&rule)
            || MISREAD_RULES.contains(&rule)
            || REFUTED_REPLY_RULES.contains(&rule)
        {
            Oracle::Legality
        } else if CLOCK_RULES.contains(&rule) {
            Oracle::Hang
        } else if OUT_OF_STEP_RULES.contains(&rule) {
            Oracle::Protocol
        } else {
            Oracle::Output
        }
    }
}

/// A reply the reference rules refute: a move where none is legal, an invalid declaration, a
/// `checkmate` line that is no mate, a `nomate` where a mate exists, a vendor `pass`.
const REFUTED_REPLY_RULES: &[RuleId] = &[
    crate::rule!("USI-BESTMOVE-003"),
    crate::rule!("USI-BESTMOVE-004"),
    crate::rule!("USI-RULES-001"),
    crate::rule!("USI-MATE-003"),
    crate::rule!("USI-MATE-004"),
    crate::rule!("USI-EXT-018"),
];

/// Replies missing, doubled or of the wrong kind, and searches that ignore their limit.
const OUT_OF_STEP_RULES: &[RuleId] = &[
    crate::rule!("USI-GO-001"),
    crate::rule!("USI-GO-002"),
    crate::rule!("USI-GO-008"),
    crate::rule!("USI-GO-010"),
    crate::rule!("USI-PONDER-002"),
    crate::rule!("USI-READY-001"),
    crate::rule!("USI-MATE-002"),
    crate::rule!("USI-STOP-003"),
    crate::rule!("USI-GAMEOVER-004"),
];

impl fmt::Display for Oracle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One failed check: the oracle, the rule it breaks, what was seen, and after which command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub oracle: Oracle,
    pub rule: RuleId,
    pub detail: String,
    /// Index of the last command sent when it was seen (`None`: before any, i.e. the handshake;
    /// the command count: the closing `isready` or `quit`).
    pub step: Option<usize>,
    /// How `usicheck run` grades it under the fuzzer's profile (`None`:
    /// the profile does not judge the rule).
    pub outcome: Option<Outcome>,
    /// How long the fuzzer waited for the reply whose absence this is, where its reproducer's
    /// step must wait as long and no longer than that (a `readyok` after a released search:
    /// T-STOP and a second, where a plain `isready` waits T-READY, which every `info` of a
    /// search running on restarts).
    pub waited: Option<Duration>,
}

impl Violation {
    /// A violation graded as a scenario step naming `rule` is, under the default profile.
    pub fn graded(oracle: Oracle, rule: RuleId, detail: String, step: Option<usize>) -> Violation {
        let grading = (super::DEFAULT_PROFILE, &Claims::default());
        Violation::graded_under(grading, oracle, rule, detail, step)
    }

    /// A violation graded as a scenario step naming `rule` is, under `profile` and `claims`.
    pub fn graded_under(
        (profile, claims): (Profile, &Claims),
        oracle: Oracle,
        rule: RuleId,
        detail: String,
        step: Option<usize>,
    ) -> Violation {
        let outcome = Verdict::violation(profile, rule, None, claims, String::new());
        Violation {
            oracle,
            rule,
            detail: crate::quote::bound_reason(detail),
            step,
            outcome: outcome.map(|v| v.outcome),
            waited: None,
        }
    }

    /// The grouping key of findings.
    pub fn key(&self) -> (Oracle, RuleId) {
        (self.oracle, self.rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule the fuzzer ends a session on is one the observer charges.
    #[test]
    fn the_fatal_rules_are_observer_rules() {
        let always_on = crate::observer::ALWAYS_ON_RULES;
        for rule in REFUTED_REPLY_RULES
            .iter()
            .chain(&CLOCK_RULES)
            .chain(OUT_OF_STEP_RULES)
        {
            assert!(always_on.contains(rule), "{rule} is not an always-on rule");
        }
    }
}
