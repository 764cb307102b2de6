//! Fault pairs: the whole suite against an engine with two faults, judged against what each
//! fault flags alone. Nothing is blessed from the pair's own output: a pair must flag exactly
//! the union of the two faults' rules (as the exact sweep pins them), except a rule whose
//! checks the other fault kept from running — every scenario that flags it alone judged it
//! SKIP "not reached" in the pair, and that SKIP's reason is the why.

use super::proof::flagged;
use crate::refengine::faults::Fault;
use crate::report::ScenarioReport;
use crate::rules::{Outcome, Profile, RuleId, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// Where a whole-suite run flagged each rule: rule → scenario → the first evidence.
#[derive(Clone, Debug, Default)]
pub struct Flags(BTreeMap<RuleId, BTreeMap<String, String>>);

impl Flags {
    /// The rules `runs` (scenario name, report) flag, and where.
    pub fn of(runs: &[(String, ScenarioReport)]) -> Flags {
        let mut flags = Flags::default();
        for (scenario, report) in runs {
            for verdict in flagged(report) {
                flags
                    .0
                    .entry(verdict.rule)
                    .or_default()
                    .entry(scenario.clone())
                    .or_insert_with(|| {
                        format!("{} in {scenario}: {}", verdict.outcome, verdict.reason)
                    });
            }
        }
        flags
    }

    fn rules(&self) -> impl Iterator<Item = RuleId> + '_ {
        self.0.keys().copied()
    }

    fn evidence(&self, rule: RuleId) -> &str {
        self.0
            .get(&rule)
            .and_then(|by_scenario| by_scenario.values().next())
            .map_or("", String::as_str)
    }
}

/// The committed pair table: pairs whose verdicts differ from their faults' alone, and why.
const PAIR_GAPS: &str = include_str!("../refengine/pair_gaps.tsv");

/// The why of a known difference of `pair` on `rule`, from the committed pair table.
fn known_difference(pair: (Fault, Fault), rule: RuleId) -> Option<&'static str> {
    let name = format!("{}+{}", pair.0.name(), pair.1.name());
    PAIR_GAPS
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let mut fields = line.splitn(3, '\t');
            Some((fields.next()?, fields.next()?, fields.next()?))
        })
        .find(|(pair, rules, _)| {
            *pair == name && rules.split(',').any(|r| r.trim() == rule.as_str())
        })
        .map(|(_, _, why)| why)
}

/// How a rule of the union fared in the pair.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Fate {
    /// Flagged, as alone.
    Flagged(String),
    /// Not flagged: the other fault kept every scenario that flags it from judging it.
    Unreached(String),
    /// Not flagged although judged: one fault hid the other's violation.
    Hidden(String),
    /// Flagged, though neither fault flags it alone.
    Extra(String),
    /// Hidden or extra, as the committed pair table says (its why).
    Known(String),
}

/// The whole suite against one pair, judged.
#[derive(Clone, Debug)]
pub struct PairResult {
    pub pair: (Fault, Fault),
    fates: Vec<(RuleId, Fate)>,
    duration: Duration,
}

/// Judges the pair's `runs` against the runs of each fault alone.
pub fn pair_result(
    pair: (Fault, Fault),
    alone: [&Flags; 2],
    runs: &[(String, ScenarioReport)],
) -> PairResult {
    let together = Flags::of(runs);
    let union: BTreeSet<RuleId> = alone.iter().flat_map(|flags| flags.rules()).collect();
    let verdicts_of = |rule: RuleId, scenario: &str| -> Vec<&Verdict> {
        runs.iter()
            .filter(|(name, _)| name == scenario)
            .flat_map(|(_, report)| report.verdicts.iter().filter(move |v| v.rule == rule))
            .collect()
    };
    let mut fates = Vec::new();
    for &rule in &union {
        if together.0.contains_key(&rule) {
            fates.push((rule, Fate::Flagged(together.evidence(rule).to_owned())));
            continue;
        }
        let scenarios: BTreeSet<&String> = alone
            .iter()
            .filter_map(|flags| flags.0.get(&rule))
            .flat_map(BTreeMap::keys)
            .collect();
        let judged = scenarios.iter().find_map(|scenario| {
            verdicts_of(rule, scenario)
                .into_iter()
                .find(|v| v.outcome != Outcome::Skip)
                .map(|v| format!("{} in {scenario}: {}", v.outcome, v.reason))
        });
        let fate = match judged {
            Some(judged) => Fate::Hidden(judged),
            None => Fate::Unreached(
                scenarios
                    .iter()
                    .find_map(|scenario| {
                        verdicts_of(rule, scenario)
                            .first()
                            .map(|v| format!("{scenario}: {}", v.reason))
                    })
                    .unwrap_or_else(|| "no scenario that flags it alone judged it".to_owned()),
            ),
        };
        fates.push((rule, fate));
    }
    for rule in together.rules().filter(|rule| !union.contains(rule)) {
        fates.push((rule, Fate::Extra(together.evidence(rule).to_owned())));
    }
    for (rule, fate) in &mut fates {
        if matches!(fate, Fate::Hidden(_) | Fate::Extra(_))
            && let Some(why) = known_difference(pair, *rule)
        {
            *fate = Fate::Known(why.to_owned());
        }
    }
    PairResult {
        pair,
        fates,
        duration: runs.iter().map(|(_, r)| r.duration).sum(),
    }
}

impl PairResult {
    /// `a+b`, as `--fault a --fault b` makes the engine.
    pub fn name(&self) -> String {
        format!("{}+{}", self.pair.0.name(), self.pair.1.name())
    }

    /// Every rule as the single faults predict it.
    pub fn agrees(&self) -> bool {
        !self
            .fates
            .iter()
            .any(|(_, fate)| matches!(fate, Fate::Hidden(_) | Fate::Extra(_)))
    }

    /// The pair as a report: PASS per rule flagged, SKIP per rule unreached (with the why),
    /// FAIL per rule hidden or extra.
    pub fn report(&self, profile: Profile) -> ScenarioReport {
        let verdicts: Vec<Verdict> = self
            .fates
            .iter()
            .map(|(rule, fate)| {
                let (outcome, reason) = match fate {
                    Fate::Flagged(evidence) => (Outcome::Pass, evidence.clone()),
                    Fate::Unreached(why) => (Outcome::Skip, format!("not reached: {why}")),
                    Fate::Known(why) => (Outcome::Skip, format!("known (pair_gaps.tsv): {why}")),
                    Fate::Hidden(judged) => (
                        Outcome::Fail,
                        format!("flagged by one fault alone, not with both: {judged}"),
                    ),
                    Fate::Extra(evidence) => (
                        Outcome::Fail,
                        format!("flagged by neither fault alone: {evidence}"),
                    ),
                };
                let mut verdict = Verdict::pass(profile, *rule, None);
                verdict.outcome = outcome;
                verdict.reason = reason;
                verdict
            })
            .collect();
        let (a, b) = (self.pair.0.name(), self.pair.1.name());
        ScenarioReport {
            name: self.name(),
            file: format!("usicheck engine --fault {a} --fault {b}"),
            outcome: if self.agrees() {
                Outcome::Pass
            } else {
                Outcome::Fail
            },
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
            replay: format!("usicheck selftest --pair {a}+{b}"),
            timed_searches: Default::default(),
            timeline: Default::default(),
        }
    }
}

/// `count` distinct pairs of distinct faults, the same for the same `seed` (a xorshift walk
/// over all pairs); every pair when `count` is at least their number.
///
/// ```
/// use usicheck::selftest::sample_pairs;
/// let pairs = sample_pairs(200, 1);
/// assert_eq!(pairs.len(), 200);
/// assert_eq!(pairs, sample_pairs(200, 1));
/// assert!(pairs.iter().all(|(a, b)| a != b));
/// ```
pub fn sample_pairs(count: usize, seed: u64) -> Vec<(Fault, Fault)> {
    let faults = Fault::ALL;
    let mut all: Vec<(Fault, Fault)> = (0..faults.len())
        .flat_map(|i| (i + 1..faults.len()).map(move |j| (faults[i], faults[j])))
        .collect();
    if count >= all.len() {
        return all;
    }
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // A partial Fisher–Yates shuffle: the first `count` of a random permutation.
    for i in 0..count {
        let j = i + (next() % (all.len() - i) as u64) as usize;
        all.swap(i, j);
    }
    all.truncate(count);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::{scenario, verdict};

    const PAIR: (Fault, Fault) = (Fault::NoIdName, Fault::DoubleReadyok);

    fn runs(verdicts: Vec<Verdict>) -> Vec<(String, ScenarioReport)> {
        vec![("s".to_owned(), scenario("s", verdicts))]
    }

    /// What each fault flags alone: its named rule, in scenario `s`.
    fn alone() -> [Flags; 2] {
        let name = crate::rule!("USI-HANDSHAKE-002");
        let ready = crate::rule!("USI-READY-001");
        [
            Flags::of(&runs(vec![verdict(name, Outcome::Fail, "no id name")])),
            Flags::of(&runs(vec![verdict(ready, Outcome::Fail, "two readyok")])),
        ]
    }

    fn judged(verdicts: Vec<Verdict>) -> PairResult {
        let [a, b] = alone();
        pair_result(PAIR, [&a, &b], &runs(verdicts))
    }

    #[test]
    fn a_pair_that_flags_both_faults_rules_agrees() {
        let both = judged(vec![
            verdict(
                crate::rule!("USI-HANDSHAKE-002"),
                Outcome::Fail,
                "no id name",
            ),
            verdict(crate::rule!("USI-READY-001"), Outcome::Fail, "two readyok"),
        ]);
        assert!(both.agrees());
        assert_eq!(both.report(Profile::Usi2).outcome, Outcome::Pass);
    }

    #[test]
    fn a_rule_the_other_fault_kept_from_being_checked_is_not_reached() {
        let skipped = judged(vec![
            verdict(
                crate::rule!("USI-HANDSHAKE-002"),
                Outcome::Fail,
                "no id name",
            ),
            verdict(
                crate::rule!("USI-READY-001"),
                Outcome::Skip,
                "not reached: step 1 failed",
            ),
        ]);
        assert!(skipped.agrees());
        let report = skipped.report(Profile::Usi2);
        let ready = report
            .verdicts
            .iter()
            .find(|v| v.rule == crate::rule!("USI-READY-001"))
            .unwrap();
        assert_eq!(ready.outcome, Outcome::Skip);
        assert!(ready.reason.contains("step 1 failed"), "{}", ready.reason);
    }

    #[test]
    fn a_rule_judged_but_not_flagged_is_hidden_and_fails() {
        let hidden = judged(vec![
            verdict(
                crate::rule!("USI-HANDSHAKE-002"),
                Outcome::Fail,
                "no id name",
            ),
            verdict(crate::rule!("USI-READY-001"), Outcome::Pass, ""),
        ]);
        assert!(!hidden.agrees());
        assert_eq!(hidden.report(Profile::Usi2).outcome, Outcome::Fail);
    }

    #[test]
    fn the_pair_table_names_pairs_of_faults_and_rules_with_a_why() {
        for line in PAIR_GAPS.lines().filter(|l| !l.starts_with('#')) {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "{line}");
            let (a, b) = fields[0].split_once('+').expect("A+B");
            for name in [a, b] {
                assert!(name.parse::<Fault>().is_ok(), "{name} is not a fault");
            }
            for rule in fields[1].split(',') {
                assert!(
                    rule.trim().parse::<RuleId>().is_ok(),
                    "{rule} is not a rule"
                );
            }
            assert!(fields[2].len() > 20, "a why: {line}");
        }
    }

    #[test]
    fn a_rule_neither_fault_flags_alone_fails() {
        let extra = judged(vec![
            verdict(
                crate::rule!("USI-HANDSHAKE-002"),
                Outcome::Fail,
                "no id name",
            ),
            verdict(crate::rule!("USI-READY-001"), Outcome::Fail, "two readyok"),
            verdict(crate::rule!("USI-GO-002"), Outcome::Fail, "no bestmove"),
        ]);
        assert!(!extra.agrees());
        let report = extra.report(Profile::Usi2);
        assert!(
            report
                .verdicts
                .iter()
                .any(|v| v.outcome == Outcome::Fail && v.reason.starts_with("flagged by neither"))
        );
    }
}
