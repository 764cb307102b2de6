//! One catalogue entry.

use super::{Direction, Profile, RuleId, Section, Strength};
use serde::Serialize;

/// A rule of RULES.md with everything the catalogue says about it.
///
/// Rules of §15 (extensions) are written in one paragraph without a `Rule:` line; their
/// `statement` is the title and `sources` holds the paragraph's description.
#[derive(Clone, Debug, Serialize)]
pub struct Rule {
    #[serde(skip)]
    pub rule_id: RuleId,
    /// `USI-<SECTION>-NNN`.
    pub id: String,
    pub section: Section,
    pub title: String,
    pub strength: Strength,
    /// The direction cell verbatim, e.g. `engine (advertise) / GUI (map)`.
    pub direction_text: String,
    pub direction: Direction,
    /// The `Source:` text verbatim.
    pub sources: String,
    /// Source tags cited, in order of first appearance (`TR`, `SD`, `U2`, …).
    pub source_tags: Vec<String>,
    /// The one-sentence rule.
    pub statement: String,
    /// The check text (stimulus → observable), with its qualifier such as `(advisory)`.
    pub check: String,
    /// The `Timeout:` text, when given.
    pub timeout: Option<String>,
    /// Appendix A ambiguities the rule refers to (`A-06`, …).
    pub ambiguities: Vec<String>,
}

/// Rules whose direction is the GUI's but whose check also asks something of the engine:
/// USI-RULES-004's "engine-side advisory: … WARN if the engine plays it" (RULES.md).
const GUI_RULES_WITH_AN_ENGINE_CHECK: &[RuleId] = &[crate::rule!("USI-RULES-004")];

impl Rule {
    /// Whether an engine can break the rule: false for the GUI's own rules (what the GUI
    /// sends, how it referees), which no certificate counts.
    ///
    /// ```
    /// use usicheck::rules::RuleId;
    /// let rule = |id: &str| id.parse::<RuleId>().unwrap().rule();
    /// assert!(rule("USI-STOP-001").binds_engine());
    /// assert!(!rule("USI-STOP-006").binds_engine());
    /// assert!(rule("USI-RULES-004").binds_engine(), "its advisory check is the engine's");
    /// ```
    pub fn binds_engine(&self) -> bool {
        self.direction.binds_engine() || GUI_RULES_WITH_AN_ENGINE_CHECK.contains(&self.rule_id)
    }

    /// Whether the rule cites the given source tag, e.g. `TR`.
    pub fn cites(&self, tag: &str) -> bool {
        self.source_tags.iter().any(|t| t == tag)
    }

    /// The profiles that apply this rule.
    ///
    /// ```
    /// use usicheck::rules::{Profile, RuleId};
    /// let rule = "USI-EXT-004".parse::<RuleId>().unwrap().rule();
    /// assert_eq!(rule.profiles(), [Profile::Usi2]);
    /// ```
    pub fn profiles(&self) -> Vec<Profile> {
        Profile::ALL
            .into_iter()
            .filter(|p| p.applies(self))
            .collect()
    }
}
