//! `annotations.txt`: one GitHub workflow command per rule the engine failed or warned on
//! (`::error title=USI-…::…`, `::warning …`), which the Action prints so that each shows in
//! the checks view, not only in the job summary. Any other CI can ignore the file.
//!
//! Escaping follows the runner's rules for workflow commands (actions/toolkit, `command.ts`):
//! in the message `%` and LF become `%25` and `%0A`; in a property also `:` and `,` (`%3A`,
//! `%2C`). Each line is sanitised first, so no other control character (a CR included) reaches
//! the log: it shows as `\r`.

use super::aggregate::{Aggregate, FailOn};
use crate::engine::sanitise;
use crate::play::MatchReport;
use crate::rules::{Outcome, Verdict};

/// `error` or `warning`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    /// A verdict's severity in the checks view: an error when the gate counts it (it failed the
    /// step), else a warning.
    pub(super) fn of(verdict: &Verdict, fail_on: FailOn) -> Severity {
        if fail_on.fails(verdict) {
            Severity::Error
        } else {
            Severity::Warning
        }
    }
}

/// One workflow command.
///
/// ```
/// use usicheck::report::{Severity, annotation};
/// assert_eq!(
///     annotation(Severity::Error, "USI-GO-004: byoyomi", "50% late\nby 1 s"),
///     "::error title=USI-GO-004%3A byoyomi::50%25 late%0Aby 1 s"
/// );
/// ```
pub fn annotation(severity: Severity, title: &str, message: &str) -> String {
    // Line breaks are kept as the runner's escapes; each line is sanitised on its own.
    let data = |text: &str| {
        text.split('\n')
            .map(|line| sanitise(line).replace('%', "%25"))
            .collect::<Vec<_>>()
            .join("%0A")
    };
    let property = |text: &str| data(text).replace(':', "%3A").replace(',', "%2C");
    let command = match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    format!("::{command} title={}::{}", property(title), data(message))
}

/// The annotations of a certify or run: each rule that failed or warned, with its reason, the
/// scenario that showed it first and that scenario's replay command; an error when the gate
/// counts one of its verdicts (a waived one is not counted), else a warning.
pub fn certify_annotations(aggregate: &Aggregate, fail_on: FailOn) -> String {
    let mut out = String::new();
    for run in &aggregate.runs {
        for result in run.rules() {
            if !matches!(result.outcome, Outcome::Fail | Outcome::Warn) {
                continue;
            }
            let Some(first) = result
                .judged_by
                .iter()
                .find(|j| j.outcome == result.outcome)
            else {
                continue;
            };
            let rule = result.rule.rule();
            let replay = run
                .scenarios
                .iter()
                .find(|s| s.name == first.scenario)
                .map_or(String::new(), |s| format!("\nreplay: {}", s.replay));
            let counted = run
                .verdicts()
                .any(|(_, v)| v.rule == result.rule && fail_on.fails(v));
            let severity = if counted {
                Severity::Error
            } else {
                Severity::Warning
            };
            out.push_str(&annotation(
                severity,
                &format!("{} {}: {}", result.outcome, rule.id, rule.title),
                &format!("{} (scenario {}){replay}", result.reason(), first.scenario),
            ));
            out.push('\n');
        }
    }
    out
}

/// The annotations of a match: each game the engine lost by its own fault, each rule it broke.
pub fn play_annotations(report: &MatchReport, fail_on: FailOn) -> String {
    let mut out = String::new();
    for game in report.faults() {
        out.push_str(&annotation(
            Severity::Error,
            &format!("game {} lost by {}", game.number, game.reason.as_str()),
            &game.detail,
        ));
        out.push('\n');
    }
    for v in &report.violations {
        let rule = v.verdict.rule.rule();
        out.push_str(&annotation(
            Severity::of(&v.verdict, fail_on),
            &format!("{} {}: {}", v.verdict.outcome, rule.id, rule.title),
            &format!(
                "{} (game {}, ply {})",
                v.verdict.reason, v.place.game, v.place.ply
            ),
        ));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::{failing_run, passing_run};

    #[test]
    fn each_failing_rule_is_one_annotation_graded_by_the_gate() {
        let aggregate = Aggregate::from_events(&failing_run());
        let must = certify_annotations(&aggregate, FailOn::Must);
        let lines: Vec<&str> = must.lines().collect();
        assert_eq!(lines.len(), 2, "{must}");
        assert!(
            lines[0].starts_with("::error title=FAIL USI-READY-001%3A "),
            "{must}"
        );
        assert!(lines[0].contains("(scenario isready-twice)%0Areplay: usicheck run scenarios/isready-twice.yaml -- ./engine"), "{must}");
        assert!(
            lines[1].starts_with("::warning title=WARN USI-STOP-002%3A "),
            "{must}"
        );
        let any = certify_annotations(&aggregate, FailOn::Any);
        assert!(any.lines().all(|l| l.starts_with("::error ")), "{any}");
        assert_eq!(
            certify_annotations(&Aggregate::from_events(&passing_run()), FailOn::Any),
            ""
        );
    }

    #[test]
    fn engine_text_cannot_end_the_command_or_start_another() {
        let line = annotation(
            Severity::Warning,
            "a, b: c",
            "x\r\n::error::forged\u{1b}[2J 100%",
        );
        assert_eq!(line.lines().count(), 1, "{line}");
        assert_eq!(
            line,
            "::warning title=a%2C b%3A c::x\\r%0A::error::forged\\x1b[2J 100%25"
        );
    }
}
