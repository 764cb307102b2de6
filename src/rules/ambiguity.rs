//! RULES.md appendix A: points where the sources disagree, and the reading each profile
//! applies, so a report can say which one was used.

use super::Profile;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::sync::LazyLock;

const AMBIGUITIES_TSV: &str = include_str!("ambiguities.tsv");

/// One disagreement between sources (`A-01` … `A-18`).
#[derive(Clone, Debug, Serialize)]
pub struct Ambiguity {
    pub id: String,
    pub topic: String,
    /// What the sources say, verbatim from the table.
    pub sources_say: String,
    /// The majority behaviour / tester default.
    pub default_reading: String,
}

static AMBIGUITIES: LazyLock<Vec<Ambiguity>> = LazyLock::new(|| {
    AMBIGUITIES_TSV
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut cells = line.split('\t').map(str::to_owned);
            Some(Ambiguity {
                id: cells.next()?,
                topic: cells.next()?,
                sources_say: cells.next()?,
                default_reading: cells.next()?,
            })
        })
        .collect()
});

/// All ambiguities of appendix A, in order.
///
/// ```
/// use usicheck::rules::ambiguities;
/// assert_eq!(ambiguities().len(), 18);
/// assert_eq!(ambiguities()[0].id, "A-01");
/// ```
pub fn ambiguities() -> &'static [Ambiguity] {
    &AMBIGUITIES
}

/// The ambiguity with this ID (`A-05`).
pub fn ambiguity(id: &str) -> Option<&'static Ambiguity> {
    ambiguities().iter().find(|a| a.id == id)
}

/// Why a profile reads an ambiguity the way it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// The majority behaviour / tester default of appendix A.
    Majority,
    /// The 2007 draft (`[TR]`/`[UCI]`) wording.
    Draft,
    /// MyShogi USI 2.0 (`[U2]`).
    Usi2,
    /// The strict profile's tighter bound.
    Strict,
}

/// The reading a profile applies to one ambiguity of appendix A.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Reading {
    /// The ambiguity's ID, e.g. `A-01`.
    pub ambiguity: Cow<'static, str>,
    pub basis: Basis,
    /// The reading, in words.
    pub text: String,
}

/// Profile-specific readings; every pair not listed uses the appendix A default.
const OVERRIDES: &[(Profile, &str, Basis, &str)] = &[
    (
        Profile::Usi1,
        "A-01",
        Basis::Draft,
        "GUI sends `isready` after `usinewgame` ([TR]/[UCI]); USI-READY-007 is not applied",
    ),
    (
        Profile::Usi1,
        "A-03",
        Basis::Draft,
        "7-bit ASCII only ([TR] §2)",
    ),
    (
        Profile::Usi1,
        "A-05",
        Basis::Draft,
        "`go mate` is a Shogidokoro extension absent from the draft; the USI-MATE rules are not applied",
    ),
    (
        Profile::Usi1,
        "A-06",
        Basis::Draft,
        "`isready` during a search is answered at once without stopping it ([TR] §5.3), checked as SHOULD",
    ),
    (
        Profile::Usi1,
        "A-12",
        Basis::Draft,
        "field order is free ([UCI]); only `string` consuming the rest of the line is required",
    ),
    (
        Profile::Usi1,
        "A-14",
        Basis::Draft,
        "option names and values are not case-sensitive ([TR] §5.3)",
    ),
    (
        Profile::Usi1,
        "A-18",
        Basis::Draft,
        "ignore the unknown token and parse the rest of the line ([TR] §5.1)",
    ),
    (
        Profile::Usi2,
        "A-02",
        Basis::Usi2,
        "usiok ≤ 10 s; readyok within 30 s of silence, any line restarting the timer (USI-EXT-003)",
    ),
    (
        Profile::Usi2,
        "A-03",
        Basis::Usi2,
        "UTF-8 for all engine I/O (USI-EXT-001); Shift_JIS is a violation",
    ),
    (
        Profile::Usi2,
        "A-09",
        Basis::Usi2,
        "`gameover unknown` for aborted games (USI-EXT-009)",
    ),
    (
        Profile::Usi2,
        "A-11",
        Basis::Usi2,
        "`USI_Hash` (or `Hash`) and `USI_Ponder` must be advertised; `MultiPV` and `Threads` are mandatory (USI-EXT-011/012)",
    ),
    (
        Profile::Strict,
        "A-02",
        Basis::Strict,
        "usiok ≤ 2 s (Shogidokoro's bound); readyok 30 s of silence, 300 s cap",
    ),
];

impl Profile {
    /// The reading this profile applies to ambiguity `id`, `None` for an unknown ID.
    ///
    /// ```
    /// use usicheck::rules::{Basis, Profile};
    /// assert_eq!(Profile::Usi1.reading("A-01").unwrap().basis, Basis::Draft);
    /// assert_eq!(Profile::Shogidokoro.reading("A-01").unwrap().basis, Basis::Majority);
    /// ```
    pub fn reading(self, id: &str) -> Option<Reading> {
        let ambiguity = ambiguity(id)?;
        let (basis, text) = OVERRIDES
            .iter()
            .find(|(p, a, ..)| *p == self && *a == id)
            .map_or((Basis::Majority, ambiguity.default_reading.clone()), |o| {
                (o.2, o.3.to_owned())
            });
        Some(Reading {
            ambiguity: Cow::Borrowed(&ambiguity.id),
            basis,
            text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn rows_from_rules_md(md: &str) -> Vec<Vec<String>> {
        md.lines()
            .filter(|l| l.starts_with("| A-"))
            .map(|l| {
                l.trim_matches('|')
                    .split(" | ")
                    .map(|c| c.trim().to_owned())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn ambiguities_tsv_matches_rules_md() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/RULES.md");
        let Ok(md) = std::fs::read_to_string(&path) else {
            eprintln!("skipped: {} not found", path.display());
            return;
        };
        let mut generated = String::from("id\ttopic\tsources_say\tdefault\n");
        for row in rows_from_rules_md(&md) {
            assert_eq!(row.len(), 4, "{row:?}");
            generated.push_str(&row.join("\t"));
            generated.push('\n');
        }
        if std::env::var_os("USICHECK_BLESS").is_some() {
            let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/rules/ambiguities.tsv");
            std::fs::write(out, &generated).unwrap();
            return;
        }
        assert!(
            generated == AMBIGUITIES_TSV,
            "src/rules/ambiguities.tsv is out of date; rerun with USICHECK_BLESS=1"
        );
    }

    #[test]
    fn every_override_names_a_known_ambiguity() {
        assert_eq!(ambiguities().len(), 18);
        for (_, id, ..) in OVERRIDES {
            assert!(ambiguity(id).is_some(), "{id}");
        }
    }
}
