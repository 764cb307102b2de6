//! Findings about a single protocol line, each tied to a rule of the catalogue.

use crate::rules::RuleId;
use std::fmt;

/// One finding: the rule it concerns (a catalogue ID, e.g. `USI-INFO-011`) and what was
/// seen. Whether it is a FAIL or a WARN is the catalogue's decision, not the parser's.
///
/// ```
/// use usicheck::usi::{Diagnostic, rule};
/// let d = Diagnostic::new(rule::INFO_011, "`depth` after `pv`");
/// assert_eq!(d.rule, rule::INFO_011);
/// assert_eq!(d.to_string(), format!("{}: `depth` after `pv`", rule::INFO_011));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub rule: RuleId,
    pub message: String,
}

impl Diagnostic {
    pub fn new(rule: RuleId, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}
