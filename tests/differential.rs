//! Differential move generation: usicheck, shunsai and rsshogi must produce identical legal-move
//! sets on positions from random playouts and on targeted tricky positions.

use shogi_core::{Color as CoreColor, Piece as CorePiece, PieceKind as CoreKind, ToUsi};
use usicheck::shogi::{Color, Move, PieceKind, Position};

/// A small deterministic generator so failures reproduce.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn ours(pos: &Position) -> Vec<String> {
    pos.legal_moves().sorted_usi()
}

fn shunsai_moves(pos: &Position) -> Vec<String> {
    let mut partial = shogi_core::PartialPosition::empty();
    for sq in usicheck::shogi::Square::all() {
        let core_sq = shogi_core::Square::new(sq.file(), sq.rank()).unwrap();
        let piece = pos.piece_at(sq).map(|p| {
            let kind = CoreKind::from_u8(p.kind.index() as u8 + 1).unwrap();
            CorePiece::new(kind, core_color(p.color))
        });
        partial.piece_set(core_sq, piece);
    }
    for color in Color::ALL {
        for kind in PieceKind::HAND_ORDER {
            let core_kind = CoreKind::from_u8(kind.index() as u8 + 1).unwrap();
            let hand = partial.hand_of_a_player_mut(core_color(color));
            for _ in 0..pos.hand(color).count(kind) {
                *hand = hand.added(core_kind).unwrap();
            }
        }
    }
    partial.side_to_move_set(core_color(pos.side_to_move()));
    let mut v: Vec<String> = shunsai::Position::new(partial)
        .legal_moves()
        .iter()
        .map(|m| m.to_usi_owned())
        .collect();
    v.sort();
    v
}

fn core_color(c: Color) -> CoreColor {
    match c {
        Color::Black => CoreColor::Black,
        Color::White => CoreColor::White,
    }
}

fn rsshogi_moves(pos: &Position) -> Vec<String> {
    let p = rsshogi::board::position_from_sfen(&pos.to_sfen()).unwrap();
    let mut list = rsshogi::board::Move32List::new();
    rsshogi::board::generate_legal_all_move32(&p, &mut list);
    let mut v: Vec<String> = list.iter().map(|m| m.to_usi()).collect();
    v.sort();
    v
}

fn assert_same(pos: &Position) {
    let ours = ours(pos);
    assert_eq!(
        ours,
        shunsai_moves(pos),
        "shunsai differs on {}",
        pos.to_sfen()
    );
    assert_eq!(
        ours,
        rsshogi_moves(pos),
        "rsshogi differs on {}",
        pos.to_sfen()
    );
}

const STARTS: &[&str] = &[
    "startpos",
    "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
];

/// Plays random games; with `capture_bias` most moves that capture are preferred, which fills
/// hands and exercises drops, drop evasions and pawn-drop mates.
fn playout_positions(rng: &mut XorShift, games: usize, capture_bias: bool) -> usize {
    let mut checked = 0;
    for g in 0..games {
        let mut pos = Position::from_sfen(STARTS[g % STARTS.len()]).unwrap();
        for _ in 0..200 {
            assert_same(&pos);
            checked += 1;
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let captures: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| !m.is_drop() && pos.piece_at(m.to()).is_some())
                .collect();
            let mv = if capture_bias && !captures.is_empty() && rng.below(4) != 0 {
                captures[rng.below(captures.len())]
            } else {
                moves.as_slice()[rng.below(moves.len())]
            };
            pos.play_unchecked(mv);
        }
    }
    checked
}

#[test]
fn random_playouts_agree() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let plain = playout_positions(&mut rng, 30, false);
    let biased = playout_positions(&mut rng, 30, true);
    assert!(
        plain + biased >= 10_000,
        "only {} positions",
        plain + biased
    );
}

#[test]
#[ignore = "a million positions: cargo test --release --test differential -- --ignored"]
fn many_random_playouts_agree() {
    let mut rng = XorShift(0xD1B5_4A32_D192_ED03);
    playout_positions(&mut rng, 2_500, false);
    playout_positions(&mut rng, 2_500, true);
}

#[test]
fn targeted_positions_agree() {
    for sfen in [
        // Pawn-drop mate excluded, lance drop mate allowed.
        "3rkr3/9/8p/4N4/1B7/9/1SG6/1KS6/9 b LPp 1",
        // Pawn drop that checks but is not mate (king can capture).
        "4k4/9/9/9/9/9/9/9/4K4 b P 1",
        // Pawn-drop mate where the pawn is defended and the king boxed in.
        "3gkg3/9/4P4/9/9/9/9/9/4K4 w p 1",
        "4k4/3s1s3/4G4/9/9/9/9/9/4K4 b P 1",
        // Double check: only king moves.
        "4k4/9/4R4/9/9/9/B8/9/4K4 w - 1",
        // Check by a distant rook, interposing drops.
        "4k4/9/9/9/9/9/9/9/4R3K w GSNLP 1",
        // Pinned pieces.
        "4k4/4s4/9/9/4R4/9/9/9/4K4 w - 1",
        "4k4/9/2b6/9/9/5G3/9/9/8K b - 1",
        // Forced promotions: pawn, lance, knight near the last ranks; dead drops.
        "4k4/P1L1N4/2N6/9/9/9/9/9/4K4 b PLN 1",
        "4k4/9/9/9/9/9/6n2/2p1l3p/K8 w pln 1",
        // Unpromoted bishop/rook moves inside the zone.
        "4k4/1B5R1/9/9/9/9/9/9/4K4 b - 1",
        // Nifu with a tokin on the file (the tokin does not count).
        "4k4/9/4+P4/9/9/9/9/9/4K4 b P 1",
        // F-MATED and F-MATE1 fixtures.
        "4k4/9/9/9/9/9/4s4/4g4/4K4 b 2r2b3g3s4n4l18p 1",
        "4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1",
    ] {
        assert_same(&Position::from_sfen(sfen).unwrap());
    }
}
