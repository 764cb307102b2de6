//! Position validation: one illegal SFEN per reason, combinations, and legal edge cases.

use usicheck::shogi::{
    Color, InvalidReason, Piece, PieceKind, Position, Square, Strictness, validate,
};

fn reasons(sfen: &str, strictness: Strictness) -> Vec<InvalidReason> {
    validate(&Position::from_sfen(sfen).unwrap(), strictness)
        .err()
        .unwrap_or_default()
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

#[test]
fn one_reason_each() {
    use Color::*;
    use InvalidReason::*;
    let table: Vec<(&str, Vec<InvalidReason>)> = vec![
        ("9/9/9/9/9/9/9/9/4K4 w - 1", vec![MissingKing(White)]),
        ("4k4/9/9/9/9/9/9/9/9 w - 1", vec![MissingKing(Black)]),
        (
            "4k4/9/9/9/9/9/9/9/3KK4 b - 1",
            vec![TooManyKings {
                color: Black,
                count: 2,
            }],
        ),
        ("4k4/9/9/9/9/9/9/4r4/4K4 b - 1", vec![]),
        (
            "4k4/4R4/9/9/9/9/9/9/4K4 b - 1",
            vec![OpponentInCheck(White)],
        ),
        ("9/9/9/9/9/9/9/4k4/4K4 b - 1", vec![OpponentInCheck(White)]),
        (
            "4k4/9/9/9/4P4/4P4/9/9/4K4 b - 1",
            vec![Nifu {
                color: Black,
                file: 5,
            }],
        ),
        ("4k4/9/9/9/9/9/9/9/P3K4 b - 1", vec![]),
        (
            "P3k4/9/9/9/9/9/9/9/4K4 b - 1",
            vec![DeadPiece {
                square: sq("9a"),
                piece: Piece::new(Black, PieceKind::Pawn),
            }],
        ),
        (
            "4k4/9/9/9/9/9/9/9/4K3l w - 1",
            vec![DeadPiece {
                square: sq("1i"),
                piece: Piece::new(White, PieceKind::Lance),
            }],
        ),
        (
            "4k4/N8/9/9/9/9/9/9/4K4 b - 1",
            vec![DeadPiece {
                square: sq("9b"),
                piece: Piece::new(Black, PieceKind::Knight),
            }],
        ),
        (
            "4k4/9/9/9/9/9/9/9/4K4 b 19P 1",
            vec![TooManyPieces {
                kind: PieceKind::Pawn,
                count: 19,
                max: 18,
            }],
        ),
        (
            "4k4/9/9/9/9/9/9/9/4K4 b 2Rr 1",
            vec![TooManyPieces {
                kind: PieceKind::Rook,
                count: 3,
                max: 2,
            }],
        ),
        (
            "4k4/9/9/9/9/9/9/+B+B7/4K4 b B 1",
            vec![TooManyPieces {
                kind: PieceKind::Bishop,
                count: 3,
                max: 2,
            }],
        ),
        (
            "4k4/9/9/9/9/9/9/9/4K4 b 3G2g 1",
            vec![TooManyPieces {
                kind: PieceKind::Gold,
                count: 5,
                max: 4,
            }],
        ),
    ];
    for (sfen, expected) in table {
        assert_eq!(reasons(sfen, Strictness::Strict), expected, "{sfen}");
    }
}

#[test]
fn lists_every_reason_at_once() {
    use Color::*;
    use InvalidReason::*;
    let got = reasons("P3k4/4R4/9/9/9/4P4/4P4/9/3KK4 b 19p 1", Strictness::Strict);
    assert_eq!(
        got,
        vec![
            TooManyKings {
                color: Black,
                count: 2
            },
            OpponentInCheck(White),
            Nifu {
                color: Black,
                file: 5
            },
            DeadPiece {
                square: sq("9a"),
                piece: Piece::new(Black, PieceKind::Pawn)
            },
            TooManyPieces {
                kind: PieceKind::Pawn,
                count: 22,
                max: 18
            },
        ]
    );
}

#[test]
fn legal_edge_cases_pass() {
    for sfen in [
        "startpos",
        "4k4/9/9/9/9/9/9/9/4K4 b 18P 1",
        "4k4/9/9/9/9/9/9/9/4K4 b 9P9p 1",
        // A tokin and a pawn on one file are not nifu.
        "4k4/9/9/9/4+P4/4P4/9/9/4K4 b - 1",
        // Promoted pieces may stand on the last ranks.
        "+P+L+N1k4/9/9/9/9/9/9/9/4K4 b - 1",
        // The side to move may be in check.
        "4k4/9/9/9/9/9/9/4r4/4K4 b - 1",
        // F-DECL-WIN and F-MATED fixtures.
        "+P+P+P+P+P+P+P+P+P/+P8/4K4/9/9/9/9/9/8k b 2R2B4g4s4n4l8p 1",
        "4k4/9/9/9/9/9/4s4/4g4/4K4 b 2r2b3g3s4n4l18p 1",
    ] {
        assert_eq!(reasons(sfen, Strictness::Strict), vec![], "{sfen}");
    }
}

#[test]
fn lenient_allows_a_missing_attacker_king_only() {
    let tsume = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";
    assert_eq!(
        reasons(tsume, Strictness::Strict),
        vec![InvalidReason::MissingKing(Color::Black)]
    );
    assert_eq!(reasons(tsume, Strictness::Lenient), vec![]);
    // The defender (not to move here) must still have a king.
    assert_eq!(
        reasons("9/9/4P4/9/9/9/9/9/4K4 b - 1", Strictness::Lenient),
        vec![InvalidReason::MissingKing(Color::White)]
    );
}

#[test]
fn unchecked_accepts_impossible_material() {
    let stress = "k+n7/sg7/9/9/9/9/+r5K1g/7L1/2LN1R1+Bb b RBGSNLP 1";
    assert!(!reasons(stress, Strictness::Strict).is_empty());
    assert_eq!(reasons(stress, Strictness::Unchecked), vec![]);
}

#[test]
fn reasons_read_as_sentences() {
    let text: Vec<String> = reasons("4k4/4R4/9/9/9/9/9/9/4K4 b - 1", Strictness::Strict)
        .iter()
        .map(|r| r.to_string())
        .collect();
    assert_eq!(
        text,
        ["white is in check but it is black's turn (the king could be captured)"]
    );
}
