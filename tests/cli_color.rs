//! `--color WHEN` on the commands that colour their report (`run`, `certify`, `selftest`):
//! `always` colours a pipe even under NO_COLOR, `never` leaves it plain even under
//! CLICOLOR_FORCE, `auto` honours both, and any other value is a usage error.

use assert_cmd::Command;

const SCENARIO: &str = "03-ready/isready-twice";
const ESCAPE: char = '\u{1b}';

/// `usicheck run SCENARIO --simulate ARGS` with stdout a pipe, the colour variables set as
/// `env` says and no others; exit code and stdout.
fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let mut command = Command::cargo_bin("usicheck").unwrap();
    command
        .args(["run", SCENARIO, "--simulate"])
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    (output.status.code().unwrap(), stdout)
}

#[test]
fn always_colours_a_pipe_even_under_no_color() {
    let (code, out) = run(&["--color", "always"], &[("NO_COLOR", "1")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\u{1b}[1m"), "{out}");
}

#[test]
fn never_is_plain_even_under_clicolor_force() {
    let (code, out) = run(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains(ESCAPE), "{out}");
}

#[test]
fn auto_honours_the_environment() {
    let (_, plain) = run(&[], &[]);
    assert!(!plain.contains(ESCAPE), "a pipe is plain: {plain}");
    let (_, forced) = run(&["--color", "auto"], &[("CLICOLOR_FORCE", "1")]);
    assert!(forced.contains(ESCAPE), "{forced}");
    let (_, both) = run(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!both.contains(ESCAPE), "NO_COLOR wins: {both}");
}

#[test]
fn certify_colours_too() {
    let output = Command::cargo_bin("usicheck")
        .unwrap()
        .args(["certify", "--simulate", "--rule", "USI-READY-006"])
        .args(["--color", "always"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains(ESCAPE), "{stdout}");
}

#[test]
fn a_bad_value_is_a_usage_error() {
    for command in ["run", "certify", "selftest"] {
        let output = Command::cargo_bin("usicheck")
            .unwrap()
            .args([command, "--color", "sometimes"])
            .output()
            .unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            stderr.starts_with(
                "usicheck: error: invalid value 'sometimes' for '--color <WHEN>' \
                 [possible values: auto, always, never]"
            ),
            "{command}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}
