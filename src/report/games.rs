//! The reports of `usicheck play`: the results table (terminal), `report.json` and
//! `junit.xml` with one testcase per game (it fails when the engine lost by its own fault),
//! and one for the rules the engine broke.

use super::aggregate::FailOn;
use super::junit::{xml_lines, xml_text};
use crate::play::{MatchReport, Reason, color_name};
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use std::fmt::Write as _;

/// `schema` of a play `report.json`.
pub const PLAY_SCHEMA: &str = "usicheck-play/1";

/// Wins, draws and losses of the engine under test, by reason: one row per reason seen.
///
/// ```
/// use usicheck::play::MatchReport;
/// let empty = MatchReport {
///     engine_name: None, opponent_name: None, control: "1s+100ms".into(), games: vec![],
///     violations: vec![], verdicts: vec![], games_skipped: 0, interrupted: false, seconds: 0.0,
/// };
/// assert!(usicheck::report::results_table(&empty).contains("0 games"));
/// ```
pub fn results_table(report: &MatchReport) -> String {
    let mut out = String::new();
    let count = |result: &str, reason: Reason| {
        report
            .games
            .iter()
            .filter(|g| g.engine_result() == result && g.reason == reason)
            .count()
    };
    let _ = writeln!(
        out,
        "  {:<20} {:>5} {:>5} {:>5}",
        "reason", "win", "draw", "loss"
    );
    for reason in Reason::ALL {
        let row = [
            count("win", reason),
            count("draw", reason),
            count("lose", reason),
        ];
        if row.iter().any(|&n| n > 0) {
            let _ = writeln!(
                out,
                "  {:<20} {:>5} {:>5} {:>5}",
                reason.as_str(),
                row[0],
                row[1],
                row[2]
            );
        }
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
    out
}

/// `report.json`: the match as [`MatchReport`] serialises it, with the schema and the gate.
pub fn render_play_json(report: &MatchReport, fail_on: FailOn, passed: bool) -> String {
    let mut value = serde_json::to_value(report).expect("a match report serialises");
    if let serde_json::Value::Object(map) = &mut value {
        map.insert("schema".into(), PLAY_SCHEMA.into());
        map.insert("fail_on".into(), fail_on.as_str().into());
        map.insert("passed".into(), passed.into());
    }
    serde_json::to_string_pretty(&value).expect("JSON values serialise")
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
