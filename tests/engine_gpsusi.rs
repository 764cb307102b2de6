//! Debian's `gpsusi` (package gpsshogi) against tests/expected/gpsusi.tsv (see
//! tests/real_engines/mod.rs). `BookDepth=0` makes it search rather than play from its book.

mod real_engines;
mod suite;

#[test]
#[ignore = "slow tier: a Debian engine in real time"]
fn gpsusi_verdicts_match_the_expected_list() {
    real_engines::certify_matches(
        "/usr/games/gpsusi",
        &[],
        &[("BookDepth", "0")],
        include_str!("expected/gpsusi.tsv"),
    );
}
