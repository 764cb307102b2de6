//! `usicheck completions SHELL` and `usicheck man`: generated from the clap definitions, so
//! every subcommand is in them.

use assert_cmd::Command;

fn usicheck() -> Command {
    Command::cargo_bin("usicheck").unwrap()
}

fn stdout_of(args: &[&str]) -> String {
    let out = usicheck()
        .args(args)
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stdout).unwrap()
}

/// The stdout and stderr of `usicheck ARGS`, a usage error (exit 2).
fn usage_error(args: &[&str]) -> (Vec<u8>, String) {
    let out = usicheck().args(args).assert().code(2).get_output().clone();
    (out.stdout, String::from_utf8(out.stderr).unwrap())
}

/// The subcommands `usicheck --help` lists, without clap's own `help`.
fn subcommands() -> Vec<String> {
    let help = stdout_of(&["--help"]);
    let commands = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands: section");
    commands
        .lines()
        .take_while(|line| line.starts_with("  "))
        .filter(|line| !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|&name| name != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_shell_script_completes_every_subcommand() {
    let subcommands = subcommands();
    assert!(subcommands.len() >= 14, "{subcommands:?}");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout_of(&["completions", shell]);
        for name in &subcommands {
            assert!(
                script.contains(name.as_str()),
                "{shell} completions lack `{name}`"
            );
        }
        // Flags of subcommands are completed too, not only the command names.
        assert!(script.contains("report-dir"), "{shell}: no --report-dir");
    }
}

#[test]
fn unknown_shell_is_one_line_and_exit_2() {
    let (stdout, stderr) = usage_error(&["completions", "tcsh"]);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("'tcsh'"), "{stderr}");
    assert!(stdout.is_empty());
}

/// roff writes a `-` in a name as `\-`.
fn roff(name: &str) -> String {
    name.replace('-', "\\-")
}

#[test]
fn man_page_is_roff_naming_every_subcommand() {
    let page = stdout_of(&["man"]);
    assert!(page.contains("\n.TH usicheck 1 "), "{page}");
    assert!(page.contains("\n.SH NAME\nusicheck \\- "), "{page}");
    assert!(page.contains("\n.SH SUBCOMMANDS\n"), "{page}");
    for name in subcommands() {
        let reference = format!("\nusicheck\\-{}(1)\n", roff(&name));
        assert!(page.contains(&reference), "no {reference:?} in {page}");
    }
}

#[test]
fn man_dir_writes_one_page_per_subcommand() {
    let dir = std::env::temp_dir().join(format!("usicheck-man-{}", std::process::id()));
    let pages = dir.join("man1");
    stdout_of(&["man", "--dir", pages.to_str().unwrap()]);
    let top = std::fs::read_to_string(pages.join("usicheck.1")).unwrap();
    assert_eq!(top, stdout_of(&["man"]));
    for name in subcommands() {
        let page = std::fs::read_to_string(pages.join(format!("usicheck-{name}.1")))
            .unwrap_or_else(|e| panic!("usicheck-{name}.1: {e}"));
        let name_line = format!("\n.SH NAME\nusicheck\\-{} \\- ", roff(&name));
        assert!(
            page.contains(&name_line),
            "usicheck-{name}.1 lacks {name_line:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn man_dir_that_cannot_be_made_is_one_line_and_exit_2() {
    let (_, stderr) = usage_error(&["man", "--dir", "/dev/null/man1"]);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("/dev/null/man1"), "{stderr}");
}
