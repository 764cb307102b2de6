//! The records `usicheck play` writes, read by an independent reader: python-shogi's CSA and
//! KIF parsers (tests/independent_records.py; .ci/run installs the package) replay every
//! move of every record to the position usicheck played to.

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use usicheck::shogi::{Move, Position};

const BIN: &str = env!("CARGO_BIN_EXE_usicheck");

/// The python-shogi version .ci/run installs.
const PYTHON_SHOGI: &str = "python-shogi==1.1.1";

/// Whether python3 can import python-shogi; in CI (CI=true) it must, since .ci/run installs
/// it. Elsewhere the test is skipped with a note.
fn python_shogi() -> bool {
    let found = std::process::Command::new("python3")
        .args(["-c", "import shogi.CSA, shogi.KIF"])
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "python3 cannot import python-shogi in CI (.ci/run installs {PYTHON_SHOGI})"
        );
        eprintln!("skipped: python3 cannot import python-shogi (pip install {PYTHON_SHOGI})");
    }
    found
}

/// Runs `usicheck play ARGS… --report-dir DIR -- usicheck engine` in a fresh directory `name`
/// and returns DIR; the match must pass.
fn play(name: &str, args: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("usicheck-records-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = Command::new(BIN)
        .arg("play")
        .args(args)
        .arg("--report-dir")
        .arg(&dir)
        .args(["--", BIN, "engine"])
        .output()
        .expect("usicheck runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    dir
}

/// Board, side to move and hands of an SFEN (the move number dropped), as usicheck writes them.
fn position_of(sfen: &str) -> String {
    let position = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
    let canonical = position.to_sfen();
    canonical
        .rsplit_once(' ')
        .expect("a move number")
        .0
        .to_owned()
}

/// Every game of report.json by number: how many moves it has and the position after them
/// (the opening's moves and the plies that are legal moves, as the records hold them).
fn played(dir: &Path) -> BTreeMap<u64, (usize, String)> {
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let mut games = BTreeMap::new();
    for game in report["games"].as_array().unwrap() {
        let base = game["base"].as_str().unwrap();
        let mut position = match base.strip_prefix("sfen ") {
            Some(sfen) => Position::from_sfen(sfen).unwrap(),
            None => Position::startpos(),
        };
        let opening = game["opening_moves"].as_array().unwrap().iter();
        let plies = game["plies"].as_array().unwrap().iter().map(|p| &p["usi"]);
        let mut moves = 0;
        for text in opening.chain(plies) {
            let Ok(mv) = text.as_str().unwrap().parse::<Move>() else {
                break;
            };
            if position.play(mv).is_err() {
                break;
            }
            moves += 1;
        }
        games.insert(
            game["number"].as_u64().unwrap(),
            (moves, position_of(&position.to_sfen())),
        );
    }
    games
}

/// What python-shogi makes of each record in DIR/games: name → (moves, final position).
fn read_independently(dir: &Path) -> BTreeMap<String, (usize, String)> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/independent_records.py");
    let output = std::process::Command::new("python3")
        .arg(script)
        .arg(dir.join("games"))
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields[..] {
                [name, moves, sfen] if !moves.starts_with("error") => {
                    (name.to_owned(), (moves.parse().unwrap(), position_of(sfen)))
                }
                _ => panic!("python-shogi could not read a record: {line}"),
            }
        })
        .collect()
}

/// Each game's records (`game-NNN.EXT` for each of `extensions`) replay in python-shogi to
/// the position the game reached, with as many moves.
fn assert_replayed(dir: &Path, extensions: &[&str]) {
    let games = played(dir);
    let read = read_independently(dir);
    assert_eq!(read.len(), games.len() * extensions.len(), "{read:#?}");
    for (number, expected) in &games {
        for extension in extensions {
            let name = format!("game-{number:03}.{extension}");
            assert_eq!(read.get(&name), Some(expected), "{name}");
        }
    }
}

/// A 20-game match from the bundled openings (the even game and four handicaps, named in
/// the KIF header and set up on the CSA board) with random plies: every CSA and Shift_JIS KIF
/// record replays in python-shogi to the final position.
#[test]
#[ignore = "slow tier: a match against engine processes, and python-shogi"]
fn every_record_of_a_match_replays_in_python_shogi() {
    if !python_shogi() {
        return;
    }
    let dir = play(
        "match",
        &[
            "--games",
            "20",
            "--tc",
            "depth=2",
            "--random-plies",
            "6",
            "--seed",
            "1",
            "--openings",
            "bundled",
        ],
    );
    let kif = std::fs::read(dir.join("games/game-011.kif")).unwrap();
    assert!(
        std::str::from_utf8(&kif).is_err(),
        "a .kif is Shift_JIS, not UTF-8"
    );
    assert_replayed(&dir, &["csa", "kif"]);
}

/// `--kif-encoding utf-8` writes `.kifu` records in UTF-8, and a start no handicap names as
/// a board diagram with the pieces in hand: python-shogi replays them too.
#[test]
#[ignore = "slow tier: a match against engine processes, and python-shogi"]
fn utf8_kifu_records_and_board_diagrams_replay_in_python_shogi() {
    if !python_shogi() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("usicheck-records-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let openings = dir.join("diagram.sfen");
    // Both bishops in hand: no standard start.
    std::fs::write(
        &openings,
        "sfen lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/7R1/LNSGKGSNL b Bb 1\n",
    )
    .unwrap();
    let dir = play(
        "kifu",
        &[
            "--games",
            "2",
            "--tc",
            "depth=2",
            "--random-plies",
            "4",
            "--seed",
            "1",
            "--kif-encoding",
            "utf-8",
            "--openings",
            openings.to_str().unwrap(),
        ],
    );
    let kifu = std::fs::read_to_string(dir.join("games/game-001.kifu")).unwrap();
    assert!(
        kifu.starts_with("#KIF version=2.0 encoding=UTF-8\n") && kifu.contains("|v香v桂"),
        "{kifu}"
    );
    assert!(!dir.join("games/game-001.kif").exists());
    assert_replayed(&dir, &["csa", "kifu"]);
}
