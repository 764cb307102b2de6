//! The coverage registry: which scenarios and checks exercise a rule, and which reference
//! engine faults prove that the check can fail.

use super::RuleId;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// What covers one rule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RuleCoverage {
    /// Scenario names whose `rules:` list names the rule.
    pub scenarios: Vec<String>,
    /// Built-in checks (e.g. the grammar checks run on every line) that judge the rule.
    pub checks: Vec<String>,
    /// Reference-engine faults (`usicheck engine --fault NAME`) that break the rule.
    pub faults: Vec<String>,
}

/// How far a rule is implemented (BRIEF: a rule counts as implemented only when a faulty
/// engine is shown to fail it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The GUI's own rule ([`super::Rule::binds_engine`] is false): an engine cannot break
    /// it, so no fault can prove a check of it.
    Gui,
    /// The rule names the engine but leaves it nothing of its own to break
    /// ([`super::Rule::no_engine_check_of_its_own`] says why): its engine side is another
    /// rule's, or it is a historic proposal.
    NoCheckOfItsOwn,
    /// No scenario or check names the rule.
    NotImplemented,
    /// A scenario or check covers it, but no fault proves the check can fail.
    Unproven,
    /// Covered and proven by at least one fault.
    Implemented,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Gui => "the GUI's",
            Status::NoCheckOfItsOwn => "none of its own",
            Status::NotImplemented => "not implemented",
            Status::Unproven => "unproven",
            Status::Implemented => "implemented",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl RuleCoverage {
    pub fn status(&self) -> Status {
        match (
            self.scenarios.is_empty() && self.checks.is_empty(),
            self.faults.is_empty(),
        ) {
            (true, _) => Status::NotImplemented,
            (false, true) => Status::Unproven,
            (false, false) => Status::Implemented,
        }
    }
}

/// Rule → coverage, filled from the bundled scenarios, the built-in checks and the fault list.
///
/// ```
/// use usicheck::rules::{Coverage, RuleId, Status};
/// let id: RuleId = "USI-QUIT-001".parse().unwrap();
/// let mut coverage = Coverage::default();
/// assert_eq!(coverage.status(id), Status::NotImplemented);
/// coverage.add_scenario("12-quit/idle", &[id]);
/// assert_eq!(coverage.status(id), Status::Unproven);
/// coverage.add_fault("ignore-quit", &[id]);
/// assert_eq!(coverage.status(id), Status::Implemented);
/// ```
#[derive(Clone, Debug, Default, Serialize)]
pub struct Coverage {
    rules: BTreeMap<RuleId, RuleCoverage>,
}

fn push_unique(list: &mut Vec<String>, name: &str) {
    if !list.iter().any(|n| n == name) {
        list.push(name.to_owned());
    }
}

impl Coverage {
    /// Records that scenario `name` checks `rules`.
    pub fn add_scenario(&mut self, name: &str, rules: &[RuleId]) {
        for &id in rules {
            push_unique(&mut self.rules.entry(id).or_default().scenarios, name);
        }
    }

    /// Records that the built-in check `name` judges `rules`.
    pub fn add_check(&mut self, name: &str, rules: &[RuleId]) {
        for &id in rules {
            push_unique(&mut self.rules.entry(id).or_default().checks, name);
        }
    }

    /// Records that reference-engine fault `fault` breaks `rules`.
    pub fn add_fault(&mut self, fault: &str, rules: &[RuleId]) {
        for &id in rules {
            push_unique(&mut self.rules.entry(id).or_default().faults, fault);
        }
    }

    /// The coverage of one rule (empty when nothing names it).
    pub fn of(&self, id: RuleId) -> RuleCoverage {
        self.rules.get(&id).cloned().unwrap_or_default()
    }

    pub fn status(&self, id: RuleId) -> Status {
        if id.rule().no_engine_check_of_its_own().is_some() {
            return Status::NoCheckOfItsOwn;
        }
        if !id.rule().binds_engine() {
            return Status::Gui;
        }
        self.rules
            .get(&id)
            .map_or(Status::NotImplemented, RuleCoverage::status)
    }
}
