//! Arbitrary bytes → engine-output parser. It never panics, every diagnostic names a rule of the
//! catalogue with a one-line message, and the canonical form of a parsed message reads back as
//! the same message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use usicheck::usi::{Message, rule};

fuzz_target!(|data: &[u8]| {
    // The driver hands the parser lossily decoded lines without their `\n`.
    let text = String::from_utf8_lossy(data);
    let line = text.split('\n').next().unwrap_or_default();
    let (message, diagnostics) = Message::parse(line);
    for diagnostic in &diagnostics {
        // A `RuleId` is a catalogue rule by construction; the parser names it from its list.
        assert!(rule::ALL.contains(&diagnostic.rule), "{diagnostic:?}");
        assert!(!diagnostic.message.is_empty(), "{diagnostic:?}");
        assert!(
            !diagnostic.message.contains(['\n', '\r']),
            "multi-line diagnostic {diagnostic:?}"
        );
    }
    let canonical = message.to_string();
    let (reparsed, _) = Message::parse(&canonical);
    assert_eq!(reparsed, message, "{line:?} → {canonical:?}");
});
