//! Regular expressions written in scenarios, compiled when the scenario is loaded.

use regex::Regex;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

/// Largest compiled program a scenario regex may produce: bounds memory on hostile input.
const SIZE_LIMIT: usize = 1 << 20;

/// A compiled regex (Rust `regex` syntax), matched against one engine line without its line
/// terminator. Unanchored: write `^…$` to match a whole line.
///
/// ```
/// use usicheck::scenario::Pattern;
/// let p = Pattern::new(r"^bestmove \S+").unwrap();
/// assert!(p.is_match("bestmove 7g7f"));
/// assert!(Pattern::new("(").is_err());
/// ```
#[derive(Clone, Debug)]
pub struct Pattern(Regex);

impl Pattern {
    /// Compiles `source`; the error is the regex crate's message on one line.
    pub fn new(source: &str) -> Result<Pattern, String> {
        regex::RegexBuilder::new(source)
            .size_limit(SIZE_LIMIT)
            .build()
            .map(Pattern)
            .map_err(|e| {
                let detail = e
                    .to_string()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                format!("bad regex `{source}`: {detail}")
            })
    }

    pub fn is_match(&self, line: &str) -> bool {
        self.0.is_match(line)
    }

    pub fn regex(&self) -> &Regex {
        &self.0
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let source = String::deserialize(deserializer)?;
        Pattern::new(&source).map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for Pattern {
    fn schema_name() -> Cow<'static, str> {
        "Pattern".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A regular expression (Rust regex syntax) matched against one engine line; unanchored.",
            "type": "string",
            "format": "regex",
        })
    }
}
