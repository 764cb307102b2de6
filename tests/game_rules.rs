//! Game-level rules: checkmate, repetition and perpetual check (USI-RULES-003/004), entering-king
//! declaration (USI-RULES-001), and applying `position` commands.

use usicheck::shogi::{Color, Game, Position, Repetition, SetupError, declaration, position_after};

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap()
}

#[test]
fn fixtures_mated_and_mate_in_one() {
    let mated = pos("4k4/9/9/9/9/9/4s4/4g4/4K4 b 2r2b3g3s4n4l18p 1");
    assert!(mated.is_checkmate() && mated.legal_moves().is_empty());
    let mate1 = pos("4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1");
    let mates: Vec<String> = mate1
        .legal_moves()
        .iter()
        .filter(|&&m| mate1.after(m).is_checkmate())
        .map(|m| m.to_string())
        .collect();
    assert_eq!(mates, ["G*5b"]);
}

#[test]
fn stalemate_is_no_legal_move_without_check() {
    // White king boxed in by its own dead-end: only moves are into attacked squares.
    let p = pos("k8/2G6/1K7/9/9/9/9/9/9 w - 1");
    assert!(!p.in_check());
    assert!(!p.has_legal_moves());
    assert!(!p.is_checkmate());
}

#[test]
fn repetition_is_a_draw_on_the_fourth_occurrence() {
    let mut game = Game::new(Position::startpos());
    let cycle = ["2h3h", "8b7b", "3h2h", "7b8b"];
    for round in 0..3 {
        for m in cycle {
            assert_eq!(game.repetition(), None, "round {round}");
            game.play(m.parse().unwrap()).unwrap();
        }
    }
    assert_eq!(game.repetition_count(), 4);
    assert_eq!(game.repetition(), Some(Repetition::Draw));
}

#[test]
fn perpetual_check_loses_for_the_checker() {
    // Black's rook checks the white king on every move while the king shuttles between 6a and 5a.
    let mut game = Game::from_usi("3k5/9/9/9/9/9/9/9/K7R b - 1", &["1i6i"]).unwrap();
    for _ in 0..3 {
        for m in ["6a5a", "6i5i", "5a6a", "5i6i"] {
            assert_eq!(game.repetition(), None);
            game.play(m.parse().unwrap()).unwrap();
        }
    }
    assert_eq!(game.repetition_count(), 4);
    assert_eq!(
        game.repetition(),
        Some(Repetition::PerpetualCheck {
            loser: Color::Black
        })
    );
}

#[test]
fn declaration_fixtures_and_variants() {
    let win = pos("+P+P+P+P+P+P+P+P+P/+P8/4K4/9/9/9/9/9/8k b 2R2B4g4s4n4l8p 1");
    assert!(declaration(&win).is_valid());
    let short = pos("+P+P+P+P+P+P+P+P+P/+P8/4K4/9/9/9/9/9/8k b 2RB2Gb2g4s4n4l8p 1");
    assert!(!declaration(&short).is_valid());
    // The same 27 points suffice for White (gote).
    let gote = pos("8K/9/9/9/9/9/4k4/+p8/+p+p+p+p+p+p+p+p+p w 2rb2gB2G4S4N4L8P 1");
    let d = declaration(&gote);
    assert_eq!((d.points, d.required_points), (27, 27));
    assert!(d.is_valid());
    let outside = pos("+P+P+P+P+P+P+P+P+P/+P8/9/4K4/9/9/9/9/8k b 2R2B4g4s4n4l8p 1");
    assert!(!declaration(&outside).king_in_camp);
    assert!(!declaration(&outside).is_valid());
    let nine = pos("+P+P+P+P+P+P+P+P+P/9/4K4/9/9/9/9/9/8k b 2R2Bp4g4s4n4l8p 1");
    assert_eq!(declaration(&nine).pieces_in_camp, 9);
    assert!(!declaration(&nine).is_valid());
    let checked = pos("+P+P+P+P+P+P+P+P+P/+P8/4K4/9/9/9/9/9/4r3k b R2B4g4s4n4l8p 1");
    assert!(declaration(&checked).in_check);
    assert!(!declaration(&checked).is_valid());
}

#[test]
fn position_command_errors_name_the_move() {
    let err = position_after("startpos", &["7g7f", "3c3d", "8h2b", "x"]).unwrap_err();
    assert!(
        matches!(err, SetupError::BadMove { index: 3, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "move 4 (\"x\") is not a USI move: not a USI move: expected 7g7f, 8h2b+ or P*3d"
    );
    let err = position_after("startpos", &["7g7f", "8c8d", "7f7e", "P*5e"]).unwrap_err();
    assert!(
        matches!(err, SetupError::IllegalMove { index: 3, .. }),
        "{err:?}"
    );
    assert!(matches!(
        position_after("sfen 9/9 b - 1", &[] as &[&str]),
        Err(SetupError::Sfen(_))
    ));
    // F-NOPROMO: the non-promotion into the zone is legal.
    assert!(position_after("startpos", &["7g7f", "3c3d", "8h2b"]).is_ok());
}

#[test]
fn gives_check_and_illegal_play() {
    let mut p = pos("4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1");
    assert!(p.gives_check("G*5b".parse().unwrap()));
    assert!(!p.gives_check("G*1a".parse().unwrap()));
    let err = p.play("5c5a".parse().unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "illegal move 5c5a in 4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1"
    );
    // Pawn to the last rank must promote; the promotion itself is fine.
    let mut edge = pos("4k4/P8/9/9/9/9/9/9/4K4 b - 1");
    assert!(!edge.is_legal("9b9a".parse().unwrap()));
    edge.play("9b9a+".parse().unwrap()).unwrap();
}
