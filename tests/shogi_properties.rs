//! Property tests of the rules core on positions from random playouts.

use proptest::prelude::*;
use usicheck::shogi::{Move, PieceKind, Position, Square, perft};

/// A position reached by `plies` pseudo-random legal moves from a start chosen by `seed`;
/// odd seeds prefer captures so hands fill up and drops get exercised.
fn playout(seed: u64, plies: usize) -> Position {
    let starts = [
        "startpos",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1",
    ];
    let mut pos = Position::from_sfen(starts[(seed % 3) as usize]).unwrap();
    let mut state = seed | 1;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let captures: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| !m.is_drop() && pos.piece_at(m.to()).is_some())
            .collect();
        let mv = if seed % 2 == 1 && !captures.is_empty() {
            captures[(state % captures.len() as u64) as usize]
        } else {
            moves.as_slice()[(state % moves.len() as u64) as usize]
        };
        pos.play_unchecked(mv);
    }
    pos
}

fn every_syntactic_move() -> Vec<Move> {
    let mut all = Vec::new();
    for from in Square::all() {
        for to in Square::all().filter(|&t| t != from) {
            all.push(Move::Normal {
                from,
                to,
                promote: false,
            });
            all.push(Move::Normal {
                from,
                to,
                promote: true,
            });
        }
    }
    for kind in PieceKind::HAND_ORDER {
        all.extend(Square::all().map(|to| Move::Drop { kind, to }));
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn sfen_round_trips(seed in any::<u64>(), plies in 0usize..150) {
        let pos = playout(seed, plies);
        let sfen = pos.to_sfen();
        let parsed = Position::from_sfen(&sfen).unwrap();
        prop_assert_eq!(parsed.to_sfen(), sfen);
        // The incrementally updated key equals the key computed from scratch.
        prop_assert_eq!(parsed.key(), pos.key());
    }

    #[test]
    fn make_unmake_restores_exactly(seed in any::<u64>(), plies in 0usize..150) {
        let pos = playout(seed, plies);
        for mv in pos.legal_moves() {
            let mut p = pos.clone();
            let undo = p.make(mv);
            prop_assert_eq!(p.key(), Position::from_sfen(&p.to_sfen()).unwrap().key());
            p.unmake(mv, undo);
            prop_assert_eq!(&p, &pos, "after {}", mv);
        }
    }

    #[test]
    fn is_legal_agrees_with_generation(seed in any::<u64>(), plies in 0usize..150) {
        let pos = playout(seed, plies);
        let moves = pos.legal_moves();
        for mv in every_syntactic_move() {
            prop_assert_eq!(pos.is_legal(mv), moves.contains(mv), "{} in {}", mv, pos.to_sfen());
        }
    }

    #[test]
    fn perft_one_is_move_count(seed in any::<u64>(), plies in 0usize..150) {
        let pos = playout(seed, plies);
        prop_assert_eq!(perft(&pos, 1), pos.legal_moves().len() as u64);
        let mut unique: Vec<Move> = pos.legal_moves().into_iter().collect();
        unique.sort();
        unique.dedup();
        prop_assert_eq!(unique.len(), pos.legal_moves().len(), "duplicate moves");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Arbitrary text never panics the parser.
    #[test]
    fn sfen_parser_never_panics(text in "\\PC{0,120}") {
        let _ = Position::from_sfen(&text);
    }

    /// Valid SFENs with one byte replaced either fail with an in-range column or parse into a
    /// position whose canonical SFEN parses back to the same position.
    #[test]
    fn mutated_sfen_fails_cleanly_or_round_trips(seed in any::<u64>(), at in any::<prop::sample::Index>(),
                                                  byte in prop::sample::select(b"0123456789+/ -bwPLNSGBRKplnsgbrkx".to_vec())) {
        let mut text = playout(seed, (seed % 80) as usize).to_sfen().into_bytes();
        let i = at.index(text.len());
        text[i] = byte;
        let text = String::from_utf8(text).unwrap();
        match Position::from_sfen(&text) {
            Ok(pos) => {
                let again = Position::from_sfen(&pos.to_sfen()).unwrap();
                prop_assert_eq!(again.to_sfen(), pos.to_sfen());
            }
            Err(e) => prop_assert!(e.column >= 1 && e.column <= text.len() + 1, "{} for {:?}", e, text),
        }
    }
}
