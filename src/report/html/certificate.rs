//! The certificate at the top of a run: who was judged, how, when, the gate, and the verdict
//! counts per strength.

use super::{Ids, attr, badge, esc};
use crate::report::aggregate::ENGINE_RULES_ONLY;
use crate::report::json::{CertifyReport, RunReport};

pub(super) fn certificate(report: &CertifyReport, run: &RunReport, ids: &Ids, out: &mut String) {
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
    if let Some(cpu) = run.engine_cpu {
        row(
            "Engine CPU",
            format!(
                "{:.1} s on {} cores: the run takes {:.1} s at least",
                cpu.ms as f64 / 1000.0,
                cpu.cores,
                cpu.floor_ms() as f64 / 1000.0
            ),
        );
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
