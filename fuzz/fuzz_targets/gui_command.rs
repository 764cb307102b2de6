//! Arbitrary bytes → GUI-command parser (what the reference engine reads). It never panics and
//! the canonical form of a parsed command reads back as the same command.
#![no_main]

use libfuzzer_sys::fuzz_target;
use usicheck::usi::Command;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let line = text.split('\n').next().unwrap_or_default();
    let command = Command::parse(line);
    let canonical = command.to_string();
    assert_eq!(
        Command::parse(&canonical),
        command,
        "{line:?} → {canonical:?}"
    );
});
