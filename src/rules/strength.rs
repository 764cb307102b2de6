//! Rule strengths (RULES.md §0.1), including split strengths such as
//! "MUST (canonical) / SHOULD (any order)".

use serde::{Deserialize, Serialize};
use std::fmt;

/// One normative level of RULES.md §0.1.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum Level {
    #[serde(rename = "MUST")]
    Must,
    #[serde(rename = "SHOULD")]
    Should,
    #[serde(rename = "MAY")]
    May,
    #[serde(rename = "DE-FACTO")]
    DeFacto,
    #[serde(rename = "EXTENSION-USI2.0")]
    Extension,
}

impl Level {
    /// Every level, strongest first.
    pub const ALL: [Level; 5] = [
        Level::Must,
        Level::Should,
        Level::May,
        Level::DeFacto,
        Level::Extension,
    ];

    /// The keyword as written in RULES.md.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
            Level::DeFacto => "DE-FACTO",
            Level::Extension => "EXTENSION-USI2.0",
        }
    }

    fn split_keyword(text: &str) -> Option<(Level, &str)> {
        Level::ALL.into_iter().find_map(|level| {
            let rest = text.strip_prefix(level.as_str())?;
            (rest.is_empty() || rest.starts_with(' ')).then_some((level, rest.trim()))
        })
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One part of a (possibly split) strength: a level and the qualifier saying what it covers,
/// e.g. `MUST (canonical)` has level MUST and qualifier `canonical`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StrengthPart {
    pub level: Level,
    /// The text after the keyword, without enclosing parentheses (`canonical`, `ignore (GUI)`,
    /// `vendor: YaneuraOu`), or `None` for a bare keyword.
    pub qualifier: Option<String>,
}

impl StrengthPart {
    /// A DE-FACTO part noted as failing ("DE-FACTO (FAIL for `usiok`/`readyok`)", §0.1
    /// "WARN (FAIL where noted)").
    pub fn noted_as_fail(&self) -> bool {
        self.level == Level::DeFacto
            && self
                .qualifier
                .as_deref()
                .is_some_and(|q| q.starts_with("FAIL"))
    }
}

/// Which kind of extension an `EXTENSION-USI2.0` part names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExtensionKind {
    /// MyShogi USI 2.0 proper (bare tag): part of the `usi2` profile.
    Usi2,
    /// Withdrawn or rejected USI 2.0 proposals: nothing to check.
    Historic,
    /// A vendor extension, deviation or profile (`vendor: …`): informational unless claimed.
    Vendor,
}

/// A rule's strength: one or more parts, the first being the primary one.
///
/// ```
/// use usicheck::rules::{Level, Strength};
/// let s = Strength::parse("MUST (canonical) / SHOULD (any order)").unwrap();
/// assert_eq!(s.primary().level, Level::Must);
/// assert_eq!(s.part("any order").unwrap().level, Level::Should);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Strength {
    parts: Vec<StrengthPart>,
}

impl Strength {
    /// Parses a RULES.md strength cell; `None` when a part does not start with a §0.1 keyword.
    pub fn parse(text: &str) -> Option<Strength> {
        let parts = text
            .split(" / ")
            .map(|part| {
                let (level, rest) = Level::split_keyword(part.trim())?;
                let qualifier = match rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
                    Some(inner) if !inner.contains('(') => inner,
                    _ => rest,
                };
                Some(StrengthPart {
                    level,
                    qualifier: (!qualifier.is_empty()).then(|| qualifier.to_owned()),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Strength { parts })
    }

    /// All parts, primary first.
    pub fn parts(&self) -> &[StrengthPart] {
        &self.parts
    }

    /// The first (primary) part.
    pub fn primary(&self) -> &StrengthPart {
        &self.parts[0]
    }

    /// The part whose qualifier is exactly `qualifier`, so a check can name what it tests.
    pub fn part(&self, qualifier: &str) -> Option<&StrengthPart> {
        self.parts
            .iter()
            .find(|p| p.qualifier.as_deref() == Some(qualifier))
    }

    /// The extension kind when the primary part is `EXTENSION-USI2.0`.
    pub fn extension_kind(&self) -> Option<ExtensionKind> {
        let primary = self.primary();
        if primary.level != Level::Extension {
            return None;
        }
        Some(match primary.qualifier.as_deref() {
            None => ExtensionKind::Usi2,
            Some("historic") => ExtensionKind::Historic,
            Some(_) => ExtensionKind::Vendor,
        })
    }
}

impl fmt::Display for Strength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_str(" / ")?;
            }
            f.write_str(part.level.as_str())?;
            match part.qualifier.as_deref() {
                Some(q) if q.contains('(') => write!(f, " {q}")?,
                Some(q) => write!(f, " ({q})")?,
                None => {}
            }
        }
        Ok(())
    }
}
