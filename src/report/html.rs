//! `report.html`: one self-contained page (inline CSS and SVG, no script, nothing fetched)
//! drawn from report.json itself. The page embeds the JSON text it was drawn from, in a
//! `<script type="application/json" id="report-data">` block, and reads nothing else about
//! the run (the rule texts come from the catalogue).
//!
//! Engine text is untrusted: every string from the report is escaped for its place (text or
//! double-quoted attribute) by `html-escape`, after control characters are made visible.

mod chart;
mod sequence;

use crate::engine::sanitise;
use crate::rules::RuleId;
use serde_json::Value;
use std::collections::HashMap;

pub(super) const STYLE: &str = include_str!("html/style.css");

/// Renders `report.html` from the text of report.json.
pub fn render(report_json: &str) -> String {
    let report: Value = serde_json::from_str(report_json).unwrap_or(Value::Null);
    let runs = list(&report, "runs");
    let engine = runs
        .first()
        .and_then(|run| run.get("engine_name"))
        .and_then(Value::as_str)
        .unwrap_or("engine");
    let mut out = String::with_capacity(report_json.len() * 3);
    out.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"usicheck {}\">\n\
         <title>usicheck report: {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        esc(text(&report, "usicheck_version")),
        esc(engine)
    ));
    for (index, run) in runs.iter().enumerate() {
        run_sections(&report, run, &Ids::new(index), &mut out);
    }
    catalogue(runs, &mut out);
    out.push_str(&format!(
        "<script type=\"application/json\" id=\"report-data\">{}</script>\n</body>\n</html>\n",
        embedded_json(report_json)
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

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn number(value: &Value, key: &str) -> Option<f64> {
    value.get(key).and_then(Value::as_f64)
}

fn list<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
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

fn rule_anchor(rule: &str) -> String {
    format!("rule-text-{}", attr(rule))
}

fn run_sections(report: &Value, run: &Value, ids: &Ids, out: &mut String) {
    let scenarios = list(run, "scenarios");
    // Each name to its first scenario (inserted last).
    let index_of: HashMap<&str, usize> = scenarios
        .iter()
        .enumerate()
        .rev()
        .map(|(i, s)| (text(s, "name"), i))
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
    chart::time_use(scenarios, ids.section("time-use"), |i| ids.scenario(i), out);
    timelines(run, ids, out);
}

fn certificate(report: &Value, run: &Value, ids: &Ids, out: &mut String) {
    let passed = run.get("passed").and_then(Value::as_bool).unwrap_or(false);
    let gate = if passed { "PASS" } else { "FAIL" };
    let engine = run
        .get("engine_name")
        .and_then(Value::as_str)
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
    if let Some(author) = run.get("engine_author").and_then(Value::as_str) {
        row("Engine <code>id author</code>", esc(author));
    }
    let command: Vec<&str> = list(run, "engine")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    row(
        "Engine command",
        format!("<code>{}</code>", esc(&command.join(" "))),
    );
    row("Profile", esc(text(run, "profile")));
    row("usicheck", esc(text(report, "usicheck_version")));
    row("Date", esc(text(run, "started_at")));
    let options: Vec<String> = list(run, "options")
        .iter()
        .map(|o| esc(&format!("{}={}", text(o, "name"), text(o, "value"))))
        .collect();
    row(
        "Options",
        if options.is_empty() {
            "default".to_owned()
        } else {
            options.join(", ")
        },
    );
    let scenarios = list(run, "scenarios").len();
    let selection = match run.get("selected_scenarios").and_then(Value::as_u64) {
        Some(_) => " (a selection: the counts cover the rules it judged)",
        None => " (the profile's whole suite)",
    };
    row("Scenarios", format!("{scenarios}{selection}"));
    if let Some(duration) = number(run, "duration_ms") {
        row("Duration", format!("{:.1} s", duration / 1000.0));
    }
    if let Some(signal) = run.get("interrupted").and_then(Value::as_str) {
        row(
            "Interrupted",
            format!(
                "by {}: only the scenarios that finished are judged",
                esc(signal)
            ),
        );
    }
    for stale in list(run, "stale_waivers").iter().filter_map(Value::as_str) {
        row("Stale waiver", esc(stale));
    }
    row(
        "Gate",
        format!(
            "{} with <code>--fail-on {}</code>",
            badge(gate),
            esc(text(report, "fail_on"))
        ),
    );
    out.push_str("</dl>\n<table class=\"counts\">\n<thead><tr><th>Strength</th><th>applicable</th><th>PASS</th><th>FAIL</th><th>WARN</th><th>INFO</th><th>SKIP</th><th>not checked</th></tr></thead>\n<tbody>\n");
    for level in list(run, "certificate") {
        let count = |key: &str| level.get(key).and_then(Value::as_u64).unwrap_or(0);
        out.push_str(&format!(
            "<tr data-level=\"{}\"><th>{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>\n",
            attr(text(level, "level")),
            esc(text(level, "level")),
            count("applicable"),
            count("pass"),
            count("fail"),
            count("warn"),
            count("info"),
            count("skip"),
            count("unchecked"),
        ));
    }
    out.push_str(&format!(
        "</tbody>\n</table>\n<p class=\"counted\">Counted: {}.</p>\n</header>\n",
        esc(super::aggregate::ENGINE_RULES_ONLY)
    ));
}

/// Verdicts, worst first: the order the filter offers them.
const VERDICTS: [&str; 5] = ["FAIL", "WARN", "INFO", "PASS", "SKIP"];

/// Scenarios named per rule in the matrix before the rest are folded.
const JUDGED_SHOWN: usize = 6;

fn rule_matrix(run: &Value, ids: &Ids, index_of: &HashMap<&str, usize>, out: &mut String) {
    let rules = list(run, "rules");
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
        .filter(|r| matches!(text(r, "outcome"), "FAIL" | "WARN"))
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
    for verdict in VERDICTS {
        let count = rules
            .iter()
            .filter(|r| text(r, "outcome") == verdict)
            .count();
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
        let id = text(rule, "rule");
        let outcome = text(rule, "outcome");
        let mut judgements: Vec<&Value> = list(rule, "judged_by").iter().collect();
        judgements.sort_by_key(|j| VERDICTS.iter().position(|v| *v == text(j, "outcome")));
        let mut judged: Vec<String> = judgements
            .into_iter()
            .map(|j| {
                let name = text(j, "scenario");
                let outcome = text(j, "outcome");
                let link = match index_of.get(name) {
                    Some(&i) => format!("#{}", ids.scenario(i)),
                    None => String::new(),
                };
                format!(
                    "<a class=\"judged v-{}\" href=\"{link}\" title=\"{}\">{}</a>",
                    attr(outcome),
                    attr(&format!("{outcome}: {}", text(j, "reason"))),
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
        if let Some(passes) = rule.get("always_on_passed").and_then(Value::as_u64)
            && passes > 0
        {
            judged.push(format!(
                "<span class=\"muted\">+ {passes} always-on passes</span>"
            ));
        }
        out.push_str(&format!(
            "<tr class=\"rule v-{o}\" data-verdict=\"{o}\" data-rule=\"{r}\"><td>{}</td>\
             <td><a href=\"#{}\"><code>{}</code></a></td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            badge(outcome),
            rule_anchor(id),
            esc(id),
            catalogue_text(text(rule, "title")),
            esc(text(rule, "strength")),
            judged.join(" "),
            o = attr(outcome),
            r = attr(id),
        ));
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
    always_on(run, ids, index_of, out);
    out.push_str("</section>\n");
}

fn always_on(run: &Value, ids: &Ids, index_of: &HashMap<&str, usize>, out: &mut String) {
    let findings = list(run, "always_on");
    if findings.is_empty() {
        return;
    }
    out.push_str(
        "<h3>Always-on checks</h3>\n<p>Every line of every session; each violation once, \
         with its first evidence.</p>\n<table class=\"always-on\">\n<thead><tr><th>Verdict</th>\
         <th>Rule</th><th>Evidence</th><th>Seen in</th></tr></thead>\n<tbody>\n",
    );
    for finding in findings {
        let first = text(finding, "first_scenario");
        let link = index_of
            .get(first)
            .map_or(String::new(), |&i| format!("#{}", ids.scenario(i)));
        let others = list(finding, "scenarios").len().saturating_sub(1);
        let id = text(finding, "rule");
        out.push_str(&format!(
            "<tr class=\"v-{}\"><td>{}</td><td><a href=\"#{}\"><code>{}</code></a></td>\
             <td><code>{}</code></td><td><a href=\"{link}\">{}</a>{}</td></tr>\n",
            attr(text(finding, "outcome")),
            badge(text(finding, "outcome")),
            rule_anchor(id),
            esc(id),
            esc(&shorten(text(finding, "evidence"), 300)),
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

fn timelines(run: &Value, ids: &Ids, out: &mut String) {
    let verdicts = list(run, "verdicts");
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
    for (index, scenario) in list(run, "scenarios").iter().enumerate() {
        let name = text(scenario, "name");
        let outcome = text(scenario, "outcome");
        let searches = list(scenario, "timed_searches").len();
        out.push_str(&format!(
            "<details id=\"{}\" class=\"scenario v-{o}\" data-outcome=\"{o}\">\n<summary>{} \
             {} <span class=\"muted\">{} ms · {} rules{}</span></summary>\n<div class=\"body\">\n",
            ids.scenario(index),
            badge(outcome),
            esc(name),
            number(scenario, "duration_ms").unwrap_or(0.0),
            list(scenario, "rules").len(),
            if searches > 0 {
                format!(" · {searches} timed searches")
            } else {
                String::new()
            },
            o = attr(outcome),
        ));
        scenario_facts(scenario, verdicts, out);
        if let Some(timeline) = scenario.get("timeline").filter(|t| !t.is_null()) {
            sequence::diagram(
                timeline,
                list(scenario, "timed_searches"),
                scenario.get("transcript").and_then(Value::as_str),
                out,
            );
        }
        out.push_str("</div>\n</details>\n");
    }
    out.push_str("</section>\n");
}

fn scenario_facts(scenario: &Value, verdicts: &[Value], out: &mut String) {
    let name = text(scenario, "name");
    out.push_str("<dl class=\"facts\">\n");
    out.push_str(&format!(
        "<dt>File</dt><dd><code>{}</code></dd>\n",
        esc(text(scenario, "file"))
    ));
    let rules: Vec<String> = list(scenario, "rules")
        .iter()
        .filter_map(Value::as_str)
        .map(|r| {
            format!(
                "<a href=\"#{}\"><code>{}</code></a>",
                rule_anchor(r),
                esc(r)
            )
        })
        .collect();
    out.push_str(&format!("<dt>Rules</dt><dd>{}</dd>\n", rules.join(" ")));
    if let Some(skipped) = scenario.get("skipped").and_then(Value::as_str) {
        out.push_str(&format!("<dt>Skipped</dt><dd>{}</dd>\n", esc(skipped)));
    }
    if let Some(failure) = scenario.get("failure").filter(|f| f.is_object()) {
        out.push_str(&format!(
            "<dt>Failed step</dt><dd>{} <code>{}</code></dd>\n<dt>Expected</dt><dd>{}</dd>\n\
             <dt>Actual</dt><dd class=\"actual\">{}</dd>\n",
            number(failure, "step").unwrap_or(0.0),
            esc(text(failure, "step_text")),
            esc(text(failure, "expected")),
            esc(text(failure, "actual")),
        ));
    }
    let judged: Vec<String> = verdicts
        .iter()
        .filter(|v| text(v, "scenario") == name && text(v, "outcome") != "PASS")
        .map(|v| {
            let rule = text(v, "rule");
            let always_on = v.get("always_on").and_then(Value::as_bool) == Some(true);
            let counted = list(scenario, "rules")
                .iter()
                .any(|r| r.as_str() == Some(rule));
            format!(
                "<li>{} <a href=\"#{}\"><code>{}</code></a> {}{}</li>",
                badge(text(v, "outcome")),
                rule_anchor(rule),
                esc(rule),
                esc(&shorten(text(v, "reason"), 400)),
                match (always_on, counted) {
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
        esc(text(scenario, "replay"))
    ));
    if let Some(path) = scenario.get("transcript").and_then(Value::as_str) {
        out.push_str(&format!(
            "<dt>Transcript</dt><dd><a href=\"{}\">{}</a></dd>\n",
            attr(path),
            esc(path)
        ));
    }
    out.push_str("</dl>\n");
}

/// The catalogue text of every rule the runs judged.
fn catalogue(runs: &[Value], out: &mut String) {
    let mut ids: Vec<RuleId> = runs
        .iter()
        .flat_map(|run| list(run, "rules"))
        .filter_map(|r| text(r, "rule").parse().ok())
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
            rule_anchor(id.as_str()),
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

    #[test]
    fn embedded_json_cannot_close_its_script_and_stays_the_same_data() {
        let json = serde_json::json!({"text": "</script><!--<b>\u{9b}\u{7f}"}).to_string();
        let embedded = embedded_json(&json);
        assert!(!embedded.contains('<') && !embedded.contains('\u{9b}'));
        let back: Value = serde_json::from_str(&embedded).unwrap();
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
        use crate::report::fixtures::{HOSTILE, failing_run};
        use crate::report::{Aggregate, FailOn};
        let json =
            crate::report::render_json(&Aggregate::from_events(&failing_run()), FailOn::Must);
        let page = render(&json);
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

    #[test]
    fn odd_input_still_renders_a_page() {
        for json in [
            "",
            "null",
            "{\"runs\": 7}",
            "{\"runs\": [{\"scenarios\": [1]}]}",
        ] {
            let page = render(json);
            assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
        }
    }
}
