//! Debian's `sjaakii -usi` against tests/expected/sjaakii.tsv (see tests/real_engines/mod.rs).

mod real_engines;
mod suite;

#[test]
#[ignore = "slow tier: a Debian engine in real time"]
fn sjaakii_verdicts_match_the_expected_list() {
    real_engines::certify_matches(
        "/usr/games/sjaakii",
        &["-usi"],
        &[],
        include_str!("expected/sjaakii.tsv"),
    );
}
