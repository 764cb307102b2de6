//! Arbitrary bytes → scenario loader. It never panics, and every error is one line that starts
//! with the file name and carries a line and column.
#![no_main]

use libfuzzer_sys::fuzz_target;
use usicheck::scenario::load_str;

const FILE: &str = "fuzz.yaml";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match load_str(FILE, text) {
        Ok(scenario) => {
            let _ = scenario.rules_mismatch();
            let _ = scenario.step_rules();
        }
        Err(err) => {
            let shown = err.to_string();
            assert!(shown.starts_with("fuzz.yaml:"), "{shown}");
            assert!(!shown.contains(['\n', '\r']), "multi-line error {shown:?}");
            assert!(!err.message.is_empty(), "{shown}");
            let Some((line, column)) = err.position else {
                panic!("error without a location: {shown}");
            };
            assert!(line >= 1 && column >= 1, "{shown}");
        }
    }
});
