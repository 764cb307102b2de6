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
/// assert_eq!(format!("{id:?}"), "USI-READY-001");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RuleId(pub(super) u16);

/// The ID text, as `Display` writes it: a failing assertion names the rule, not its index.
impl fmt::Debug for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether `id` is a rule of the catalogue (a line of catalogue.tsv starts with it): the
/// compile-time check behind [`rule!`](crate::rule).
///
/// ```
/// assert!(usicheck::rules::catalogued("USI-READY-001"));
/// assert!(!usicheck::rules::catalogued("USI-READY-00"));
/// ```
pub const fn catalogued(id: &str) -> bool {
    line_of(id).is_some()
}

/// The line of catalogue.tsv that starts with `id` (0 is the header, so rule `n` is on line
/// `n + 1`).
const fn line_of(id: &str) -> Option<usize> {
    let id = id.as_bytes();
    let mut line = 1;
    while line < LINE_STARTS.len() {
        let start = LINE_STARTS[line];
        let mut n = 0;
        while n < id.len() && start + n < TSV.len() && TSV[start + n] == id[n] {
            n += 1;
        }
        if n == id.len() && start + n < TSV.len() && TSV[start + n] == b'\t' {
            return Some(line);
        }
        line += 1;
    }
    None
}

const TSV: &[u8] = super::catalogue::CATALOGUE_TSV.as_bytes();

/// Where each line of catalogue.tsv starts, computed once at compile time so each check
/// compares only line heads.
const LINE_STARTS: [usize; line_count(TSV)] = line_starts(TSV);

const fn line_count(text: &[u8]) -> usize {
    let mut count = 1;
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\n' {
            count += 1;
        }
        i += 1;
    }
    count
}

const fn line_starts<const N: usize>(text: &[u8]) -> [usize; N] {
    let mut starts = [0; N];
    let mut line = 1;
    let mut i = 0;
    while i < text.len() && line < N {
        if text[i] == b'\n' {
            starts[line] = i + 1;
            line += 1;
        }
        i += 1;
    }
    starts
}

/// The [`RuleId`] of a catalogue rule, checked at compile time: `rule!("USI-INFO-011")`
/// keeps the dashed ID greppable at the check site and fails the build for an ID that is not
/// in src/rules/catalogue.tsv.
///
/// ```
/// let id = usicheck::rule!("USI-READY-001");
/// assert_eq!(id.as_str(), "USI-READY-001");
/// ```
///
/// ```compile_fail
/// let id = usicheck::rule!("USI-READY-999");
/// ```
#[macro_export]
macro_rules! rule {
    ($id:literal) => {{
        const _: () = assert!(
            $crate::rules::catalogued($id),
            concat!("`", $id, "` is not in src/rules/catalogue.tsv")
        );
        const ID: $crate::rules::RuleId = $crate::rules::RuleId::of($id);
        ID
    }};
}

/// An ID that is not in the catalogue; the message names the closest ID, if one is close.
///
/// ```
/// let err = "USI-READY-06".parse::<usicheck::rules::RuleId>().unwrap_err();
/// assert!(err.to_string().contains("did you mean `USI-READY-006`?"), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule ID `{0}`{hint} (see `usicheck rules` for the list)", hint = self.hint())]
pub struct UnknownRule(pub String);

impl UnknownRule {
    fn hint(&self) -> String {
        let ids = catalogue().rules().iter().map(|rule| rule.id.as_str());
        crate::suggest::hint(&self.0, ids)
    }
}

impl RuleId {
    /// The ID of catalogue rule `id`, computed at compile time in a `const` (where an ID not
    /// in src/rules/catalogue.tsv fails the build); [`rule!`](crate::rule) is the usual
    /// spelling. Panics for an ID that is not in the catalogue.
    ///
    /// ```
    /// use usicheck::rules::RuleId;
    /// const CLOCKS: &[RuleId] = &[RuleId::of("USI-GO-004"), RuleId::of("USI-GO-005")];
    /// assert_eq!(CLOCKS[1], "USI-GO-005".parse().unwrap());
    /// ```
    pub const fn of(id: &str) -> RuleId {
        match line_of(id) {
            Some(line) => RuleId((line - 1) as u16),
            None => panic!("a rule ID that is not in src/rules/catalogue.tsv"),
        }
    }

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
            "description": "A rule ID of the catalogue (docs/rules.md), e.g. USI-READY-001.",
            "type": "string",
            "enum": ids,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index computed at compile time is the one the catalogue gives each rule at run time.
    #[test]
    fn const_ids_are_the_catalogue_indices() {
        for rule in catalogue().rules() {
            assert_eq!(RuleId::of(&rule.id), rule.rule_id, "{}", rule.id);
        }
    }
}
