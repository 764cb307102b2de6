//! A [`Diff`] as text: for a terminal, for a job summary (Markdown), as JSON.

use super::{ChangeKind, DIFF_SCHEMA, Diff, Judged, Tally};
use crate::engine::sanitise;
use crate::report::level_label;
use crate::report::style::{self, paint};
use crate::rules::Outcome;
use std::fmt::Write as _;

fn outcome(judged: &Judged) -> &'static str {
    judged.outcome.map_or("—", |o| o.as_str())
}

/// What a side says beyond its outcome: a fuzz finding's count.
fn counted(judged: &Judged) -> String {
    match judged.count {
        Some(count) => format!("{} ×{count}", outcome(judged)),
        None => outcome(judged).to_owned(),
    }
}

fn seconds(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |s| format!("{s:.1} s"))
}

fn tally_line(tally: &Tally) -> String {
    let mut line = format!(
        "{} win, {} draw, {} lose",
        tally.win, tally.draw, tally.lose
    );
    if tally.unfinished > 0 {
        let _ = write!(line, ", {} unfinished", tally.unfinished);
    }
    if !tally.faults.is_empty() {
        let faults: Vec<String> = tally
            .faults
            .iter()
            .map(|(reason, n)| format!("{n} by {reason}"))
            .collect();
        let _ = write!(line, " (lost by its own fault: {})", faults.join(", "));
    }
    if let Some(estimate) = &tally.estimate {
        let _ = write!(line, "; score {:.3}", estimate.score);
        if let (Some(elo), Some(error)) = (estimate.elo, estimate.elo_error) {
            let _ = write!(line, ", Elo {elo:+.1} ± {error:.1}");
        }
        let _ = write!(line, ", LOS {:.1} %", estimate.los * 100.0);
    }
    line
}

fn verdict_line(diff: &Diff) -> String {
    let gate = diff.fail_on.as_str();
    match diff.worse {
        true => format!("NEW is worse under --fail-on {gate}"),
        false => format!("NEW is not worse under --fail-on {gate}"),
    }
}

/// The comparison for a terminal: one block per kind of change, each rule with the line that
/// shows it and its replay command; headings and verdict coloured (ANSI codes, see
/// [`style`](crate::report::style)).
///
/// ```
/// use usicheck::report::FailOn;
/// use usicheck::report::diff::{Report, compare, render_human};
/// let text = r#"{"schema": "usicheck-fuzz/1", "seconds": 2.0, "sessions": 3, "findings": []}"#;
/// let report = Report::parse("a.json", text).unwrap();
/// let diff = compare(["a.json", "a.json"], &report, &report, FailOn::Must).unwrap();
/// assert!(render_human(&diff).contains("no rule changed"));
/// ```
pub fn render_human(diff: &Diff) -> String {
    let mut out = String::new();
    let engine = |name: &Option<String>| {
        name.as_deref()
            .map_or_else(|| "engine".to_owned(), |n| sanitise(n).into_owned())
    };
    let _ = writeln!(
        out,
        "usicheck diff ({} reports): {} ({}, {}) → {} ({}, {})",
        diff.command,
        diff.old.file,
        engine(&diff.old.engine_name),
        seconds(diff.old.seconds),
        diff.new.file,
        engine(&diff.new.engine_name),
        seconds(diff.new.seconds)
    );
    if let Some([old, new]) = &diff.games {
        let _ = writeln!(
            out,
            "\ngames\n  old  {}\n  new  {}",
            tally_line(old),
            tally_line(new)
        );
    }
    for kind in [
        ChangeKind::NewlyFailing,
        ChangeKind::Fixed,
        ChangeKind::Changed,
    ] {
        let changes: Vec<_> = diff.changes.iter().filter(|c| c.kind == kind).collect();
        if changes.is_empty() {
            continue;
        }
        let heading = format!("{} ({})", kind.as_str(), changes.len());
        let _ = writeln!(
            out,
            "\n{}",
            paint(style::outcome(kind_outcome(kind)), heading)
        );
        for change in changes {
            let within = match change.within.is_empty() {
                true => String::new(),
                false => format!(" [{}]", change.within),
            };
            let _ = writeln!(
                out,
                "  {:<13} {:<9} {}{within}  {} → {}",
                change.rule.as_str(),
                level_label(change.level),
                change.title,
                counted(&change.old),
                counted(&change.new)
            );
            // The evidence of the report where the rule is broken: new, or old when fixed.
            let shown = match change.kind {
                ChangeKind::Fixed => &change.old,
                _ if change.new.evidence.is_some() => &change.new,
                _ => &change.old,
            };
            let was = match std::ptr::eq(shown, &change.old) {
                true => "was: ",
                false => "",
            };
            if let Some(evidence) = &shown.evidence {
                let _ = writeln!(out, "        {was}{}", sanitise(evidence));
            }
            if let Some(replay) = &shown.replay {
                let _ = writeln!(out, "        replay: {replay}");
            }
        }
    }
    if diff.changes.is_empty() {
        let _ = writeln!(out, "\nno rule changed");
    }
    if !diff.timing.is_empty() {
        let _ = writeln!(out, "\ntiming (beyond 1 s and 50 %)");
        for shift in &diff.timing {
            let _ = writeln!(
                out,
                "  {:<60} {:>8.1} s → {:>6.1} s",
                shift.scenario,
                shift.old_ms as f64 / 1000.0,
                shift.new_ms as f64 / 1000.0
            );
        }
    }
    let verdict = match diff.worse {
        true => Outcome::Fail,
        false => Outcome::Pass,
    };
    let _ = writeln!(
        out,
        "\n{}",
        paint(style::outcome(verdict), verdict_line(diff))
    );
    out
}

/// The colour of a kind of change: a new failure's, a fix's, a change's.
fn kind_outcome(kind: ChangeKind) -> Outcome {
    match kind {
        ChangeKind::NewlyFailing => Outcome::Fail,
        ChangeKind::Fixed => Outcome::Pass,
        ChangeKind::Changed => Outcome::Warn,
    }
}

/// Escapes a table cell: no line breaks, no column separators.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// The comparison as Markdown for a CI job summary: a table of the changed rules, the replay
/// commands folded.
pub fn render_markdown(diff: &Diff) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## usicheck diff ({} reports)\n\n`{}` → `{}`: **{}**\n",
        diff.command,
        cell(&diff.old.file),
        cell(&diff.new.file),
        verdict_line(diff)
    );
    if let Some([old, new]) = &diff.games {
        let _ = writeln!(
            out,
            "| games | results |\n|---|---|\n| old | {} |\n| new | {} |\n",
            tally_line(old),
            tally_line(new)
        );
    }
    if diff.changes.is_empty() {
        let _ = writeln!(out, "No rule changed.\n");
    } else {
        let _ = writeln!(
            out,
            "| change | rule | level | title | old | new | evidence |\n|---|---|---|---|---|---|---|"
        );
        for change in &diff.changes {
            let shown = match change.kind {
                ChangeKind::Fixed => &change.old,
                _ => &change.new,
            };
            let _ = writeln!(
                out,
                "| {} | {}{} | {} | {} | {} | {} | {} |",
                change.kind.as_str(),
                change.rule.as_str(),
                match change.within.is_empty() {
                    true => String::new(),
                    false => format!(" ({})", cell(&change.within)),
                },
                level_label(change.level),
                cell(&change.title),
                counted(&change.old),
                counted(&change.new),
                cell(shown.evidence.as_deref().unwrap_or(""))
            );
        }
        let replays: Vec<(&str, &str)> = diff
            .changes
            .iter()
            .filter(|c| c.kind != ChangeKind::Fixed)
            .filter_map(|c| Some((c.rule.as_str(), c.new.replay.as_deref()?)))
            .collect();
        if !replays.is_empty() {
            let _ = writeln!(out, "\n<details><summary>replay commands</summary>\n");
            for (rule, replay) in replays {
                let _ = writeln!(out, "- {rule}: `{}`", replay.replace('`', "'"));
            }
            let _ = writeln!(out, "\n</details>");
        }
        let _ = writeln!(out);
    }
    if !diff.timing.is_empty() {
        let _ = writeln!(out, "| scenario | old | new |\n|---|---|---|");
        for shift in &diff.timing {
            let _ = writeln!(
                out,
                "| {} | {:.1} s | {:.1} s |",
                cell(&shift.scenario),
                shift.old_ms as f64 / 1000.0,
                shift.new_ms as f64 / 1000.0
            );
        }
    }
    out
}

/// The comparison as JSON (schema [`DIFF_SCHEMA`]).
pub fn render_json(diff: &Diff) -> String {
    let mut value = serde_json::to_value(diff).expect("a diff serialises");
    if let serde_json::Value::Object(map) = &mut value {
        map.insert("schema".into(), DIFF_SCHEMA.into());
    }
    serde_json::to_string_pretty(&value).expect("JSON values serialise") + "\n"
}
