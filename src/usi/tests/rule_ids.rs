//! The parser names its rules only through `rule.rs`.

use std::path::Path;

/// Rule IDs are named only through `rule.rs`, so `rule::ALL` is the complete list.
#[test]
fn no_rule_id_literals_outside_rule_rs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/usi");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("rule.rs") {
            let source = std::fs::read_to_string(&path).unwrap();
            assert!(
                !source.contains("\"USI-"),
                "{} spells a rule ID literally",
                path.display()
            );
        }
    }
}
