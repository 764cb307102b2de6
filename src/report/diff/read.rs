//! The parts of a `report.json` that a comparison reads, typed: a field renamed in a report
//! schema breaks these views (and their test) instead of a comparison that quietly finds
//! nothing.

use crate::play::{Reason, Winner, color_name};
use crate::rules::{Level, Outcome, Profile, RuleId};
use crate::shogi::Color;
use serde::Deserialize;

use super::super::{FUZZ_SCHEMA, PLAY_SCHEMA, SCHEMA};

/// A report of `certify`, `run` or `selftest` (schema `usicheck-report/2`).
#[derive(Debug, Deserialize)]
pub struct CertifyReport {
    pub runs: Vec<CertifyRun>,
}

/// One profile's run.
#[derive(Debug, Deserialize)]
pub struct CertifyRun {
    pub profile: Profile,
    pub engine_name: Option<String>,
    pub duration_ms: Option<u64>,
    pub rules: Vec<RuleEntry>,
    pub scenarios: Vec<ScenarioEntry>,
    pub verdicts: Vec<VerdictEntry>,
}

/// A rule's worst outcome in a run.
#[derive(Debug, Deserialize)]
pub struct RuleEntry {
    pub rule: RuleId,
    pub title: String,
    pub level: Level,
    pub outcome: Outcome,
}

#[derive(Debug, Deserialize)]
pub struct ScenarioEntry {
    pub name: String,
    pub duration_ms: u64,
    pub replay: String,
}

/// One verdict (the always-on checks' PASSes are counted, not listed).
#[derive(Debug, Deserialize)]
pub struct VerdictEntry {
    pub rule: RuleId,
    pub outcome: Outcome,
    /// The strength of the part judged.
    pub level: Level,
    pub reason: String,
    pub scenario: String,
    /// Why the baseline accepts it, if it does: a waived violation fails no gate.
    pub waived: Option<String>,
}

/// A report of `fuzz` (schema `usicheck-fuzz/1`).
#[derive(Debug, Deserialize)]
pub struct FuzzReport {
    pub seconds: f64,
    pub sessions: u64,
    pub findings: Vec<FuzzFinding>,
}

/// One finding group: the same oracle and rule.
#[derive(Debug, Deserialize)]
pub struct FuzzFinding {
    pub oracle: String,
    pub rule: RuleId,
    pub title: String,
    /// The grade `usicheck run` gives its reproducer.
    pub grade: Outcome,
    pub count: u64,
    pub detail: String,
    pub replay: String,
}

/// A report of `play` (schema `usicheck-play/1`).
#[derive(Debug, Deserialize)]
pub struct PlayReport {
    pub engine_name: Option<String>,
    pub seconds: f64,
    pub games: Vec<Game>,
    pub violations: Vec<PlayViolation>,
    /// The strength the games show (absent from reports of earlier usicheck versions).
    #[serde(default)]
    pub estimate: Option<crate::play::stats::Estimate>,
}

#[derive(Debug, Deserialize)]
pub struct Game {
    /// `black` or `white`.
    pub engine_color: String,
    pub winner: Winner,
    pub reason: Reason,
}

impl Game {
    /// `win`, `draw`, `lose` or `unfinished`, for the engine under test, as the match's own
    /// report words it ([`Winner::word_for`]).
    pub fn engine_result(&self) -> &'static str {
        let side = match self.engine_color == color_name(Color::Black) {
            true => Color::Black,
            false => Color::White,
        };
        self.winner.word_for(side)
    }
}

/// A rule the engine broke in a match, where it first showed.
#[derive(Debug, Deserialize)]
pub struct PlayViolation {
    pub verdict: PlayVerdict,
    pub game: usize,
}

#[derive(Debug, Deserialize)]
pub struct PlayVerdict {
    pub rule: RuleId,
    pub outcome: Outcome,
    pub reason: String,
}

/// A `report.json` of any command that writes one.
#[derive(Debug)]
pub enum Report {
    Certify(CertifyReport),
    Fuzz(FuzzReport),
    Play(PlayReport),
}

impl Report {
    /// Reads report text; an error names `place` and says what is wrong.
    ///
    /// ```
    /// use usicheck::report::diff::Report;
    /// let text = r#"{"schema": "usicheck-fuzz/1", "seconds": 2.0, "sessions": 3, "findings": []}"#;
    /// assert!(matches!(Report::parse("old.json", text), Ok(Report::Fuzz(_))));
    /// let other = Report::parse("old.json", r#"{"schema": "usicheck-report/9"}"#).unwrap_err();
    /// assert!(other.starts_with("old.json: "), "{other}");
    /// ```
    pub fn parse(place: &str, text: &str) -> Result<Report, String> {
        let at = |message: String| format!("{place}: {message}");
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| at(format!("not JSON: {e}")))?;
        let schema = value
            .get("schema")
            .and_then(|s| s.as_str())
            .ok_or_else(|| at("no `schema` field: not a usicheck report.json".to_owned()))?
            .to_owned();
        let typed = |e: serde_json::Error| at(format!("a {schema} report, but {e}"));
        match schema.as_str() {
            SCHEMA => serde_json::from_value(value).map(Report::Certify),
            FUZZ_SCHEMA => serde_json::from_value(value).map(Report::Fuzz),
            PLAY_SCHEMA => serde_json::from_value(value).map(Report::Play),
            other => {
                return Err(at(format!(
                    "schema `{other}` is not one this usicheck compares \
                     ({SCHEMA}, {FUZZ_SCHEMA}, {PLAY_SCHEMA})"
                )));
            }
        }
        .map_err(typed)
    }

    /// The command that writes this kind of report.
    pub fn command(&self) -> &'static str {
        match self {
            Report::Certify(_) => "certify",
            Report::Fuzz(_) => "fuzz",
            Report::Play(_) => "play",
        }
    }
}
