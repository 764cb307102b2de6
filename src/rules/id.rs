//! Validated rule identifiers.

use super::catalogue::{Catalogue, catalogue};
use super::rule::Rule;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// The ID of a rule that exists in the catalogue, e.g. `USI-READY-001`.
///
/// Only catalogue IDs can be constructed, so holding a `RuleId` proves the rule exists.
/// Ordering follows the catalogue (section, then number).
///
/// ```
/// use usicheck::rules::RuleId;
/// let id: RuleId = "USI-READY-001".parse().unwrap();
/// assert_eq!(id.rule().title, "Every `isready` gets exactly one `readyok`");
/// assert!("USI-READY-999".parse::<RuleId>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RuleId(pub(super) u16);

/// An ID that is not in the catalogue.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule ID `{0}` (see `usicheck rules` for the list)")]
pub struct UnknownRule(pub String);

impl RuleId {
    /// The ID text, e.g. `USI-READY-001`.
    pub fn as_str(self) -> &'static str {
        &self.rule().id
    }

    /// The rule this ID names.
    pub fn rule(self) -> &'static Rule {
        &catalogue().rules()[usize::from(self.0)]
    }
}

impl std::str::FromStr for RuleId {
    type Err = UnknownRule;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Catalogue::lookup(catalogue(), s)
            .map(|rule| rule.rule_id)
            .ok_or_else(|| UnknownRule(s.to_owned()))
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RuleId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RuleId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for RuleId {
    fn schema_name() -> Cow<'static, str> {
        "RuleId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let ids: Vec<&str> = catalogue().rules().iter().map(|r| r.id.as_str()).collect();
        schemars::json_schema!({
            "description": "A rule ID of the catalogue (../shared/spec/RULES.md), e.g. USI-READY-001.",
            "type": "string",
            "enum": ids,
        })
    }
}
