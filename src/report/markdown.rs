//! `summary.md`: a short certificate for a CI job summary or a release page. Engine text is
//! sanitised and escaped for Markdown and HTML, so an engine cannot inject links, markup or
//! table cells into the page that shows it.

use super::aggregate::{Aggregate, ENGINE_RULES_ONLY, FailOn, Run, level_label};
use super::html;
use super::json::SCHEMA;
use crate::engine::sanitise;
use crate::rules::Outcome;

/// Engine (or other untrusted) text as inert Markdown inline text, for a table cell or a
/// heading: control characters made visible, `<` and `&` as entities (no HTML, no entity
/// references), and a backslash before only what could start markup here: `\\`, `|` (cells),
/// `` ` ``, `*`, `~`, `[`, `]`, `_` unless inside a word, `:` of `://` and `.` of `www.`
/// (autolinks), and a leading character that could open a block. `0.1.0` stays `0.1.0`.
pub(super) fn escape(text: &str) -> String {
    let text = sanitise(text);
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let leading_marker = chars.first().is_some_and(|c| "#>+-=".contains(*c));
    let ordered_list_end = chars.iter().position(|c| !c.is_ascii_digit()).filter(|&i| {
        i > 0 && matches!(chars[i], '.' | ')') && chars.get(i + 1).is_none_or(|c| c.is_whitespace())
    });
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        let block_start = (i == 0 && leading_marker) || ordered_list_end == Some(i);
        let escaped = block_start
            || match c {
                '&' => {
                    out.push_str("&amp;");
                    continue;
                }
                '<' => {
                    out.push_str("&lt;");
                    continue;
                }
                '\\' | '|' | '`' | '*' | '~' | '[' | ']' => true,
                '_' => {
                    !(before.is_some_and(|b| b.is_alphanumeric())
                        && after.is_some_and(|a| a.is_alphanumeric()))
                }
                ':' => chars[i + 1..].starts_with(&['/', '/']),
                '.' => i >= 3 && chars[i - 3..i].iter().all(|w| w.eq_ignore_ascii_case(&'w')),
                _ => false,
            };
        if escaped {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Characters of a rule's reason shown (reasons quote engine lines, which can be long; the
/// full text is in report.json).
const REASON_CHARS: usize = 200;

/// `text` cut to [`REASON_CHARS`] characters, with `…` when cut.
fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(REASON_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]).into(),
        None => text.into(),
    }
}

/// Scenarios named per failing rule (the rest are counted).
const SCENARIOS_PER_RULE: usize = 3;

/// usicheck's own text (rule titles with code spans) inside a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn verdict_word(failed: bool) -> &'static str {
    if failed { "FAIL" } else { "PASS" }
}

fn run_section(run: &Run, fail_on: FailOn, out: &mut String) {
    let failed = run.fails(fail_on);
    let engine = run
        .engine_name()
        .map_or("(no `id name` sent)".to_owned(), escape);
    out.push_str(&format!(
        "## usicheck certificate: {engine} — {} ({})\n\n",
        verdict_word(failed),
        run.info.profile
    ));
    out.push_str("| | |\n|---|---|\n");
    let mut row = |key: &str, value: String| out.push_str(&format!("| {key} | {value} |\n"));
    row("Engine `id name`", engine.clone());
    if let Some(author) = run.engine_author() {
        row("Engine `id author`", escape(author));
    }
    row("Engine command", escape(&run.info.engine.join(" ")));
    row("usicheck", escape(&run.info.usicheck_version));
    row("Date", escape(&run.info.started_at));
    row("Profile", run.info.profile.to_string());
    let waived = run.verdicts().filter(|(_, v)| v.waived.is_some()).count();
    if waived > 0 || !run.stale_waivers.is_empty() {
        let mut text = format!("{waived} verdicts waived");
        for stale in &run.stale_waivers {
            text.push_str(&format!("; **{}**", escape(stale)));
        }
        row("Baseline", text);
    }
    if let Some(signal) = &run.interrupted {
        row(
            "Interrupted",
            format!(
                "by {}: only the scenarios that finished are judged",
                escape(signal)
            ),
        );
    }
    let options: Vec<String> = run
        .info
        .options
        .iter()
        .map(|(name, value)| escape(&format!("{name}={value}")))
        .collect();
    row(
        "Options",
        if options.is_empty() {
            "(defaults)".to_owned()
        } else {
            options.join(", ")
        },
    );
    row(
        "Result",
        format!(
            "**{}** with `--fail-on {}`",
            verdict_word(failed),
            fail_on.as_str()
        ),
    );
    row("Scenarios", run.scenarios.len().to_string());

    let certificate = run.certificate();
    out.push_str(
        "\n| Strength | Applicable | Pass | Fail | Warn | Info | Skip | Not checked |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (level, c) in &certificate.levels {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            level_label(*level),
            c.applicable,
            c.pass,
            c.fail,
            c.warn,
            c.info,
            c.skip,
            c.unchecked
        ));
    }
    out.push_str(&format!("\nCounted: {ENGINE_RULES_ONLY}.\n"));

    let not_passing: Vec<_> = run
        .rules()
        .into_iter()
        .filter(|r| matches!(r.outcome, Outcome::Fail | Outcome::Warn))
        .collect();
    if not_passing.is_empty() {
        out.push_str("\nNo rule failed or warned.\n");
        return;
    }
    out.push_str(
        "\n### Failing and warning rules\n\n\
         | Verdict | Rule | Strength | Title | Scenarios | Reason |\n\
         |---|---|---|---|---|---|\n",
    );
    for result in &not_passing {
        let rule = result.rule.rule();
        let (worst, more) = result.worst_scenarios(SCENARIOS_PER_RULE);
        let mut scenarios: Vec<String> = worst.into_iter().map(escape).collect();
        if more > 0 {
            scenarios.push(format!("+{more} more"));
        }
        out.push_str(&format!(
            "| **{}** | {} | {} | {} | {} | {} |\n",
            result.outcome,
            rule.id,
            cell(&rule.strength.to_string()),
            cell(&rule.title),
            scenarios.join(", "),
            escape(&shorten(result.reason())),
        ));
    }
    replay_details(run, &not_passing, out);
}

/// The replay command of each failing or warning rule's first worst scenario, folded: a
/// reader opens it to rerun what failed. Commands go in a `<pre>`, HTML-escaped, so an engine
/// path cannot end the block.
fn replay_details(run: &Run, not_passing: &[super::aggregate::RuleResult], out: &mut String) {
    let mut lines = Vec::new();
    for result in not_passing {
        let (worst, _) = result.worst_scenarios(1);
        let Some(scenario) = worst
            .first()
            .and_then(|name| run.scenarios.iter().find(|s| s.name == *name))
        else {
            continue;
        };
        if !scenario.replay.is_empty() {
            lines.push(format!(
                "# {} ({})\n{}",
                result.rule,
                html::esc(&scenario.name),
                html::esc(&scenario.replay)
            ));
        }
    }
    if !lines.is_empty() {
        out.push_str(&format!(
            "\n<details><summary>Replay commands</summary>\n\n<pre>\n{}\n</pre>\n</details>\n",
            lines.join("\n")
        ));
    }
}

/// Renders the Markdown certificate, one section per run.
pub fn render(aggregate: &Aggregate, fail_on: FailOn) -> String {
    let mut out = String::new();
    for (i, run) in aggregate.runs.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        run_section(run, fail_on, &mut out);
    }
    out.push_str(&format!(
        "\nDetails: `report.json` (schema `{SCHEMA}`), `junit.xml` and `transcripts/` next \
             to this file; `usicheck rules ID` explains a rule.\n"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::{failing_run, nameless_run, passing_run};

    #[test]
    fn certificate_lists_engine_profile_counts_and_failing_rules() {
        let md = render(&Aggregate::from_events(&failing_run()), FailOn::Must);
        for wanted in [
            "— FAIL (shogidokoro)",
            "| usicheck | 0.1.0 |",
            "| Date | 2026-11-22T16:00:00Z |",
            "| Options | USI_Hash=16 |",
            "| Result | **FAIL** with `--fail-on must` |",
            "| Engine `id name` | Evil\\\\x1b\\[2J",
            "| MUST | ",
            "| SHOULD | ",
            "| extension | ",
            "| **FAIL** | USI-READY-001 | MUST | Every `isready` gets exactly one `readyok` | isready-twice, +1 more |",
            "| **WARN** | USI-STOP-002 |",
            "<details><summary>Replay commands</summary>",
            "# USI-READY-001 (isready-twice)\nusicheck run scenarios/isready-twice.yaml -- ./engine",
        ] {
            assert!(md.contains(wanted), "missing {wanted:?} in\n{md}");
        }
        let md = render(&Aggregate::from_events(&passing_run()), FailOn::Must);
        assert!(md.contains("No rule failed or warned."), "{md}");
        assert!(!md.contains("<details>"), "nothing to replay: {md}");
        let md = render(&Aggregate::from_events(&nameless_run()), FailOn::Must);
        assert!(
            md.contains("| Engine `id name` | (no `id name` sent) |"),
            "{md}"
        );
    }

    #[test]
    fn engine_text_cannot_inject_markup() {
        let md = render(&Aggregate::from_events(&failing_run()), FailOn::Must);
        for raw in [
            "<script>",
            "[a](javascript",
            "**x**",
            "\u{1b}",
            "\0",
            " | **x",
            " `tick`",
            "https://evil",
            " www.evil",
        ] {
            assert!(!md.contains(raw), "{raw:?} reached the Markdown:\n{md}");
        }
        for escaped in [
            "&lt;script>",
            "\\[a\\](javascript:b)",
            "\\`tick\\`",
            "https\\://evil.example www\\.evil.example &amp;amp;",
            "Evil\\\\x1b\\[2J",
        ] {
            assert!(md.contains(escaped), "{escaped:?} missing from\n{md}");
        }
        // Every table row keeps its column count: escaped pipes do not split cells.
        for line in md.lines().filter(|l| l.starts_with("| **")) {
            let cells = line.replace("\\|", "").matches('|').count();
            assert_eq!(cells, 7, "{line}");
        }
    }

    #[test]
    fn long_reasons_are_shortened() {
        assert_eq!(shorten("short"), "short");
        let long = "é".repeat(REASON_CHARS + 1);
        assert_eq!(shorten(&long), "é".repeat(REASON_CHARS) + "…");
    }

    #[test]
    fn escape_neutralises_html_and_markdown_only_where_needed() {
        assert_eq!(escape("<b>&"), "&lt;b>&amp;");
        assert_eq!(escape("a|b*c_d`e"), "a\\|b\\*c_d\\`e");
        assert_eq!(escape("_x_ a_ __"), "\\_x\\_ a\\_ \\_\\_");
        assert_eq!(escape("x\u{1b}[31m"), "x\\\\x1b\\[31m");
        assert_eq!(escape("# 1. > -"), "\\# 1. > -");
        assert_eq!(escape("12. x"), "12\\. x");
        assert_eq!(escape("- x"), "\\- x");
        for plain in [
            "YaneuraOu NNUE 8.60",
            "USI_Hash=256",
            "2026-11-22T16:00:00Z",
            "(a) b!",
        ] {
            assert_eq!(escape(plain), plain);
        }
    }
}
