//! `report.html`: one self-contained page (inline CSS and SVG, no script, nothing fetched)
//! drawn from the typed report.json, [`CertifyReport`]. The page embeds that report's JSON
//! text, in a `<script type="application/json" id="report-data">` block, and reads nothing
//! else about the run (the rule texts come from the catalogue).
//!
//! Engine text is untrusted: every string from the report is escaped for its place (text or
//! double-quoted attribute) by `html-escape`, after control characters are made visible.

mod chart;
mod sequence;

use super::aggregate::ENGINE_RULES_ONLY;
use super::json::{CertifyReport, RunReport, ScenarioEntry, VerdictEntry};
use crate::engine::sanitise;
use crate::rules::{Outcome, RuleId};
use std::collections::HashMap;

pub(super) const STYLE: &str = include_str!("html/style.css");

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

/// JSON text safe inside `<script type="application/json">`: no `<` (so no `</script>` and
/// no `<!--`) and no raw control character (JSON leaves DEL and C1 raw), each as a `\uXXXX`
/// escape within its string, where alone JSON can hold them.
fn embedded_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' | '\u{7f}'..='\u{9f}' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Untrusted text as HTML text: control characters visible, `&`, `<`, `>` as references.
pub(super) fn esc(text: &str) -> String {
    html_escape::encode_text(&sanitise(text)).into_owned()
}

/// Untrusted text inside a double-quoted attribute.
pub(super) fn attr(text: &str) -> String {
    html_escape::encode_double_quoted_attribute(&sanitise(text)).into_owned()
}

/// `text` cut to `chars` characters, with `…` when cut.
pub(super) fn shorten(text: &str, chars: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]).into(),
        None => text.into(),
    }
}

/// Milliseconds for people: two decimals below 10 ms, whole ones above.
pub(super) fn ms(value: f64) -> String {
    if value.abs() < 10.0 {
        format!("{value:.2} ms")
    } else {
        format!("{value:.0} ms")
    }
}

/// Catalogue text (trusted, with Markdown code spans) as HTML: escaped, then each
/// `` `span` `` as `<code>`.
fn catalogue_text(text: &str) -> String {
    let escaped = esc(text);
    let mut out = String::with_capacity(escaped.len() + 16);
    for (i, part) in escaped.split('`').enumerate() {
        match i % 2 {
            1 => out.push_str(&format!("<code>{part}</code>")),
            _ => out.push_str(part),
        }
    }
    out
}

/// A verdict badge.
pub(super) fn badge(outcome: &str) -> String {
    let outcome = esc(outcome);
    format!("<span class=\"badge v-{outcome}\">{outcome}</span>")
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

fn certificate(report: &CertifyReport, run: &RunReport, ids: &Ids, out: &mut String) {
    let gate = if run.passed { "PASS" } else { "FAIL" };
    let engine = run
        .engine_name
        .as_deref()
        .map_or("(no `id name` sent)".to_owned(), esc);
    out.push_str(&format!(
        "<header id=\"{}\" class=\"certificate\">\n<h1>usicheck certificate: {engine} \
         <span class=\"gate\" data-gate=\"{gate}\">{}</span></h1>\n<dl>\n",
        ids.section("certificate"),
        badge(gate),
    ));
    let mut row = |key: &str, value: String| {
        out.push_str(&format!("<dt>{key}</dt><dd>{value}</dd>\n"));
    };
    row("Engine <code>id name</code>", engine.clone());
    if let Some(author) = &run.engine_author {
        row("Engine <code>id author</code>", esc(author));
    }
    row(
        "Engine command",
        format!("<code>{}</code>", esc(&run.engine.join(" "))),
    );
    row("Profile", esc(run.profile.as_str()));
    row("usicheck", esc(&report.usicheck_version));
    row("Date", esc(&run.started_at));
    let options: Vec<String> = run
        .options
        .iter()
        .map(|o| esc(&format!("{}={}", o.name, o.value)))
        .collect();
    row(
        "Options",
        if options.is_empty() {
            "default".to_owned()
        } else {
            options.join(", ")
        },
    );
    let scenarios = run.scenarios.len();
    let selection = match run.selected_scenarios {
        Some(_) => " (a selection: the counts cover the rules it judged)",
        None => " (the profile's whole suite)",
    };
    row("Scenarios", format!("{scenarios}{selection}"));
    if let Some(duration) = run.duration_ms {
        row("Duration", format!("{:.1} s", duration as f64 / 1000.0));
    }
    if let Some(signal) = &run.interrupted {
        row(
            "Interrupted",
            format!(
                "by {}: only the scenarios that finished are judged",
                esc(signal)
            ),
        );
    }
    for stale in &run.stale_waivers {
        row("Stale waiver", esc(stale));
    }
    row(
        "Gate",
        format!(
            "{} with <code>--fail-on {}</code>",
            badge(gate),
            esc(report.fail_on.as_str())
        ),
    );
    out.push_str("</dl>\n<table class=\"counts\">\n<thead><tr><th>Strength</th><th>applicable</th><th>PASS</th><th>FAIL</th><th>WARN</th><th>INFO</th><th>SKIP</th><th>not checked</th></tr></thead>\n<tbody>\n");
    for entry in &run.certificate {
        let (level, count) = (entry.level.as_str(), &entry.count);
        out.push_str(&format!(
            "<tr data-level=\"{}\"><th>{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>\n",
            attr(level),
            esc(level),
            count.applicable,
            count.pass,
            count.fail,
            count.warn,
            count.info,
            count.skip,
            count.unchecked,
        ));
    }
    out.push_str(&format!(
        "</tbody>\n</table>\n<p class=\"counted\">Counted: {}.</p>\n</header>\n",
        esc(ENGINE_RULES_ONLY)
    ));
}

/// Verdicts, worst first: the order the filter offers them.
const VERDICTS: [Outcome; 5] = [
    Outcome::Fail,
    Outcome::Warn,
    Outcome::Info,
    Outcome::Pass,
    Outcome::Skip,
];

/// Scenarios named per rule in the matrix before the rest are folded.
const JUDGED_SHOWN: usize = 6;

fn rule_matrix(run: &RunReport, ids: &Ids, index_of: &HashMap<&str, usize>, out: &mut String) {
    let rules = &run.rules;
    let section = ids.section("rule-matrix");
    out.push_str(&format!(
        "<section id=\"{section}\" class=\"rule-matrix\">\n<h2>Rule matrix</h2>\n\
         <p>Every judged rule with its worst verdict over the scenarios that judged it \
         (the rule links to its text, the scenarios to their timelines). Show:</p>\n\
         <div class=\"matrix\">\n"
    ));
    // Radio buttons before the table filter it with CSS alone; the violations show first.
    let filter = format!("filter{}", ids.suffix);
    let violated = rules
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Fail | Outcome::Warn))
        .count();
    let checked = |on: bool| if on { " checked" } else { "" };
    out.push_str(&format!(
        "<input type=\"radio\" name=\"{filter}\" id=\"{filter}-violated\" class=\"f-violated\"{}>\
         <label for=\"{filter}-violated\">FAIL or WARN ({violated})</label>\n\
         <input type=\"radio\" name=\"{filter}\" id=\"{filter}-all\" class=\"f-all\"{}>\
         <label for=\"{filter}-all\">all ({})</label>\n",
        checked(violated > 0),
        checked(violated == 0),
        rules.len()
    ));
    for outcome in VERDICTS {
        let count = rules.iter().filter(|r| r.outcome == outcome).count();
        let verdict = outcome.as_str();
        out.push_str(&format!(
            "<input type=\"radio\" name=\"{filter}\" id=\"{filter}-{verdict}\" class=\"f-{verdict}\">\
             <label for=\"{filter}-{verdict}\">{verdict} ({count})</label>\n"
        ));
    }
    out.push_str(
        "<table class=\"rules\">\n<thead><tr><th>Verdict</th><th>Rule</th><th>Title</th>\
         <th>Strength</th><th>Judged by</th></tr></thead>\n<tbody>\n",
    );
    for rule in rules {
        let id = rule.rule;
        let outcome = rule.outcome.as_str();
        let mut judgements: Vec<_> = rule.judged_by.iter().collect();
        judgements.sort_by_key(|j| VERDICTS.iter().position(|&v| v == j.outcome));
        let mut judged: Vec<String> = judgements
            .into_iter()
            .map(|j| {
                let name = j.scenario.as_str();
                let outcome = j.outcome.as_str();
                let link = match index_of.get(name) {
                    Some(&i) => format!("#{}", ids.scenario(i)),
                    None => String::new(),
                };
                format!(
                    "<a class=\"judged v-{}\" href=\"{link}\" title=\"{}\">{}</a>",
                    attr(outcome),
                    attr(&format!("{outcome}: {}", j.reason)),
                    esc(name)
                )
            })
            .collect();
        // The worst ones shown, the rest a click away.
        if judged.len() > JUDGED_SHOWN {
            let more = judged.split_off(JUDGED_SHOWN);
            judged.push(format!(
                "<details class=\"more\"><summary>+ {} more</summary>{}</details>",
                more.len(),
                more.join(" ")
            ));
        }
        if rule.always_on_passed > 0 {
            judged.push(format!(
                "<span class=\"muted\">+ {} always-on passes</span>",
                rule.always_on_passed
            ));
        }
        out.push_str(&format!(
            "<tr class=\"rule v-{o}\" data-verdict=\"{o}\" data-rule=\"{r}\"><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            badge(outcome),
            rule_link(id),
            catalogue_text(&rule.title),
            esc(&rule.strength),
            judged.join(" "),
            o = attr(outcome),
            r = attr(id.as_str()),
        ));
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
    always_on(run, ids, index_of, out);
    out.push_str("</section>\n");
}

fn always_on(run: &RunReport, ids: &Ids, index_of: &HashMap<&str, usize>, out: &mut String) {
    let findings = &run.always_on;
    if findings.is_empty() {
        return;
    }
    out.push_str(
        "<h3>Always-on checks</h3>\n<p>Every line of every session; each violation once, \
         with its first evidence.</p>\n<table class=\"always-on\">\n<thead><tr><th>Verdict</th>\
         <th>Rule</th><th>Evidence</th><th>Seen in</th></tr></thead>\n<tbody>\n",
    );
    for finding in findings {
        let first = finding.first_scenario.as_str();
        let link = index_of
            .get(first)
            .map_or(String::new(), |&i| format!("#{}", ids.scenario(i)));
        let others = finding.scenarios.len().saturating_sub(1);
        let outcome = finding.outcome.as_str();
        out.push_str(&format!(
            "<tr class=\"v-{}\"><td>{}</td><td>{}</td>\
             <td><code>{}</code></td><td><a href=\"{link}\">{}</a>{}</td></tr>\n",
            attr(outcome),
            badge(outcome),
            rule_link(finding.rule),
            esc(&shorten(&finding.evidence, 300)),
            esc(first),
            if others > 0 {
                format!(" and {others} other sessions")
            } else {
                String::new()
            },
        ));
    }
    out.push_str("</tbody>\n</table>\n");
}

fn timelines(run: &RunReport, ids: &Ids, out: &mut String) {
    out.push_str(&format!(
        "<section id=\"{}\" class=\"timelines\">\n<h2>Scenario timelines</h2>\n\
         <p>Each scenario's session as a sequence diagram: what usicheck sent and what the \
         engine answered, in order, with their times; the deadlines and silences the checks \
         waited for beside them, and the line a failure quotes marked. Runs of <code>info</code> \
         lines are counted; long transcripts show their first and last lines. Beside them: \
         <span class=\"key clock\">a search's clock</span> \
         <span class=\"key deadline\">a check's deadline</span> \
         <span class=\"key silence\">a silence</span>; a dotted line across marks where a \
         deadline fell.</p>\n",
        ids.section("timelines")
    ));
    for (index, scenario) in run.scenarios.iter().enumerate() {
        let outcome = scenario.outcome.as_str();
        let searches = scenario.timed_searches.len();
        out.push_str(&format!(
            "<details id=\"{}\" class=\"scenario v-{o}\" data-outcome=\"{o}\">\n<summary>{} \
             {} <span class=\"muted\">{} ms · {} rules{}</span></summary>\n<div class=\"body\">\n",
            ids.scenario(index),
            badge(outcome),
            esc(&scenario.name),
            scenario.duration_ms,
            scenario.rules.len(),
            if searches > 0 {
                format!(" · {searches} timed searches")
            } else {
                String::new()
            },
            o = attr(outcome),
        ));
        scenario_facts(scenario, &run.verdicts, out);
        if let Some(timeline) = &scenario.timeline {
            sequence::diagram(
                timeline,
                &scenario.timed_searches,
                scenario.transcript.as_deref(),
                out,
            );
        }
        out.push_str("</div>\n</details>\n");
    }
    out.push_str("</section>\n");
}

fn scenario_facts(scenario: &ScenarioEntry, verdicts: &[VerdictEntry], out: &mut String) {
    out.push_str("<dl class=\"facts\">\n");
    out.push_str(&format!(
        "<dt>File</dt><dd><code>{}</code></dd>\n",
        esc(&scenario.file)
    ));
    let rules: Vec<String> = scenario.rules.iter().map(|&r| rule_link(r)).collect();
    out.push_str(&format!("<dt>Rules</dt><dd>{}</dd>\n", rules.join(" ")));
    if let Some(skipped) = &scenario.skipped {
        out.push_str(&format!("<dt>Skipped</dt><dd>{}</dd>\n", esc(skipped)));
    }
    if let Some(failure) = &scenario.failure {
        out.push_str(&format!(
            "<dt>Failed step</dt><dd>{} <code>{}</code></dd>\n<dt>Expected</dt><dd>{}</dd>\n\
             <dt>Actual</dt><dd class=\"actual\">{}</dd>\n",
            failure.step,
            esc(&failure.step_text),
            esc(&failure.expected),
            esc(&failure.actual),
        ));
    }
    let judged: Vec<String> = verdicts
        .iter()
        .filter(|v| v.scenario == scenario.name && v.outcome != Outcome::Pass)
        .map(|v| {
            let counted = scenario.rules.contains(&v.rule);
            format!(
                "<li>{} {} {}{}</li>",
                badge(v.outcome.as_str()),
                rule_link(v.rule),
                esc(&shorten(&v.reason, 400)),
                match (v.always_on, counted) {
                    (true, false) =>
                        " <span class=\"muted\">(always-on check: the run's, \
                                      not this scenario's)</span>",
                    (true, true) => " <span class=\"muted\">(always-on check)</span>",
                    _ => "",
                }
            )
        })
        .collect();
    if !judged.is_empty() {
        out.push_str(&format!(
            "<dt>Verdicts</dt><dd><ul>{}</ul></dd>\n",
            judged.join("")
        ));
    }
    out.push_str(&format!(
        "<dt>Replay</dt><dd><code>{}</code></dd>\n",
        esc(&scenario.replay)
    ));
    if let Some(path) = &scenario.transcript {
        out.push_str(&format!(
            "<dt>Transcript</dt><dd><a href=\"{}\">{}</a></dd>\n",
            attr(path),
            esc(path)
        ));
    }
    out.push_str("</dl>\n");
}

/// The catalogue text of every rule the runs judged.
fn catalogue(runs: &[RunReport], out: &mut String) {
    let mut ids: Vec<RuleId> = runs
        .iter()
        .flat_map(|run| &run.rules)
        .map(|r| r.rule)
        .collect();
    ids.sort();
    ids.dedup();
    out.push_str(
        "<section id=\"catalogue\" class=\"catalogue\">\n<h2>Rule texts</h2>\n\
         <p>From the rule catalogue (RULES.md) compiled into usicheck.</p>\n",
    );
    for id in ids {
        let rule = id.rule();
        out.push_str(&format!(
            "<article id=\"{}\" class=\"rule-text\">\n<h3><code>{}</code> {}</h3>\n<dl>\n\
             <dt>Strength</dt><dd>{}</dd>\n<dt>Rule</dt><dd>{}</dd>\n<dt>Check</dt><dd>{}</dd>\n\
             <dt>Sources</dt><dd>{}</dd>\n",
            rule_anchor(id),
            esc(id.as_str()),
            catalogue_text(&rule.title),
            esc(&rule.strength.to_string()),
            catalogue_text(&rule.statement),
            catalogue_text(&rule.check),
            catalogue_text(&rule.sources),
        ));
        if let Some(timeout) = &rule.timeout {
            out.push_str(&format!(
                "<dt>Timeout</dt><dd>{}</dd>\n",
                catalogue_text(timeout)
            ));
        }
        out.push_str("</dl>\n</article>\n");
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::fixtures::{HOSTILE, failing_run};
    use crate::report::{Aggregate, FailOn};

    #[test]
    fn embedded_json_cannot_close_its_script_and_stays_the_same_data() {
        let json = serde_json::json!({"text": "</script><!--<b>\u{9b}\u{7f}"}).to_string();
        let embedded = embedded_json(&json);
        assert!(!embedded.contains('<') && !embedded.contains('\u{9b}'));
        let back: serde_json::Value = serde_json::from_str(&embedded).unwrap();
        assert_eq!(back["text"], "</script><!--<b>\u{9b}\u{7f}");
    }

    #[test]
    fn engine_text_is_inert_in_text_and_attributes() {
        let hostile = "<script>alert(1)</script>\" onmouseover=\"x\u{1b}[31m";
        assert_eq!(
            esc(hostile),
            "&lt;script&gt;alert(1)&lt;/script&gt;\" onmouseover=\"x\\x1b[31m"
        );
        assert!(!attr(hostile).contains('"') && !attr(hostile).contains('<'));
    }

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
