//! The files of `play --report-dir`: every game's records and transcripts, a replay scenario
//! per broken rule, and the match's reports.

use std::path::Path;
use usicheck::engine::sanitise;
use usicheck::play::{MatchReport, Violation, record};
use usicheck::report::{
    ANNOTATIONS_TXT, COUNTS_TXT, FailOn, REPORT_HTML, REPORT_JSON, SUMMARY_MD, play_annotations,
    render_play_counts, render_play_html, render_play_json, render_play_junit, render_play_summary,
};

/// The replay scenario of a broken rule: the game's position and the command that exposed it.
fn replay_yaml(rule: &str, game: usize, ply: usize, position: &str, command: &str) -> String {
    let quote = |text: &str| serde_json::to_string(&text.replace('$', "$$")).expect("strings");
    let mut out = format!(
        "name: {}\ndescription: >\n  Replays what `usicheck play` saw in game {game} at ply {ply}.\nrules: [{rule}]\nsteps:\n  - handshake: {{}}\n  - send: usinewgame\n  - send: {}\n  - send: {}\n",
        quote(&format!("play: {rule} in game {game}, ply {ply}")),
        quote(position),
        quote(command)
    );
    if command.starts_with("go") {
        out.push_str("  - expect: {bestmove: legal, within: 60s}\n");
    }
    out
}

/// Who played, as the records and the replay commands name them.
pub(super) struct Names<'a> {
    pub(super) engine: &'a str,
    pub(super) opponent: &'a str,
    /// The engine's command line, for the replay commands.
    pub(super) engine_command: &'a str,
}

/// Writes the records of every game and the reports into `dir`.
pub(super) fn write_reports(
    dir: &Path,
    report: &MatchReport,
    names: &Names<'_>,
    kif_encoding: record::Encoding,
    fail_on: FailOn,
    passed: bool,
    logs: &[(usize, String, String)],
) -> std::io::Result<()> {
    let games = dir.join("games");
    std::fs::create_dir_all(&games)?;
    for game in &report.games {
        let (black, white) = match game.engine_color {
            usicheck::shogi::Color::Black => (names.engine, names.opponent),
            usicheck::shogi::Color::White => (names.opponent, names.engine),
        };
        let stem = games.join(format!("game-{:03}", game.number));
        std::fs::write(stem.with_extension("csa"), record::csa(game, black, white))?;
        std::fs::write(
            stem.with_extension(kif_encoding.kif_extension()),
            record::kif(game, black, white, kif_encoding),
        )?;
    }
    for (number, engine_log, opponent_log) in logs {
        let stem = games.join(format!("game-{number:03}"));
        std::fs::write(stem.with_extension("usi"), engine_log)?;
        std::fs::write(stem.with_extension("opponent.usi"), opponent_log)?;
    }
    let replays = dir.join("replays");
    for v in &report.violations {
        if let (Some(position), Some(command)) = (&v.position, &v.command) {
            std::fs::create_dir_all(&replays)?;
            let rule = v.verdict.rule.as_str();
            std::fs::write(
                replays.join(format!("{rule}.yaml")),
                replay_yaml(rule, v.place.game, v.place.ply, position, command),
            )?;
        }
    }
    std::fs::write(
        dir.join(REPORT_JSON),
        render_play_json(report, fail_on, passed),
    )?;
    std::fs::write(
        dir.join(REPORT_HTML),
        render_play_html(report, fail_on, passed, kif_encoding.kif_extension()),
    )?;
    std::fs::write(
        dir.join(SUMMARY_MD),
        render_play_summary(report, fail_on, passed, |v| {
            replay_command(dir, v, names.engine_command)
        }),
    )?;
    std::fs::write(dir.join(COUNTS_TXT), render_play_counts(report))?;
    std::fs::write(dir.join(ANNOTATIONS_TXT), play_annotations(report, fail_on))?;
    std::fs::write(dir.join("junit.xml"), render_play_junit(report, fail_on))
}

/// `usicheck run` of a broken rule's replay scenario against the engine, when it has one.
pub(super) fn replay_command(
    dir: &Path,
    violation: &Violation,
    engine_command: &str,
) -> Option<String> {
    violation.position.as_ref()?;
    violation.command.as_ref()?;
    let replay = dir.join(format!("replays/{}.yaml", violation.verdict.rule));
    Some(format!(
        "usicheck run {} -- {}",
        sanitise(&replay.display().to_string()),
        sanitise(engine_command)
    ))
}
