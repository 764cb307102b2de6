//! Arbitrary bytes → SFEN parser. An accepted SFEN must format canonically and re-parse to the
//! same position; validation and move generation never panic on anything the parser accepts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use usicheck::shogi::{Position, Strictness, perft, validate};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let pos = match Position::from_sfen(text) {
        Ok(pos) => pos,
        Err(err) => {
            assert!(
                err.column >= 1 && err.column <= text.len() + 1,
                "column {} outside {text:?}",
                err.column
            );
            return;
        }
    };
    let canonical = pos.to_sfen();
    let reparsed = Position::from_sfen(&canonical)
        .unwrap_or_else(|e| panic!("canonical SFEN {canonical:?} of {text:?} rejected: {e}"));
    assert_eq!(
        reparsed, pos,
        "{text:?} → {canonical:?} is another position"
    );
    assert_eq!(reparsed.to_sfen(), canonical, "formatting is not canonical");
    for strictness in [
        Strictness::Strict,
        Strictness::Lenient,
        Strictness::Unchecked,
    ] {
        let _ = validate(&pos, strictness);
    }
    // The generator promises correct moves only for positions a lenient validator accepts.
    if validate(&pos, Strictness::Lenient).is_ok() {
        let moves = pos.legal_moves();
        assert_eq!(
            perft(&pos, 1),
            moves.len() as u64,
            "perft(1) in {canonical}"
        );
        for &mv in moves.iter() {
            assert!(
                pos.is_legal(mv),
                "generated {mv} is not legal in {canonical}"
            );
        }
    }
});
