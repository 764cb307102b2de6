//! The scenario timelines: per scenario its facts (file, rules, failed step, verdicts, replay,
//! transcript) and its sequence diagram.

use super::{Ids, attr, badge, esc, rule_link, sequence, shorten};
use crate::report::json::{RunReport, ScenarioEntry, VerdictEntry};
use crate::rules::Outcome;

pub(super) fn timelines(run: &RunReport, ids: &Ids, out: &mut String) {
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
