//! The rules of a run: the matrix of every judged rule with its verdict (filtered by CSS
//! alone), the always-on findings, and the catalogue's text of every rule judged.

use super::text::catalogue_text;
use super::{Ids, attr, badge, esc, rule_anchor, rule_link, shorten};
use crate::report::json::RunReport;
use crate::rules::{Outcome, RuleId};
use std::collections::HashMap;

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

pub(super) fn rule_matrix(
    run: &RunReport,
    ids: &Ids,
    index_of: &HashMap<&str, usize>,
    out: &mut String,
) {
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

/// The catalogue text of every rule the runs judged.
pub(super) fn catalogue(runs: &[RunReport], out: &mut String) {
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
