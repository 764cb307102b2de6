//! The rule IDs the parser reports exist in the catalogue index.

use crate::usi::rule;
use std::path::Path;

#[test]
fn every_reported_rule_is_in_the_catalogue() {
    let index = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/rules_index.tsv");
    let Ok(text) = std::fs::read_to_string(&index) else {
        eprintln!("skipped: catalogue index {} not found", index.display());
        return;
    };
    let ids: Vec<&str> = text
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .collect();
    assert_eq!(ids.len(), 148, "unexpected catalogue size");
    for id in rule::ALL {
        assert!(ids.contains(id), "{id} is not in {}", index.display());
    }
}

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
