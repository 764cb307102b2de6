//! The exact sweep: the whole suite against one fault, compared with the gap table.

use super::proof::{flagged, unjudged};
use crate::refengine::fault_gaps::{FaultGap, UNEXPLAINED};
use crate::refengine::faults::Fault;
use crate::report::ScenarioReport;
use crate::rules::{Outcome, Profile, RuleId, Verdict};
use std::collections::BTreeSet;
use std::time::Duration;

/// What the whole suite flagged for one fault, against its committed gap entry.
#[derive(Clone, Debug)]
pub struct ExactResult {
    pub fault: Fault,
    /// The difference observed (`None`: the fault failed exactly its named rules); the why
    /// comes from the committed entry when the difference is the same, else [`UNEXPLAINED`].
    pub observed: Option<FaultGap>,
    pub committed: Option<FaultGap>,
    /// Rules observed but not judged anywhere (a missed deadline the machine's load
    /// explains): no evidence either way, so a named rule among them counts as missed.
    pub unjudged: BTreeSet<RuleId>,
    /// Each flagged rule's first violation, as `RULE OUTCOME scenario: reason`.
    evidence: Vec<(RuleId, String)>,
    duration: Duration,
}

/// Compares the sessions of a whole-suite run of `fault` with its committed entry.
pub fn exact_result(
    fault: Fault,
    runs: &[(String, ScenarioReport)],
    committed: Option<&FaultGap>,
) -> ExactResult {
    let named: BTreeSet<RuleId> = fault.rules().iter().copied().collect();
    let mut evidence: Vec<(RuleId, String)> = Vec::new();
    let mut all = BTreeSet::new();
    let mut unjudged_anywhere = BTreeSet::new();
    for (scenario, report) in runs {
        unjudged_anywhere.extend(unjudged(report));
        for verdict in flagged(report) {
            all.insert(verdict.rule);
            if !evidence.iter().any(|(r, _)| *r == verdict.rule) {
                evidence.push((
                    verdict.rule,
                    format!("{} in {scenario}: {}", verdict.outcome, verdict.reason),
                ));
            }
        }
    }
    let missed: BTreeSet<RuleId> = named.difference(&all).copied().collect();
    let extra: BTreeSet<RuleId> = all.difference(&named).copied().collect();
    let unjudged = unjudged_anywhere.difference(&all).copied().collect();
    let observed = (!missed.is_empty() || !extra.is_empty()).then(|| {
        let why = committed
            .filter(|c| c.missed == missed && c.extra == extra)
            .map_or_else(|| UNEXPLAINED.to_owned(), |c| c.why.clone());
        FaultGap {
            fault: fault.name().to_owned(),
            missed,
            extra,
            why,
        }
    });
    ExactResult {
        fault,
        observed,
        committed: committed.cloned(),
        unjudged,
        evidence,
        duration: runs.iter().map(|(_, r)| r.duration).sum(),
    }
}

fn sets(gap: Option<&FaultGap>) -> (BTreeSet<RuleId>, BTreeSet<RuleId>) {
    gap.map_or_else(Default::default, |g| (g.missed.clone(), g.extra.clone()))
}

impl ExactResult {
    /// The sweep agrees with the committed table: the same missed and extra rules (an entry
    /// never accepts a subset: in simulated time nothing depends on when a line lands).
    pub fn agrees(&self) -> bool {
        sets(self.observed.as_ref()) == sets(self.committed.as_ref())
    }

    fn evidence_of(&self, rule: RuleId) -> &str {
        self.evidence
            .iter()
            .find(|(r, _)| *r == rule)
            .map_or("", |(_, e)| e.as_str())
    }

    /// The comparison as a report: per named rule PASS (flagged) or SKIP (a known gap); per
    /// extra rule SKIP (known collateral); FAIL for every difference from the table.
    pub fn report(&self, profile: Profile) -> ScenarioReport {
        let (missed, extra) = sets(self.observed.as_ref());
        let (known_missed, known_extra) = sets(self.committed.as_ref());
        let why = self.committed.as_ref().map_or("", |c| c.why.as_str());
        let stale = "fault_gaps.tsv differs: update it with `usicheck selftest --exact --write \
                     src/refengine/fault_gaps.tsv`";
        let mut verdicts = Vec::new();
        let mut verdict = |rule: RuleId, outcome: Outcome, reason: String| {
            let mut v = Verdict::pass(profile, rule, None);
            v.outcome = outcome;
            v.reason = reason;
            verdicts.push(v);
        };
        for &rule in self.fault.rules() {
            match (missed.contains(&rule), known_missed.contains(&rule)) {
                (false, false) => verdict(rule, Outcome::Pass, self.evidence_of(rule).to_owned()),
                (true, true) => verdict(rule, Outcome::Skip, format!("known gap: {why}")),
                (true, false) if self.unjudged.contains(&rule) => verdict(
                    rule,
                    Outcome::Fail,
                    "not judged: the machine's load held usicheck up when it was due; run the \
                     sweep on a quiet machine"
                        .to_owned(),
                ),
                (true, false) => verdict(
                    rule,
                    Outcome::Fail,
                    format!("the whole suite no longer flags it; {stale}"),
                ),
                (false, true) => verdict(
                    rule,
                    Outcome::Fail,
                    format!("{}; listed as missed, {stale}", self.evidence_of(rule)),
                ),
            }
        }
        for &rule in extra.union(&known_extra) {
            match (extra.contains(&rule), known_extra.contains(&rule)) {
                (true, true) => verdict(
                    rule,
                    Outcome::Skip,
                    format!("known collateral ({}): {why}", self.evidence_of(rule)),
                ),
                (true, false) => verdict(
                    rule,
                    Outcome::Fail,
                    format!(
                        "flagged although the fault does not name it: {}; {stale}",
                        self.evidence_of(rule)
                    ),
                ),
                _ => verdict(
                    rule,
                    Outcome::Fail,
                    format!("listed as collateral but no longer flagged; {stale}"),
                ),
            }
        }
        let outcome = if self.agrees() {
            Outcome::Pass
        } else {
            Outcome::Fail
        };
        ScenarioReport {
            name: self.fault.name().to_owned(),
            file: format!("usicheck engine --fault {}", self.fault.name()),
            outcome,
            rules: verdicts.iter().map(|v| v.rule).collect(),
            verdicts,
            failure: None,
            skipped: None,
            engine_name: None,
            engine_author: None,
            advertised_options: None,
            missed_replies: Vec::new(),
            duration: self.duration,
            transcript_path: None,
            transcript_tail: Vec::new(),
            replay: format!("usicheck selftest --exact --fault {}", self.fault.name()),
            timed_searches: Default::default(),
            timeline: None,
        }
    }
}

/// The committed table with the swept faults' entries replaced, in catalogue order.
pub fn merge_table(committed: &[FaultGap], results: &[ExactResult]) -> Vec<FaultGap> {
    Fault::ALL
        .iter()
        .filter_map(|fault| match results.iter().find(|r| r.fault == *fault) {
            Some(result) => result.observed.clone(),
            None => committed.iter().find(|g| g.fault == fault.name()).cloned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::fixtures::{scenario, verdict};

    fn report(verdicts: Vec<Verdict>) -> ScenarioReport {
        scenario("s", verdicts)
    }

    fn fail(rule: RuleId, reason: &str) -> Verdict {
        verdict(rule, Outcome::Fail, reason)
    }

    #[test]
    fn exact_when_only_the_named_rules_fail() {
        let runs = vec![(
            "a".to_owned(),
            report(vec![fail(crate::rule!("USI-HANDSHAKE-002"), "no id name")]),
        )];
        let result = exact_result(Fault::NoIdName, &runs, None);
        assert!(result.observed.is_none() && result.agrees());
    }

    #[test]
    fn a_new_difference_is_unexplained_and_disagrees() {
        let runs = vec![(
            "a".to_owned(),
            report(vec![
                fail(crate::rule!("USI-HANDSHAKE-002"), "no id name"),
                fail(crate::rule!("USI-GO-002"), "no bestmove"),
            ]),
        )];
        let result = exact_result(Fault::NoIdName, &runs, None);
        let gap = result.observed.as_ref().unwrap();
        assert_eq!(gap.why, UNEXPLAINED);
        assert!(!result.agrees());
        assert_eq!(result.report(Profile::Usi2).outcome, Outcome::Fail);
        let merged = merge_table(&[], &[result]);
        assert_eq!(merged.len(), 1);
    }

    /// A missed deadline is a violation like any other (a hang shows as one): only a verdict
    /// the load withheld is left out, and it proves nothing.
    #[test]
    fn timeouts_count_and_only_unjudged_verdicts_are_left_out() {
        let named = crate::rule!("USI-HANDSHAKE-002");
        let late = crate::rule!("USI-GO-004");
        let unjudged = |rule: RuleId| {
            let mut v = verdict(rule, Outcome::Info, "not judged: load");
            v.unjudged = true;
            v
        };
        let hang = vec![(
            "a".to_owned(),
            report(vec![
                fail(named, "no id name"),
                fail(
                    crate::rule!("USI-GO-002"),
                    "step 4: expected a legal `bestmove` within 5000 ms; got nothing matching within 5000 ms",
                ),
                fail(late, "`bestmove 7g7f` 12 ms after the deadline"),
            ]),
        )];
        let result = exact_result(Fault::NoIdName, &hang, None);
        assert!(!result.agrees());
        let extra = &result.observed.as_ref().unwrap().extra;
        assert_eq!(
            extra,
            &BTreeSet::from([crate::rule!("USI-GO-002"), late]),
            "the timeout and the late reply both count"
        );
        let loaded = vec![(
            "a".to_owned(),
            report(vec![fail(named, "no id name"), unjudged(late)]),
        )];
        let result = exact_result(Fault::NoIdName, &loaded, None);
        assert!(result.agrees());
        assert_eq!(result.unjudged.len(), 1);
        let named_unjudged = vec![("a".to_owned(), report(vec![unjudged(named)]))];
        let result = exact_result(Fault::NoIdName, &named_unjudged, None);
        assert!(!result.agrees(), "withheld is not proven");
        let report = result.report(Profile::Usi2);
        assert!(
            report.verdicts[0].reason.starts_with("not judged"),
            "{report:?}"
        );
    }
}
