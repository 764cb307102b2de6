//! `usicheck play`: the reference engine against itself plays clean games under byoyomi and
//! Fischer clocks, and each fault that only whole games reveal loses for the right reason.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

const BIN: &str = env!("CARGO_BIN_EXE_usicheck");

/// Runs `usicheck play ARGS -- usicheck engine --fault FAULT…` with the report in `dir`;
/// returns the exit code, stdout and report.json.
fn play(dir: &Path, args: &[&str], faults: &[&str]) -> (i32, String, serde_json::Value) {
    let mut engine = vec![BIN, "engine"];
    for fault in faults {
        engine.extend(["--fault", fault]);
    }
    play_against(dir, args, &engine)
}

/// Runs `usicheck play ARGS -- ENGINE…`, as [`play`].
fn play_against(dir: &Path, args: &[&str], engine: &[&str]) -> (i32, String, serde_json::Value) {
    let mut cmd = Command::new(BIN);
    cmd.arg("play").args(args).arg("--report-dir").arg(dir);
    cmd.arg("--").args(engine);
    let output = cmd.output().expect("usicheck runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let report = std::fs::read_to_string(dir.join("report.json"))
        .unwrap_or_else(|e| panic!("no report.json ({e}): {stdout}"));
    let report = serde_json::from_str(&report).expect("report.json is JSON");
    (output.status.code().unwrap_or(-1), stdout, report)
}

/// A fresh directory for one test's report.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("usicheck-play-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// (engine's result, reason) of every game.
fn results(report: &serde_json::Value) -> Vec<(String, String)> {
    report["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| {
            let engine = g["engine_color"].as_str().unwrap();
            let winner = g["winner"].as_str().unwrap();
            let result = match winner {
                "draw" => "draw",
                w if w == engine => "win",
                _ => "lose",
            };
            (result.to_owned(), g["reason"].as_str().unwrap().to_owned())
        })
        .collect()
}

fn violated(report: &serde_json::Value) -> Vec<String> {
    report["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| v["verdict"]["rule"].as_str().unwrap().to_owned())
        .collect()
}

fn no_fault_reason(report: &serde_json::Value) -> bool {
    results(report).iter().all(|(_, reason)| {
        !matches!(
            reason.as_str(),
            "time" | "illegal-move" | "invalid-declaration" | "crash" | "hang"
        )
    })
}

/// Byoyomi and Fischer, two games each (colours alternate): no forfeit, no rule broken, and
/// every game written as CSA, KIF and transcript.
#[test]
fn the_reference_engine_plays_itself_clean() {
    for tc in ["300ms+100ms", "300ms+100ms/inc"] {
        let dir = scratch(&format!("clean-{}", tc.len()));
        let (code, stdout, report) = play(
            &dir,
            &["--tc", tc, "--games", "2", "--max-moves", "16"],
            &[],
        );
        assert_eq!(code, 0, "{tc}: {stdout}");
        assert!(no_fault_reason(&report), "{tc}: {stdout}");
        assert!(violated(&report).is_empty(), "{tc}: {stdout}");
        assert_eq!(report["games"].as_array().unwrap().len(), 2);
        let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
        assert!(
            html.contains("<svg") && html.contains("game-002.kif"),
            "{tc}"
        );
        for ext in ["csa", "kif", "usi"] {
            let file = dir.join(format!("games/game-002.{ext}"));
            assert!(file.is_file(), "{tc}: no {}", file.display());
        }
        let csa = std::fs::read_to_string(dir.join("games/game-001.csa")).unwrap();
        assert!(csa.starts_with("V2.2\nN+"), "{csa}");
        let usi = std::fs::read_to_string(dir.join("games/game-001.usi")).unwrap();
        assert!(
            usi.contains("> usinewgame") && usi.contains("> gameover"),
            "{usi}"
        );
        assert!(stdout.contains("PASS with --fail-on must"), "{stdout}");
    }
}

/// A clock ignored once the main time runs below 1 s: the engine loses on time (its first
/// move leaves it under 1 s).
#[test]
fn clock_ignored_below_one_second_loses_on_time() {
    let dir = scratch("clock");
    let (code, stdout, report) = play(
        &dir,
        &["--tc", "1s+100ms", "--games", "1"],
        &["clock-ignored-below-1s"],
    );
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(
        results(&report),
        [("lose".into(), "time".into())],
        "{stdout}"
    );
    assert!(
        violated(&report).contains(&"USI-GO-004".to_owned()),
        "{stdout}"
    );
}

/// A declaration one point short of the 27-point rule (27 for Black, who needs 28) loses.
#[test]
fn a_declaration_one_point_short_loses() {
    let dir = scratch("declaration");
    let openings = dir.join("openings.sfen");
    std::fs::write(
        &openings,
        "sfen +P+P+P+P+P+P+P+P+P/+P8/4K4/9/9/9/9/9/8k b 2RB2Gb2g4s4n4l8p 1\n",
    )
    .unwrap();
    let (code, stdout, report) = play(
        &dir,
        &[
            "--tc",
            "depth=1",
            "--games",
            "1",
            "--openings",
            openings.to_str().unwrap(),
        ],
        &["invalid-win"],
    );
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(
        results(&report),
        [("lose".into(), "invalid-declaration".into())],
        "{stdout}"
    );
    assert!(stdout.contains("27 points of 28"), "{stdout}");
    let csa = std::fs::read_to_string(dir.join("games/game-001.csa")).unwrap();
    assert!(csa.trim_end().ends_with("%ILLEGAL_MOVE"), "{csa}");
}

/// An engine that crashes at the third `usinewgame` loses the third game by crash; the first
/// two are played.
#[test]
fn a_crash_at_the_third_newgame_loses_that_game() {
    let dir = scratch("crash");
    let (code, stdout, report) = play(
        &dir,
        &["--tc", "depth=1", "--games", "3", "--max-moves", "20"],
        &["crash-at-third-newgame"],
    );
    assert_eq!(code, 1, "{stdout}");
    let results = results(&report);
    assert_eq!(results.len(), 3, "{stdout}");
    assert!(results[..2].iter().all(|(_, r)| r != "crash"), "{stdout}");
    assert_eq!(results[2], ("lose".into(), "crash".into()), "{stdout}");
}

/// Memory kept at every game is a leak (USI-ROBUST-011, a SHOULD: it fails `--fail-on
/// should`), charged once with the growth.
#[test]
fn memory_leaked_each_game_is_charged() {
    let dir = scratch("leak");
    let (code, stdout, report) = play(
        &dir,
        &[
            "--tc",
            "depth=1",
            "--games",
            "3",
            "--max-moves",
            "10",
            "--fail-on",
            "should",
        ],
        &["leak-per-game"],
    );
    assert_eq!(code, 1, "{stdout}");
    assert_eq!(violated(&report), ["USI-ROBUST-011"], "{stdout}");
    assert!(stdout.contains("resident memory grew"), "{stdout}");
    assert!(no_fault_reason(&report), "{stdout}");
    assert_eq!(report["games"][2]["engine_children"], 0, "{report}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        html.contains("Memory per game") && html.contains("<polyline"),
        "{html}"
    );
}

/// An engine that walks into a perpetual check (it checks with every move until the position
/// comes a 4th time) loses by it; both sides are scripted, so the game is exactly that.
#[test]
fn walking_into_a_perpetual_check_loses() {
    let dir = scratch("perpetual");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/scripted-engine.sh");
    let openings = dir.join("openings.sfen");
    // Black's rook checks White's king along rank a, then rank b, as it steps back and forth.
    std::fs::write(&openings, "sfen 4k4/9/9/9/9/9/9/9/R3K4 b - 1\n").unwrap();
    let opponent = format!("{script} 5a5b 5b5a 5a5b 5b5a 5a5b 5b5a");
    let (code, stdout, report) = play_against(
        &dir,
        &[
            "--tc",
            "1s+100ms",
            "--games",
            "1",
            "--openings",
            openings.to_str().unwrap(),
            "--opponent",
            &opponent,
        ],
        &[
            script, "9i9a", "9a9b", "9b9a", "9a9b", "9b9a", "9a9b", "9b9a",
        ],
    );
    assert_eq!(
        results(&report),
        [("lose".into(), "perpetual-check".into())],
        "{stdout}"
    );
    assert_eq!(report["games"][0]["plies"].as_array().unwrap().len(), 13);
    // Losing by the rules is no fault of the engine's: the exit code stays 0.
    assert_eq!(code, 0, "{stdout}");
    let kif = std::fs::read_to_string(dir.join("games/game-001.kif")).unwrap();
    assert!(kif.contains("反則負け"), "{kif}");
}

/// The reference engine with `plays-perpetual-check` walks into a perpetual check from the
/// position of 16-rules/perpetual-check (Black's rook has chased White's king with checks; one
/// more check brings the position about a 4th time) and loses by it; the clean engine, from the
/// same position, does not.
#[test]
fn the_perpetual_check_fault_loses_by_it() {
    let opening = "sfen 6R1k/9/9/9/9/9/9/9/K8 w r2b4g4s4n4l18p 1 moves 1a1b 3a3b 1b1a 3b3a \
                   1a1b 3a3b 1b1a 3b3a 1a1b 3a3b 1b1a\n";
    let first_game = |faults: &[&str], name: &str| {
        let dir = scratch(name);
        let openings = dir.join("openings.sfen");
        std::fs::write(&openings, opening).unwrap();
        let args = [
            "--tc",
            "1s+100ms",
            "--games",
            "1",
            "--openings",
            openings.to_str().unwrap(),
        ];
        let (code, stdout, report) = play(&dir, &args, faults);
        (code, stdout, results(&report)[0].clone())
    };
    let (code, stdout, result) = first_game(&["plays-perpetual-check"], "perpetual-fault");
    assert_eq!(
        result,
        ("lose".into(), "perpetual-check".into()),
        "{stdout}"
    );
    assert_eq!(
        code, 0,
        "losing by the rules is no fault of the engine's: {stdout}"
    );
    let (_, stdout, result) = first_game(&[], "perpetual-clean");
    assert_ne!(result.1, "perpetual-check", "{stdout}");
}

/// `--ponder`: the engine ponders on its predicted move; `ponderhit` on a hit, `stop` then a
/// new `go` on a miss; no forfeit, no rule broken.
#[test]
fn pondering_follows_the_gui_game_loop() {
    let dir = scratch("ponder");
    let (code, stdout, report) = play(
        &dir,
        &[
            "--tc",
            "2s+500ms",
            "--games",
            "1",
            "--max-moves",
            "16",
            "--ponder",
        ],
        &[],
    );
    assert_eq!(code, 0, "{stdout}");
    assert!(no_fault_reason(&report), "{stdout}");
    let usi = std::fs::read_to_string(dir.join("games/game-001.usi")).unwrap();
    assert!(
        usi.contains("> setoption name USI_Ponder value true"),
        "{usi}"
    );
    assert!(usi.contains("> go ponder btime "), "{usi}");
    assert!(
        usi.contains("> ponderhit") || usi.contains("> stop"),
        "{usi}"
    );
}

/// Ctrl-C ends the match with the shell's code: the games finished are reported, nothing is
/// charged for the engines it killed.
#[test]
fn ctrl_c_stops_the_match_and_reports_what_finished() {
    let dir = scratch("interrupt");
    let mut child = std::process::Command::new(BIN)
        .args(["play", "--tc", "1s+100ms", "--games", "20", "--report-dir"])
        .arg(&dir)
        .args(["--", BIN, "engine"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("usicheck starts");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: signals our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().expect("usicheck exits");
    assert_eq!(status.code(), Some(130), "{status:?}");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("report.json")).expect("report.json"))
            .expect("valid JSON");
    assert_eq!(report["interrupted"], true);
    assert!(report["games"].as_array().unwrap().len() < 20);
    assert!(violated(&report).is_empty(), "{report}");
}

/// `--jobs 2`: two games at once, each job with its own processes; every game reported once,
/// in order, colours still alternating.
#[test]
fn jobs_play_games_at_once() {
    let dir = scratch("jobs");
    let (code, stdout, report) = play(
        &dir,
        &[
            "--tc",
            "depth=1",
            "--games",
            "4",
            "--max-moves",
            "20",
            "--jobs",
            "2",
        ],
        &[],
    );
    assert_eq!(code, 0, "{stdout}");
    let games = report["games"].as_array().unwrap();
    let numbers: Vec<u64> = games
        .iter()
        .map(|g| g["number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 2, 3, 4], "{stdout}");
    let colours: Vec<&str> = games
        .iter()
        .map(|g| g["engine_color"].as_str().unwrap())
        .collect();
    assert_eq!(colours, ["black", "white", "black", "white"]);
}

/// `--time` bounds the whole run: a game still in progress then is cut short (reported as
/// such, charged to neither side), not played out. The engine never answers `go` on this
/// board, so only the run's time can end the game before its 60 s clock would.
#[test]
fn the_run_time_cuts_the_game_in_progress() {
    let dir = scratch("cut");
    let openings = dir.join("openings.sfen");
    std::fs::write(
        &openings,
        "sfen 4k4/9/9/9/4r4/9/9/9/4K4 b 2Gr2b2g4s4n4l18p 1\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let (code, stdout, report) = play(
        &dir,
        &[
            "--tc",
            "60s+0s",
            "--games",
            "2",
            "--time",
            "2s",
            "--openings",
            openings.to_str().unwrap(),
        ],
        &["hang-on-position"],
    );
    assert!(started.elapsed().as_secs() < 30, "{stdout}");
    assert_eq!(code, 0, "{stdout}");
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), 1, "{stdout}");
    assert_eq!(games[0]["reason"], "cut-short", "{stdout}");
    assert_eq!(games[0]["winner"], "unfinished", "{stdout}");
    assert_eq!(report["games_skipped"], 1, "{stdout}");
    assert!(violated(&report).is_empty(), "{stdout}");
    assert!(stdout.contains("1 cut short by --time"), "{stdout}");
}

/// Jobs share the cores as certify's scenarios do: two jobs on one core take turns (a search
/// holds the core until it answers, an idle engine lends it), every game is played, and every
/// core is given back.
#[test]
fn jobs_take_turns_on_the_cores() {
    use usicheck::engine::{EngineCommand, SearchSlots};
    use usicheck::play::{DEFAULT_LEAK_TOLERANCE_KIB, Opening, PlayerConfig, Settings};
    let slots = SearchSlots::new(1, 1);
    let reference = || PlayerConfig {
        command: EngineCommand::new(BIN).arg("engine"),
        options: Vec::new(),
    };
    let settings = Settings {
        engine: reference(),
        opponent: reference(),
        profile: usicheck::rules::Profile::Shogidokoro,
        claims: usicheck::rules::Claims::default(),
        control: "depth=1".parse().unwrap(),
        games: 4,
        openings: vec![Opening::parse("startpos").unwrap()],
        max_moves: 12,
        time: None,
        leak_tolerance_kib: DEFAULT_LEAK_TOLERANCE_KIB,
        ponder: false,
        jobs: 2,
        search_slots: Some(slots.clone()),
    };
    let report = usicheck::play::play_match(&settings, |_, _, _| {});
    assert_eq!(report.games.len(), 4);
    assert!(report.faults().next().is_none(), "{:?}", report.games);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(slots.free(), 1);
}
