//! Arbitrary bytes → USI move parser. An accepted move formats back to exactly the input, and
//! the protocol's move token (which also knows `resign`, `win`, …) agrees with it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use usicheck::shogi::Move;
use usicheck::usi::MoveToken;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let token = MoveToken::parse(text);
    match text.parse::<Move>() {
        Ok(mv) => {
            assert_eq!(mv.to_string(), text, "accepted move formats differently");
            assert_eq!(
                token.as_move(),
                Some(mv),
                "move token disagrees on {text:?}"
            );
        }
        Err(err) => {
            let _ = err.to_string();
            assert_eq!(
                token.as_move(),
                None,
                "move token accepts rejected {text:?}"
            );
        }
    }
    // The token's canonical text reads back as the same token.
    assert_eq!(
        MoveToken::parse(&token.to_string()),
        token,
        "token of {text:?}"
    );
});
