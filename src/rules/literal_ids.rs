//! The guard that keeps rule IDs typed: Rust code under src/ names a rule with
//! [`rule!`](crate::rule), which fails the build for an ID that is not in the catalogue, never
//! with a string a typo would turn into a silent miss at run time.
//!
//! The check is textual and deliberately simple. In every .rs file under src/ outside
//! src/rules/ (which owns the catalogue and parses IDs), it drops comment lines (doc comments
//! and doctests, where IDs are prose or go through `rule!` anyway), removes every
//! `rule!("…")` invocation, and then finds no `"USI-` left. The only exceptions are the
//! literals in [`NOT_RULE_NAMES`], each pinned to its file and its exact text: report text
//! and file content that merely start with an ID, and the `USI-` prefix a label drops.

use std::path::{Path, PathBuf};

/// String literals that start with `"USI-` without naming a rule in code, by file.
const NOT_RULE_NAMES: &[(&str, &str)] = &[
    // The timeline label shortens an ID it reads from report.json.
    ("src/report/html/sequence.rs", r#""USI-")"#),
    // A baseline file's content, parsed by the test.
    (
        "src/report/baseline.rs",
        r#""USI-QUIT-002\t12-quit/quit-during-search\tknown\nUSI-STOP-002\t*\tslow stop\n""#,
    ),
    // A line of the terminal report the test expects.
    (
        "src/report/terminal.rs",
        r#""USI-READY-001 [MUST] Every `isready` gets exactly one `readyok`""#,
    ),
];

/// `line` without its `rule!("…")` invocations (any path before `rule!` stays, harmlessly).
fn without_rule_macros(line: &str) -> String {
    let mut rest = line;
    let mut kept = String::new();
    while let Some(start) = rest.find("rule!(\"") {
        kept.push_str(&rest[..start]);
        let after = &rest[start + "rule!(\"".len()..];
        match after.find("\")") {
            Some(end) => rest = &after[end + "\")".len()..],
            None => return kept + &rest[start..],
        }
    }
    kept + rest
}

/// Every .rs file under `dir`, into `files`.
pub(crate) fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn no_rule_id_literals_outside_rule_macros() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut found = Vec::new();
    for path in &files {
        let name = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if name.starts_with("src/rules/") {
            continue;
        }
        let source = std::fs::read_to_string(path).unwrap();
        for (index, line) in source.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            let mut code = without_rule_macros(line);
            for (file, text) in NOT_RULE_NAMES {
                if name == *file {
                    code = code.replace(text, "");
                }
            }
            if code.contains("\"USI-") {
                found.push(format!("{name}:{}: {}", index + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "rule IDs spelled as strings (name them with `crate::rule!(\"USI-…\")`):\n{}",
        found.join("\n")
    );
}

/// The exceptions still match something, so none outlives the code it excuses.
#[test]
fn every_exception_is_in_its_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (file, text) in NOT_RULE_NAMES {
        let source = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(source.contains(text), "{file} no longer holds {text}");
    }
}

#[test]
fn rule_macros_are_stripped_and_nothing_else() {
    assert_eq!(
        without_rule_macros(r#"f(crate::rule!("USI-GO-004"), "USI-GO-005")"#),
        r#"f(crate::, "USI-GO-005")"#
    );
    assert_eq!(
        without_rule_macros(r#"rule!("USI-GO-004""#),
        r#"rule!("USI-GO-004""#
    );
}
