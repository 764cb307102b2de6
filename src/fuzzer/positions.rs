//! Legal positions of every kind the fuzzer sends, each with the `position` line that sets it.

use super::Rng;
use crate::shogi::{
    Color, Move, Piece, PieceKind, Position, Square, Strictness, declaration, validate,
};
use rand::RngExt;
use rand::seq::IndexedRandom;
use std::sync::LazyLock;

/// The standard start and the handicap starts (the handicap giver, White, moves first).
pub const STARTS: &[&str] = &[
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
];

/// Which generator made a position; findings and statistics name it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Playout,
    FullHands,
    InCheck,
    PawnDropMateTrap,
    NearDeclaration,
    NoLegalMove,
    Repetitions,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::Playout,
        Kind::FullHands,
        Kind::InCheck,
        Kind::PawnDropMateTrap,
        Kind::NearDeclaration,
        Kind::NoLegalMove,
        Kind::Repetitions,
    ];
}

/// A legal position and the line that sets it up.
#[derive(Clone, Debug)]
pub struct LegalPosition {
    pub kind: Kind,
    /// `position startpos moves …` or `position sfen … [moves …]`.
    pub line: String,
    /// The position after the line.
    pub position: Position,
}

/// A random legal position of a random kind.
pub fn legal(rng: &mut Rng) -> LegalPosition {
    let kind = *Kind::ALL.choose(rng).expect("kinds");
    legal_of(kind, rng)
}

/// A random legal position made by the generator `kind`.
pub fn legal_of(kind: Kind, rng: &mut Rng) -> LegalPosition {
    let (base, moves) = match kind {
        Kind::Playout => {
            let plies = rng.random_range(0..120);
            playout(start(rng), plies, 0.0, rng)
        }
        Kind::FullHands => {
            let plies = rng.random_range(40..160);
            playout(start(rng), plies, 0.9, rng)
        }
        Kind::InCheck => in_check(rng),
        Kind::Repetitions => repetitions(rng),
        Kind::PawnDropMateTrap => (pawn_drop_mate_trap(rng), Vec::new()),
        Kind::NearDeclaration => (near_declaration(rng), Vec::new()),
        Kind::NoLegalMove => (no_legal_move(rng), Vec::new()),
    };
    let mut position = base.clone();
    for &m in &moves {
        position.play_unchecked(m);
    }
    // Histories matter for repetitions, so those keep their moves; the others are sent either
    // way at random.
    let as_moves = kind == Kind::Repetitions || rng.random_bool(0.5);
    let line = if as_moves {
        line_with_moves(&base, &moves)
    } else {
        format!("position sfen {}", position.to_sfen())
    };
    LegalPosition {
        kind,
        line,
        position,
    }
}

/// `position startpos|sfen BASE moves …` (without `moves` when there are none).
pub fn line_with_moves(base: &Position, moves: &[Move]) -> String {
    let mut line = base_line(base);
    if !moves.is_empty() {
        line.push_str(" moves");
        for m in moves {
            push_move(&mut line, *m);
        }
    }
    line
}

/// `position startpos` or `position sfen BASE`.
fn base_line(base: &Position) -> String {
    static STARTPOS: LazyLock<Position> = LazyLock::new(Position::startpos);
    if *base == *STARTPOS {
        "position startpos".to_string()
    } else {
        format!("position sfen {}", base.to_sfen())
    }
}

/// Appends ` MOVE`.
fn push_move(line: &mut String, m: Move) {
    use std::fmt::Write as _;
    write!(line, " {m}").expect("writing to a String");
}

/// A random game played one ply at a time, restarted when it ends or grows long.
pub struct Playout {
    position: Position,
    plies: usize,
    /// `position … moves …` up to the current ply, extended one move at a time.
    line: String,
}

impl Playout {
    /// Longest game before a restart.
    const MAX_PLIES: usize = 150;

    pub fn new(rng: &mut Rng) -> Playout {
        let position = start(rng);
        Playout {
            line: base_line(&position),
            position,
            plies: 0,
        }
    }

    /// Plays one random move (restarting if needed); returns the `position` line and position.
    pub fn next(&mut self, rng: &mut Rng) -> (String, Position) {
        let legal = self.position.legal_moves();
        match legal.as_slice().choose(rng) {
            Some(&m) if self.plies < Self::MAX_PLIES => {
                self.position.play_unchecked(m);
                if self.plies == 0 {
                    self.line.push_str(" moves");
                }
                self.plies += 1;
                push_move(&mut self.line, m);
            }
            _ => *self = Playout::new(rng),
        }
        let line = if rng.random_bool(0.5) {
            self.line.clone()
        } else {
            format!("position sfen {}", self.position.to_sfen())
        };
        (line, self.position.clone())
    }
}

fn start(rng: &mut Rng) -> Position {
    // The standard start half of the time, a handicap start otherwise.
    let sfen = if rng.random_bool(0.5) {
        STARTS[0]
    } else {
        STARTS.choose(rng).expect("starts")
    };
    Position::from_sfen(sfen).expect("start positions are valid")
}

/// Random legal moves from `base`, preferring captures with probability `capture_bias`; stops
/// early at a position without legal moves.
fn playout(base: Position, plies: u32, capture_bias: f64, rng: &mut Rng) -> (Position, Vec<Move>) {
    let mut pos = base.clone();
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let captures: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| !m.is_drop() && pos.piece_at(m.to()).is_some())
            .collect();
        let m = if !captures.is_empty() && rng.random_bool(capture_bias) {
            *captures.choose(rng).expect("non-empty")
        } else {
            *legal.as_slice().choose(rng).expect("non-empty")
        };
        pos.play_unchecked(m);
        moves.push(m);
    }
    (base, moves)
}

/// A playout that ends with a checking move (the side to move is in check).
fn in_check(rng: &mut Rng) -> (Position, Vec<Move>) {
    for _ in 0..20 {
        let plies = rng.random_range(10..100);
        let (base, mut moves) = playout(start(rng), plies, 0.3, rng);
        let mut pos = base.clone();
        for &m in &moves {
            pos.play_unchecked(m);
        }
        let checks: Vec<Move> = pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|&m| pos.gives_check(m))
            .collect();
        if let Some(&m) = checks.choose(rng) {
            moves.push(m);
            return (base, moves);
        }
    }
    playout(start(rng), 0, 0.0, rng)
}

/// A long game from the start with king shuffles that repeat positions (at most three times,
/// so the game is not over).
fn repetitions(rng: &mut Rng) -> (Position, Vec<Move>) {
    let base = Position::startpos();
    let mut pos = base.clone();
    let mut moves = Vec::new();
    let shuffle = ["5i4h", "5a4b", "4h5i", "4b5a"];
    for _ in 0..rng.random_range(1..=2) {
        for text in shuffle {
            let m: Move = text.parse().expect("shuffle moves parse");
            pos.play_unchecked(m);
            moves.push(m);
        }
    }
    let (_, more) = playout(pos, rng.random_range(50..250), 0.2, rng);
    moves.extend(more);
    (base, moves)
}

fn sq(file: u8, rank: u8) -> Square {
    Square::new(file, rank).expect("square on the board")
}

/// Black to move with a pawn in hand; dropping it on 1b would mate White (uchifuzume), so the
/// drop is illegal. The Black king and extra hand pieces vary.
fn pawn_drop_mate_trap(rng: &mut Rng) -> Position {
    loop {
        let mut pos = Position::empty();
        pos.set_piece(sq(1, 1), Some(Piece::new(Color::White, PieceKind::King)));
        pos.set_piece(sq(2, 1), Some(Piece::new(Color::White, PieceKind::Knight)));
        pos.set_piece(sq(2, 2), Some(Piece::new(Color::White, PieceKind::Silver)));
        pos.set_piece(sq(2, 4), Some(Piece::new(Color::Black, PieceKind::Knight)));
        let king = sq(rng.random_range(3..=9), rng.random_range(7..=9));
        pos.set_piece(king, Some(Piece::new(Color::Black, PieceKind::King)));
        pos.set_hand_count(Color::Black, PieceKind::Pawn, 1);
        for kind in [PieceKind::Silver, PieceKind::Gold, PieceKind::Lance] {
            if rng.random_bool(0.3) {
                pos.set_hand_count(Color::Black, kind, 1);
            }
        }
        pos.set_side_to_move(Color::Black);
        if validate(&pos, Strictness::Strict).is_ok() {
            return pos;
        }
    }
}

/// The side to move has its king in the enemy camp with pieces around it and points close to
/// the declaration threshold: sometimes the declaration is valid, sometimes just not.
fn near_declaration(rng: &mut Rng) -> Position {
    let kinds = [
        PieceKind::Gold,
        PieceKind::Silver,
        PieceKind::ProSilver,
        PieceKind::ProPawn,
        PieceKind::Horse,
        PieceKind::Dragon,
    ];
    loop {
        let mut pos = Position::empty();
        pos.set_piece(sq(5, 2), Some(Piece::new(Color::Black, PieceKind::King)));
        pos.set_piece(sq(5, 9), Some(Piece::new(Color::White, PieceKind::King)));
        let mut placed = 0;
        while placed < rng.random_range(9..=12) {
            let s = sq(rng.random_range(1..=9), rng.random_range(1..=3));
            if pos.piece_at(s).is_none() {
                let kind = *kinds.choose(rng).expect("kinds");
                pos.set_piece(s, Some(Piece::new(Color::Black, kind)));
                placed += 1;
            }
        }
        pos.set_hand_count(Color::Black, PieceKind::Pawn, rng.random_range(0..=12));
        pos.set_hand_count(Color::Black, PieceKind::Bishop, rng.random_range(0..=1));
        pos.set_side_to_move(Color::Black);
        let points = declaration(&pos).points;
        if (24..=32).contains(&points)
            && validate(&pos, Strictness::Strict).is_ok()
            && pos.has_legal_moves()
        {
            return pos;
        }
    }
}

/// A side to move that is checkmated by a protected gold on its king's head.
fn no_legal_move(rng: &mut Rng) -> Position {
    let file = rng.random_range(2..=8);
    let mut pos = Position::empty();
    pos.set_piece(sq(file, 9), Some(Piece::new(Color::Black, PieceKind::King)));
    pos.set_piece(sq(file, 8), Some(Piece::new(Color::White, PieceKind::Gold)));
    pos.set_piece(sq(file, 7), Some(Piece::new(Color::White, PieceKind::Pawn)));
    pos.set_piece(sq(5, 1), Some(Piece::new(Color::White, PieceKind::King)));
    if rng.random_bool(0.5) {
        pos.set_hand_count(Color::Black, PieceKind::Gold, 1);
    }
    pos.set_side_to_move(Color::Black);
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn every_kind_gives_valid_positions_with_the_promised_property() {
        let mut rng = Rng::seed_from_u64(7);
        for _ in 0..30 {
            for kind in Kind::ALL {
                let p = legal_of(kind, &mut rng);
                assert!(
                    validate(&p.position, Strictness::Strict).is_ok(),
                    "{}",
                    p.line
                );
                let again = crate::shogi::position_after(
                    p.line
                        .trim_start_matches("position ")
                        .split(" moves")
                        .next()
                        .unwrap(),
                    &p.line.split(" moves ").nth(1).map_or(Vec::new(), |m| {
                        m.split(' ').map(str::to_string).collect::<Vec<_>>()
                    }),
                );
                assert_eq!(
                    again.map(|a| a.to_sfen()).ok(),
                    Some(p.position.to_sfen()),
                    "{}",
                    p.line
                );
                match kind {
                    Kind::InCheck => assert!(p.position.in_check(), "{}", p.line),
                    Kind::NoLegalMove => assert!(!p.position.has_legal_moves()),
                    Kind::PawnDropMateTrap => {
                        let drop: Move = "P*1b".parse().unwrap();
                        assert!(!p.position.is_legal(drop));
                        assert!(!p.position.after(drop).has_legal_moves());
                    }
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_positions() {
        let lines = |seed| {
            let mut rng = Rng::seed_from_u64(seed);
            (0..20).map(|_| legal(&mut rng).line).collect::<Vec<_>>()
        };
        assert_eq!(lines(3), lines(3));
        assert_ne!(lines(3), lines(4));
    }
}
