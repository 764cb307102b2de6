//! One judged rule, as reporters receive it.

use super::{Claims, Outcome, Profile, Reading, RuleId};
use schemars::JsonSchema;
use serde::Serialize;

/// The verdict on one rule from one scenario or check, with the reason and the appendix A
/// readings the profile applied to it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Verdict {
    pub rule: RuleId,
    pub outcome: Outcome,
    /// The strength part judged (its qualifier), when the rule has several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// Expected vs actual, or why the rule was skipped.
    pub reason: String,
    /// The appendix A readings the profile applied to this rule.
    pub readings: Vec<Reading>,
    /// Judged by the always-on observer (every line of every session), not by one of the
    /// scenario's own checks: reported once per run, and not part of the scenario's outcome.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub always_on: bool,
    /// Why the engine's authors accept this violation (`--baseline`): it is reported, but
    /// does not fail the gate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waived: Option<String>,
    /// Observed but not judged (INFO): a missed deadline the machine's load explains. It is no
    /// evidence either way, so it never proves that a check can fail.
    #[serde(skip)]
    pub unjudged: bool,
    /// The transcript entry of the engine line that proves the violation, when one line does
    /// ([`crate::engine::Line::entry`]): a check that charged the same line charged the same
    /// evidence.
    #[serde(skip)]
    pub evidence: Option<u64>,
}

impl Verdict {
    fn new(
        profile: Profile,
        rule: RuleId,
        outcome: Outcome,
        part: Option<&str>,
        reason: String,
    ) -> Verdict {
        Verdict {
            rule,
            outcome,
            part: part.map(str::to_owned),
            reason: crate::quote::bound_reason(reason),
            readings: rule
                .rule()
                .ambiguities
                .iter()
                .filter_map(|a| profile.reading(a))
                .collect(),
            always_on: false,
            waived: None,
            unjudged: false,
            evidence: None,
        }
    }

    /// The rule held.
    pub fn pass(profile: Profile, rule: RuleId, part: Option<&str>) -> Verdict {
        Verdict::new(profile, rule, Outcome::Pass, part, String::new())
    }

    /// The rule was observed but not judged, for `reason` (INFO): e.g. a reply that missed its
    /// deadline by less than the load delayed usicheck itself.
    pub fn not_judged(profile: Profile, rule: RuleId, reason: impl Into<String>) -> Verdict {
        Verdict {
            unjudged: true,
            ..Verdict::new(profile, rule, Outcome::Info, None, reason.into())
        }
    }

    /// Whether this verdict says the rule was broken: FAIL, WARN, or INFO for a violation the
    /// profile only notes (a MAY rule), not INFO for a verdict withheld ([`Self::not_judged`]).
    pub fn is_violation(&self) -> bool {
        match self.outcome {
            Outcome::Fail | Outcome::Warn => true,
            Outcome::Info => !self.unjudged,
            Outcome::Pass | Outcome::Skip => false,
        }
    }

    /// The rule was not checked, for `reason`.
    pub fn skip(profile: Profile, rule: RuleId, reason: impl Into<String>) -> Verdict {
        Verdict::new(profile, rule, Outcome::Skip, None, reason.into())
    }

    /// The rule (or its strength part `part`) was violated: FAIL, WARN or INFO as the profile
    /// says; `None` when the profile does not apply the rule. An unknown `part` counts as the
    /// primary part.
    ///
    /// ```
    /// use usicheck::rules::{Claims, Outcome, Profile, RuleId, Verdict};
    /// let id: RuleId = "USI-STOP-002".parse().unwrap();
    /// let v = Verdict::violation(Profile::Shogidokoro, id, None, &Claims::default(), "got `bestmove 7g7f`");
    /// assert_eq!(v.unwrap().outcome, Outcome::Warn);
    /// ```
    pub fn violation(
        profile: Profile,
        rule: RuleId,
        part: Option<&str>,
        claims: &Claims,
        reason: impl Into<String>,
    ) -> Option<Verdict> {
        let strength = &rule.rule().strength;
        let judged = part
            .and_then(|q| rule.rule().part(q))
            .unwrap_or(strength.primary());
        let outcome = profile.severity(rule.rule(), judged, claims).outcome()?;
        Some(Verdict::new(
            profile,
            rule,
            outcome,
            judged.qualifier.as_deref(),
            reason.into(),
        ))
    }
}
