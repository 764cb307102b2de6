//! Judging one fault's sessions: did each rule it names fail, and where.

use super::plan::{Planned, Target};
use crate::refengine::fault_gaps::FaultGap;
use crate::refengine::faults::Fault;
use crate::report::ScenarioReport;
use crate::rules::{Outcome, Profile, RuleId, Verdict};
use std::time::Duration;

/// The verdicts of a session that flag a rule: FAIL, WARN or INFO (what the profile makes of
/// a violation), never a verdict the machine's load withheld ([`Verdict::is_violation`]).
pub fn flagged(report: &ScenarioReport) -> impl Iterator<Item = &Verdict> {
    report.verdicts.iter().filter(|v| v.is_violation())
}

/// The rules a session observed but did not judge (a missed deadline the machine's load
/// explains).
pub fn unjudged(report: &ScenarioReport) -> impl Iterator<Item = RuleId> + '_ {
    report
        .verdicts
        .iter()
        .filter(|v| v.unjudged)
        .map(|v| v.rule)
}

/// A violation the self-test saw: where, graded how, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observed {
    pub scenario: String,
    pub outcome: Outcome,
    pub reason: String,
    /// The command that shows it again.
    pub replay: String,
}

/// What the self-test found for one rule a fault names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleProof {
    /// A scenario flagged it: the check can fail.
    Proven(Observed),
    /// Not flagged, as the gap table says (with its reason).
    KnownGap { why: String },
    /// Flagged although the gap table says the suite misses it: the table is stale.
    GapClosed(Observed),
    /// No scenario flagged it: each scenario with what it said about the rule.
    NotProven { seen: Vec<(String, String)> },
}

/// The self-test of one fault.
#[derive(Clone, Debug)]
pub struct FaultProof {
    pub fault: Fault,
    pub rules: Vec<(RuleId, RuleProof)>,
    pub duration: Duration,
    /// The transcript excerpt and replay command of the first scenario that let a rule pass.
    tail: Vec<String>,
    replay: String,
}

/// The first violation of `rule`: by a scenario's own check of it when one saw it, else by
/// the always-on checks or the pre-flight.
fn observed(rule: RuleId, runs: &[(&Target, ScenarioReport)]) -> Option<Observed> {
    let own = |target: &Target, v: &Verdict| !v.always_on && target.scenario.rules.contains(&rule);
    let find = |own_check: bool| {
        runs.iter().find_map(|(target, report)| {
            flagged(report)
                .find(|v| v.rule == rule && (!own_check || own(target, v)))
                .map(|v| Observed {
                    scenario: target.name.clone(),
                    outcome: v.outcome,
                    reason: v.reason.clone(),
                    replay: report.replay.clone(),
                })
        })
    };
    find(true).or_else(|| find(false))
}

/// What a session said about `rule`, when it did not flag it.
fn said(rule: RuleId, report: &ScenarioReport) -> String {
    match report.verdicts.iter().find(|v| v.rule == rule) {
        Some(v) if v.reason.is_empty() => v.outcome.to_string(),
        Some(v) => format!("{} ({})", v.outcome, v.reason),
        None => "not judged".to_owned(),
    }
}

/// Judges a fault from its sessions (`runs`, in plan order) against the committed gap entry.
pub fn judge(
    planned: &Planned,
    runs: &[(&Target, ScenarioReport)],
    gap: Option<&FaultGap>,
) -> FaultProof {
    let fault = planned.fault.expect("a fault's plan");
    let mut tail = Vec::new();
    let mut replay = String::new();
    let rules = planned
        .rules
        .iter()
        .map(|&rule| {
            let known_gap = gap.filter(|g| g.missed.contains(&rule));
            let proof = match (observed(rule, runs), known_gap) {
                (Some(seen), None) => RuleProof::Proven(seen),
                (Some(seen), Some(_)) => RuleProof::GapClosed(seen),
                (None, Some(gap)) => RuleProof::KnownGap {
                    why: gap.why.clone(),
                },
                (None, None) => {
                    let listing: Vec<_> = runs
                        .iter()
                        .filter(|(t, _)| t.scenario.rules.contains(&rule))
                        .collect();
                    if let Some((_, report)) = listing.first().filter(|_| replay.is_empty()) {
                        tail = report.transcript_tail.clone();
                        replay = report.replay.clone();
                    }
                    RuleProof::NotProven {
                        seen: listing
                            .iter()
                            .map(|(t, report)| (t.name.clone(), said(rule, report)))
                            .collect(),
                    }
                }
            };
            (rule, proof)
        })
        .collect();
    FaultProof {
        fault,
        rules,
        duration: runs.iter().map(|(_, r)| r.duration).sum(),
        tail,
        replay,
    }
}

impl FaultProof {
    /// Every rule proven or a known gap.
    pub fn holds(&self) -> bool {
        self.rules
            .iter()
            .all(|(_, p)| matches!(p, RuleProof::Proven(_) | RuleProof::KnownGap { .. }))
    }

    /// The proof as a report: per rule PASS (proven, with the violation seen), SKIP (a known
    /// gap) or FAIL (the rule stayed PASS, or the gap table is stale).
    pub fn report(&self, profile: Profile) -> ScenarioReport {
        let verdicts: Vec<Verdict> = self
            .rules
            .iter()
            .map(|(rule, proof)| {
                let mut verdict = Verdict::pass(profile, *rule, None);
                match proof {
                    RuleProof::Proven(seen) => {
                        verdict.reason =
                            format!("{} in {}: {}", seen.outcome, seen.scenario, seen.reason);
                    }
                    RuleProof::KnownGap { why } => {
                        verdict.outcome = Outcome::Skip;
                        verdict.reason = format!("known gap (fault_gaps.tsv): {why}");
                    }
                    RuleProof::GapClosed(seen) => {
                        verdict.outcome = Outcome::Fail;
                        verdict.reason = format!(
                            "{} in {} ({}), but fault_gaps.tsv lists it as missed: update the \
                             table with `usicheck selftest --exact --write src/refengine/fault_gaps.tsv`",
                            seen.outcome, seen.scenario, seen.reason
                        );
                    }
                    RuleProof::NotProven { seen } => {
                        verdict.outcome = Outcome::Fail;
                        let seen: Vec<String> =
                            seen.iter().map(|(s, said)| format!("{s}: {said}")).collect();
                        verdict.reason = format!(
                            "the fault broke it, but no scenario flagged it ({})",
                            seen.join("; ")
                        );
                    }
                }
                verdict
            })
            .collect();
        let outcome = verdicts
            .iter()
            .map(|v| v.outcome)
            .max_by_key(|o| crate::report::badness(*o))
            .unwrap_or(Outcome::Pass);
        ScenarioReport {
            name: self.fault.name().to_owned(),
            file: format!("usicheck engine --fault {}", self.fault.name()),
            outcome,
            rules: self.rules.iter().map(|(r, _)| *r).collect(),
            verdicts,
            failure: None,
            skipped: None,
            engine_name: None,
            engine_author: None,
            advertised_options: None,
            missed_replies: Vec::new(),
            duration: self.duration,
            transcript_path: None,
            transcript_tail: self.tail.clone(),
            replay: self.replay.clone(),
            timed_searches: Default::default(),
            timeline: None,
        }
    }
}

/// The clean reference engine over the same scenarios, as one report: every verdict of every
/// session, the always-on checks' on every rule included, each violation's reason naming its
/// scenario. The reference engine must break nothing, so every violation is a FAIL here,
/// whatever the profile makes of it (a WARN or a MAY rule's INFO); only a verdict the
/// machine's load withheld stays INFO.
pub fn clean_report(runs: &[(&Target, ScenarioReport)]) -> ScenarioReport {
    let mut rules: Vec<RuleId> = Vec::new();
    let mut verdicts = Vec::new();
    let mut first_bad: Option<&ScenarioReport> = None;
    for (target, report) in runs {
        for verdict in &report.verdicts {
            let mut verdict = verdict.clone();
            if verdict.is_violation() {
                first_bad.get_or_insert(report);
                verdict.reason =
                    format!("{} in {}: {}", verdict.outcome, target.name, verdict.reason);
                verdict.outcome = Outcome::Fail;
            } else if verdict.outcome != Outcome::Pass {
                verdict.reason = format!("{}: {}", target.name, verdict.reason);
            }
            if !rules.contains(&verdict.rule) {
                rules.push(verdict.rule);
            }
            verdict.always_on = false;
            verdicts.push(verdict);
        }
    }
    let outcome = verdicts
        .iter()
        .map(|v| v.outcome)
        .filter(|o| *o != Outcome::Skip)
        .max_by_key(|o| crate::report::badness(*o))
        .unwrap_or(Outcome::Pass);
    ScenarioReport {
        name: "no fault".to_owned(),
        file: "usicheck engine".to_owned(),
        outcome,
        rules,
        verdicts,
        failure: first_bad.and_then(|r| r.failure.clone()),
        skipped: None,
        engine_name: runs.iter().find_map(|(_, r)| r.engine_name.clone()),
        engine_author: runs.iter().find_map(|(_, r)| r.engine_author.clone()),
        advertised_options: None,
        missed_replies: Vec::new(),
        duration: runs.iter().map(|(_, r)| r.duration).sum(),
        transcript_path: first_bad.and_then(|r| r.transcript_path.clone()),
        transcript_tail: first_bad
            .map(|r| r.transcript_tail.clone())
            .unwrap_or_default(),
        replay: first_bad.map(|r| r.replay.clone()).unwrap_or_default(),
        timed_searches: Default::default(),
        timeline: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::{scenario, verdict};
    use crate::scenario::load_str;
    use std::collections::BTreeSet;

    fn target(name: &str, rule: RuleId) -> Target {
        let yaml = format!(
            "name: {name}\ndescription: d\nrules: [{rule}]\nsteps:\n  - handshake: {{}}\n  - send: position startpos\n  - send: go btime 0 wtime 0 byoyomi 100\n  - expect: {{bestmove: legal, within: 1s, rule: {rule}}}\n"
        );
        Target {
            name: name.to_owned(),
            scenario: load_str(name, &yaml).unwrap(),
            profile: Profile::Usi2,
        }
    }

    fn report(verdicts: Vec<Verdict>) -> ScenarioReport {
        scenario("s", verdicts)
    }

    fn seen(rule: RuleId, outcome: Outcome) -> Verdict {
        verdict(rule, outcome, "seen")
    }

    fn planned(fault: Fault) -> Planned {
        Planned {
            fault: Some(fault),
            partner: None,
            rules: fault.rules().to_vec(),
            targets: vec![0],
        }
    }

    #[test]
    fn a_flagged_rule_is_proven_where_it_was_seen() {
        let rule = crate::rule!("USI-HANDSHAKE-002");
        let t = target("a", rule);
        let runs = [(&t, report(vec![seen(rule, Outcome::Fail)]))];
        let proof = judge(&planned(Fault::NoIdName), &runs, None);
        assert!(proof.holds());
        let RuleProof::Proven(seen) = &proof.rules[0].1 else {
            panic!("{:?}", proof.rules)
        };
        assert_eq!(seen.scenario, "a");
        assert_eq!(proof.report(Profile::Usi2).outcome, Outcome::Pass);
    }

    #[test]
    fn a_rule_that_stayed_pass_fails_the_proof_and_names_the_scenario() {
        let rule = crate::rule!("USI-HANDSHAKE-002");
        let t = target("a", rule);
        let runs = [(&t, report(vec![seen(rule, Outcome::Pass)]))];
        let proof = judge(&planned(Fault::NoIdName), &runs, None);
        assert!(!proof.holds());
        let report = proof.report(Profile::Usi2);
        assert_eq!(report.outcome, Outcome::Fail);
        assert!(report.verdicts[0].reason.contains("a: PASS"), "{report:?}");
        assert_eq!(
            report.replay, runs[0].1.replay,
            "the replay of the scenario that let it pass"
        );
    }

    #[test]
    fn the_gap_table_excuses_a_missed_rule_and_is_stale_when_it_fails() {
        let rule = crate::rule!("USI-HANDSHAKE-002");
        let gap = FaultGap {
            fault: "no-id-name".into(),
            missed: BTreeSet::from([rule]),
            extra: BTreeSet::new(),
            why: "because".into(),
        };
        let t = target("a", rule);
        let quiet = [(&t, report(vec![seen(rule, Outcome::Pass)]))];
        let proof = judge(&planned(Fault::NoIdName), &quiet, Some(&gap));
        assert!(proof.holds());
        assert_eq!(proof.report(Profile::Usi2).outcome, Outcome::Skip);
        let caught = [(&t, report(vec![seen(rule, Outcome::Warn)]))];
        let proof = judge(&planned(Fault::NoIdName), &caught, Some(&gap));
        assert!(!proof.holds());
        assert!(matches!(proof.rules[0].1, RuleProof::GapClosed(_)));
    }

    #[test]
    fn the_clean_report_fails_on_any_violation_and_names_its_scenario() {
        let rule = crate::rule!("USI-GO-004");
        let t = target("late", rule);
        let runs = [(&t, report(vec![seen(rule, Outcome::Fail)]))];
        let clean = clean_report(&runs);
        assert_eq!(clean.outcome, Outcome::Fail);
        assert!(clean.verdicts[0].reason.starts_with("FAIL in late: "));
    }

    /// A WARN, a MAY rule's INFO and an always-on violation of a rule the scenario does not
    /// list all fail the clean engine; a verdict the load withheld does not.
    #[test]
    fn the_clean_report_fails_on_warn_info_and_always_on_violations() {
        let t = target("s", crate::rule!("USI-GO-004"));
        let outcome_of = |verdict: Verdict| clean_report(&[(&t, report(vec![verdict]))]).outcome;
        let warn = seen(crate::rule!("USI-STOP-002"), Outcome::Warn);
        let may = seen(crate::rule!("USI-GO-009"), Outcome::Info);
        let mut always_on = seen(crate::rule!("USI-INFO-011"), Outcome::Warn);
        always_on.always_on = true;
        for verdict in [warn, may, always_on] {
            assert_eq!(outcome_of(verdict.clone()), Outcome::Fail, "{verdict:?}");
        }
        let mut withheld = seen(crate::rule!("USI-GO-004"), Outcome::Info);
        withheld.unjudged = true;
        assert_eq!(outcome_of(withheld), Outcome::Info);
    }
}
