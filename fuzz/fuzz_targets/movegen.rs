//! A game of random legal moves from a known start, checking the move generator at every ply:
//! perft(1) equals the move count, every generated move is legal by `is_legal` and captures no
//! king, `is_legal` agrees with generation on probe moves, make/unmake restores the position
//! exactly and matches copy-make, the mover never leaves its king attacked, the incremental
//! Zobrist key equals the key of the re-parsed SFEN, and a real game stays a valid position.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use usicheck::shogi::{Move, PieceKind, Position, Square, Strictness, perft, validate};

/// Starts from the published perft suite; `true` marks positions a real game can reach.
const STARTS: &[(&str, bool)] = &[
    (
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        true,
    ),
    (
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1",
        true,
    ),
    ("R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", true),
    ("k+n7/sg7/9/9/9/9/+r5K1g/7L1/2LN1R1+Bb b RBGSNLP 1", false),
    (
        "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91",
        true,
    ),
    (
        "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
        true,
    ),
    ("9/9/9/3k5/9/5K3/9/9/9 b RB2G2S2N2L9Prb2g2s2n2l9p 1", true),
    ("lnsgkgsnl/1r5b1/9/9/9/9/9/1B5R1/LNSGKGSNL b 9P9p 1", true),
    (
        "kl7/1p7/9/9/9/9/9/7P1/7LK b RB2G2S2N2L8Prb2g2s2nl8p 1",
        false,
    ),
    (
        "ppplkl1pp/b2p1p3/9/9/9/B8/9/5P1P1/PPPP1LKLP b R2G2S2N2Pr2g2s2n2p 1",
        true,
    ),
    ("4k4/4g4/9/4L4/9/9/9/4K4/9 w - 1", true),
    ("3rkr3/9/8p/4N4/1B7/9/1SG6/1KS6/9 b LPp 1", true),
];

/// A move the generator may or may not produce; squares and kinds wrap into range.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Probe {
    Normal { from: u8, to: u8, promote: bool },
    Drop { kind: u8, to: u8 },
}

impl Probe {
    fn to_move(self) -> Move {
        let square = |i: u8| Square::from_index(usize::from(i) % 81).expect("in range");
        match self {
            Probe::Normal { from, to, promote } => Move::Normal {
                from: square(from),
                to: square(to),
                promote,
            },
            Probe::Drop { kind, to } => Move::Drop {
                kind: PieceKind::ALL[usize::from(kind) % PieceKind::ALL.len()],
                to: square(to),
            },
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Ply {
    choice: u16,
    probes: [Probe; 2],
}

#[derive(Arbitrary, Debug)]
struct Game {
    start: u8,
    plies: Vec<Ply>,
}

/// Long enough to reach middlegames with full hands, short enough for thousands of runs a second.
const MAX_PLIES: usize = 160;

fuzz_target!(|game: Game| {
    let (sfen, reachable) = STARTS[usize::from(game.start) % STARTS.len()];
    let mut pos = Position::from_sfen(sfen).expect("suite SFEN");
    for ply in game.plies.iter().take(MAX_PLIES) {
        let moves = pos.legal_moves();
        check_generation(&pos, moves.as_slice(), &ply.probes);
        if moves.is_empty() {
            return;
        }
        let mv = moves.as_slice()[usize::from(ply.choice) % moves.len()];
        let us = pos.side_to_move();
        pos.play_unchecked(mv);
        let sfen = pos.to_sfen();
        assert!(
            !pos.king_attacked(us),
            "{mv} left the king attacked: {sfen}"
        );
        let reparsed = Position::from_sfen(&sfen).expect("formatted SFEN parses");
        assert_eq!(
            reparsed.key(),
            pos.key(),
            "incremental key after {mv}: {sfen}"
        );
        if reachable {
            assert_eq!(
                validate(&pos, Strictness::Strict),
                Ok(()),
                "after {mv}: {sfen}"
            );
        }
    }
});

fn check_generation(pos: &Position, moves: &[Move], probes: &[Probe]) {
    let sfen = pos.to_sfen();
    assert_eq!(perft(pos, 1), moves.len() as u64, "perft(1) in {sfen}");
    assert_eq!(
        pos.count_legal_moves(),
        moves.len() as u64,
        "count in {sfen}"
    );
    for (i, &mv) in moves.iter().enumerate() {
        assert!(!moves[..i].contains(&mv), "{mv} generated twice in {sfen}");
        assert!(
            pos.is_legal(mv),
            "generated {mv} is not legal by is_legal in {sfen}"
        );
        let captured = pos.piece_at(mv.to()).map(|p| p.kind);
        assert_ne!(
            captured,
            Some(PieceKind::King),
            "{mv} captures a king in {sfen}"
        );
        let mut made = pos.clone();
        let undo = made.make(mv);
        assert_eq!(
            made,
            pos.after(mv),
            "make and copy-make differ for {mv} in {sfen}"
        );
        made.unmake(mv, undo);
        assert_eq!(&made, pos, "unmake of {mv} does not restore {sfen}");
        if let Move::Normal { from, to, promote } = mv {
            let other = Move::Normal {
                from,
                to,
                promote: !promote,
            };
            assert_eq!(
                pos.is_legal(other),
                moves.contains(&other),
                "{other} in {sfen}"
            );
        }
    }
    for probe in probes {
        let mv = probe.to_move();
        assert_eq!(
            pos.is_legal(mv),
            moves.contains(&mv),
            "probe {mv} in {sfen}"
        );
    }
}
