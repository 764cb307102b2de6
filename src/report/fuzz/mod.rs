//! The reports of `usicheck fuzz --report-dir`: `report.json` (docs/fuzz-report.schema.json),
//! `junit.xml` with one testcase per finding group (one passing testcase for a clean
//! campaign), `summary.md` and `report.html`, each with the campaign's numbers, its findings
//! and its protocol-state coverage table. Engine text (a finding's evidence, its transcript)
//! goes through the escaping of certify's reports.
//!
//! Here the report's model, built once from the campaign, and its writing; `coverage` is the
//! coverage table, `junit`, `markdown` and `html` draw their files from the model.

mod coverage;
mod html;
mod junit;
mod markdown;

pub use coverage::{ApartFromKnown, CoverageReport, CoverageRow};

use super::aggregate::FailOn;
use super::annotations::{Severity, annotation};
use super::outputs::{
    ANNOTATIONS_TXT, JUNIT_XML, REPORT_HTML, REPORT_JSON, SUMMARY_MD, TRANSCRIPTS,
};
use crate::fuzzer::Summary;
use crate::fuzzer::finding;
use crate::rules::{Claims, Outcome, Profile, RuleId, Verdict};
use schemars::JsonSchema;
use serde::Serialize;
use std::io;
use std::path::Path;

/// `schema` of a fuzz `report.json` (docs/fuzz-report.schema.json).
pub const FUZZ_SCHEMA: &str = "usicheck-fuzz/1";

/// Where a finding's reproducer goes inside the report directory.
const FINDINGS: &str = "findings";

/// Written by `usicheck fuzz --report-dir DIR` as DIR/report.json: the campaign's report with
/// its schema and gate. Paths are relative to DIR. Fields may be added within a version;
/// renaming or removing one, or changing its meaning, bumps the version in `schema`.
#[derive(Serialize, JsonSchema)]
#[schemars(title = "usicheck fuzz report (report.json)")]
pub struct FuzzReportJson<'a> {
    /// `usicheck-fuzz/1`.
    #[schemars(extend("const" = FUZZ_SCHEMA))]
    schema: &'static str,
    /// The `--fail-on` gate for the findings.
    fail_on: FailOn,
    /// `false` when a finding fails the gate (exit code 1).
    passed: bool,
    #[serde(flatten)]
    report: &'a FuzzReport,
}

/// A campaign as its reports show it: [`FuzzReport::new`] grades the findings, and the
/// renderers draw every file from it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FuzzReport {
    /// The campaign's seed: `--seed` repeats it.
    pub seed: u64,
    /// The command that repeats the campaign.
    pub replay: String,
    /// The profile sessions were judged and findings graded under.
    pub profile: Profile,
    /// Sessions that ended (those cut short by `--time` or an interrupt not counted).
    pub sessions: u64,
    /// Searches the engine answered.
    pub positions: u64,
    /// Wall time of the campaign, confirming and shrinking included.
    pub seconds: f64,
    pub positions_per_second: f64,
    /// Sessions the time limit cut short (not counted).
    pub cut_short: u64,
    /// Failures that a synchronised re-run did not repeat (machine load): not reported.
    pub unconfirmed: u64,
    /// Known findings met again (counted in their groups or as waived, not reported again).
    pub known: u64,
    /// Ctrl-C (or another signal) stopped the campaign.
    pub interrupted: bool,
    /// One entry per finding group (same oracle, same rule), by oracle then rule.
    pub findings: Vec<FuzzFinding>,
    /// Findings the `--baseline` waives, met this often.
    pub waived: Vec<WaivedCount>,
    pub coverage: CoverageReport,
}

/// One finding group (same oracle, same rule), graded as `usicheck run` grades its reproducer.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FuzzFinding {
    /// The oracle that judged it (`usicheck fuzz --help`).
    pub oracle: &'static str,
    pub rule: RuleId,
    /// The rule's strength in the catalogue (e.g. MUST, SHOULD, DE-FACTO, with qualified
    /// parts).
    pub strength: String,
    /// The rule's title in the catalogue.
    pub title: &'static str,
    /// What `usicheck run` grades the reproducer under the profile.
    pub grade: Outcome,
    /// Sessions that failed this way.
    pub count: u64,
    /// Index of the first session that failed this way (from 0).
    pub first_session: u64,
    /// Commands of the session as found.
    pub original_len: usize,
    /// Commands of the reproducer.
    pub shrunk_len: usize,
    /// The time limit stopped confirming and shrinking: the reproducer is the smallest found
    /// by then.
    pub cut_by_time: bool,
    /// What was seen (engine text: escape it before showing it).
    pub detail: String,
    /// The reproducer scenario (`findings/ORACLE-RULE.yaml`).
    pub reproducer: String,
    /// The reproducer as written to `--out`; null when it could not be written there.
    pub out_file: Option<String>,
    /// `usicheck run` of the reproducer with the campaign's engine settings.
    pub replay: String,
    /// The transcript of the run that showed it (`transcripts/ORACLE-RULE.log`); null when
    /// none was kept.
    pub transcript: Option<String>,
    #[serde(skip)]
    verdict: Verdict,
    #[serde(skip)]
    scenario_yaml: String,
    #[serde(skip)]
    transcript_text: String,
}

/// Findings a baseline waives, met this often.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WaivedCount {
    /// The oracle that judged them.
    pub oracle: &'static str,
    pub rule: RuleId,
    pub count: u64,
}

impl FuzzReport {
    /// The report of `summary`, its findings graded under `profile` and `claims`; `replay`
    /// repeats the campaign and `replay_finding` gives the command replaying a reproducer at a
    /// path. A finding the profile does not grade (no verdict) is left out, as on the terminal.
    pub fn new(
        summary: &Summary,
        profile: Profile,
        claims: &Claims,
        replay: String,
        replay_finding: impl Fn(&str) -> String,
        interrupted: bool,
    ) -> FuzzReport {
        let p = summary.progress;
        let findings = summary
            .findings
            .iter()
            .filter_map(|f| {
                let v = &f.violation;
                let (outcome, verdict) = v
                    .outcome
                    .zip(Verdict::violation(profile, v.rule, None, claims, &v.detail))?;
                let stem = finding::stem(v);
                let reproducer = format!("{FINDINGS}/{stem}.yaml");
                let rule = v.rule.rule();
                Some(FuzzFinding {
                    oracle: v.oracle.name(),
                    rule: v.rule,
                    strength: rule.strength.to_string(),
                    title: &rule.title,
                    grade: outcome,
                    count: f.count,
                    first_session: f.session,
                    original_len: f.original_len,
                    shrunk_len: f.shrunk_len,
                    cut_by_time: f.cut_by_time,
                    detail: v.detail.clone(),
                    replay: replay_finding(&reproducer),
                    out_file: f.path.as_ref().map(|p| p.display().to_string()),
                    reproducer,
                    transcript: (!f.transcript.is_empty())
                        .then(|| format!("{TRANSCRIPTS}/{stem}.log")),
                    verdict: Verdict { outcome, ..verdict },
                    scenario_yaml: f.scenario_yaml.clone(),
                    transcript_text: f.transcript.clone(),
                })
            })
            .collect();
        FuzzReport {
            seed: summary.seed,
            replay,
            profile,
            sessions: p.sessions,
            positions: p.positions,
            seconds: p.elapsed.as_secs_f64(),
            positions_per_second: p.positions_per_second(),
            cut_short: p.cut_short,
            unconfirmed: p.unconfirmed,
            known: p.known,
            interrupted,
            findings,
            waived: summary
                .waived
                .iter()
                .map(|&((oracle, rule), count)| WaivedCount {
                    oracle: oracle.name(),
                    rule,
                    count,
                })
                .collect(),
            coverage: CoverageReport::new(summary),
        }
    }

    /// Whether the campaign passes the gate (exit code 0).
    pub fn passed(&self, fail_on: FailOn) -> bool {
        !self.findings.iter().any(|f| fail_on.fails(&f.verdict))
    }

    /// Writes report.json, junit.xml, summary.md, annotations.txt, report.html, and each finding's reproducer
    /// (`findings/`) and transcript (`transcripts/`) into `dir`, which must exist.
    pub fn write(&self, dir: &Path, fail_on: FailOn) -> io::Result<()> {
        let write = |relative: &str, text: &str| {
            let path = dir.join(relative);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, text)
                .map_err(|e| io::Error::new(e.kind(), format!("writing {}: {e}", path.display())))
        };
        for f in &self.findings {
            write(&f.reproducer, &f.scenario_yaml)?;
            if let Some(transcript) = &f.transcript {
                write(transcript, &f.transcript_text)?;
            }
        }
        write(REPORT_JSON, &self.json(fail_on))?;
        write(JUNIT_XML, &self.junit(fail_on, dir))?;
        write(SUMMARY_MD, &self.markdown(fail_on))?;
        write(ANNOTATIONS_TXT, &self.annotations(fail_on))?;
        write(REPORT_HTML, &self.html(fail_on, dir))
    }

    /// `annotations.txt`: a workflow command per finding, an error when the gate counts it.
    pub fn annotations(&self, fail_on: FailOn) -> String {
        self.findings
            .iter()
            .map(|f| {
                let severity = Severity::of(&f.verdict, fail_on);
                let title = format!("{} {}: {}", f.grade, f.rule, f.title);
                let message = format!("{}\nreplay: {}", f.detail, f.replay);
                annotation(severity, &title, &message) + "\n"
            })
            .collect()
    }

    /// `report.json`: the report serialised, with its schema and the gate.
    pub fn json(&self, fail_on: FailOn) -> String {
        let json = FuzzReportJson {
            schema: FUZZ_SCHEMA,
            fail_on,
            passed: self.passed(fail_on),
            report: self,
        };
        serde_json::to_string_pretty(&json).expect("a fuzz report serialises")
    }

    fn numbers(&self) -> String {
        format!(
            "{} sessions, {} positions in {:.1} s ({:.0} positions/s)",
            self.sessions, self.positions, self.seconds, self.positions_per_second
        )
    }

    /// The counts beside the findings: known, waived, unconfirmed, cut short.
    fn side_counts(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.known > 0 {
            lines.push(format!("{} known findings met again", self.known));
        }
        for w in &self.waived {
            lines.push(format!(
                "waived by the baseline: {} {}: {} times",
                w.oracle, w.rule, w.count
            ));
        }
        if self.unconfirmed > 0 {
            lines.push(format!(
                "{} failures did not repeat when re-run (not reported)",
                self.unconfirmed
            ));
        }
        if self.cut_short > 0 {
            lines.push(format!(
                "{} sessions cut short by the time limit (not counted)",
                self.cut_short
            ));
        }
        if self.interrupted {
            lines.push("interrupted: the sessions it cut short are not counted".into());
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzer::coverage::Coverage;
    use crate::fuzzer::oracle::{Oracle, Violation};
    use crate::fuzzer::{Finding, Progress};
    use crate::report::schema::{ReportKind, schema_errors};

    /// A campaign with one finding whose evidence and transcript carry markup and a terminal
    /// escape, as a hostile engine's lines would.
    fn hostile() -> FuzzReport {
        let detail = "bestmove <script>alert(1)</script> \u{1b}[31m]]> & | `x`".to_owned();
        let rule = crate::rule!("USI-BESTMOVE-002");
        let summary = Summary {
            seed: 3,
            progress: Progress {
                sessions: 4,
                positions: 10,
                ..Progress::default()
            },
            findings: vec![Finding {
                violation: Violation::graded(Oracle::Legality, rule, detail.clone(), Some(1)),
                count: 2,
                session: 1,
                original_len: 9,
                shrunk_len: 2,
                cut_by_time: false,
                scenario_yaml: "name: x\n".into(),
                transcript: format!("0.001 < {detail}\n"),
                path: None,
            }],
            waived: Vec::new(),
            coverage: Coverage::default(),
            steered_away: Default::default(),
        };
        FuzzReport::new(
            &summary,
            crate::fuzzer::DEFAULT_PROFILE,
            &Claims::default(),
            "usicheck fuzz --seed 3 -- e".into(),
            |path| format!("usicheck run {path} -- e"),
            false,
        )
    }

    #[test]
    fn engine_text_is_escaped_in_every_report() {
        let report = hostile();
        let dir = std::env::temp_dir().join(format!("usicheck-fuzz-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        report.write(&dir, FailOn::Must).unwrap();
        let html = std::fs::read_to_string(dir.join(REPORT_HTML)).unwrap();
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        let junit = std::fs::read_to_string(dir.join(JUNIT_XML)).unwrap();
        assert!(junit.contains("&lt;script&gt;"), "{junit}");
        let markdown = std::fs::read_to_string(dir.join(SUMMARY_MD)).unwrap();
        assert!(markdown.contains("&lt;script>"), "{markdown}");
        assert!(markdown.contains("\\| \\`x\\`"), "{markdown}");
        for text in [&html, &junit, &markdown] {
            assert!(!text.contains('\u{1b}'), "a raw escape in {text}");
        }
        // report.json keeps the text as it was (JSON escapes it), as its schema says.
        let json = std::fs::read_to_string(dir.join(REPORT_JSON)).unwrap();
        assert!(json.contains("\\u001b[31m"), "{json}");
        let errors = schema_errors(ReportKind::Fuzz, &serde_json::from_str(&json).unwrap());
        assert!(errors.is_empty(), "{errors:#?}");
        assert!(!report.passed(FailOn::Must));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
