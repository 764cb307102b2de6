//! `--color WHEN` on every command that prints coloured text (`run`, `certify`, `selftest`,
//! `rules`, `list`, `diff`, `play`, `fuzz`): `always` colours a pipe even under NO_COLOR,
//! `never` leaves it plain even under CLICOLOR_FORCE, `auto` honours both, and any other value
//! is a usage error. `play` and `fuzz` start the reference engine as a process: slow tier.

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
    for command in [
        "run", "certify", "selftest", "rules", "list", "diff", "play", "fuzz",
    ] {
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

/// `usicheck ARGS` with stdout a pipe and no colour variable but `env`: its stdout.
fn stdout_of(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut command = Command::cargo_bin("usicheck").unwrap();
    command
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE");
    for (key, value) in env {
        command.env(key, value);
    }
    String::from_utf8(command.output().unwrap().stdout).unwrap()
}

/// `args` (a command and its arguments) coloured by `--color always` under NO_COLOR, plain by
/// `--color never` under CLICOLOR_FORCE and by default into a pipe; returns the coloured and
/// the plain output.
fn colours_only_when_told(args: &[&str]) -> (String, String) {
    // Right after the command: before any `--` that starts an engine's command line.
    let with = |when: &'static str| [&args[..1], &["--color", when], &args[1..]].concat();
    let coloured = stdout_of(&with("always"), &[("NO_COLOR", "1")]);
    assert!(coloured.contains(ESCAPE), "{args:?}: {coloured}");
    let plain = stdout_of(&with("never"), &[("CLICOLOR_FORCE", "1")]);
    assert!(!plain.contains(ESCAPE), "{args:?}: {plain}");
    let piped = stdout_of(args, &[]);
    assert!(!piped.contains(ESCAPE), "{args:?}: {piped}");
    (coloured, plain)
}

#[test]
fn rules_list_and_diff_colour_a_pipe_when_told() {
    let report = std::env::temp_dir().join(format!("usicheck-color-{}.json", std::process::id()));
    let text = r#"{"schema": "usicheck-fuzz/1", "seconds": 2.0, "sessions": 3, "findings": []}"#;
    std::fs::write(&report, text).unwrap();
    let report = report.to_str().unwrap();
    let styles = regex::Regex::new("\u{1b}\\[[0-9;]*m").unwrap();
    for args in [
        vec!["rules"],
        vec!["rules", "USI-READY-001"],
        vec!["list", "03-ready"],
        vec!["diff", report, report],
    ] {
        let (coloured, plain) = colours_only_when_told(&args);
        assert_eq!(styles.replace_all(&coloured, ""), plain, "{args:?}");
    }
}

#[test]
#[ignore = "slow tier: play and fuzz start the reference engine as a process"]
fn play_and_fuzz_colour_a_pipe_when_told() {
    let engine = [
        "--option",
        "NoSuchOption=1",
        "--",
        env!("CARGO_BIN_EXE_usicheck"),
        "engine",
        "--fault=crash-on-unknown-option",
    ];
    let out = std::env::temp_dir().join(format!("usicheck-color-fuzz-{}", std::process::id()));
    let out = out.to_str().unwrap();
    let play = [&["play", "--games", "1"][..], &engine].concat();
    let fuzz = [
        &["fuzz", "--runs", "1", "--seed", "1", "--out", out][..],
        &engine,
    ]
    .concat();
    for args in [play, fuzz] {
        let (coloured, _) = colours_only_when_told(&args);
        assert!(coloured.contains("\u{1b}[1m"), "{coloured}");
    }
    let _ = std::fs::remove_dir_all(out);
}
