//! Findings the campaign already knows: recorded (and shrunk) earlier in the run, or waived by
//! a baseline. A session that meets one counts it and goes on (or ends at once when the engine
//! is gone or stuck) instead of reporting it again, and the generator mostly avoids the kind of
//! episode that triggered it: a campaign explores past what the author already knows.
//!
//! ```
//! use usicheck::fuzzer::known::Known;
//! use usicheck::fuzzer::oracle::{Oracle, Violation};
//! let v = Violation::graded(Oracle::Protocol, usicheck::rule!("USI-MATE-002"), "`go mate` answered with `bestmove`".into(), Some(3));
//! let mut known = Known::default();
//! assert!(!known.contains(&v));
//! known.add(&v);
//! assert!(known.contains(&v));
//! // A baseline waives a rule whatever the oracle.
//! let waived = Known::waiving([usicheck::rule!("USI-MATE-002")]);
//! assert!(waived.contains(&v));
//! ```

use super::oracle::{Oracle, Violation};
use crate::observer::MISREAD_RULES;
use crate::rules::RuleId;
use std::collections::BTreeSet;

/// The findings a campaign does not report again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Known {
    groups: BTreeSet<(Oracle, RuleId)>,
    waived: BTreeSet<RuleId>,
}

impl Known {
    /// Known from the start: the rules a baseline waives.
    pub fn waiving(rules: impl IntoIterator<Item = RuleId>) -> Known {
        Known {
            groups: BTreeSet::new(),
            waived: rules.into_iter().collect(),
        }
    }

    /// `v`'s group is known from now on.
    pub fn add(&mut self, v: &Violation) {
        self.groups.insert(v.key());
    }

    pub fn contains(&self, v: &Violation) -> bool {
        self.groups.contains(&v.key()) || self.waived.contains(&v.rule)
    }

    /// Whether a known finding still lets the session go on: a wrong or late reply leaves the
    /// exchange readable; a crash or an exit does not, nor a misread position (the engine's
    /// board is not the GUI's: its later moves would be charged to the move rules).
    pub fn recoverable(v: &Violation) -> bool {
        !v.oracle.is_death() && !MISREAD_RULES.contains(&v.rule)
    }

    /// Whether meeting `v` again costs a session its time: a hang shows only once its wait is
    /// out, and what cannot be recovered from ends the session. The generator avoids such a
    /// finding's trigger; the others it meets, counts and recovers from at once, so the states
    /// behind them stay explored.
    pub fn costly(v: &Violation) -> bool {
        v.oracle == Oracle::Hang || !Known::recoverable(v)
    }
}
