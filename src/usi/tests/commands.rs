//! GUI → engine commands (spec sections 1–7, 11–13): table tests and property tests.

use super::strategies;
use crate::shogi::Move;
use crate::usi::*;
use proptest::prelude::*;

fn mv(s: &str) -> Move {
    s.parse().unwrap()
}

/// (input line, expected canonical form)
fn assert_canonical(cases: &[(&str, &str)]) {
    for (input, canonical) in cases {
        assert_eq!(
            Command::parse(input).to_string(),
            *canonical,
            "input {input:?}"
        );
    }
}

#[test]
fn s1_usi_and_s3_isready_usinewgame() {
    assert_eq!(Command::parse("usi"), Command::Usi);
    assert_eq!(Command::parse("isready"), Command::IsReady);
    assert_eq!(Command::parse("usinewgame"), Command::UsiNewGame);
}

#[test]
fn s2_setoption_usi_option_007_008() {
    let cases = [
        (
            "setoption name USI_Hash value 256",
            "setoption name USI_Hash value 256",
        ),
        ("setoption name Button", "setoption name Button"),
        ("setoption name X value ", "setoption name X value"),
        (
            "setoption name X value <empty>",
            "setoption name X value <empty>",
        ),
        (
            "setoption name EvalDir value /tmp/a b/c.bin",
            "setoption name EvalDir value /tmp/a b/c.bin",
        ),
        (
            "setoption name NodesLimit value 5000000000",
            "setoption name NodesLimit value 5000000000",
        ),
        (
            "setoption   name  Spaced   Name  value  a  b ",
            "setoption name Spaced Name value a  b",
        ),
        ("setoption name", "setoption name"),
    ];
    assert_canonical(&cases);
    assert_eq!(
        Command::parse("setoption name X value"),
        Command::SetOption {
            name: "X".into(),
            value: Some(String::new())
        }
    );
    assert_eq!(
        Command::set_option("NodesLimit", 5_000_000_000i64).to_string(),
        "setoption name NodesLimit value 5000000000"
    );
}

#[test]
fn s4_position_usi_position_001_003() {
    let cases = [
        ("position startpos", "position startpos"),
        ("position startpos moves", "position startpos moves"),
        (
            "position startpos moves 7g7f 3c3d 8h2b+ P*3d",
            "position startpos moves 7g7f 3c3d 8h2b+ P*3d",
        ),
        (
            "position sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 5a6b",
            "position sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 5a6b",
        ),
        (
            "position sfen 4k4/9/9/9/9/9/9/9/4K4 b - moves ",
            "position sfen 4k4/9/9/9/9/9/9/9/4K4 b - moves",
        ),
        (
            "position startpos moves 7g7f B@5e 3c3d",
            "position startpos moves 7g7f B@5e 3c3d",
        ),
    ];
    assert_canonical(&cases);
    let Command::Position(p) = Command::parse("position startpos moves 7g7f B@5e 3c3d") else {
        panic!()
    };
    assert_eq!(p.moves, Some(vec![mv("7g7f")]));
    assert_eq!(p.unparsed.as_deref(), Some("B@5e 3c3d"));
    let Command::Position(p) = Command::parse("position sfen 4k4/9/9/9/9/9/9/9/4K4 b -") else {
        panic!()
    };
    assert_eq!(
        p.start,
        StartPosition::Sfen("4k4/9/9/9/9/9/9/9/4K4 b -".into())
    );
    assert_eq!(p.moves, None);
    assert_eq!(
        PositionCommand::startpos(vec![]).to_string(),
        "position startpos"
    );
    assert!(matches!(Command::parse("position"), Command::Raw(_)));
    assert!(matches!(Command::parse("position foo"), Command::Raw(_)));
}

#[test]
fn s5_go_every_parameter_usi_go_011() {
    let Command::Go(go) = Command::parse(
        "go ponder btime 1 wtime 2 byoyomi 3 binc 4 winc 5 bbyoyomi 6 wbyoyomi 7 movestogo 8 depth 9 nodes 10 movetime 11 infinite searchmoves 7g7f 2g2f",
    ) else {
        panic!()
    };
    let clock = Clock {
        btime: Some(1),
        wtime: Some(2),
        byoyomi: Some(3),
        binc: Some(4),
        winc: Some(5),
        bbyoyomi: Some(6),
        wbyoyomi: Some(7),
    };
    assert_eq!(
        go,
        Go {
            ponder: true,
            clock,
            movestogo: Some(8),
            depth: Some(9),
            nodes: Some(10),
            movetime: Some(11),
            infinite: true,
            searchmoves: vec![mv("7g7f"), mv("2g2f")],
            ..Go::default()
        }
    );
    let cases = [
        (
            "go btime 0 wtime 0 byoyomi 1000",
            "go btime 0 wtime 0 byoyomi 1000",
        ),
        (
            "go  byoyomi 1000 wtime 0 btime 0 foo 5",
            "go btime 0 wtime 0 byoyomi 1000 foo 5",
        ),
        ("go mate 1000", "go mate 1000"),
        ("go mate infinite", "go mate infinite"),
        ("go mate", "go mate infinite"),
        (
            "go nodes 10000 mate infinite",
            "go mate infinite nodes 10000",
        ),
        ("go depth 5 mate infinite", "go mate infinite depth 5"),
        ("go perft 5", "go perft 5"),
        ("go infinite", "go infinite"),
        ("go btime abc", "go abc"),
        ("go byoyomi", "go"),
        ("go btime -100 wtime 5", "go btime -100 wtime 5"),
        ("go ponder", "go ponder"),
    ];
    assert_canonical(&cases);
    assert_eq!(
        Go::byoyomi(0, 0, 1000).to_string(),
        "go btime 0 wtime 0 byoyomi 1000"
    );
}

#[test]
fn s7_stop_ponderhit_usi_stop_005_ext_015() {
    assert_eq!(Command::parse("stop"), Command::Stop);
    assert_eq!(
        Command::parse("ponderhit"),
        Command::PonderHit(Clock::default())
    );
    let cases = [
        (
            "ponderhit btime 1000 wtime 1000 byoyomi 1000",
            "ponderhit btime 1000 wtime 1000 byoyomi 1000",
        ),
        ("ponderhit junk binc 5", "ponderhit binc 5"),
    ];
    assert_canonical(&cases);
}

#[test]
fn s11_gameover_usi_gameover_001_006() {
    for (word, result) in [
        ("win", GameResult::Win),
        ("lose", GameResult::Lose),
        ("draw", GameResult::Draw),
        ("unknown", GameResult::Unknown),
        ("abort", GameResult::Other("abort".into())),
    ] {
        let line = format!("gameover {word}");
        assert_eq!(Command::parse(&line), Command::GameOver(result));
        assert_eq!(Command::parse(&line).to_string(), line);
    }
    assert!(matches!(Command::parse("gameover"), Command::Raw(_)));
}

#[test]
fn s12_quit_and_s13_debug_register() {
    assert_eq!(Command::parse("quit"), Command::Quit);
    assert_eq!(Command::parse("debug"), Command::Debug(None));
    assert_eq!(Command::parse("debug on"), Command::Debug(Some(true)));
    assert_eq!(Command::parse("debug off"), Command::Debug(Some(false)));
    assert_eq!(
        Command::parse("register"),
        Command::Register(Register::Bare)
    );
    assert_eq!(
        Command::parse("register later"),
        Command::Register(Register::Later)
    );
    assert_eq!(
        Command::parse("register name Stefan MK code 4359874324"),
        Command::Register(Register::Credentials {
            name: "Stefan MK".into(),
            code: "4359874324".into()
        })
    );
}

#[test]
fn s13_robustness_usi_robust_001_to_004() {
    // CR LF, lone CR, blanks anywhere (USI-ROBUST-002, -003).
    assert_eq!(Command::parse("isready\r\n"), Command::IsReady);
    assert_eq!(Command::parse("isready\r"), Command::IsReady);
    assert_eq!(Command::parse("\t isready \t"), Command::IsReady);
    let Command::Position(p) = Command::parse("position  startpos   moves  7g7f \r") else {
        panic!()
    };
    assert_eq!(p.moves, Some(vec![mv("7g7f")]));
    // Unknown commands and empty lines are kept verbatim (USI-ROBUST-001, -004).
    assert_eq!(
        Command::parse("foobar 1 2 3"),
        Command::Raw("foobar 1 2 3".into())
    );
    assert_eq!(Command::parse(""), Command::Raw(String::new()));
    assert_eq!(Command::parse("\r\n"), Command::Raw(String::new()));
    assert_eq!(Command::parse("USI"), Command::Raw("USI".into()));
}

proptest! {
    #[test]
    fn every_command_round_trips(cmd in strategies::command()) {
        let line = cmd.to_string();
        prop_assert_eq!(Command::parse(&line), cmd, "line {:?}", line);
    }

    #[test]
    fn formatting_is_single_line(cmd in strategies::command()) {
        let line = cmd.to_string();
        prop_assert!(!line.contains(['\n', '\r']));
    }

    #[test]
    fn parse_never_panics_on_strings(s in any::<String>()) {
        let _ = Command::parse(&s).to_string();
    }

    #[test]
    fn parse_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = Command::parse(&String::from_utf8_lossy(&bytes)).to_string();
    }

    #[test]
    fn parse_never_panics_on_token_soup(words in proptest::collection::vec(prop_oneof![
        Just("go"), Just("position"), Just("sfen"), Just("moves"), Just("mate"), Just("setoption"),
        Just("name"), Just("value"), Just("7g7f"), Just("-1"), Just("99999999999999999999"), Just("infinite"),
        Just("searchmoves"), Just("register"), Just("code"), Just(" "), Just("\t"), Just("\r"),
    ], 0..12)) {
        let line = words.join(" ");
        let _ = Command::parse(&line).to_string();
    }
}
