//! One symptom, one rule, whichever driver saw it (issue 47): each incident kind, provoked by a
//! fault of the reference engine, is charged to the same rule by the scenario runner (`usicheck
//! run`, its pre-flight included) and by the fuzzer's executor, both on the engine simulated;
//! and by `play` where a game reaches it (slow tier: `play` drives processes).

mod suite;

use assert_cmd::Command;
use std::collections::BTreeSet;
use std::time::Duration;
use usicheck::fuzzer::exec;
use usicheck::fuzzer::known::Known;
use usicheck::fuzzer::plan::{Cmd, Kind, Search};
use usicheck::shogi::Position;

/// An incident: the fault that provokes it, the commands sent after the handshake, and the one
/// rule every driver charges.
struct Incident {
    what: &'static str,
    fault: &'static str,
    commands: &'static [&'static str],
    rule: &'static str,
    /// Games of `usicheck play` that reach it, if a game does.
    games: Option<u32>,
}

const INCIDENTS: &[Incident] = &[
    Incident {
        what: "no `readyok` at all",
        fault: "no-readyok",
        commands: &[],
        rule: "USI-READY-001",
        games: None,
    },
    Incident {
        what: "a death on a setting of an option not advertised",
        fault: "crash-on-unknown-option",
        commands: &["setoption name NoSuchOption value 1"],
        rule: "USI-OPTION-010",
        games: None,
    },
    Incident {
        what: "a death on a board the rules reject",
        fault: "panic-on-illegal-move",
        commands: &["position startpos moves 7g7f 7g7f"],
        rule: "USI-POSITION-011",
        games: None,
    },
    Incident {
        what: "a death on `gameover`",
        fault: "crash-on-gameover-draw",
        commands: &["gameover draw"],
        rule: "USI-GAMEOVER-001",
        games: None,
    },
    Incident {
        what: "a death at the second game's end",
        fault: "second-game-crash",
        commands: &["gameover win", "usinewgame", "gameover lose"],
        rule: "USI-ROBUST-011",
        games: Some(3),
    },
    Incident {
        what: "a death at the third game's start",
        fault: "crash-at-third-newgame",
        commands: &["gameover win", "usinewgame", "gameover lose", "usinewgame"],
        rule: "USI-ROBUST-011",
        games: Some(3),
    },
    Incident {
        what: "a death on an unknown command",
        fault: "crash-on-unknown-command",
        commands: &["joho debug on"],
        rule: "USI-ROBUST-001",
        games: None,
    },
    Incident {
        what: "a timed search never answered",
        fault: "hang-on-position",
        commands: &[
            "position sfen 4k4/9/9/9/4r4/9/9/9/4K4 b 2Gr2b2g4s4n4l18p 1",
            "go btime 0 wtime 0 byoyomi 1000",
        ],
        rule: "USI-GO-002",
        games: None,
    },
    Incident {
        what: "a `stop` never answered",
        fault: "no-bestmove-after-stop",
        commands: &["position startpos", "go infinite", "stop"],
        rule: "USI-STOP-001",
        games: None,
    },
];

/// The command as the fuzzer models it.
fn cmd(line: &str) -> Cmd {
    let kind = match line.split_whitespace().next() {
        Some("position") if line.contains("7g7f 7g7f") => Kind::Position(None),
        Some("position") if line.starts_with("position startpos") => {
            Kind::Position(Some(Box::new(Position::startpos())))
        }
        Some("position") => {
            let sfen = line.trim_start_matches("position sfen ");
            Kind::Position(Some(Box::new(Position::from_sfen(sfen).expect("a board"))))
        }
        Some("go") if line.contains("infinite") => Kind::Go(Search::Infinite),
        Some("go") => Kind::Go(Search::Timed(Duration::from_millis(1_100))),
        Some("stop") => Kind::Stop,
        Some("gameover") => Kind::GameOver,
        Some("usinewgame") => Kind::NewGame,
        Some("setoption") => Kind::SetOption,
        _ => Kind::Other,
    };
    Cmd::line(line, kind)
}

/// The rule the fuzzer's executor charges the session to.
fn fuzzer_rule(incident: &Incident) -> Option<String> {
    let config = usicheck::fuzzer::Config::new(suite::reference_engine(&[incident.fault]));
    let cmds: Vec<Cmd> = incident.commands.iter().map(|line| cmd(line)).collect();
    let result = exec::run(&config, &cmds, None, &Known::default()).expect("it starts");
    result.violation.map(|v| v.rule.as_str().to_owned())
}

/// The rules `usicheck run --simulate` flags for the commands sent in setup steps.
fn runner_rules(incident: &Incident) -> BTreeSet<String> {
    let mut yaml = format!(
        "name: {}\nrules: [USI-STOP-002]\nsteps:\n  - handshake: {{}}\n",
        incident.what
    );
    for line in incident.commands {
        yaml.push_str(&format!("  - send: '{line}'\n"));
        // A search with a clock is answered before the GUI goes on, as the fuzzer waits.
        if line.starts_with("go ") && !line.contains("infinite") {
            yaml.push_str("  - expect: {bestmove: legal, within: 1000ms + G}\n");
        }
    }
    // The commands are setup; the scenario's check (`stop` while idle is ignored) is never
    // reached, so that any rule flagged is the incident's.
    yaml.push_str("  - send: isready\n  - expect: readyok\n  - send: stop\n");
    yaml.push_str("  - expect_silence: {for: T-SILENT, rule: USI-STOP-002}\n");
    let flagged = suite::flagged_by_run(&yaml, incident.fault);
    (flagged.iter())
        .filter(|r| !r.ends_with(" INFO"))
        .map(|r| r.split(' ').next().unwrap().to_owned())
        .collect()
}

#[test]
fn each_incident_gets_one_rule_in_the_runner_and_the_fuzzer() {
    let mut wrong = Vec::new();
    for incident in INCIDENTS {
        let runner = runner_rules(incident);
        let fuzzer = fuzzer_rule(incident);
        let want = BTreeSet::from([incident.rule.to_owned()]);
        if runner != want || fuzzer.as_deref() != Some(incident.rule) {
            wrong.push(format!(
                "{} ({}): want {}; the runner flags {runner:?}, the fuzzer {fuzzer:?}",
                incident.what, incident.fault, incident.rule
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The rules `usicheck play --games N` charges the engine with.
fn play_rules(incident: &Incident, games: u32) -> BTreeSet<String> {
    let output = Command::new(suite::USICHECK)
        .args(["play", "--games", &games.to_string(), "--tc", "1s+100ms"])
        .args(["--format", "json", "--"])
        .args([suite::USICHECK, "engine", "--fault", incident.fault])
        .output()
        .expect("usicheck runs");
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("report.json on stdout");
    let violations = report["violations"].as_array().expect("violations");
    violations
        .iter()
        .map(|v| v["verdict"]["rule"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
#[ignore = "slow tier: play drives engine processes in real time"]
fn each_incident_a_game_reaches_gets_the_same_rule_in_play() {
    let mut wrong = Vec::new();
    for incident in INCIDENTS {
        let Some(games) = incident.games else {
            continue;
        };
        let play = play_rules(incident, games);
        if play != BTreeSet::from([incident.rule.to_owned()]) {
            wrong.push(format!(
                "{} ({}): want {}; play charges {play:?}",
                incident.what, incident.fault, incident.rule
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
