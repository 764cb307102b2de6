//! The verdicts of one scenario run: at most one per rule, the worst observation winning.

use crate::rules::{Claims, Outcome, Profile, RuleId, Verdict};
use std::collections::BTreeMap;

/// Collects verdicts; a violation replaces a pass or a skip, a worse violation a milder one.
///
/// ```
/// use usicheck::rules::{Claims, Outcome, Profile, RuleId};
/// use usicheck::observer::Judge;
/// let id: RuleId = "USI-READY-001".parse().unwrap();
/// let mut judge = Judge::new(Profile::Shogidokoro, Claims::default());
/// judge.pass(id, None);
/// judge.violation(id, None, "no readyok");
/// judge.pass(id, None);
/// assert_eq!(judge.into_verdicts()[0].outcome, Outcome::Fail);
/// ```
#[derive(Debug)]
pub struct Judge {
    profile: Profile,
    claims: Claims,
    /// The verdicts come from the always-on observer (marked so), not from scenario steps.
    always_on: bool,
    verdicts: BTreeMap<RuleId, Verdict>,
    /// The transcript entry of the line being judged, the evidence of what it breaks.
    line: Option<u64>,
}

/// How bad an outcome is, for keeping the worst verdict of a rule.
pub fn rank(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Fail => 4,
        Outcome::Warn => 3,
        Outcome::Info => 2,
        Outcome::Pass => 1,
        Outcome::Skip => 0,
    }
}

impl Judge {
    pub fn new(profile: Profile, claims: Claims) -> Judge {
        Judge {
            profile,
            claims,
            always_on: false,
            verdicts: BTreeMap::new(),
            line: None,
        }
    }

    /// A judge for the always-on observer: its verdicts are marked [`Verdict::always_on`].
    pub fn always_on(profile: Profile, claims: Claims) -> Judge {
        Judge {
            always_on: true,
            ..Judge::new(profile, claims)
        }
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The violations recorded from now on are proved by the line at transcript entry
    /// `entry` (`None`: by no one line).
    pub fn judging_line(&mut self, entry: Option<u64>) {
        self.line = entry;
    }

    fn keep(&mut self, mut verdict: Verdict) {
        verdict.always_on = self.always_on;
        if rank(verdict.outcome) > rank(Outcome::Pass) {
            verdict.evidence = verdict.evidence.or(self.line);
        }
        match self.verdicts.get(&verdict.rule) {
            Some(old) if rank(old.outcome) >= rank(verdict.outcome) => {}
            _ => {
                self.verdicts.insert(verdict.rule, verdict);
            }
        }
    }

    /// Records a violation of `rule` (or its strength part `part`); ignored when the profile
    /// does not apply the rule.
    pub fn violation(&mut self, rule: RuleId, part: Option<&str>, reason: impl Into<String>) {
        if let Some(verdict) =
            Verdict::violation(self.profile, rule, part, &self.claims, reason.into())
        {
            self.keep(verdict);
        }
    }

    /// Records a violation that RULES.md rates below the rule's noted FAIL: a DE-FACTO "FAIL
    /// where noted" rule broken outside the noted case counts as WARN (FAIL under `strict`).
    pub fn violation_outside_note(
        &mut self,
        rule: RuleId,
        part: Option<&str>,
        reason: impl Into<String>,
    ) {
        if let Some(mut verdict) =
            Verdict::violation(self.profile, rule, part, &self.claims, reason.into())
        {
            if verdict.outcome == Outcome::Fail && self.profile != Profile::Strict {
                verdict.outcome = Outcome::Warn;
            }
            self.keep(verdict);
        }
    }

    /// Records that `rule` was checked and held.
    pub fn pass(&mut self, rule: RuleId, part: Option<&str>) {
        if self.profile.applies(rule.rule()) {
            self.keep(Verdict::pass(self.profile, rule, part));
        }
    }

    /// Records that `rule` held as far as usicheck could tell, with `note` saying what was
    /// left undecided (e.g. a `nomate` the mate solver could neither prove nor refute).
    pub fn pass_noted(&mut self, rule: RuleId, part: Option<&str>, note: impl Into<String>) {
        if self.profile.applies(rule.rule()) {
            let mut verdict = Verdict::pass(self.profile, rule, part);
            verdict.reason = note.into();
            self.keep(verdict);
        }
    }

    /// Records that `rule` was observed but not judged (INFO), for `reason`.
    pub fn not_judged(&mut self, rule: RuleId, reason: impl Into<String>) {
        if self.profile.applies(rule.rule()) {
            self.keep(Verdict::not_judged(self.profile, rule, reason.into()));
        }
    }

    /// Records that `rule` was not checked, unless something is already known about it.
    pub fn skip(&mut self, rule: RuleId, reason: &str) {
        if self.profile.applies(rule.rule()) && !self.verdicts.contains_key(&rule) {
            self.keep(Verdict::skip(self.profile, rule, reason));
        }
    }

    pub fn has_verdict(&self, rule: RuleId) -> bool {
        self.verdicts.contains_key(&rule)
    }

    /// Whether a violation of `rule` has been recorded.
    pub fn violated(&self, rule: RuleId) -> bool {
        self.verdicts
            .get(&rule)
            .is_some_and(|v| rank(v.outcome) > rank(Outcome::Pass))
    }

    /// The verdicts in catalogue order.
    pub fn into_verdicts(self) -> Vec<Verdict> {
        self.verdicts.into_values().collect()
    }

    /// The verdicts in catalogue order, leaving the judge empty.
    pub fn take_verdicts(&mut self) -> Vec<Verdict> {
        std::mem::take(&mut self.verdicts).into_values().collect()
    }

    /// Forgets what was recorded about `rule` (a scenario's own check took it over).
    pub fn forget(&mut self, rule: RuleId) {
        self.verdicts.remove(&rule);
    }

    /// Forgets the violations proved by the line at transcript entry `entry` (a scenario's own
    /// check charged that line already).
    ///
    /// ```
    /// use usicheck::observer::Judge;
    /// use usicheck::rules::{Claims, Profile};
    /// let (flood, stray) = (usicheck::rule!("USI-INFO-013"), usicheck::rule!("USI-GO-001"));
    /// let mut judge = Judge::new(Profile::Shogidokoro, Claims::default());
    /// judge.judging_line(Some(7));
    /// judge.violation(stray, None, "`bestmove 7g7f` answers no `go`");
    /// judge.judging_line(Some(8));
    /// judge.violation(flood, None, "too many `info` lines");
    /// judge.forget_evidence(7);
    /// assert_eq!(judge.violated_rules(), [flood]);
    /// ```
    pub fn forget_evidence(&mut self, entry: u64) {
        self.verdicts
            .retain(|_, v| rank(v.outcome) <= rank(Outcome::Pass) || v.evidence != Some(entry));
    }

    /// The verdict on `rule` so far.
    pub fn verdict(&self, rule: RuleId) -> Option<&Verdict> {
        self.verdicts.get(&rule)
    }

    /// The rules with a violation recorded.
    pub fn violated_rules(&self) -> Vec<RuleId> {
        self.verdicts
            .values()
            .filter(|v| rank(v.outcome) > rank(Outcome::Pass))
            .map(|v| v.rule)
            .collect()
    }
}

/// The worst outcome of a scenario: its own verdicts, and the always-on ones on the rules it
/// lists (`rules`; the scenario provides their traffic). Other always-on verdicts are the
/// run's, reported once, not every scenario's. SKIP when nothing was judged.
pub fn worst(verdicts: &[Verdict], rules: &[RuleId]) -> Outcome {
    verdicts
        .iter()
        .filter(|v| !v.always_on || rules.contains(&v.rule))
        .map(|v| v.outcome)
        .filter(|o| *o != Outcome::Skip)
        .max_by_key(|o| rank(*o))
        .unwrap_or(Outcome::Skip)
}
