//! Debian's `fairy-stockfish` against tests/expected/fairy-stockfish.tsv (see
//! tests/real_engines/mod.rs).

mod real_engines;
mod suite;

#[test]
#[ignore = "slow tier: a Debian engine in real time"]
fn fairy_stockfish_verdicts_match_the_expected_list() {
    real_engines::certify_matches(
        "/usr/games/fairy-stockfish",
        &[],
        &[],
        include_str!("expected/fairy-stockfish.tsv"),
    );
}
