//! The README and `usicheck --help` tell the same story: every subcommand is in the README's
//! command table and every command there exists; every flag the README's examples use is in
//! that subcommand's help; the set-up commands are the documented two.

use assert_cmd::Command;
use std::collections::BTreeSet;

const README: &str = include_str!("../README.md");

fn help(args: &[&str]) -> String {
    let output = Command::cargo_bin("usicheck")
        .unwrap()
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(output.status.success(), "usicheck {args:?} --help failed");
    String::from_utf8(output.stdout).unwrap()
}

/// Subcommands listed under `Commands:` in `usicheck --help`, with their one-line description.
fn subcommands() -> Vec<(String, String)> {
    let top = help(&[]);
    let commands = top
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands: section");
    let mut listed: Vec<(String, String)> = Vec::new();
    for line in commands.lines().take_while(|line| line.starts_with("  ")) {
        if line.starts_with("   ") {
            // A wrapped description continues the previous command's.
            if let Some((_, about)) = listed.last_mut() {
                about.push(' ');
                about.push_str(line.trim());
            }
            continue;
        }
        let line = line.trim_start();
        let (name, about) = line.split_once(' ').unwrap_or((line, ""));
        listed.push((name.to_owned(), about.trim().to_owned()));
    }
    listed.retain(|(name, _)| name != "help");
    listed
}

/// The section of the README under `## title`.
fn section(title: &str) -> &'static str {
    let start = README
        .find(&format!("\n## {title}\n"))
        .unwrap_or_else(|| panic!("README has no `## {title}` section"));
    let rest = &README[start + title.len() + 5..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// `usicheck NAME` occurrences in the first cell of each row of the README's command table.
fn readme_commands() -> BTreeSet<String> {
    section("Commands")
        .lines()
        .filter(|line| line.starts_with("| `usicheck"))
        .flat_map(|line| {
            let cell = line.split('|').nth(1).unwrap_or("");
            cell.split("`usicheck ")
                .skip(1)
                .map(|rest| rest.split([' ', '`']).next().unwrap_or("").to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_subcommand_is_documented_and_every_documented_command_exists() {
    let listed = subcommands();
    assert!(listed.len() >= 3, "parsed too few subcommands: {listed:?}");
    for (name, about) in &listed {
        assert!(
            !about.is_empty(),
            "`usicheck {name}` has no description in --help"
        );
    }
    let in_help: BTreeSet<String> = listed.into_iter().map(|(name, _)| name).collect();
    let in_readme = readme_commands();
    let undocumented: Vec<_> = in_help.difference(&in_readme).collect();
    let missing: Vec<_> = in_readme.difference(&in_help).collect();
    assert!(
        undocumented.is_empty(),
        "subcommands missing from README's command table: {undocumented:?}"
    );
    assert!(
        missing.is_empty(),
        "README documents commands `usicheck --help` lacks: {missing:?}"
    );
}

/// Every `usicheck SUBCOMMAND --flag` in the README's code blocks uses a flag that subcommand's
/// help lists (flags after a bare `--` belong to the engine).
#[test]
fn readme_examples_use_existing_flags() {
    let commands: BTreeSet<String> = subcommands().into_iter().map(|(name, _)| name).collect();
    let mut checked = 0;
    let mut in_code = false;
    for line in README.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            continue;
        }
        let line = line.split(" # ").next().unwrap_or(line);
        let words: Vec<&str> = line.split_whitespace().collect();
        for (i, word) in words.iter().enumerate() {
            let Some(&sub) = words.get(i + 1) else {
                continue;
            };
            if *word != "usicheck" || sub.starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            assert!(
                commands.contains(sub),
                "README runs unknown `usicheck {sub}`: {line}"
            );
            let sub_help = help(&[sub]);
            for flag in words[i + 2..]
                .iter()
                .take_while(|w| **w != "--" && !w.starts_with(['>', '|', ';']))
                .filter(|w| w.starts_with("--"))
            {
                let flag = flag.split('=').next().unwrap();
                assert!(
                    sub_help.contains(flag),
                    "README uses `usicheck {sub} {flag}`, which its help lacks: {line}"
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 10,
        "only {checked} flags checked: did the README lose its examples?"
    );
}

/// The set-up section has the two commands a bare machine runs, the main job and the tests,
/// then the slow tier's.
#[test]
fn set_up_is_the_two_documented_commands() {
    let setup = section("Set up");
    let blocks: Vec<&str> = setup
        .split("```")
        .skip(1)
        .step_by(2)
        .map(|block| block.trim_start_matches("sh").trim())
        .collect();
    assert_eq!(
        blocks,
        [
            "cargo run --release -- certify",
            "cargo test --release",
            "cargo slow-tier"
        ]
    );
    assert!(help(&["certify"]).contains("--report-dir"));
}

/// `--jobs` means one thing in every command that takes it (src/cli/jobs.rs): each help says so
/// in the same words.
#[test]
fn every_jobs_flag_has_the_one_meaning() {
    for command in ["run", "certify", "selftest", "fuzz", "play"] {
        let text = help(&[command]);
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let jobs = words
            .split(" --jobs ")
            .nth(1)
            .unwrap_or_else(|| panic!("`usicheck {command} --help` has no --jobs"));
        assert!(
            jobs.contains("Sessions at once, each with its own engine under test: here,"),
            "usicheck {command} --jobs: {}",
            &jobs[..jobs.len().min(200)]
        );
    }
}
