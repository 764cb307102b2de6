//! The reports of `usicheck play`: the results table (terminal), `report.json`,
//! `junit.xml` with one testcase per game (it fails when the engine lost by its own fault)
//! and one for the rules the engine broke, and `report.html` (the results by reason, the broken
//! rules, and per game the time each move used against the time it was allowed).

use super::aggregate::FailOn;
use super::html::esc;
use super::junit::{xml_lines, xml_text};
use super::strength::{llr_chart, strength_lines};
use crate::play::{GameRecord, MatchReport, Reason, color_name};
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use schemars::JsonSchema;
use serde::Serialize;
use std::fmt::Write as _;

/// `schema` of a play `report.json` (docs/play-report.schema.json).
pub const PLAY_SCHEMA: &str = "usicheck-play/1";

/// Wins, draws and losses of the engine under test, by reason: one row per reason seen.
///
/// ```
/// use usicheck::play::MatchReport;
/// let empty = MatchReport {
///     engine_name: None, opponent_name: None, control: "1s+100ms".into(),
///     opponent_control: None, seed: None, adjudication: Default::default(), games: vec![],
///     violations: vec![], verdicts: vec![], games_skipped: 0, interrupted: false, seconds: 0.0,
///     results: Default::default(), estimate: None, sprt: None, llr_curve: vec![],
/// };
/// assert!(usicheck::report::results_table(&empty).contains("0 games"));
/// ```
pub fn results_table(report: &MatchReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  {:<20} {:>5} {:>5} {:>5}",
        "reason", "win", "draw", "loss"
    );
    for (reason, [win, draw, loss]) in results_by_reason(report) {
        let _ = writeln!(
            out,
            "  {:<20} {win:>5} {draw:>5} {loss:>5}",
            reason.as_str()
        );
    }
    let total = |result: &str| {
        report
            .games
            .iter()
            .filter(|g| g.engine_result() == result)
            .count()
    };
    let _ = writeln!(
        out,
        "  {:<20} {:>5} {:>5} {:>5}   ({} games)",
        "total",
        total("win"),
        total("draw"),
        total("lose"),
        report.games.len()
    );
    let unfinished = total("unfinished");
    if unfinished > 0 {
        let _ = writeln!(
            out,
            "  {:<20} {unfinished:>5}   (no result: the run's time was up)",
            Reason::CutShort.as_str()
        );
    }
    out
}

/// The engine's wins, draws and losses per reason, for each reason a game ended by.
pub(super) fn results_by_reason(report: &MatchReport) -> Vec<(Reason, [usize; 3])> {
    Reason::ALL
        .into_iter()
        .map(|reason| {
            let row = ["win", "draw", "lose"].map(|result| {
                report
                    .games
                    .iter()
                    .filter(|g| g.reason == reason && g.engine_result() == result)
                    .count()
            });
            (reason, row)
        })
        .filter(|(_, row)| row.iter().any(|&n| n > 0))
        .collect()
}

/// Written by `usicheck play --report-dir DIR` as DIR/report.json: the match's report with its
/// schema and gate. Fields may be added within a version; renaming or removing one, or
/// changing its meaning, bumps the version in `schema`.
#[derive(Serialize, JsonSchema)]
#[schemars(title = "usicheck play report (report.json)")]
pub struct PlayReportJson<'a> {
    /// `usicheck-play/1`.
    #[schemars(extend("const" = PLAY_SCHEMA))]
    schema: &'static str,
    /// The `--fail-on` gate for the rules broken.
    fail_on: FailOn,
    /// `false` when the engine lost a game by its own fault or broke a rule the gate counts
    /// (exit code 1).
    passed: bool,
    #[serde(flatten)]
    report: &'a MatchReport,
}

/// `report.json`: the match as [`MatchReport`] serialises it, with the schema and the gate.
pub fn render_play_json(report: &MatchReport, fail_on: FailOn, passed: bool) -> String {
    let json = PlayReportJson {
        schema: PLAY_SCHEMA,
        fail_on,
        passed,
        report,
    };
    serde_json::to_string_pretty(&json).expect("a match report serialises")
}

/// `junit.xml`: one testcase per game, failed when the engine lost it by its own fault, and
/// one for the rules its lines broke (failed by those the gate counts).
pub fn render_play_junit(report: &MatchReport, fail_on: FailOn) -> String {
    let mut suite = TestSuite::new("usicheck play");
    for game in &report.games {
        let status = if game.engine_at_fault() {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status
                .set_type(game.reason.as_str())
                .set_message(xml_text(&game.detail));
            status
        } else if game.reason == Reason::CutShort {
            let mut status = TestCaseStatus::skipped();
            status.set_message(xml_text(&game.detail));
            status
        } else {
            TestCaseStatus::success()
        };
        let name = format!(
            "game {} ({}, {})",
            game.number,
            color_name(game.engine_color),
            game.base
        );
        let mut case = TestCase::new(xml_text(&name), status);
        case.set_classname("usicheck.play")
            .set_time(std::time::Duration::from_secs_f64(game.seconds))
            .set_system_out(xml_lines(&format!(
                "{} by {}: {}\n",
                game.engine_result(),
                game.reason.as_str(),
                game.detail
            )))
            .add_property(Property::new("result", game.engine_result()))
            .add_property(Property::new("reason", game.reason.as_str()))
            .add_property(Property::new("plies", game.plies.len().to_string()));
        suite.add_test_case(case);
    }
    let failing: Vec<_> = report
        .violations
        .iter()
        .filter(|v| fail_on.fails(&v.verdict))
        .collect();
    let status = if failing.is_empty() {
        TestCaseStatus::success()
    } else {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        let rules: Vec<&str> = failing.iter().map(|v| v.verdict.rule.as_str()).collect();
        status.set_type(rules.join(" "));
        status
    };
    let mut out = String::new();
    for v in &report.violations {
        let _ = writeln!(
            out,
            "{} {} (game {}, ply {}): {}",
            v.verdict.outcome, v.verdict.rule, v.place.game, v.place.ply, v.verdict.reason
        );
        for line in &v.excerpt {
            let _ = writeln!(out, "    {line}");
        }
    }
    let mut case = TestCase::new("always-on checks of every line", status);
    case.set_classname("usicheck.play")
        .set_system_out(xml_lines(&out));
    suite.add_test_case(case);
    let mut junit = Report::new("usicheck");
    junit.add_test_suite(suite);
    junit.to_string().expect("quick-junit writes into a String")
}

/// Width and height of a game's time chart, in SVG units.
const CHART_WIDTH: f64 = 720.0;
const CHART_HEIGHT: f64 = 120.0;

/// One game's chart: a bar per move (the engine's dark, the opponent's light) for the time it
/// used, and a red tick at the time it was allowed (time left plus byoyomi or increment).
fn time_chart(game: &GameRecord) -> String {
    let timed: Vec<_> = game
        .plies
        .iter()
        .filter(|p| p.used_ms.is_some() || p.allowed_ms.is_some())
        .collect();
    let top = timed
        .iter()
        .flat_map(|p| [p.used_ms.unwrap_or(0.0), p.allowed_ms.unwrap_or(0.0)])
        .fold(1.0f64, f64::max);
    let step = CHART_WIDTH / timed.len().max(1) as f64;
    let y = |ms: f64| CHART_HEIGHT - ms / top * CHART_HEIGHT;
    let mut svg = format!(
        "<svg viewBox=\"0 0 {CHART_WIDTH} {CHART_HEIGHT}\" width=\"{CHART_WIDTH}\" \
         height=\"{CHART_HEIGHT}\" role=\"img\"><title>time used (bars) against time allowed \
         (red), up to {top:.0} ms</title>"
    );
    for (i, ply) in timed.iter().enumerate() {
        let x = i as f64 * step;
        let fill = if ply.side == game.engine_color {
            "#3465a4"
        } else {
            "#babdb6"
        };
        let used = ply.used_ms.unwrap_or(top);
        let _ = write!(
            svg,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\">\
             <title>ply {}: {} ms used of {} ms</title></rect>",
            y(used),
            (step * 0.8).max(0.5),
            CHART_HEIGHT - y(used),
            i + 1,
            ply.used_ms
                .map_or("no reply".to_owned(), |u| format!("{u:.0}")),
            ply.allowed_ms.map_or("—".to_owned(), |a| format!("{a:.0}")),
        );
        if let Some(allowed) = ply.allowed_ms {
            let _ = write!(
                svg,
                "<line x1=\"{x:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#cc0000\"/>",
                x + (step * 0.8).max(0.5),
                y(allowed),
                y(allowed)
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// Height of the leak chart, in SVG units (as wide as a time chart).
const LEAK_CHART_HEIGHT: f64 = 160.0;

/// The leak chart: the engine's resident memory after each game (a point per sampled game,
/// joined), its threads and child processes in each point's tooltip; `None` without samples.
fn leak_chart(games: &[GameRecord]) -> Option<String> {
    let sampled: Vec<(&GameRecord, u64)> = games
        .iter()
        .filter_map(|g| Some((g, g.engine_rss_kib?)))
        .collect();
    if sampled.is_empty() {
        return None;
    }
    let top = sampled
        .iter()
        .map(|&(_, rss)| rss)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let low = sampled.iter().map(|&(_, rss)| rss).min().unwrap_or(0) as f64;
    let step = CHART_WIDTH / sampled.len() as f64;
    let x = |i: usize| (i as f64 + 0.5) * step;
    let y = |kib: f64| LEAK_CHART_HEIGHT - 10.0 - kib / top * (LEAK_CHART_HEIGHT - 20.0);
    let mut svg = format!(
        "<svg viewBox=\"0 0 {CHART_WIDTH} {LEAK_CHART_HEIGHT}\" width=\"{CHART_WIDTH}\" \
         height=\"{LEAK_CHART_HEIGHT}\" role=\"img\"><title>the engine's resident memory after \
         each game, {:.1} to {:.1} MiB</title>",
        low / 1024.0,
        top / 1024.0
    );
    let points: Vec<String> = sampled
        .iter()
        .enumerate()
        .map(|(i, &(_, rss))| format!("{:.1},{:.1}", x(i), y(rss as f64)))
        .collect();
    let _ = write!(
        svg,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#3465a4\"/>",
        points.join(" ")
    );
    for (i, &(game, rss)) in sampled.iter().enumerate() {
        let _ = write!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#3465a4\"><title>game {}: \
             {:.1} MiB, {} threads, {} child processes</title></circle>",
            x(i),
            y(rss as f64),
            game.number,
            rss as f64 / 1024.0,
            game.engine_threads
                .map_or("?".to_owned(), |t| t.to_string()),
            game.engine_children
                .map_or("?".to_owned(), |c| c.to_string()),
        );
    }
    svg.push_str("</svg>");
    Some(svg)
}

/// Multi-line text for a `<pre>`: each line escaped (control characters made visible), the
/// line breaks kept.
fn esc_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    lines.into_iter().map(esc).collect::<Vec<_>>().join("\n")
}

/// `report.html`: one self-contained page (no scripts), engine text escaped; each game links
/// its records (the KIF one by `kif_extension`, `kif` or `kifu`).
pub fn render_play_html(
    report: &MatchReport,
    fail_on: FailOn,
    passed: bool,
    kif_extension: &str,
) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>usicheck play</title><style>body{font-family:sans-serif;margin:2em}\
         table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}\
         pre{background:#f4f4f4;padding:4px}</style></head><body>\n",
    );
    let _ = writeln!(
        out,
        "<h1>usicheck play: {} with --fail-on {}</h1><p>engine {} · opponent {} · {} · {} games · {:.1} s</p>",
        if passed { "PASS" } else { "FAIL" },
        fail_on.as_str(),
        esc(report.engine_name.as_deref().unwrap_or("?")),
        esc(report.opponent_name.as_deref().unwrap_or("?")),
        esc(&match &report.opponent_control {
            Some(theirs) => format!("{} (opponent {theirs})", report.control),
            None => report.control.clone(),
        }),
        report.games.len(),
        report.seconds
    );
    let _ = writeln!(
        out,
        "<h2>Results (the engine's point of view)</h2><pre>{}</pre>",
        esc_lines(results_table(report).lines())
    );
    let strength = strength_lines(report);
    if !strength.is_empty() {
        let _ = writeln!(
            out,
            "<pre>{}</pre>",
            esc_lines(strength.iter().map(String::as_str))
        );
    }
    if let Some(sprt) = report.sprt
        && let Some(chart) = llr_chart(&report.llr_curve, (sprt.lower_bound, sprt.upper_bound))
    {
        let _ = writeln!(
            out,
            "<h2>SPRT</h2>\n<p>The log-likelihood ratio of H1 (elo {}) against H0 (elo {}) after \
             each finished game, in the order they finished; the match stops once it crosses a \
             bound.</p>\n{chart}",
            sprt.test.elo1, sprt.test.elo0
        );
    }
    if !report.violations.is_empty() {
        out.push_str("<h2>Rules broken</h2>\n");
        for v in &report.violations {
            let _ = writeln!(
                out,
                "<h3>{} {}</h3><p>game {}, ply {}: {}</p><pre>{}</pre>",
                v.verdict.outcome,
                v.verdict.rule,
                v.place.game,
                v.place.ply,
                esc(&v.verdict.reason),
                esc_lines(v.excerpt.iter().map(String::as_str))
            );
        }
    }
    if let Some(chart) = leak_chart(&report.games) {
        let _ = writeln!(
            out,
            "<h2>Memory per game</h2>\n<p>The engine's resident memory after each \
             <code>gameover</code> (point titles: threads and child processes too); a sustained \
             rise beyond the tolerance is USI-ROBUST-011.</p>\n{chart}"
        );
    }
    out.push_str(
        "<h2>Games</h2>\n<p>Per move: the time used (bars, the engine's dark, the opponent's \
         light) against the time allowed (red: time left plus byoyomi or increment).</p>\n",
    );
    for game in &report.games {
        let _ = writeln!(
            out,
            "<h3>Game {} ({}, {}): {} by {}</h3><p>{} · {} plies · <a href=\"games/game-{:03}.{kif_extension}\">KIF</a> \
             · <a href=\"games/game-{:03}.csa\">CSA</a> · <a href=\"games/game-{:03}.usi\">transcript</a></p>{}",
            game.number,
            color_name(game.engine_color),
            esc(&game.base),
            game.engine_result(),
            game.reason.as_str(),
            esc(&game.detail),
            game.plies.len(),
            game.number,
            game.number,
            game.number,
            time_chart(game)
        );
    }
    out.push_str("</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::adjudication::{Resign, Rules};
    use crate::play::stats::{self, Decision, GameResult, Model, Results, Sprt};
    use crate::play::{LlrPoint, Place, Ply, SprtOutcome, Violation, Winner};
    use crate::report::schema::{ReportKind, schema_errors};
    use crate::rules::{Claims, Profile, Verdict};
    use crate::shogi::Color;

    /// A match of one game the engine lost on time, with the rule it broke and an SPRT.
    fn lost_on_time() -> MatchReport {
        let ply = |usi: &str, side, used_ms| Ply {
            usi: usi.into(),
            side,
            used_ms,
            allowed_ms: Some(1100.0),
        };
        let game = GameRecord {
            number: 1,
            base: "startpos".into(),
            opening_moves: vec!["7g7f".into()],
            engine_color: Color::White,
            plies: vec![
                ply("3c3d", Color::White, Some(12.5)),
                ply("", Color::White, None),
            ],
            winner: Winner::Black,
            reason: Reason::Time,
            loser: Some(Color::White),
            detail: "no bestmove within 1100 ms".into(),
            notes: Vec::new(),
            seconds: 2.5,
            engine_rss_kib: Some(2048),
            engine_threads: Some(2),
            engine_children: Some(0),
        };
        let rule = crate::rule!("USI-GO-002");
        let verdict =
            Verdict::violation(Profile::Shogidokoro, rule, None, &Claims::default(), "late");
        let results = Results::tally([(1, GameResult::Loss)]);
        let test = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
            model: Model::Normalized,
        };
        MatchReport {
            engine_name: Some("engine".into()),
            opponent_name: None,
            control: "1s+100ms".into(),
            opponent_control: None,
            seed: Some(7),
            adjudication: Rules {
                resign: Some(Resign {
                    movecount: 3,
                    score: 1000,
                    twosided: false,
                }),
                draw: None,
            },
            games: vec![game],
            violations: vec![Violation {
                verdict: verdict.expect("a late reply is graded"),
                place: Place { game: 1, ply: 2 },
                excerpt: vec!["1.000 > go btime 0 wtime 0 byoyomi 1000".into()],
                position: Some("position startpos moves 7g7f 3c3d".into()),
                command: Some("go btime 0 wtime 0 byoyomi 1000".into()),
            }],
            verdicts: Vec::new(),
            games_skipped: 1,
            interrupted: false,
            seconds: 2.6,
            results,
            estimate: stats::estimate(&results),
            sprt: Some(SprtOutcome {
                test,
                lower_bound: -2.94,
                upper_bound: 2.94,
                llr: -0.2,
                decision: Decision::Continue,
                games: 1,
            }),
            llr_curve: vec![LlrPoint {
                games: 1,
                llr: -0.2,
            }],
        }
    }

    #[test]
    fn report_json_has_its_schema_and_gate_and_validates() {
        let json = render_play_json(&lost_on_time(), FailOn::Must, false);
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(report["schema"], PLAY_SCHEMA);
        assert_eq!(
            (&report["fail_on"], &report["passed"]),
            (&"must".into(), &false.into())
        );
        assert_eq!(report["games"][0]["engine_color"], "white");
        let errors = schema_errors(ReportKind::Play, &report);
        assert!(errors.is_empty(), "{errors:#?}");
    }
}
