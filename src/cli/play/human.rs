//! `play`'s terminal report: a line per game as it ends, then the rules broken with their
//! evidence, the results, the strength and the verdict.

use super::PlayArgs;
use usicheck::engine::sanitise;
use usicheck::play::stats::Decision;
use usicheck::play::{GameRecord, MatchReport, Reason, Violation, color_name};
use usicheck::report::style::{self, BOLD, paint};
use usicheck::report::{results_table, strength_lines};

/// One line per game as it ends.
pub(super) fn game_line(game: &GameRecord) -> String {
    format!(
        "  game {:>3}  {:<5}  {:<4} by {:<19} {:>3} plies {:>6.1} s  {}",
        game.number,
        color_name(game.engine_color),
        game.engine_result(),
        game.reason.as_str(),
        game.plies.len(),
        game.seconds,
        sanitise(&game.detail)
    )
}

/// The human report after the games: the rules broken with their evidence and `replay`
/// command, the results by reason, the strength, and the verdict line.
pub(super) fn summary(
    report: &MatchReport,
    args: &PlayArgs,
    engine_label: &str,
    passed: bool,
    replay: impl Fn(&Violation) -> Option<String>,
) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    if !report.violations.is_empty() {
        line(String::new());
        line(paint(
            BOLD,
            "Rules broken (each once, where it first showed)",
        ));
        for v in &report.violations {
            let rule = v.verdict.rule.rule();
            line(format!(
                "  {} {} [{}] {}",
                paint(style::outcome(v.verdict.outcome), v.verdict.outcome),
                v.verdict.rule,
                rule.strength,
                rule.title
            ));
            line(format!(
                "        game {}, ply {}: {}",
                v.place.game,
                v.place.ply,
                sanitise(&v.verdict.reason)
            ));
            for excerpt in &v.excerpt {
                line(format!("          {}", sanitise(excerpt)));
            }
            if let Some(command) = replay(v) {
                line(format!("        replay: {command}"));
            }
        }
    }
    line(String::new());
    line(paint(
        BOLD,
        format!(
            "Results of {} (engine's point of view)",
            sanitise(report.engine_name.as_deref().unwrap_or(engine_label))
        ),
    ));
    line(results_table(report).trim_end().to_owned());
    for strength in strength_lines(report) {
        line(format!("  {strength}"));
    }
    let cut = report
        .games
        .iter()
        .filter(|g| g.reason == Reason::CutShort)
        .count();
    let mut skipped = String::new();
    if cut > 0 {
        skipped.push_str(&format!(", {cut} cut short by --time"));
    }
    if report.games_skipped > 0 {
        skipped.push_str(&format!(", {} not played", report.games_skipped));
        if report
            .sprt
            .is_some_and(|s| s.decision != Decision::Continue)
        {
            skipped.push_str(" (the SPRT decided)");
        }
    }
    if let Some(signal) = crate::cli::interrupt::interrupted() {
        line(format!(
            "interrupted by {signal}: the game in progress and the games after it not played"
        ));
    }
    let sprt = match report.sprt.map(|s| s.decision) {
        None => String::new(),
        Some(decision) => format!(
            " · SPRT: {}{}",
            decision.as_str(),
            match decision {
                Decision::H1 => "",
                Decision::H0 => " (exit 3)",
                Decision::Continue => " (exit 4)",
            }
        ),
    };
    line(format!(
        "{} with --fail-on {} · {} games{skipped} · {} lost by the engine's fault · {} broken{sprt} · {:.1} s",
        style::gate(passed),
        args.fail_on.as_str(),
        report.games.len(),
        report.faults().count(),
        match report.violations.len() {
            1 => "1 rule".to_owned(),
            n => format!("{n} rules"),
        },
        report.seconds
    ));
    out
}
