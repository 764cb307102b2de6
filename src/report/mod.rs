//! Reports: one event stream (see [`Event`]), several reporters.
//!
//! [`Outputs`] is what commands use: it feeds the [`Terminal`] reporter for `--format human`,
//! collects an [`Aggregate`] from which `report.json`, `junit.xml`, `summary.md` and
//! `counts.txt` are rendered, copies transcripts into `--report-dir`, and applies the
//! `--fail-on` gate.

mod aggregate;
mod annotations;
mod baseline;
mod counts;
pub mod diff;
mod event;
#[cfg(test)]
pub(crate) mod fixtures;
mod fuzz;
mod games;
mod html;
mod json;
mod junit;
mod markdown;
mod outputs;
mod play_summary;
mod schema;
mod strength;
pub mod style;
mod terminal;
mod timeline;

pub use aggregate::{
    Aggregate, AlwaysOnFinding, Certificate, FailOn, Judgement, LevelCount, RuleResult, Run,
    badness, judged_level, level_label,
};
pub use annotations::{Severity, annotation, certify_annotations, play_annotations};
pub use baseline::{Baseline, Waiver, write as render_baseline};
pub use event::{EngineCpu, Event, Reporter, RunInfo, ScenarioReport, StepFailure};
pub use fuzz::{
    ApartFromKnown, CoverageReport, CoverageRow, FUZZ_SCHEMA, FuzzFinding, FuzzReport,
    FuzzReportJson, WaivedCount,
};
pub use games::{
    PLAY_SCHEMA, PlayReportJson, render_play_html, render_play_json, render_play_junit,
    results_table,
};
pub use json::{
    CertifyReport, EngineOption, LevelEntry, RuleEntry, RunReport, SCHEMA, ScenarioEntry,
    VerdictEntry,
};
pub use outputs::{
    ANNOTATIONS_TXT, COUNTS_TXT, Format, JUNIT_XML, Outputs, REPORT_HTML, REPORT_JSON, SUMMARY_MD,
    TRANSCRIPTS, transcript_file_names,
};
pub use play_summary::{render_play_counts, render_play_summary};
pub use schema::ReportKind;
use std::path::Path;
pub use strength::{llr_chart, sprt_line, strength_lines};
pub use terminal::Terminal;
pub use timeline::{
    MAX_WINDOWS, Speaker, TIMELINE_END, Timeline, TimelineEntry, Window, WindowKind, ms,
};

/// Renders `junit.xml` text; failing testcases quote their transcript files, found relative to
/// `report_dir` when given.
pub fn render_junit(aggregate: &Aggregate, fail_on: FailOn, report_dir: Option<&Path>) -> String {
    junit::render(aggregate, fail_on, report_dir)
}

/// Renders `summary.md` text.
pub fn render_markdown(aggregate: &Aggregate, fail_on: FailOn) -> String {
    markdown::render(aggregate, fail_on)
}
