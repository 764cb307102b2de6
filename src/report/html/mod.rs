//! `report.html`: one self-contained page (inline CSS and SVG, no script, nothing fetched)
//! drawn from the typed report.json, [`CertifyReport`]. The page embeds that report's JSON
//! text, in a `<script type="application/json" id="report-data">` block, and reads nothing
//! else about the run (the rule texts come from the catalogue).
//!
//! Engine text is untrusted: every string from the report is escaped for its place (text or
//! double-quoted attribute) by `html-escape`, after control characters are made visible.
//!
//! Here the page's frame, its sections in order and their anchors; `text` makes text safe
//! for the page, `certificate`, `rules` and `timelines` draw their sections, `chart` the time
//! use and `sequence` a scenario's diagram.

mod certificate;
mod chart;
mod rules;
mod sequence;
mod text;
mod timelines;

pub(super) use text::{attr, badge, esc, ms, shorten};

use super::json::{CertifyReport, RunReport};
use crate::rules::RuleId;
use certificate::certificate;
use rules::{catalogue, rule_matrix};
use std::collections::HashMap;
use text::embedded_json;
use timelines::timelines;

pub(super) const STYLE: &str = include_str!("style.css");

/// Renders `report.html` from the report, embedding its report.json text.
pub fn render(report: &CertifyReport) -> String {
    let report_json = report.to_json();
    let runs = &report.runs;
    let engine = runs
        .first()
        .and_then(|run| run.engine_name.as_deref())
        .unwrap_or("engine");
    let mut out = String::with_capacity(report_json.len() * 3);
    out.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"usicheck {}\">\n\
         <title>usicheck report: {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        esc(&report.usicheck_version),
        esc(engine)
    ));
    for (index, run) in runs.iter().enumerate() {
        run_sections(report, run, &Ids::new(index), &mut out);
    }
    catalogue(runs, &mut out);
    out.push_str(&format!(
        "<script type=\"application/json\" id=\"report-data\">{}</script>\n</body>\n</html>\n",
        embedded_json(&report_json)
    ));
    out
}

/// Element ids of one run (the first run's are plain; later runs add their number).
struct Ids {
    suffix: String,
}

impl Ids {
    fn new(run: usize) -> Ids {
        Ids {
            suffix: if run == 0 {
                String::new()
            } else {
                format!("-{}", run + 1)
            },
        }
    }

    fn section(&self, name: &str) -> String {
        format!("{name}{}", self.suffix)
    }

    fn scenario(&self, index: usize) -> String {
        format!("scenario-{index}{}", self.suffix)
    }
}

fn rule_anchor(rule: RuleId) -> String {
    format!("rule-text-{}", attr(rule.as_str()))
}

/// A link to `rule`'s text, its ID as code.
fn rule_link(rule: RuleId) -> String {
    format!(
        "<a href=\"#{}\"><code>{}</code></a>",
        rule_anchor(rule),
        esc(rule.as_str())
    )
}

fn run_sections(report: &CertifyReport, run: &RunReport, ids: &Ids, out: &mut String) {
    // Each name to its first scenario (inserted last).
    let index_of: HashMap<&str, usize> = run
        .scenarios
        .iter()
        .enumerate()
        .rev()
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    certificate(report, run, ids, out);
    out.push_str(&format!(
        "<nav><a href=\"#{}\">Rule matrix</a> · <a href=\"#{}\">Time use</a> · \
         <a href=\"#{}\">Scenario timelines</a> · <a href=\"#catalogue\">Rule texts</a> · \
         <a href=\"report.json\">report.json</a> (embedded as <code>#report-data</code>)</nav>\n",
        ids.section("rule-matrix"),
        ids.section("time-use"),
        ids.section("timelines"),
    ));
    rule_matrix(run, ids, &index_of, out);
    chart::time_use(
        &run.scenarios,
        ids.section("time-use"),
        |i| ids.scenario(i),
        out,
    );
    timelines(run, ids, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::fixtures::{HOSTILE, failing_run};
    use crate::report::{Aggregate, FailOn};

    /// The fixture's page: its time use, its evidence line marked, and the hostile engine
    /// text shown as text only.
    #[test]
    fn a_failing_run_draws_its_time_use_and_marks_its_evidence() {
        let report = CertifyReport::new(&Aggregate::from_events(&failing_run()), FailOn::Must);
        let page = render(&report);
        assert_eq!(page.matches("data-timed-search=").count(), 1);
        assert!(page.contains(r#"class="timed-search t-late""#));
        assert!(page.contains("1500 ms of 1100 ms · margin -400 ms"));
        assert_eq!(page.matches(r#"data-evidence="true""#).count(), 1);
        assert!(page.contains(r#"data-window="silence""#));
        assert!(!page.contains("<script>alert") && !page.contains(HOSTILE));
        assert_eq!(page.matches("<script").count(), 1);
        assert!(
            page.contains("Evil\\x1b[2J"),
            "escape sequences made visible"
        );
    }

    /// A report without runs (an empty event stream) is still a page, embedding its data.
    #[test]
    fn a_report_without_runs_still_renders_a_page() {
        let report = CertifyReport::new(&Aggregate::default(), FailOn::Must);
        let page = render(&report);
        assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
        assert!(page.contains(&embedded_json(&report.to_json())));
    }
}
