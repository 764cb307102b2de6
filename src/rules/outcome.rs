//! The verdict vocabulary shared by scenarios, the fuzzer and reporters.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The verdict for one rule (or one check of it) in a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Outcome {
    /// Checked and obeyed.
    Pass,
    /// A rule of FAIL severity was violated.
    Fail,
    /// A rule of WARN severity was violated.
    Warn,
    /// Not checked, with a reason (precondition unmet, engine lacks the feature, …).
    Skip,
    /// Observed and reported without a judgement (MAY rules, unclaimed extensions).
    Info,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Warn => "WARN",
            Outcome::Skip => "SKIP",
            Outcome::Info => "INFO",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a violation of a rule amounts to under a profile (RULES.md §0.1, last column).
/// Ordered from most to least severe.
///
/// ```
/// use usicheck::rules::{Outcome, Severity};
/// assert_eq!(Severity::Warn.outcome(), Some(Outcome::Warn));
/// assert_eq!(Severity::NotApplicable.outcome(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Fail,
    Warn,
    Info,
    /// The profile does not apply the rule: violations are not reported.
    NotApplicable,
}

impl Severity {
    /// The outcome a violation produces, `None` when the rule does not apply.
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            Severity::Fail => Some(Outcome::Fail),
            Severity::Warn => Some(Outcome::Warn),
            Severity::Info => Some(Outcome::Info),
            Severity::NotApplicable => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Fail => "FAIL",
            Severity::Warn => "WARN",
            Severity::Info => "INFO",
            Severity::NotApplicable => "n/a",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
