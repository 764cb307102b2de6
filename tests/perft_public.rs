//! Every row of data/perft/public.tsv: the shallow depths by default, the rest `#[ignore]`d.

use std::path::Path;
use usicheck::shogi::{Position, perft};

const SUITE: &str = include_str!("../data/perft/public.tsv");

/// Rows larger than this many leaves run only with `--ignored`.
const DEFAULT_MAX_NODES: u64 = 20_000_000;

fn rows() -> Vec<(String, Position, Vec<u64>)> {
    SUITE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("name\t") && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            let pos = Position::from_sfen(cols[1]).unwrap_or_else(|e| panic!("{}: {e}", cols[0]));
            let counts = cols[2].split(',').map(|c| c.parse().unwrap()).collect();
            (cols[0].to_string(), pos, counts)
        })
        .collect()
}

fn check(select: impl Fn(u64) -> bool) -> usize {
    let mut checked = 0;
    for (name, pos, counts) in rows() {
        for (i, &expected) in counts.iter().enumerate() {
            if select(expected) {
                let depth = i as u32 + 1;
                assert_eq!(perft(&pos, depth), expected, "{name} depth {depth}");
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn shallow_rows_match() {
    assert!(check(|n| n <= DEFAULT_MAX_NODES) >= 30);
}

#[test]
#[ignore = "slow tier: about a minute"]
fn deep_rows_up_to_one_billion_match() {
    check(|n| n > DEFAULT_MAX_NODES && n <= 1_000_000_000);
}

#[test]
#[ignore = "hours: cargo test --release --test perft_public -- --ignored deepest_rows_match"]
fn deepest_rows_match() {
    check(|n| n > 1_000_000_000);
}

/// The copy in data/perft/ must stay in step with the workspace's published counts; a clone
/// without the workspace has only the copy, so there is nothing to compare.
#[test]
fn suite_copy_matches_the_workspace_suite() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/perft/public.tsv");
    let Ok(published) = std::fs::read_to_string(&workspace) else {
        eprintln!("skipped: {} not found", workspace.display());
        return;
    };
    assert!(
        published == SUITE,
        "data/perft/public.tsv differs from {}; copy it over: `cp ../shared/perft/public.tsv data/perft/`",
        workspace.display()
    );
}
