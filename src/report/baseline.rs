//! The baseline: deviations an engine's authors accept, so a CI gate passes on everything else.
//!
//! A waived FAIL or WARN is still reported (marked with the waiver's reason) but does not fail
//! the gate; a waiver that no verdict used while its rule was judged is stale and fails the
//! gate (the engine is fixed: remove the line), as does any violation not waived.
//!
//! The file has one waiver per line, tab-separated: rule ID, scenario (a bundled name such as
//! `10-mate/time-limit`, or `*` for all), and why the deviation is accepted. `#` starts a
//! comment line.
//!
//! ```
//! use usicheck::report::Baseline;
//! let text = "# fairy-stockfish\nUSI-MATE-002\t*\treads `go mate` as UCI does\n";
//! let baseline = Baseline::parse("fs.tsv", text).unwrap();
//! let rule = "USI-MATE-002".parse().unwrap();
//! assert_eq!(baseline.waiver(rule, "10-mate/mate-in-one").unwrap().reason, "reads `go mate` as UCI does");
//! assert!(Baseline::parse("fs.tsv", "USI-MATE-02\t*\twhy\n").unwrap_err().starts_with("fs.tsv:1: "));
//! ```

use super::FailOn;
use crate::rules::{RuleId, Verdict};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One accepted deviation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiver {
    pub rule: RuleId,
    /// The bundled scenario it applies to; `None` for every scenario (`*`).
    pub scenario: Option<String>,
    pub reason: String,
    /// 1-based line in the file.
    pub line: usize,
}

/// The waivers of a baseline file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    pub file: String,
    pub waivers: Vec<Waiver>,
}

impl Baseline {
    /// Parses a baseline; an error names `file:line` and what is wrong there.
    pub fn parse(file: &str, text: &str) -> Result<Baseline, String> {
        let mut waivers = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let at = |message: String| format!("{file}:{}: {message}", index + 1);
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let cells: Vec<&str> = line.split('\t').map(str::trim).collect();
            let [rule, scenario, reason] = cells[..] else {
                return Err(at(format!(
                    "expected RULE<TAB>SCENARIO or *<TAB>REASON, got {} fields",
                    cells.len()
                )));
            };
            let rule: RuleId = rule
                .to_ascii_uppercase()
                .parse()
                .map_err(|e| at(format!("{e}")))?;
            if reason.is_empty() {
                return Err(at(format!("{rule}: say why the deviation is accepted")));
            }
            waivers.push(Waiver {
                rule,
                scenario: (scenario != "*").then(|| scenario.to_owned()),
                reason: reason.to_owned(),
                line: index + 1,
            });
        }
        Ok(Baseline {
            file: file.to_owned(),
            waivers,
        })
    }

    /// The waiver for a violation of `rule` seen in the bundled scenario `scenario`.
    pub fn waiver(&self, rule: RuleId, scenario: &str) -> Option<&Waiver> {
        self.waivers
            .iter()
            .find(|w| w.rule == rule && w.scenario.as_deref().is_none_or(|s| s == scenario))
    }

    /// Marks the gate-failing verdicts of scenario `scenario` that a waiver covers; returns
    /// the indices of the waivers used.
    pub fn apply(&self, scenario: &str, verdicts: &mut [Verdict], fail_on: FailOn) -> Vec<usize> {
        let mut used = Vec::new();
        for verdict in verdicts.iter_mut().filter(|v| fail_on.fails(v)) {
            if let Some(index) = self.waivers.iter().position(|w| {
                w.rule == verdict.rule && w.scenario.as_deref().is_none_or(|s| s == scenario)
            }) {
                verdict.waived = Some(self.waivers[index].reason.clone());
                used.push(index);
            }
        }
        used
    }

    /// One line per waiver that no verdict used although its rule was judged (`judged`):
    /// the engine no longer deviates, so the waiver must go.
    pub fn stale(&self, used: &[usize], judged: &[RuleId]) -> Vec<String> {
        self.waivers
            .iter()
            .enumerate()
            .filter(|(index, w)| !used.contains(index) && judged.contains(&w.rule))
            .map(|(_, w)| {
                format!(
                    "{}:{}: stale waiver: {} {}no longer fails or warns: remove the line",
                    self.file,
                    w.line,
                    w.rule,
                    w.scenario
                        .as_deref()
                        .map_or(String::new(), |s| format!("in {s} "))
                )
            })
            .collect()
    }
}

/// A baseline accepting every gate-failing verdict of `verdicts` (scenario name, verdict),
/// one waiver per rule, to edit: each reason says what was seen and asks why it is accepted.
pub fn write(verdicts: &[(String, Verdict)], fail_on: FailOn) -> String {
    let mut by_rule: BTreeMap<RuleId, (&str, &str)> = BTreeMap::new();
    for (scenario, verdict) in verdicts.iter().filter(|(_, v)| fail_on.fails(v)) {
        by_rule
            .entry(verdict.rule)
            .or_insert((scenario.as_str(), verdict.reason.as_str()));
    }
    let mut out = String::from(
        "# usicheck baseline: accepted deviations, one per line: RULE<TAB>SCENARIO or *<TAB>why.\n\
         # Written by --write-baseline from one run; replace each reason with why it is accepted.\n",
    );
    for (rule, (scenario, reason)) in by_rule {
        let seen: String = reason
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(120)
            .collect();
        let _ = writeln!(out, "{rule}\t*\tseen in {scenario}: {seen}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::verdict;
    use crate::rules::Outcome;

    const TEXT: &str =
        "USI-QUIT-002\t12-quit/quit-during-search\tknown\nUSI-STOP-002\t*\tslow stop\n";

    #[test]
    fn waives_only_the_named_scenario_and_rule() {
        let baseline = Baseline::parse("b.tsv", TEXT).unwrap();
        let mut verdicts = vec![verdict(
            crate::rule!("USI-QUIT-002"),
            Outcome::Fail,
            "still running",
        )];
        assert_eq!(
            baseline.apply("12-quit/quit-when-idle", &mut verdicts, FailOn::Must),
            Vec::<usize>::new()
        );
        assert!(FailOn::Must.fails(&verdicts[0]));
        assert_eq!(
            baseline.apply("12-quit/quit-during-search", &mut verdicts, FailOn::Must),
            vec![0usize]
        );
        assert_eq!(verdicts[0].waived.as_deref(), Some("known"));
        assert!(!FailOn::Must.fails(&verdicts[0]));
    }

    #[test]
    fn a_waiver_is_stale_only_when_its_rule_was_judged_and_it_went_unused() {
        let baseline = Baseline::parse("b.tsv", TEXT).unwrap();
        let quit = crate::rule!("USI-QUIT-002");
        let stale = baseline.stale(&[], &[quit]);
        assert_eq!(stale.len(), 1, "{stale:?}");
        assert!(
            stale[0]
                .starts_with("b.tsv:1: stale waiver: USI-QUIT-002 in 12-quit/quit-during-search")
        );
        assert!(baseline.stale(&[0], &[quit]).is_empty());
        assert!(
            baseline.stale(&[], &[]).is_empty(),
            "rules not judged cannot be stale"
        );
    }
}
