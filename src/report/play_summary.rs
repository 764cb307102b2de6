//! `summary.md` and `counts.txt` of `usicheck play`, as certify writes them: the Markdown for
//! a CI job summary (the gate, the results, the strength figures and the SPRT, each broken rule
//! with its replay command), the counts as `NAME=VALUE` lines for a shell or the Action's step
//! outputs. Engine text is escaped as in certify's summary.

use super::aggregate::FailOn;
use super::games::results_by_reason;
use super::markdown::escape;
use super::strength::strength_lines;
use crate::play::stats::Decision;
use crate::play::{MatchReport, Violation, color_name};
use std::fmt::Write as _;

/// `summary.md`; `replay` gives the command that replays a broken rule, if there is one.
pub fn render_play_summary(
    report: &MatchReport,
    fail_on: FailOn,
    passed: bool,
    replay: impl Fn(&Violation) -> Option<String>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## usicheck play: {} with --fail-on {}\n",
        if passed { "PASS" } else { "FAIL" },
        fail_on.as_str()
    );
    let control = match &report.opponent_control {
        Some(theirs) => format!("{} (opponent {theirs})", report.control),
        None => report.control.clone(),
    };
    let seed = report
        .seed
        .map_or(String::new(), |seed| format!(" · seed {seed}"));
    let _ = writeln!(
        out,
        "{} against {} · {} · {} games · {:.1} s{seed}\n",
        escape(report.engine_name.as_deref().unwrap_or("the engine")),
        escape(report.opponent_name.as_deref().unwrap_or("the opponent")),
        escape(&control),
        report.games.len(),
        report.seconds
    );
    out.push_str("| reason | win | draw | loss |\n|---|---:|---:|---:|\n");
    for (reason, [win, draw, loss]) in results_by_reason(report) {
        let _ = writeln!(out, "| {} | {win} | {draw} | {loss} |", reason.as_str());
    }
    let results = report.results;
    let _ = writeln!(
        out,
        "| **total** | **{}** | **{}** | **{}** |\n",
        results.win, results.draw, results.loss
    );
    for line in strength_lines(report) {
        let _ = writeln!(out, "- {line}");
    }
    let faults: Vec<_> = report.faults().collect();
    if !faults.is_empty() {
        out.push_str("\n### Games lost by the engine's fault\n\n| game | colour | reason | detail |\n|---:|---|---|---|\n");
        for game in faults {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                game.number,
                color_name(game.engine_color),
                game.reason.as_str(),
                escape(&game.detail)
            );
        }
    }
    if !report.violations.is_empty() {
        out.push_str("\n### Rules broken (each once, where it first showed)\n\n");
        for v in &report.violations {
            let rule = v.verdict.rule.rule();
            let _ = writeln!(
                out,
                "- **{} {}** ({}) {}: game {}, ply {}: {}",
                v.verdict.outcome,
                v.verdict.rule,
                rule.strength,
                rule.title.replace('|', "\\|"),
                v.place.game,
                v.place.ply,
                escape(&v.verdict.reason)
            );
            if let Some(command) = replay(v) {
                let _ = writeln!(
                    out,
                    "  <details><summary>replay</summary>\n\n  ```sh\n  {}\n  ```\n  </details>",
                    command.replace('`', "'")
                );
            }
        }
    }
    out
}

/// `counts.txt`: `games`, `win`, `draw`, `loss`, `faults` (games lost by the engine's fault),
/// `broken` (rules), then the strength figures when a game finished (`score`, `elo`,
/// `elo-error`, `los` in %) and the SPRT's `llr` and `sprt` (`h1`, `h0` or `continue`) when
/// one ran. Numbers only, so each line can be a step output as it is.
pub fn render_play_counts(report: &MatchReport) -> String {
    let results = report.results;
    let mut out = format!(
        "games={}\nwin={}\ndraw={}\nloss={}\nfaults={}\nbroken={}\n",
        report.games.len(),
        results.win,
        results.draw,
        results.loss,
        report.faults().count(),
        report.violations.len()
    );
    if let Some(estimate) = report.estimate {
        let _ = writeln!(out, "score={:.3}", estimate.score);
        if let (Some(elo), Some(error)) = (estimate.elo, estimate.elo_error) {
            let _ = writeln!(out, "elo={elo:.1}\nelo-error={error:.1}");
        }
        let _ = writeln!(out, "los={:.1}", estimate.los * 100.0);
    }
    if let Some(sprt) = report.sprt {
        let decision = match sprt.decision {
            Decision::H1 => "h1",
            Decision::H0 => "h0",
            Decision::Continue => "continue",
        };
        let _ = writeln!(out, "llr={:.3}\nsprt={decision}", sprt.llr);
    }
    out
}
