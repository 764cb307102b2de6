//! The guard that keeps blame in one place: the drivers (the scenario runner, the fuzzer,
//! `play` and the harness) name no rule for a symptom. What a missing reply, a death, an
//! ignored `quit`, a broken basic and the like break is decided in this module; the
//! always-on checks name their own rules in the observer; a scenario names its checks' rules
//! in its YAML.
//!
//! The check is textual, as `src/rules/literal_ids.rs` is: in the drivers' production code
//! (comment lines and the `#[cfg(test)]` module at a file's end left out), every `rule!(` is
//! one of [`ALLOWED`], each pinned to its file, its text and its count, with why it picks no
//! rule for a symptom. An entry no longer met fails too, so that the list stays exact.

use crate::rules::literal_ids::rust_files;
use std::path::Path;

/// The drivers' source folders.
const DRIVERS: [&str; 4] = [
    "src/scenario/runner",
    "src/fuzzer",
    "src/play",
    "src/harness",
];

/// A `rule!` a driver may hold: in `file`, on lines holding `text`, `count` times in all.
struct Allowed {
    file: &'static str,
    text: &'static str,
    count: usize,
    /// Why it decides no symptom's rule.
    why: &'static str,
}

const ALLOWED: &[Allowed] = &[
    Allowed {
        file: "src/fuzzer/oracle.rs",
        text: "crate::rule!(",
        count: 15,
        why: "sorts a rule already charged into the fuzzer's oracles (whether a session goes on)",
    },
    Allowed {
        file: "src/fuzzer/finding.rs",
        text: "violation.rule == crate::rule!(",
        count: 1,
        why: "the reproducer's check of the finding's own rule: a ponder move must be legal",
    },
    Allowed {
        file: "src/play/mod.rs",
        text: "let rule = crate::rule!(",
        count: 1,
        why: "play's own check of its rule: memory, threads or children growing over a match",
    },
];

/// The production lines of `source` holding `rule!(`, once per occurrence.
fn rule_lines(source: &str) -> Vec<&str> {
    source
        .lines()
        .take_while(|line| line.trim() != "#[cfg(test)]")
        .filter(|line| !line.trim_start().starts_with("//"))
        .flat_map(|line| std::iter::repeat_n(line, line.matches("rule!(").count()))
        .collect()
}

#[test]
fn the_drivers_name_no_rule_for_a_symptom() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in DRIVERS {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    let mut met = vec![0; ALLOWED.len()];
    let mut refused = Vec::new();
    for path in &files {
        let name = path.strip_prefix(root).unwrap().to_string_lossy();
        let source = std::fs::read_to_string(path).unwrap();
        for line in rule_lines(&source) {
            let allowed = ALLOWED
                .iter()
                .position(|a| a.file == name && line.contains(a.text));
            match allowed {
                Some(index) => met[index] += 1,
                None => refused.push(format!("{name}: {}", line.trim())),
            }
        }
    }
    assert!(
        refused.is_empty(),
        "a driver names a rule (decide a symptom's rule in src/blame/, or let the check that \
         owns the rule name it):\n{}",
        refused.join("\n")
    );
    for (allowed, met) in ALLOWED.iter().zip(met) {
        assert_eq!(
            met, allowed.count,
            "{}: `{}` is allowed {} times ({}), met {met}",
            allowed.file, allowed.text, allowed.count, allowed.why
        );
    }
}

#[test]
fn the_guard_sees_a_rule_and_skips_comments_and_tests() {
    let source =
        "let r = crate::rule!(GO_002);\n// rule!(GO_004)\n#[cfg(test)]\nmod t { rule!(GO_005) }\n";
    assert_eq!(rule_lines(source), ["let r = crate::rule!(GO_002);"]);
}
