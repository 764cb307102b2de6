//! The reports of `usicheck fuzz --report-dir`: `report.json` (docs/fuzz-report.schema.json),
//! `junit.xml` with one testcase per finding group (one passing testcase for a clean
//! campaign), `summary.md` and `report.html`, each with the campaign's numbers, its findings
//! and its protocol-state coverage table. Engine text (a finding's evidence, its transcript)
//! goes through the escaping of certify's reports.

use super::aggregate::FailOn;
use super::annotations::{Severity, annotation};
use super::html::{STYLE, attr, badge, esc};
use super::junit::{transcript_excerpt, xml_lines, xml_text};
use super::markdown::escape;
use super::outputs::{
    ANNOTATIONS_TXT, JUNIT_XML, REPORT_HTML, REPORT_JSON, SUMMARY_MD, TRANSCRIPTS,
};
use crate::fuzzer::Summary;
use crate::fuzzer::coverage::{Coverage, Gap, Sent, State};
use crate::fuzzer::finding;
use crate::rules::{Claims, Outcome, Profile, RuleId, Verdict};
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use schemars::JsonSchema;
use serde::Serialize;
use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::time::Duration;

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

/// The protocol-state coverage table (`usicheck fuzz --coverage` explains it): commands sent,
/// by the engine's state, the command and the time since the previous command.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CoverageReport {
    /// Reachable cells exercised at least once.
    pub exercised: usize,
    /// Cells a GUI can produce.
    pub reachable: usize,
    /// The same, leaving out the cells the campaign steered away from because a known
    /// finding's trigger is there (e.g. the mate-search row when `go mate` hangs).
    pub apart_from_known: ApartFromKnown,
    /// The timing columns, in order.
    pub gaps: Vec<&'static str>,
    /// One row per state and command reachable in it.
    pub rows: Vec<CoverageRow>,
    /// [`Coverage::table`], as the terminal shows it.
    #[serde(skip)]
    table: String,
}

/// Coverage leaving out the cells behind known findings, which the campaign steered away from.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ApartFromKnown {
    /// Reachable cells left out.
    pub left_out: usize,
    /// Cells exercised, of those left in.
    pub exercised: usize,
    /// Cells left in.
    pub reachable: usize,
}

impl ApartFromKnown {
    pub fn of(summary: &Summary) -> ApartFromKnown {
        let ((exercised, reachable), left_out) = summary.reached_apart_from_known();
        ApartFromKnown {
            left_out,
            exercised,
            reachable,
        }
    }

    /// "apart from N cells behind known findings …", when the campaign steered away from any.
    pub fn line(&self) -> Option<String> {
        (self.left_out > 0).then(|| {
            format!(
                "apart from {} cells behind known findings (steered away from): {}/{} cells \
                 ({:.0} %)",
                self.left_out,
                self.exercised,
                self.reachable,
                100.0 * self.exercised as f64 / self.reachable.max(1) as f64
            )
        })
    }
}

/// One row of the table: per gap, how often the cell was exercised (null: unreachable).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CoverageRow {
    /// The engine's protocol state.
    pub state: &'static str,
    /// The command sent in it.
    pub command: &'static str,
    /// Per timing column: commands sent in the cell; null for an unreachable cell.
    pub counts: Vec<Option<u64>>,
}

impl CoverageReport {
    /// The table of the campaign's coverage, as [`Coverage::table`] lays it out.
    pub fn new(summary: &Summary) -> CoverageReport {
        let coverage = &summary.coverage;
        let (exercised, reachable) = coverage.reached();
        let rows = State::ALL
            .into_iter()
            .flat_map(|state| Sent::ALL.into_iter().map(move |sent| (state, sent)))
            .filter(|&(state, sent)| {
                Gap::ALL
                    .iter()
                    .any(|&g| Coverage::reachable(state, sent, g))
            })
            .map(|(state, sent)| CoverageRow {
                state: state.name(),
                command: sent.name(),
                counts: Gap::ALL
                    .into_iter()
                    .map(|gap| {
                        Coverage::reachable(state, sent, gap)
                            .then(|| coverage.count(state, sent, gap))
                    })
                    .collect(),
            })
            .collect();
        CoverageReport {
            exercised,
            reachable,
            apart_from_known: ApartFromKnown::of(summary),
            gaps: Gap::ALL.into_iter().map(Gap::name).collect(),
            rows,
            table: coverage.table(),
        }
    }
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

    /// `junit.xml`: a testcase per finding group, failed when the gate counts it (else passing
    /// with the finding in `system-out`, as certify lists a WARN under `--fail-on must`); a
    /// clean campaign is one passing testcase. Transcripts are quoted from their files in `dir`.
    pub fn junit(&self, fail_on: FailOn, dir: &Path) -> String {
        let mut suite = TestSuite::new("usicheck fuzz");
        for f in &self.findings {
            let status = if fail_on.fails(&f.verdict) {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status
                    .set_type(f.rule.as_str())
                    .set_message(xml_text(&format!(
                        "{} {} [{}] {}: {}",
                        f.grade, f.rule, f.strength, f.title, f.detail
                    )));
                status
            } else {
                TestCaseStatus::success()
            };
            let mut out = format!(
                "{} {} {} [{}] {}: {}\n{} sessions, first in session {} (shrunk {} -> {} \
                 commands)\nreproducer: {}\nreplay: {}\n",
                f.grade,
                f.oracle,
                f.rule,
                f.strength,
                f.title,
                f.detail,
                f.count,
                f.first_session,
                f.original_len,
                f.shrunk_len,
                f.reproducer,
                f.replay
            );
            if let Some(transcript) = &f.transcript {
                let _ = write!(out, "transcript: {transcript}\n\n");
                out.push_str(
                    &transcript_excerpt(&dir.join(transcript))
                        .unwrap_or_else(|_| f.transcript_text.clone()),
                );
            }
            let mut case = TestCase::new(format!("{} {}", f.oracle, f.rule), status);
            case.set_classname("usicheck.fuzz")
                .set_system_out(xml_lines(&out))
                .add_property(Property::new("grade", f.grade.as_str()))
                .add_property(Property::new("count", f.count.to_string()));
            suite.add_test_case(case);
        }
        if self.findings.is_empty() {
            let mut case = TestCase::new(
                format!("campaign seed {}", self.seed),
                TestCaseStatus::success(),
            );
            case.set_classname("usicheck.fuzz")
                .set_time(Duration::from_secs_f64(self.seconds))
                .set_system_out(xml_lines(&format!(
                    "{} sessions, {} positions, no findings\nreplay: {}\n",
                    self.sessions, self.positions, self.replay
                )));
            suite.add_test_case(case);
        }
        let mut junit = Report::new("usicheck");
        junit.add_test_suite(suite);
        junit.to_string().expect("quick-junit writes into a String")
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

    /// `summary.md`: the verdict, the numbers, a table of findings, the coverage table.
    pub fn markdown(&self, fail_on: FailOn) -> String {
        let mut out = format!(
            "# usicheck fuzz: {} with --fail-on {}\n\n- seed {}: {}\n- profile {}\n- {}\n",
            if self.passed(fail_on) { "PASS" } else { "FAIL" },
            fail_on.as_str(),
            self.seed,
            escape(&self.replay),
            self.profile,
            self.numbers()
        );
        for line in self.side_counts() {
            let _ = writeln!(out, "- {}", escape(&line));
        }
        if self.findings.is_empty() {
            out.push_str("\nNo findings.\n");
        } else {
            out.push_str(
                "\n| grade | oracle | rule | sessions | first | shrunk | evidence | reproducer |\n\
                 |---|---|---|---|---|---|---|---|\n",
            );
            for f in &self.findings {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} [{}] {} | {} | {} | {} -> {} | {} | {} |",
                    f.grade,
                    f.oracle,
                    f.rule,
                    f.strength,
                    escape(f.title),
                    f.count,
                    f.first_session,
                    f.original_len,
                    f.shrunk_len,
                    escape(&f.detail),
                    escape(&f.reproducer)
                );
            }
            out.push('\n');
            for f in &self.findings {
                let _ = writeln!(
                    out,
                    "- {} {}: replay {}; transcript {}",
                    f.oracle,
                    f.rule,
                    escape(&f.replay),
                    escape(f.transcript.as_deref().unwrap_or("none"))
                );
            }
        }
        let _ = write!(
            out,
            "\n## Protocol-state coverage\n\n```\n{}```\n",
            self.coverage.table
        );
        if let Some(line) = self.coverage.apart_from_known.line() {
            let _ = writeln!(out, "\n{line}");
        }
        out
    }

    /// `report.html`: one self-contained page in certify's style (no script), engine text
    /// escaped, the coverage table as a table; transcripts quoted from their files in `dir`.
    pub fn html(&self, fail_on: FailOn, dir: &Path) -> String {
        let passed = self.passed(fail_on);
        let mut out = format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"generator\" content=\"usicheck {}\">\n\
             <title>usicheck fuzz: seed {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
             <h1 class=\"gate\">usicheck fuzz {} <span class=\"muted\">with --fail-on {}</span></h1>\n\
             <p>seed {} · replay <code>{}</code> · profile {}</p>\n<p>{}</p>\n",
            env!("CARGO_PKG_VERSION"),
            self.seed,
            badge(if passed { "PASS" } else { "FAIL" }),
            fail_on.as_str(),
            self.seed,
            esc(&self.replay),
            self.profile,
            esc(&self.numbers())
        );
        let side = self.side_counts();
        if !side.is_empty() {
            out.push_str("<ul>\n");
            for line in side {
                let _ = writeln!(out, "<li>{}</li>", esc(&line));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("<h2>Findings</h2>\n");
        if self.findings.is_empty() {
            out.push_str("<p>No findings.</p>\n");
        }
        for f in &self.findings {
            let _ = write!(
                out,
                "<h3>{} {} {} <span class=\"muted\">[{}] {}</span></h3>\n\
                 <p>{}</p>\n<p>{} sessions, first in session {}; shrunk {} → {} commands{}</p>\n\
                 <p>reproducer <a href=\"{}\"><code>{}</code></a> · replay <code>{}</code></p>\n",
                badge(f.grade.as_str()),
                f.oracle,
                f.rule,
                esc(&f.strength),
                esc(f.title),
                esc(&f.detail),
                f.count,
                f.first_session,
                f.original_len,
                f.shrunk_len,
                if f.cut_by_time {
                    " (the time limit stopped its shrinking)"
                } else {
                    ""
                },
                attr(&f.reproducer),
                esc(&f.reproducer),
                esc(&f.replay)
            );
            if let Some(transcript) = &f.transcript {
                let text = transcript_excerpt(&dir.join(transcript))
                    .unwrap_or_else(|_| f.transcript_text.clone());
                let lines: Vec<String> = text.lines().map(esc).collect();
                let _ = writeln!(
                    out,
                    "<details><summary>transcript (<a href=\"{}\">{}</a>)</summary>\
                     <pre><code>{}</code></pre></details>",
                    attr(transcript),
                    esc(transcript),
                    lines.join("\n")
                );
            }
        }
        let _ = write!(
            out,
            "<h2>Protocol-state coverage: {}/{} reachable cells</h2>\n\
             <p class=\"muted\">Commands sent, by the engine's state, the command and the time \
             since the previous command; · a reachable cell not exercised, blank an unreachable \
             one (<code>usicheck fuzz --coverage</code>).</p>\n\
             <table class=\"counts coverage\">\n<thead><tr><th>state</th><th>command</th>",
            self.coverage.exercised, self.coverage.reachable
        );
        if let Some(line) = self.coverage.apart_from_known.line() {
            let _ = writeln!(out, "<p>{}</p>", esc(&line));
        }
        for gap in &self.coverage.gaps {
            let _ = write!(out, "<th>{}</th>", esc(gap));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for row in &self.coverage.rows {
            let _ = write!(out, "<tr><th>{}</th><th>{}</th>", row.state, row.command);
            for count in &row.counts {
                match count {
                    Some(0) => out.push_str("<td class=\"muted\">·</td>"),
                    Some(n) => {
                        let _ = write!(out, "<td>{n}</td>");
                    }
                    None => out.push_str("<td></td>"),
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n</body>\n</html>\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn the_cells_behind_known_findings_are_told_apart() {
        let mut coverage = Coverage::default();
        coverage.note(State::Idle, Sent::Go, Gap::Under1);
        coverage.note(State::MateSearch, Sent::Stop, Gap::Under1);
        let summary = Summary {
            seed: 1,
            progress: Progress::default(),
            findings: Vec::new(),
            waived: Vec::new(),
            coverage,
            steered_away: [crate::fuzzer::plan::Trigger::GoMate].into(),
        };
        let report = CoverageReport::new(&summary);
        // The mate-search row: six commands a GUI sends during a search, six timings each.
        assert_eq!(report.apart_from_known.left_out, 36);
        assert_eq!(report.apart_from_known.exercised, 1);
        assert_eq!(report.apart_from_known.reachable, report.reachable - 36);
        assert_eq!(
            report.apart_from_known.line().unwrap(),
            "apart from 36 cells behind known findings (steered away from): 1/250 cells (0 %)"
        );
        let nothing_known = Summary {
            steered_away: Default::default(),
            ..summary
        };
        assert_eq!(ApartFromKnown::of(&nothing_known).line(), None);
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
