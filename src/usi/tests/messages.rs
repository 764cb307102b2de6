//! Engine → GUI messages (spec sections 1, 2, 8–10, 13–15): each table row is a line and the
//! exact rule IDs its diagnostics must name (empty = conformant).

use super::strategies;
use crate::rules::RuleId;
use crate::usi::*;
use proptest::prelude::*;

type Row = (&'static str, &'static [RuleId]);

const S1_HANDSHAKE: &[Row] = &[
    ("id name Lesserkai 1.5", &[]),
    ("id author Hiroshi  Ichikawa", &[]),
    ("id name", &[rule::HANDSHAKE_002]),
    ("id name  Lesserkai", &[rule::ROBUST_005]),
    ("id\tname Lesserkai", &[rule::ROBUST_005]),
    ("id version 3", &[rule::HANDSHAKE_002]),
    ("usiok", &[]),
    ("usiok\r\n", &[]),
    ("usiok ", &[rule::HANDSHAKE_004]),
    (" usiok", &[rule::HANDSHAKE_004]),
    ("usiok now", &[rule::HANDSHAKE_004]),
];

const S2_OPTIONS: &[Row] = &[
    (
        "option name USI_Hash type spin default 256 min 1 max 4096",
        &[],
    ),
    (
        "option name NodesLimit type spin default 0 min 0 max 9223372036854775807",
        &[],
    ),
    ("option name USI_Ponder type check default true", &[]),
    (
        "option name Style type combo default Normal var Solid var Normal var Risky",
        &[],
    ),
    ("option name Clear_Hash type button", &[]),
    ("option name BookFile type string default public.bin", &[]),
    ("option name EvalDir type filename default <empty>", &[]),
    (
        "option name EvalDir type filename default C:/評価関数/nn.bin",
        &[],
    ),
    ("option X type spin", &[rule::OPTION_001]),
    ("option name X", &[rule::OPTION_001]),
    ("option name type spin", &[rule::OPTION_001]),
    (
        "option name X type spin default 1 min 0 max 2 step 1",
        &[rule::OPTION_001],
    ),
    ("option name Clear Hash type button", &[rule::OPTION_002]),
    ("option name X type slider default 1", &[rule::OPTION_003]),
    ("option name X type check default yes", &[rule::OPTION_003]),
    ("option name X type check", &[rule::OPTION_003]),
    (
        "option name X type check default true min 0 max 1",
        &[rule::OPTION_003],
    ),
    ("option name X type button default 1", &[rule::OPTION_003]),
    (
        "option name X type combo default A",
        &[rule::OPTION_003, rule::OPTION_005],
    ),
    (
        "option name X type spin default 10 min 0 max 5",
        &[rule::OPTION_004],
    ),
    (
        "option name X type spin default 3 min 5 max 1",
        &[rule::OPTION_004],
    ),
    (
        "option name X type spin default 1 min 0",
        &[rule::OPTION_004],
    ),
    (
        "option name X type spin default abc min 0 max 5",
        &[rule::OPTION_004],
    ),
    (
        "option name X type spin default 1 min 0 max 99999999999999999999",
        &[rule::OPTION_004],
    ),
    (
        "option name X type combo default D var A var B",
        &[rule::OPTION_005],
    ),
    (
        "option name X type combo default A var A var Two Words",
        &[rule::OPTION_005],
    ),
    ("option name X type string", &[rule::OPTION_006]),
    ("option name X type filename", &[rule::OPTION_006]),
    (
        "option name USI_Hash type string default 1",
        &[rule::OPTION_013],
    ),
    (
        "option name USI_OwnBook type spin default 1 min 0 max 1",
        &[rule::OPTION_013],
    ),
    (
        "option name 評価 type string default x",
        &[rule::ENCODING_001],
    ),
];

const S8_BESTMOVE: &[Row] = &[
    ("bestmove 7g7f", &[]),
    ("bestmove 8h2b+ ponder 3a2b", &[]),
    ("bestmove P*3d", &[]),
    ("bestmove resign", &[]),
    ("bestmove win", &[]),
    ("bestmove", &[rule::BESTMOVE_001]),
    ("bestmove 7g7f ponder", &[rule::BESTMOVE_001]),
    ("bestmove 7g7f 3c3d", &[rule::BESTMOVE_001]),
    ("bestmove 7g7f ponder 3c3d 2g2f", &[rule::BESTMOVE_001]),
    ("bestmove resign ponder 3c3d", &[rule::BESTMOVE_005]),
    ("bestmove win ponder 3c3d", &[rule::BESTMOVE_005]),
    ("bestmove B@5e", &[rule::BESTMOVE_007]),
    ("bestmove (none)", &[rule::BESTMOVE_007]),
    ("bestmove 0000", &[rule::BESTMOVE_007]),
    ("bestmove p*5e", &[rule::BESTMOVE_007]),
    ("bestmove rep_draw", &[rule::EXT_007]),
    ("bestmove 7g7f ponder B@5e", &[rule::PONDER_001]),
    ("bestmove  7g7f", &[rule::ROBUST_005]),
    ("bestmove 7g7f\t", &[rule::ROBUST_005]),
];

const S9_INFO: &[Row] = &[
    (
        "info depth 10 seldepth 12 time 100 nodes 1000 nps 10000 hashfull 500 score cp 42 multipv 1 pv 7g7f 3c3d",
        &[],
    ),
    ("info depth 3 score cp -15 lowerbound time 4 pv 7g7f", &[]),
    ("info score mate 5 time 1 pv G*5b", &[]),
    ("info score mate -3", &[]),
    ("info score mate +", &[]),
    ("info score mate - upperbound", &[]),
    ("info currmove 7g7f", &[]),
    ("info time 5 pv 7g7f rep_draw", &[]),
    ("info time 5 pv 7g7f 3c3d resign", &[]),
    ("info string pv 7g7f depth 3", &[]),
    ("info string 評価関数を読み込みました", &[]),
    ("info depth 3 string a  b", &[]),
    ("info depth 3 string  a", &[rule::ROBUST_005]),
    ("info seldepth 12", &[rule::INFO_002]),
    ("info seldepth 12 depth 10", &[rule::INFO_002]),
    ("info depth 5.5", &[rule::INFO_002]),
    ("info depth", &[rule::INFO_002]),
    ("info pv 7g7f", &[rule::INFO_003]),
    ("info time x", &[rule::INFO_003]),
    ("info nodes -5", &[rule::INFO_004]),
    ("info hashfull 1200", &[rule::INFO_004]),
    ("info currmovenumber 0", &[rule::INFO_005, rule::INFO_013]),
    ("info currmove", &[rule::INFO_005]),
    ("info score cp", &[rule::INFO_006]),
    ("info score cp 31000", &[rule::INFO_006]),
    ("info score cp -32000 time 1 pv 7g7f", &[rule::INFO_006]),
    // Found by `fuzz/` (engine_line): the mate-like check overflowed on i64::MIN.
    ("info score cp -9223372036854775808", &[rule::INFO_006]),
    ("info score cp 9223372036854775807", &[rule::INFO_006]),
    ("info score 100", &[rule::INFO_006, rule::INFO_013]),
    ("info score mate x", &[rule::INFO_007]),
    ("info score cp 10 depth 3 lowerbound", &[rule::INFO_009]),
    ("info score cp 10 lowerbound upperbound", &[rule::INFO_009]),
    // The bound before the value is one mistake, its place.
    (
        "info depth 1 time 1 score lowerbound cp 0 pv 7g7f",
        &[rule::INFO_009],
    ),
    ("info score upperbound mate 3", &[rule::INFO_009]),
    ("info multipv 0", &[rule::INFO_010]),
    ("info time 1 pv 7g7f 3c3d depth 3", &[rule::INFO_011]),
    ("info time 1 pv", &[rule::INFO_011]),
    ("info time 1 pv 7g7f string best line", &[rule::INFO_012]),
    ("info tbhits 5 depth 3", &[rule::INFO_013]),
    ("info cpuload 500", &[rule::INFO_013]),
    ("info refutation 7g7f 3c3d", &[rule::INFO_013]),
    ("info currline 1 7g7f", &[rule::INFO_013]),
    ("info currmove B@5e", &[rule::POSITION_006]),
    ("info time 5 pv 7g7f B@5e 3c3d", &[rule::POSITION_006]),
    ("info time 5 pv rep_draw 7g7f", &[rule::EXT_007]),
    ("info  depth 1", &[rule::ROBUST_005]),
    ("info depth 1 ", &[rule::ROBUST_005]),
    ("info depth ３", &[rule::INFO_002, rule::ENCODING_001]),
];

const S10_CHECKMATE: &[Row] = &[
    ("checkmate G*5b", &[]),
    ("checkmate 2c2b+ 1a2b G*3b", &[]),
    ("checkmate nomate", &[]),
    ("checkmate timeout", &[]),
    ("checkmate notimplemented", &[]),
    ("checkmate", &[rule::MATE_010]),
    ("checkmate nomate now", &[rule::MATE_010]),
    ("checkmate resign", &[rule::MATE_010]),
    ("checkmate none", &[rule::MATE_010, rule::EXT_017]),
    ("checkmate 7g7f B@5e", &[rule::POSITION_006]),
];

const S13_ROBUSTNESS: &[Row] = &[
    ("readyok", &[]),
    ("readyok\r", &[]),
    ("readyok ", &[rule::ROBUST_005]),
    ("copyprotection ok", &[]),
    ("registration checking", &[]),
    ("registration error", &[rule::ROBUST_010]),
    ("copyprotection error", &[rule::ROBUST_010]),
    ("Unknown command: gameover", &[]),
    ("", &[]),
];

const S14_ENCODING: &[Row] = &[
    ("\u{feff}id name Engine", &[rule::ENCODING_003]),
    ("id name 将棋エンジン", &[]),
    ("bestmove ７g７f", &[rule::BESTMOVE_007, rule::ENCODING_001]),
];

const ALL_SECTIONS: &[&[Row]] = &[
    S1_HANDSHAKE,
    S2_OPTIONS,
    S8_BESTMOVE,
    S9_INFO,
    S10_CHECKMATE,
    S13_ROBUSTNESS,
    S14_ENCODING,
];

fn check_rows(rows: &[Row]) {
    for (line, expected) in rows {
        let (_, diags) = Message::parse(line);
        let mut got: Vec<RuleId> = diags.iter().map(|d| d.rule).collect();
        let mut want = expected.to_vec();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "line {line:?}: {diags:#?}");
    }
}

#[test]
fn s1_handshake() {
    check_rows(S1_HANDSHAKE);
    assert_eq!(
        Message::parse("id name Lesserkai 1.5").0,
        Message::IdName("Lesserkai 1.5".into())
    );
    assert_eq!(Message::parse("usiok now").0, Message::UsiOk);
    assert_eq!(
        Message::parse("id version 3").0,
        Message::Unknown("id version 3".into())
    );
}

#[test]
fn s2_options() {
    check_rows(S2_OPTIONS);
    let parsed = |line| match Message::parse(line).0 {
        Message::Option(option) => option,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        parsed("option name EvalDir type filename default <empty>").kind,
        OptionKind::Filename {
            default: Some(String::new())
        }
    );
    assert_eq!(
        parsed("option name Clear Hash type button").name,
        "Clear Hash"
    );
    assert_eq!(
        parsed("option name X type check default TRUE").kind,
        OptionKind::Check {
            default: Some(true)
        }
    );
    assert_eq!(
        parsed("option name Style type combo default Normal var Solid var Normal").kind,
        OptionKind::Combo {
            default: Some("Normal".into()),
            vars: vec!["Solid".into(), "Normal".into()]
        }
    );
    assert_eq!(
        parsed("option name NodesLimit type spin default 5000000000 min 0 max 9223372036854775807")
            .kind,
        OptionKind::Spin {
            default: Some(5_000_000_000),
            min: Some(0),
            max: Some(i64::MAX)
        }
    );
}

#[test]
fn s8_bestmove() {
    check_rows(S8_BESTMOVE);
    let Message::BestMove(bm) = Message::parse("bestmove 8h2b+ ponder 3a2b").0 else {
        panic!()
    };
    assert_eq!(bm.best.to_string(), "8h2b+");
    assert_eq!(bm.ponder.unwrap().to_string(), "3a2b");
    let Message::BestMove(bm) = Message::parse("bestmove B@5e").0 else {
        panic!()
    };
    assert_eq!(bm.best, MoveToken::Invalid("B@5e".into()));
    let (_, diags) = Message::parse("bestmove B@5e");
    assert!(diags[0].message.contains('@'), "{}", diags[0]);
}

#[test]
fn s9_info() {
    check_rows(S9_INFO);
    let info = |line| match Message::parse(line).0 {
        Message::Info(info) => info,
        other => panic!("{other:?}"),
    };
    let i = info("info time 1 pv 7g7f 3c3d depth 3");
    assert_eq!((i.depth, i.pv.as_ref().map(Vec::len)), (Some(3), Some(2)));
    let i = info("info string pv 7g7f depth 3");
    assert_eq!(
        (i.string.as_deref(), i.pv, i.depth),
        (Some("pv 7g7f depth 3"), None, None)
    );
    let i = info("info depth 3 string  a  b");
    assert_eq!(i.string.as_deref(), Some("a  b"));
    let i = info("info depth 3 string a  b");
    assert_eq!(i.string.as_deref(), Some("a  b"));
    let i = info("info score cp 10 depth 3 lowerbound");
    assert_eq!(
        i.score,
        Some(Score {
            value: ScoreValue::Cp(10),
            bound: Some(Bound::Lower)
        })
    );
    let i = info("info score upperbound cp -5");
    assert_eq!(
        i.score,
        Some(Score {
            value: ScoreValue::Cp(-5),
            bound: Some(Bound::Upper)
        })
    );
    let i = info("info score mate -");
    assert_eq!(i.score.unwrap().value, ScoreValue::EngineMated);
    let i = info("info time 5 pv 7g7f 3c3d resign");
    assert_eq!(i.pv.unwrap()[2], MoveToken::Special(SpecialMove::Resign));
    let i = info("info tbhits 5 depth 3");
    assert_eq!(i.depth, Some(3));
}

#[test]
fn s10_checkmate() {
    check_rows(S10_CHECKMATE);
    assert_eq!(
        Message::parse("checkmate nomate").0,
        Message::Checkmate(Checkmate::NoMate)
    );
    let Message::Checkmate(Checkmate::Mate(moves)) = Message::parse("checkmate 2c2b+ 1a2b G*3b").0
    else {
        panic!()
    };
    assert_eq!(moves.len(), 3);
}

#[test]
fn s13_robustness() {
    check_rows(S13_ROBUSTNESS);
    assert_eq!(Message::parse("readyok\r").0, Message::ReadyOk);
    assert_eq!(
        Message::parse("registration error").0,
        Message::Registration(Status::Error)
    );
    assert_eq!(
        Message::parse("Unknown command: gameover").0,
        Message::Unknown("Unknown command: gameover".into())
    );
}

#[test]
fn s14_encoding() {
    check_rows(S14_ENCODING);
    assert_eq!(
        Message::parse("\u{feff}id name Engine").0,
        Message::IdName("Engine".into())
    );
}

/// Found by `fuzz/` (engine_line): an unknown line lost its BOM, so its text read back as
/// another line (`\u{feff}\u{feff}` became `\u{feff}`, then the empty line).
#[test]
fn s14_unknown_lines_keep_their_bom() {
    for line in [
        "\u{feff}\u{feff}",
        "\u{feff}",
        "\u{feff}banner",
        "\u{feff}id nick x",
    ] {
        let (message, diags) = Message::parse(line);
        assert_eq!(message, Message::Unknown(line.into()));
        assert_eq!(diags[0].rule, rule::ENCODING_003);
        assert_eq!(Message::parse(&message.to_string()).0, message);
    }
}

/// Every rule the parser can report is shown firing by some row above.
#[test]
fn every_reported_rule_has_a_failing_row() {
    let fired: std::collections::HashSet<RuleId> = ALL_SECTIONS
        .iter()
        .flat_map(|rows| rows.iter())
        .flat_map(|(_, rules)| rules.iter().copied())
        .collect();
    for id in rule::ALL {
        assert!(fired.contains(id), "{id} never fires in the tables");
    }
}

proptest! {
    #[test]
    fn every_message_round_trips(msg in strategies::message()) {
        let line = msg.to_string();
        prop_assert_eq!(Message::parse(&line).0, msg, "line {:?}", line);
    }

    #[test]
    fn formatted_messages_are_single_spaced_lines(msg in strategies::message()) {
        let (_, diags) = Message::parse(&msg.to_string());
        prop_assert!(diags.iter().all(|d| d.rule != rule::ROBUST_005), "{:?}", diags);
    }

    #[test]
    fn parse_never_panics_on_strings(s in any::<String>()) {
        let _ = Message::parse(&s).0.to_string();
    }

    #[test]
    fn parse_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = Message::parse(&String::from_utf8_lossy(&bytes)).0.to_string();
    }

    #[test]
    fn parse_never_panics_on_token_soup(words in proptest::collection::vec(prop_oneof![
        Just("info"), Just("option"), Just("bestmove"), Just("checkmate"), Just("id"), Just("name"),
        Just("type"), Just("spin"), Just("combo"), Just("default"), Just("min"), Just("max"), Just("var"),
        Just("score"), Just("cp"), Just("mate"), Just("+"), Just("-"), Just("pv"), Just("string"),
        Just("depth"), Just("seldepth"), Just("lowerbound"), Just("currline"), Just("ponder"),
        Just("7g7f"), Just("B@5e"), Just("-1"), Just("99999999999999999999"), Just("\u{feff}"),
        Just("\t"), Just("\r"), Just("将棋"),
    ], 0..14)) {
        let line = words.join(" ");
        let _ = Message::parse(&line).0.to_string();
    }
}
