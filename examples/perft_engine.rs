//! A tiny USI engine that answers `go perft N` Stockfish-style (`MOVE: COUNT` per root move, then
//! `Nodes searched: N`) with a deliberately broken move generator: it never generates a bishop
//! move that promotes. With `--correct` it uses the reference generator unchanged.
//! The engine perft check (`usicheck perft --engine`) is tested against it.

use std::io::{BufRead, Write};
use usicheck::shogi::{Move, PieceKind, Position, position_after};

fn dropped(pos: &Position, m: Move, correct: bool) -> bool {
    !correct
        && m.is_promotion()
        && m.from()
            .and_then(|from| pos.piece_at(from))
            .is_some_and(|p| p.kind == PieceKind::Bishop)
}

fn moves(pos: &Position, correct: bool) -> Vec<Move> {
    pos.legal_moves()
        .iter()
        .copied()
        .filter(|&m| !dropped(pos, m, correct))
        .collect()
}

fn perft(pos: &Position, depth: u32, correct: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    moves(pos, correct)
        .into_iter()
        .map(|m| perft(&pos.after(m), depth - 1, correct))
        .sum()
}

fn main() {
    let correct = std::env::args().any(|a| a == "--correct");
    let mut pos = Position::startpos();
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["usi"] => {
                let _ = writeln!(out, "id name perft-engine\nid author usicheck\nusiok");
            }
            ["isready"] => {
                let _ = writeln!(out, "readyok");
            }
            ["position", rest @ ..] => {
                let text = rest.join(" ");
                let (base, moves) = match text.split_once(" moves") {
                    Some((b, m)) => (b.to_string(), m.split_whitespace().collect::<Vec<_>>()),
                    None => (text.clone(), Vec::new()),
                };
                if let Ok(p) = position_after(&base, &moves) {
                    pos = p;
                }
            }
            ["go", "perft", n] => {
                let depth: u32 = n.parse().unwrap_or(1).max(1);
                let mut total = 0;
                for m in moves(&pos, correct) {
                    let count = perft(&pos.after(m), depth - 1, correct);
                    total += count;
                    let _ = writeln!(out, "{m}: {count}");
                }
                let _ = writeln!(out, "\nNodes searched: {total}");
            }
            ["quit"] => break,
            _ => {}
        }
        let _ = out.flush();
    }
}
