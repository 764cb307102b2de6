//! Perft speed, usicheck against shunsai, measured in one run and process.
//!
//! `cargo bench --bench perft` prints leaves per second for each workload and the ratio
//! usicheck / shunsai (goal: bulk >= 1.15, full make/unmake >= 1.0).

use std::hint::black_box;
use std::ops::ControlFlow;
use std::time::Instant;
use usicheck::shogi::{Position, perft, perft_full};

/// shunsai's fastest bulk perft: at the last ply count move sets by population count.
fn shunsai_bulk(
    pos: &mut shunsai::Position,
    depth: u32,
    buffers: &mut [Vec<shogi_core::Move>],
) -> u64 {
    if depth == 1 {
        let mut n = 0u64;
        let _ = pos.generate_moves(|set| {
            n += set.len() as u64;
            ControlFlow::Continue(())
        });
        return n;
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    fill(pos, moves);
    let mut n = 0;
    for &mv in moves.iter() {
        let undo = pos.do_move(mv);
        n += shunsai_bulk(pos, depth - 1, rest);
        pos.undo_move(mv, undo);
    }
    n
}

/// shunsai perft that plays every move down to the leaves.
fn shunsai_full(
    pos: &mut shunsai::Position,
    depth: u32,
    buffers: &mut [Vec<shogi_core::Move>],
) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    fill(pos, moves);
    let mut n = 0;
    for &mv in moves.iter() {
        let undo = pos.do_move(mv);
        n += shunsai_full(pos, depth - 1, rest);
        pos.undo_move(mv, undo);
    }
    n
}

fn fill(pos: &shunsai::Position, moves: &mut Vec<shogi_core::Move>) {
    moves.clear();
    let _ = pos.generate_moves(|set| {
        set.write_into(moves);
        ControlFlow::Continue(())
    });
}

/// Best of `runs` timings; returns (leaves, seconds).
fn measure(runs: u32, f: impl Fn() -> u64) -> (u64, f64) {
    let mut best = f64::INFINITY;
    let mut leaves = 0;
    for _ in 0..runs {
        let t = Instant::now();
        leaves = black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    (leaves, best)
}

fn main() {
    let ours = Position::startpos();
    let buffers = || (0..8).map(|_| Vec::with_capacity(600)).collect::<Vec<_>>();
    let workloads: [(&str, u32, u32, bool); 3] = [
        ("bulk perft 5", 5, 3, true),
        ("bulk perft 6", 6, 1, true),
        ("full perft 5", 5, 2, false),
    ];
    println!(
        "{:<14} {:>12} {:>14} {:>14} {:>7}",
        "workload", "leaves", "usicheck M/s", "shunsai M/s", "ratio"
    );
    for (name, depth, runs, bulk) in workloads {
        let (n_ours, t_ours) = measure(runs, || {
            if bulk {
                perft(black_box(&ours), depth)
            } else {
                perft_full(black_box(&ours), depth)
            }
        });
        let (n_theirs, t_theirs) = measure(runs, || {
            let mut pos = shunsai::Position::startpos();
            let mut b = buffers();
            if bulk {
                shunsai_bulk(&mut pos, depth, &mut b)
            } else {
                shunsai_full(&mut pos, depth, &mut b)
            }
        });
        assert_eq!(n_ours, n_theirs, "{name}: leaf counts differ");
        let (ours_rate, theirs_rate) = (
            n_ours as f64 / t_ours / 1e6,
            n_theirs as f64 / t_theirs / 1e6,
        );
        println!(
            "{name:<14} {n_ours:>12} {ours_rate:>14.1} {theirs_rate:>14.1} {:>6.2}x",
            ours_rate / theirs_rate
        );
    }
}
