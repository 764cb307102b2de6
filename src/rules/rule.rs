//! One catalogue entry.

use super::{Direction, Level, Profile, RuleId, Section, Strength, StrengthPart};
use serde::Serialize;
use std::sync::LazyLock;

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

/// The qualifier of the strength part such a rule's engine-side check judges: RULES.md asks a
/// WARN of it ("engine-side advisory: … WARN if the engine plays it"), a SHOULD in §0.1's terms,
/// while the rule's own MUST is the GUI's judgement.
pub const ENGINE_ADVISORY: &str = "engine-side advisory";

static ENGINE_ADVISORY_PART: LazyLock<StrengthPart> = LazyLock::new(|| StrengthPart {
    level: Level::Should,
    qualifier: Some(ENGINE_ADVISORY.to_owned()),
});

/// Rules that name the engine (direction `engine` or `both`) but leave it nothing to break that
/// is theirs, with the reason in RULES.md's terms: no certificate counts them and no fault can
/// prove a check of them.
const NO_ENGINE_CHECK_OF_THEIR_OWN: &[(RuleId, &str)] = &[
    (
        crate::rule!("USI-EXT-008"),
        "its engine side, `pv` as the last field of an `info` line, is USI-INFO-011's \
         (RULES.md: \"Check: see USI-INFO-011\"), checked and proven there, so a `pv` that is \
         not last is charged once, to USI-INFO-011; its other side, showing the unparsed \
         remainder verbatim, is the GUI's",
    ),
    (
        crate::rule!("USI-EXT-014"),
        "historic USI 2.0 proposals (RULES.md: \"Check: none — engines must not rely on \
         them\"): `UseHashCommandExtension` was withdrawn in favour of sending whichever of \
         `USI_Hash`/`Hash` the engine advertises (USI-EXT-012 checks the advertising), `posdiff` \
         was never specified and `usiversion` was rejected; no GUI sends them, so an engine \
         relying on them shows nothing a GUI-side check could see, and no profile judges them",
    ),
];

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
        let named =
            self.direction.binds_engine() || GUI_RULES_WITH_AN_ENGINE_CHECK.contains(&self.rule_id);
        named && self.no_engine_check_of_its_own().is_none()
    }

    /// Why a rule that names the engine still leaves it nothing of its own to break (`None` for
    /// the others): its engine side is another rule's, or it is a historic proposal.
    ///
    /// ```
    /// use usicheck::rules::RuleId;
    /// let rule = |id: &str| id.parse::<RuleId>().unwrap().rule();
    /// assert!(rule("USI-EXT-008").no_engine_check_of_its_own().unwrap().contains("USI-INFO-011"));
    /// assert!(!rule("USI-EXT-008").binds_engine());
    /// assert!(rule("USI-INFO-011").no_engine_check_of_its_own().is_none());
    /// ```
    pub fn no_engine_check_of_its_own(&self) -> Option<&'static str> {
        NO_ENGINE_CHECK_OF_THEIR_OWN
            .iter()
            .find(|(id, _)| *id == self.rule_id)
            .map(|(_, why)| *why)
    }

    /// The strength part named `qualifier`: one of the strength's own parts, or for a GUI rule
    /// with an engine-side check its [`ENGINE_ADVISORY`] part (SHOULD).
    ///
    /// ```
    /// use usicheck::rules::{Level, RuleId};
    /// let rule = "USI-RULES-004".parse::<RuleId>().unwrap().rule();
    /// assert_eq!(rule.part("engine-side advisory").unwrap().level, Level::Should);
    /// assert_eq!(rule.strength.primary().level, Level::Must);
    /// ```
    pub fn part(&self, qualifier: &str) -> Option<&StrengthPart> {
        self.strength.part(qualifier).or_else(|| {
            (qualifier == ENGINE_ADVISORY && GUI_RULES_WITH_AN_ENGINE_CHECK.contains(&self.rule_id))
                .then(|| &*ENGINE_ADVISORY_PART)
        })
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
