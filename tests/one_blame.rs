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
use usicheck::shogi::position_after;

/// An incident: the fault that provokes it, the commands sent after the handshake, and the
/// rule every driver charges.
struct Incident {
    what: &'static str,
    fault: &'static str,
    /// The GUI's lines, and `sleep MS` for a pause.
    commands: &'static [&'static str],
    /// One rule; two only where the catalogue charges the one line to both (an illegal move
    /// that moves no piece of the side to move, or moves it onto its own: USI-BESTMOVE-002,
    /// and USI-BESTMOVE-007 for a token that is no move at all).
    rules: &'static [&'static str],
    /// Games of `usicheck play` that reach it, if a game does.
    games: Option<u32>,
}

const INCIDENTS: &[Incident] = &[
    Incident {
        what: "no `readyok` at all",
        fault: "no-readyok",
        commands: &[],
        rules: &["USI-READY-001"],
        games: None,
    },
    Incident {
        what: "a death on a setting of an option not advertised",
        fault: "crash-on-unknown-option",
        commands: &["setoption name NoSuchOption value 1"],
        rules: &["USI-OPTION-010"],
        games: None,
    },
    Incident {
        what: "a death on a board the rules reject",
        fault: "panic-on-illegal-move",
        commands: &["position startpos moves 7g7f 7g7f"],
        rules: &["USI-POSITION-011"],
        games: None,
    },
    Incident {
        what: "a death on `gameover`",
        fault: "crash-on-gameover-draw",
        commands: &["gameover draw"],
        rules: &["USI-GAMEOVER-001"],
        games: None,
    },
    Incident {
        what: "a death at the second game's end",
        fault: "second-game-crash",
        commands: &["gameover win", "usinewgame", "gameover lose"],
        rules: &["USI-ROBUST-011"],
        games: Some(3),
    },
    Incident {
        what: "a death at the third game's start",
        fault: "crash-at-third-newgame",
        commands: &["gameover win", "usinewgame", "gameover lose", "usinewgame"],
        rules: &["USI-ROBUST-011"],
        games: Some(3),
    },
    Incident {
        what: "a death on an unknown command",
        fault: "crash-on-unknown-command",
        commands: &["joho debug on"],
        rules: &["USI-ROBUST-001"],
        games: None,
    },
    Incident {
        what: "a timed search never answered",
        fault: "hang-on-position",
        commands: &[
            "position sfen 4k4/9/9/9/4r4/9/9/9/4K4 b 2Gr2b2g4s4n4l18p 1",
            "go btime 0 wtime 0 byoyomi 1000",
        ],
        rules: &["USI-GO-002"],
        games: None,
    },
    Incident {
        what: "a `stop` never answered",
        fault: "no-bestmove-after-stop",
        commands: &["position startpos", "go infinite", "stop"],
        rules: &["USI-STOP-001"],
        games: None,
    },
    Incident {
        what: "a `bestmove` after the byoyomi",
        fault: "overrun-byoyomi",
        commands: &["position startpos", "go btime 0 wtime 0 byoyomi 1000"],
        rules: &["USI-GO-004"],
        games: Some(1),
    },
    // A late line, by a hair: each driver reads it as it arrives after its own wait's
    // deadline (the runner's is the clock's), and the clock's check charges it. In `play` a
    // game ends at the first late move, and 10 ms is within what a loaded machine may excuse
    // (the CPU wait meanwhile: a note, not judged). Once, in a CI rehearsal's slow tier, the
    // one game played charged nothing (not seen again here, under four busy loops either):
    // each of three games can charge it.
    Incident {
        what: "a `bestmove` 10 ms past its deadline (byoyomi + G)",
        fault: "overrun-byoyomi-by-10ms",
        commands: &["position startpos", "go btime 0 wtime 0 byoyomi 1000"],
        rules: &["USI-GO-004"],
        games: Some(3),
    },
    Incident {
        what: "a `checkmate` answering a normal `go`",
        fault: "checkmate-for-go",
        commands: &["position startpos", "go btime 0 wtime 0 byoyomi 1000"],
        rules: &["USI-GO-002"],
        games: None,
    },
    Incident {
        what: "a `bestmove` answering `go mate`",
        fault: "mate-answered-with-bestmove",
        commands: &[
            "position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1",
            "go mate 1000",
        ],
        rules: &["USI-MATE-002"],
        games: None,
    },
    // Fairy-Stockfish's reading of `go mate 1000` at the start position (a mate in 1000
    // moves): a normal search, never answered. A silent engine overran its limit instead
    // (USI-MATE-005, `a_go_mate_never_answered_is_charged_to_its_time_limit` in blame.rs).
    Incident {
        what: "a `go mate` searched as a normal search, never answered",
        fault: "mate-searched-until-stop",
        commands: &["position startpos", "go mate 1000"],
        rules: &["USI-MATE-006"],
        games: None,
    },
    Incident {
        what: "an illegal `bestmove`",
        fault: "illegal-bestmove",
        commands: &["position startpos", "go btime 0 wtime 0 byoyomi 1000"],
        rules: &["USI-BESTMOVE-002", "USI-BESTMOVE-007"],
        games: Some(1),
    },
    Incident {
        what: "a search on the SFEN board read mirrored (its moves legal only there)",
        fault: "mirrored-sfen",
        commands: &[
            "position sfen 8k/9/9/9/9/9/9/P8/KL7 b G 1",
            "go btime 0 wtime 0 byoyomi 1000",
        ],
        rules: &["USI-POSITION-001"],
        games: None,
    },
    Incident {
        what: "a search `info` on `position`",
        fault: "search-on-position",
        commands: &["position startpos moves 7g7f"],
        rules: &["USI-POSITION-010"],
        games: None,
    },
    Incident {
        what: "search `info` after `bestmove`, no `go` since",
        fault: "self-ponder",
        commands: &[
            "position startpos",
            "go btime 0 wtime 0 byoyomi 100",
            "sleep 300",
        ],
        rules: &["USI-PONDER-007"],
        games: Some(1),
    },
    // The reference engine's flood ends with its `bestmove`: a flood that holds the reply
    // back for good is a missing reply as well, in every driver (a process's, in real time:
    // `a_flood_that_holds_the_reply_back_gets_the_same_rules_in_every_driver`).
    Incident {
        what: "a flood of `info` lines while a `bestmove` is due",
        fault: "info-flood",
        commands: &["position startpos", "go btime 0 wtime 0 byoyomi 1000"],
        rules: &["USI-INFO-013"],
        games: None,
    },
    Incident {
        what: "a `quit` ignored",
        fault: "ignore-quit",
        commands: &[],
        rules: &["USI-QUIT-001"],
        games: Some(1),
    },
    // Not an idle `quit`: one during a search needs no `stop` first.
    Incident {
        what: "a `quit` ignored during a search",
        fault: "quit-needs-stop",
        commands: &["position startpos", "go infinite", "quit"],
        rules: &["USI-QUIT-002"],
        games: None,
    },
    // A write after the death fails only once the driver has read the exit, which charges
    // the death itself; either way both drivers charge it from what was sent (blame::death).
    Incident {
        what: "a death on a malformed SFEN, with the `go` written after it",
        fault: "exit-on-bad-sfen",
        commands: &[
            "position sfen 9/9/9 b - 1",
            "go btime 0 wtime 0 byoyomi 1000",
        ],
        rules: &["USI-POSITION-011"],
        games: None,
    },
];

/// The slack the fuzzer adds to a search's time before it charges a missing reply (its full
/// mix's): a reply late against its clock comes within it, and is charged to the clock.
const FUZZER_SLACK: Duration = Duration::from_secs(3);

/// The time limit in ms a `go` line gives after `token` (`byoyomi`, `mate`), if it gives one.
fn limit_after(line: &str, token: &str) -> Option<u64> {
    let mut tokens = line.split_whitespace().skip_while(|t| *t != token).skip(1);
    tokens.next().and_then(|ms| ms.parse().ok())
}

/// The command as the fuzzer models it.
fn cmd(line: &str) -> Cmd {
    let kind = match line.split_whitespace().next() {
        Some("position") => {
            let setup = line.trim_start_matches("position ");
            let (base, moves) = setup.split_once(" moves ").unwrap_or((setup, ""));
            let moves: Vec<&str> = moves.split_whitespace().collect();
            Kind::Position(position_after(base, &moves).ok().map(Box::new))
        }
        Some("go") if line.contains("infinite") => Kind::Go(Search::Infinite),
        Some("go") => match (limit_after(line, "mate"), limit_after(line, "byoyomi")) {
            (Some(mate), _) => Kind::Go(Search::Mate(Some(ms(mate) + FUZZER_SLACK))),
            (None, Some(byoyomi)) => Kind::Go(Search::Timed(ms(byoyomi) + FUZZER_SLACK)),
            (None, None) => panic!("a search with a limit: {line}"),
        },
        Some("stop") => Kind::Stop,
        Some("isready") => Kind::IsReady,
        Some("gameover") => Kind::GameOver,
        Some("usinewgame") => Kind::NewGame,
        Some("setoption") => Kind::SetOption,
        Some("quit") => Kind::Quit,
        Some("sleep") => Kind::Sleep(ms(limit_after(line, "sleep").expect("sleep MS"))),
        _ => Kind::Other,
    };
    Cmd::line(line, kind)
}

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// The rules the fuzzer's executor charges the session with: the finding that ends it and those
/// it notes while it goes on (a line's grammar, output out of place).
fn fuzzer_rules(incident: &Incident) -> BTreeSet<String> {
    let config = usicheck::fuzzer::Config::new(suite::reference_engine(&[incident.fault]));
    let cmds: Vec<Cmd> = incident.commands.iter().map(|line| cmd(line)).collect();
    let result = exec::run(&config, &cmds, None, &Known::default()).expect("it starts");
    (result.violation.iter().chain(&result.noted))
        .map(|v| v.rule.as_str().to_owned())
        .collect()
}

/// The rules `usicheck run --simulate` flags for the commands sent in setup steps.
fn runner_rules(incident: &Incident) -> BTreeSet<String> {
    let mut yaml = format!(
        "name: {:?}\nrules: [USI-STOP-002]\nsteps:\n  - handshake: {{}}\n",
        incident.what
    );
    for line in incident.commands {
        if let Some(ms) = limit_after(line, "sleep") {
            yaml.push_str(&format!("  - sleep: {ms}ms\n"));
            continue;
        }
        yaml.push_str(&format!("  - send: '{line}'\n"));
        // A search with a limit is answered before the GUI goes on, as the fuzzer waits.
        if let Some(mate) = limit_after(line, "mate") {
            yaml.push_str(&format!(
                "  - expect: {{checkmate: any, within: {mate}ms + G}}\n"
            ));
        } else if let Some(byoyomi) = limit_after(line, "byoyomi") {
            yaml.push_str(&format!(
                "  - expect: {{bestmove: legal, within: {byoyomi}ms + G}}\n"
            ));
        }
    }
    // A `quit` ends the scenario, its check made first: how the engine takes the `quit` is
    // judged as the session ends.
    if incident.commands.last() == Some(&"quit") {
        let check = "  - send: stop\n  - expect_silence: {for: T-SILENT, rule: USI-STOP-002}\n";
        let (head, commands) = yaml.split_at(yaml.find("  - send:").expect("a command"));
        return flagged_rules(&format!("{head}{check}{commands}"), incident.fault);
    }
    // The commands are setup; the scenario's check (`stop` while idle is ignored) is either
    // not reached or passed (no incident's fault answers that `stop`), so that any rule
    // flagged is the incident's.
    yaml.push_str("  - send: isready\n  - expect: readyok\n  - send: stop\n");
    yaml.push_str("  - expect_silence: {for: T-SILENT, rule: USI-STOP-002}\n");
    flagged_rules(&yaml, incident.fault)
}

/// The rules `usicheck run --simulate` of `yaml` flags (INFO aside) against the reference
/// engine with `fault`.
fn flagged_rules(yaml: &str, fault: &str) -> BTreeSet<String> {
    let flagged = suite::flagged_by_run(yaml, fault);
    (flagged.iter())
        .filter(|r| !r.ends_with(" INFO"))
        .map(|r| r.split(' ').next().unwrap().to_owned())
        .collect()
}

/// The rules `incident` is charged to.
fn want(incident: &Incident) -> BTreeSet<String> {
    incident.rules.iter().map(|rule| rule.to_string()).collect()
}

#[test]
fn each_incident_gets_one_rule_in_the_runner_and_the_fuzzer() {
    let mut wrong = Vec::new();
    for incident in INCIDENTS {
        let runner = runner_rules(incident);
        let fuzzer = fuzzer_rules(incident);
        let want = want(incident);
        if runner != want || fuzzer != want {
            wrong.push(format!(
                "{} ({}): want {want:?}; the runner flags {runner:?}, the fuzzer {fuzzer:?}",
                incident.what, incident.fault
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
        let want = want(incident);
        if play != want {
            wrong.push(format!(
                "{} ({}): want {want:?}; play charges {play:?}",
                incident.what, incident.fault
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// An engine that stops reading its input once it searches: the reference engine's faults
/// all keep a reader thread draining the pipe.
const DEAF_SEARCHER: &str = r#"
while read -r line; do
  case "$line" in
    usi) printf 'id name deaf searcher\nid author usicheck tests\nusiok\n' ;;
    isready) echo readyok ;;
    go*) exec sleep 60 ;;
  esac
done
"#;

/// More than a pipe holds.
const UNREAD_LINE_BYTES: usize = 256 << 10;

#[test]
#[ignore = "slow tier: only a process's pipe fills, in real time"]
fn a_live_engine_not_reading_its_input_is_charged_usi_go_012_by_the_fuzzer() {
    // The runner charges the same failed write through `blame::charge` (its table test).
    let engine = usicheck::engine::EngineCommand::new("sh").args(["-c", DEAF_SEARCHER]);
    let config = usicheck::fuzzer::Config::new(engine);
    let cmds = vec![
        cmd("position startpos"),
        cmd("go infinite"),
        Cmd::line(
            format!("debug {}", "x".repeat(UNREAD_LINE_BYTES)),
            Kind::Other,
        ),
    ];
    let result = exec::run(&config, &cmds, None, &Known::default()).expect("it starts");
    let violation = result
        .violation
        .expect("the blocked write ends the session");
    assert_eq!(violation.rule.as_str(), "USI-GO-012", "{violation:?}");
    assert!(
        violation.detail.contains("reading its input"),
        "{violation:?}"
    );
}

/// An engine whose search floods `info` lines and never answers: the reference engine's
/// flood (`info-flood`) ends with its `bestmove`.
const FLOODER: &str = r#"
while read -r line; do
  case "$line" in
    usi) printf 'id name flooder\nid author usicheck tests\nusiok\n' ;;
    isready) echo readyok ;;
    go*) yes 'info depth 1 time 1 nodes 1 score cp 0 pv 7g7f' & ;;
    stop) kill $! 2>/dev/null ;;
    quit) kill $! 2>/dev/null; exit 0 ;;
  esac
done
"#;

/// The FAIL and WARN rules of a report.json `usicheck run` wrote.
fn run_rules(report: &serde_json::Value) -> BTreeSet<String> {
    let verdicts = report["runs"][0]["verdicts"].as_array().expect("verdicts");
    (verdicts.iter())
        .filter(|v| matches!(v["outcome"].as_str(), Some("FAIL" | "WARN")))
        .map(|v| v["rule"].as_str().unwrap().to_owned())
        .collect()
}

/// The most memory one `usicheck` process may take while it reads a flood: its transcripts and
/// the events kept with each outcome are bounded (about 40 MB with the defaults, `engine`).
const FLOODED_RSS_BOUND_KIB: i64 = 256 << 10;

/// The largest resident set of a child this test has waited for, KiB.
fn children_max_rss_kib() -> i64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` is a valid out-pointer for getrusage, which fills it in whole.
    let usage = unsafe {
        assert_eq!(
            libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()),
            0
        );
        usage.assume_init()
    };
    usage.ru_maxrss
}

/// An engine that floods `info` lines instead of its `usiok`.
const FLOODER_AT_USI: &str = "read -r line; exec yes 'info string flooding'";

/// Every driver waits through one [`usicheck::engine::Wait`]: an engine that floods `info`
/// lines (as fast as the pipe takes them, far beyond 100,000 a second) while a reply is due is
/// judged at its deadline in `usicheck run`, the fuzzer, `play` and `init` alike, each to the
/// same rules, and no `usicheck` process grows past a bound while it reads the flood.
#[test]
#[ignore = "slow tier: a flooding engine process, in real time"]
fn a_flood_that_holds_the_reply_back_gets_the_same_rules_in_every_driver() {
    // The reply never comes (USI-GO-002), and the flood is a second violation of its own
    // (USI-INFO-013), whichever driver waited.
    let want: BTreeSet<String> = ["USI-GO-002", "USI-INFO-013"].map(String::from).into();
    let engine = ["sh", "-c", FLOODER];

    let scenario = std::env::temp_dir().join(format!("usicheck-flood-{}.yaml", std::process::id()));
    std::fs::write(
        &scenario,
        "name: a flood holds the reply back\nrules: [USI-GO-004]\nsteps:\n  - handshake: {}\n  \
         - send: position startpos\n  - send: go btime 0 wtime 0 byoyomi 1000\n  \
         - expect: {bestmove: any, within: 1000ms + G, rule: USI-GO-004}\n",
    )
    .expect("a temporary file");
    let output = Command::new(suite::USICHECK)
        .arg("run")
        .arg(&scenario)
        .args(["--format", "json", "--"])
        .args(engine)
        .output()
        .expect("usicheck runs");
    std::fs::remove_file(&scenario).ok();
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("report.json on stdout");
    assert_eq!(run_rules(&report), want, "usicheck run");

    let config = usicheck::fuzzer::Config::new(
        usicheck::engine::EngineCommand::new("sh").args(["-c", FLOODER]),
    );
    let cmds = vec![
        cmd("position startpos"),
        cmd("go btime 0 wtime 0 byoyomi 1000"),
    ];
    let result = exec::run(&config, &cmds, None, &Known::default()).expect("it starts");
    let fuzzer: BTreeSet<String> = (result.violation.iter().chain(&result.noted))
        .map(|v| v.rule.as_str().to_owned())
        .collect();
    assert_eq!(fuzzer, want, "the fuzzer");

    let output = Command::new(suite::USICHECK)
        .args([
            "play", "--games", "1", "--tc", "1s+100ms", "--format", "json", "--",
        ])
        .args(engine)
        .output()
        .expect("usicheck runs");
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("report.json on stdout");
    let play: BTreeSet<String> = (report["violations"].as_array().expect("violations").iter())
        .map(|v| v["verdict"]["rule"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(play, want, "play");
    let detail = report["games"][0]["detail"].as_str().expect("a game");
    assert!(
        detail.starts_with("no `bestmove` within 1100 ms"),
        "{detail}"
    );

    // `init` has no rules to charge: its wait for `usiok` ends at the deadline all the same.
    let output_file =
        std::env::temp_dir().join(format!("usicheck-flood-{}.toml", std::process::id()));
    let output = Command::new(suite::USICHECK)
        .args(["init", "--usiok-timeout", "1s", "--output"])
        .arg(&output_file)
        .args(["--", "sh", "-c", FLOODER_AT_USI])
        .output()
        .expect("usicheck runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("did not answer `usi` with `usiok` within 1s"),
        "{stderr}"
    );
    assert!(!output_file.exists());

    let rss = children_max_rss_kib();
    assert!(
        rss < FLOODED_RSS_BOUND_KIB,
        "a usicheck process took {rss} KiB"
    );
    // The fuzzer ran in this test's own process.
    let own = own_peak_rss_kib();
    assert!(
        own < FLOODED_RSS_BOUND_KIB,
        "the fuzzer's process took {own} KiB"
    );
}

/// This process's peak resident set, KiB.
fn own_peak_rss_kib() -> i64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    (status.lines())
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .expect("VmHWM")
}
