//! proptest strategies producing well-formed protocol values (what a formatter may be given).

use crate::shogi::{Move, PieceKind, Square};
use crate::usi::*;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

pub fn square() -> impl Strategy<Value = Square> {
    (0usize..81).prop_map(Square::from_index_unchecked)
}

pub fn usi_move() -> impl Strategy<Value = Move> {
    prop_oneof![
        (square(), square(), any::<bool>())
            .prop_filter("null move", |(f, t, _)| f != t)
            .prop_map(|(from, to, promote)| Move::Normal { from, to, promote }),
        (0usize..7, square()).prop_map(|(k, to)| Move::Drop {
            kind: PieceKind::HAND_ORDER[k],
            to
        }),
    ]
}

/// A single protocol-safe word that is no keyword of any command or message.
pub fn word() -> impl Strategy<Value = String> {
    "[A-Za-z_][A-Za-z0-9_./:-]{0,11}".prop_filter("keyword", |w| !is_keyword(w))
}

/// Free text: words separated by single or double spaces, possibly non-ASCII.
pub fn text() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_\u{3042}-\u{3093}.:/-]{1,8}(  ?[A-Za-z0-9_\u{3042}-\u{3093}.:/-]{1,8}){0,4}"
        .prop_filter("keyword", |t| !t.split(' ').any(is_keyword))
}

fn is_keyword(w: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "usi",
        "debug",
        "on",
        "off",
        "isready",
        "setoption",
        "name",
        "value",
        "register",
        "later",
        "code",
        "usinewgame",
        "position",
        "startpos",
        "sfen",
        "moves",
        "go",
        "ponder",
        "btime",
        "wtime",
        "byoyomi",
        "binc",
        "winc",
        "bbyoyomi",
        "wbyoyomi",
        "movestogo",
        "depth",
        "nodes",
        "movetime",
        "infinite",
        "searchmoves",
        "mate",
        "perft",
        "stop",
        "ponderhit",
        "gameover",
        "win",
        "lose",
        "draw",
        "unknown",
        "quit",
        "id",
        "author",
        "usiok",
        "readyok",
        "option",
        "type",
        "default",
        "min",
        "max",
        "var",
        "bestmove",
        "checkmate",
        "nomate",
        "timeout",
        "notimplemented",
        "info",
        "seldepth",
        "time",
        "nps",
        "hashfull",
        "cpuload",
        "currmove",
        "currmovenumber",
        "multipv",
        "score",
        "cp",
        "lowerbound",
        "upperbound",
        "pv",
        "string",
        "refutation",
        "currline",
        "copyprotection",
        "registration",
        "checking",
        "ok",
        "error",
        "resign",
        "rep_draw",
        "rep_win",
        "rep_lose",
        "rep_sup",
        "rep_inf",
        "check",
        "spin",
        "combo",
        "button",
        "filename",
        "none",
        "true",
        "false",
    ];
    KEYWORDS.contains(&w) || w.parse::<Move>().is_ok() || w.parse::<i128>().is_ok()
}

pub fn clock() -> impl Strategy<Value = Clock> {
    let t = || option::of(any::<i64>());
    (t(), t(), t(), t(), t(), t(), t()).prop_map(
        |(btime, wtime, byoyomi, binc, winc, bbyoyomi, wbyoyomi)| Clock {
            btime,
            wtime,
            byoyomi,
            binc,
            winc,
            bbyoyomi,
            wbyoyomi,
        },
    )
}

pub fn go() -> impl Strategy<Value = Go> {
    let mate = option::of(prop_oneof![
        any::<u64>().prop_map(MateLimit::Millis),
        Just(MateLimit::Infinite)
    ]);
    (
        (
            any::<bool>(),
            mate,
            clock(),
            option::of(any::<u32>()),
            option::of(any::<u32>()),
        ),
        (
            option::of(any::<u64>()),
            option::of(any::<i64>()),
            any::<bool>(),
            option::of(any::<u32>()),
        ),
        (vec(usi_move(), 0..5), vec(word(), 0..3)),
    )
        .prop_map(
            |(
                (ponder, mate, clock, movestogo, depth),
                (nodes, movetime, infinite, perft),
                (searchmoves, extra),
            )| Go {
                ponder,
                mate,
                clock,
                movestogo,
                depth,
                nodes,
                movetime,
                infinite,
                perft,
                searchmoves,
                extra,
            },
        )
}

pub fn sfen_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1".to_string()),
        Just("4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p".to_string()),
        Just(String::new()),
        "[1-9a-zA-Z+/]{1,20} [bw] [-0-9a-zA-Z]{1,6}( [0-9]{1,3})?",
    ]
}

pub fn position() -> impl Strategy<Value = PositionCommand> {
    let start = prop_oneof![
        Just(StartPosition::Startpos),
        sfen_text().prop_map(StartPosition::Sfen)
    ];
    let unparsed = option::of(prop_oneof![
        Just("B@5e 7g7f".to_string()),
        Just("0000".to_string()),
        Just("7g7f++ x".to_string()),
    ]);
    (start, option::of(vec(usi_move(), 0..8)), unparsed).prop_map(|(start, moves, unparsed)| {
        // Without `moves`, an sfen swallows every token, so nothing is left unparsed.
        let unparsed = if moves.is_none() && start != StartPosition::Startpos {
            None
        } else {
            unparsed
        };
        PositionCommand {
            start,
            moves,
            unparsed,
        }
    })
}

pub fn command() -> impl Strategy<Value = Command> {
    prop_oneof![
        Just(Command::Usi),
        option::of(any::<bool>()).prop_map(Command::Debug),
        Just(Command::IsReady),
        (
            word(),
            option::of(prop_oneof![
                Just(String::new()),
                Just("<empty>".to_string()),
                any::<i64>().prop_map(|v| v.to_string()),
                text(),
            ])
        )
            .prop_map(|(name, value)| Command::SetOption { name, value }),
        prop_oneof![
            Just(Register::Bare),
            Just(Register::Later),
            (word(), word()).prop_map(|(name, code)| Register::Credentials { name, code }),
        ]
        .prop_map(Command::Register),
        Just(Command::UsiNewGame),
        position().prop_map(Command::Position),
        go().prop_map(Command::Go),
        Just(Command::Stop),
        clock().prop_map(Command::PonderHit),
        prop_oneof![
            Just(GameResult::Win),
            Just(GameResult::Lose),
            Just(GameResult::Draw),
            Just(GameResult::Unknown),
            word().prop_map(GameResult::Other),
        ]
        .prop_map(Command::GameOver),
        Just(Command::Quit),
        text().prop_map(Command::Raw),
    ]
}

/// Free text with single spaces only (option defaults are re-joined with single spaces).
pub fn single_spaced_text() -> impl Strategy<Value = String> {
    vec(word(), 1..4).prop_map(|words| words.join(" "))
}

pub fn move_token() -> impl Strategy<Value = MoveToken> {
    prop_oneof![
        4 => usi_move().prop_map(MoveToken::Move),
        1 => (0usize..7).prop_map(|i| MoveToken::Special(SpecialMove::ALL[i])),
        1 => word().prop_map(MoveToken::Invalid),
    ]
}

pub fn option_decl() -> impl Strategy<Value = OptionDecl> {
    let text_default = || option::of(prop_oneof![Just(String::new()), single_spaced_text()]);
    let kind = prop_oneof![
        option::of(any::<bool>()).prop_map(|default| OptionKind::Check { default }),
        (
            option::of(any::<i64>()),
            option::of(any::<i64>()),
            option::of(any::<i64>())
        )
            .prop_map(|(default, min, max)| OptionKind::Spin { default, min, max }),
        (option::of(word()), vec(word(), 0..4))
            .prop_map(|(default, vars)| OptionKind::Combo { default, vars }),
        Just(OptionKind::Button),
        text_default().prop_map(|default| OptionKind::String { default }),
        text_default().prop_map(|default| OptionKind::Filename { default }),
        word().prop_map(|type_name| OptionKind::Other { type_name }),
    ];
    (word(), kind).prop_map(|(name, kind)| OptionDecl { name, kind })
}

pub fn score() -> impl Strategy<Value = Score> {
    let value = prop_oneof![
        any::<i64>().prop_map(ScoreValue::Cp),
        any::<i64>().prop_map(ScoreValue::Mate),
        Just(ScoreValue::EngineMates),
        Just(ScoreValue::EngineMated),
    ];
    let bound = option::of(prop_oneof![Just(Bound::Lower), Just(Bound::Upper)]);
    (value, bound).prop_map(|(value, bound)| Score { value, bound })
}

pub fn info() -> impl Strategy<Value = Info> {
    let n32 = || option::of(any::<u32>());
    let n64 = || option::of(any::<u64>());
    let moves = || vec(move_token(), 0..6);
    (
        (n32(), n32(), n64(), n64(), n64(), n64(), n64(), n32()),
        (option::of(score()), option::of(move_token()), n32()),
        (
            option::of(
                (option::of(any::<u32>()), moves())
                    .prop_map(|(cpu, moves)| CurrLine { cpu, moves }),
            ),
            option::of(moves()),
            option::of(moves()),
            option::of(prop_oneof![Just(String::new()), text()]),
        ),
    )
        .prop_map(
            |(
                (depth, seldepth, time, nodes, nps, hashfull, cpuload, multipv),
                (score, currmove, currmovenumber),
                (currline, refutation, pv, string),
            )| Info {
                depth,
                seldepth,
                time,
                nodes,
                nps,
                hashfull,
                cpuload,
                multipv,
                score,
                currmove,
                currmovenumber,
                currline,
                refutation,
                pv,
                string,
            },
        )
}

pub fn message() -> impl Strategy<Value = Message> {
    let status = || {
        prop_oneof![
            Just(Status::Checking),
            Just(Status::Ok),
            Just(Status::Error)
        ]
    };
    prop_oneof![
        text().prop_map(Message::IdName),
        text().prop_map(Message::IdAuthor),
        Just(Message::UsiOk),
        Just(Message::ReadyOk),
        option_decl().prop_map(Message::Option),
        (move_token(), option::of(move_token()))
            .prop_map(|(best, ponder)| Message::BestMove(BestMove { best, ponder })),
        prop_oneof![
            vec(move_token(), 0..6).prop_map(Checkmate::Mate),
            Just(Checkmate::NoMate),
            Just(Checkmate::Timeout),
            Just(Checkmate::NotImplemented),
        ]
        .prop_map(Message::Checkmate),
        info().prop_map(Message::Info),
        status().prop_map(Message::CopyProtection),
        status().prop_map(Message::Registration),
        prop_oneof![Just(String::new()), text()].prop_map(Message::Unknown),
    ]
}
