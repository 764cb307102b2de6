//! usicheck.toml and `usicheck init` end to end: the configured engine is certified, the file
//! is found from a subdirectory but not above the repository root, flags win over the file,
//! relative paths are the file's, a bad file is a one-line `FILE:LINE:COL` error with exit code
//! 2, and `init` writes a file that loads back (with its `--cwd` and timeouts). `run` and
//! `certify` run the configured reference engine simulated (`--simulate`); `init` and `fuzz`,
//! which have no such flag, start it as a process (no verdict of theirs here depends on its
//! timing).

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

const USICHECK: &str = env!("CARGO_BIN_EXE_usicheck");
const SCENARIO: &str = "03-ready/isready-twice";

/// A fresh empty directory for test `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("usicheck-config-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// usicheck run in `dir`.
fn usicheck(dir: &Path) -> Command {
    let mut command = Command::new(USICHECK);
    command.current_dir(dir);
    command
}

fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

/// An `[engine]` table running the built-in engine with `args` after `engine`.
fn reference_engine(args: &[&str]) -> String {
    let args: Vec<String> = std::iter::once("engine")
        .chain(args.iter().copied())
        .map(toml_string)
        .collect();
    format!(
        "[engine]\ncommand = {}\nargs = [{}]\n",
        toml_string(USICHECK),
        args.join(", ")
    )
}

/// `text` with each commented-out `KEY = VALUE` uncommented, but for the files that do not
/// exist (`baseline`, `engine-define`).
fn uncomment_settings(text: &str) -> String {
    text.lines()
        .map(|line| match line.strip_prefix("# ") {
            Some(setting)
                if setting.contains(" = ")
                    && !setting.starts_with("baseline")
                    && !setting.starts_with("engine-define") =>
            {
                setting
            }
            _ => line,
        })
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Exit code, stdout and stderr.
fn outcome(command: &mut Command) -> (i32, String, String) {
    let output = command.output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// The first run of a `--format json` report.
fn json_run(stdout: &str) -> (Value, Value) {
    let report: Value = serde_json::from_str(stdout).unwrap();
    let run = report["runs"][0].clone();
    (report, run)
}

#[test]
fn the_configured_engine_is_certified_and_a_fault_in_its_args_fails() {
    let dir = scratch("engine");
    fs::write(dir.join("usicheck.toml"), reference_engine(&[])).unwrap();
    let (code, out, err) =
        outcome(usicheck(&dir).args(["run", SCENARIO, "--simulate", "--format", "json"]));
    assert_eq!(code, 0, "{out}{err}");
    let (_, run) = json_run(&out);
    assert_eq!(run["engine"], serde_json::json!([USICHECK, "engine"]));
    let (code, out, err) =
        outcome(usicheck(&dir).args(["certify", "--simulate", "--rule", "USI-READY-006"]));
    assert_eq!(code, 0, "{out}{err}");

    let faulty = reference_engine(&["--fault", "double-readyok"]);
    fs::write(dir.join("usicheck.toml"), faulty).unwrap();
    let (code, out, err) = outcome(usicheck(&dir).args(["run", SCENARIO, "--simulate"]));
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("USI-READY-001"), "{out}");
}

#[test]
fn flags_win_over_the_file_and_options_merge_by_name() {
    let dir = scratch("flags");
    let file = format!(
        "{}[engine.options]\nUSI_Hash = 16\nMultiPV = 1\nShowCurrMove = true\n\
         [certify]\nprofile = \"usi1\"\nfail-on = \"should\"\n",
        reference_engine(&["--fault", "double-readyok"])
    );
    fs::write(dir.join("custom.toml"), file).unwrap();
    let (code, out, err) = outcome(usicheck(&dir).args([
        "run",
        SCENARIO,
        "--simulate",
        "--config",
        "custom.toml",
        "--profile",
        "strict",
        "--option",
        "MultiPV=2",
        "--format",
        "json",
        "--",
        USICHECK,
        "engine",
    ]));
    assert_eq!(
        code, 0,
        "the command line's engine has no fault: {out}{err}"
    );
    let (report, run) = json_run(&out);
    assert_eq!(run["engine"], serde_json::json!([USICHECK, "engine"]));
    assert_eq!(run["profile"], "strict", "the flag wins");
    assert_eq!(
        report["fail_on"], "should",
        "the file fills what no flag gives"
    );
    let options: Vec<String> = run["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            format!(
                "{}={}",
                o["name"].as_str().unwrap(),
                o["value"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(options, ["USI_Hash=16", "ShowCurrMove=true", "MultiPV=2"]);
}

#[test]
fn relative_paths_are_relative_to_the_file() {
    let dir = scratch("relative");
    let project = dir.join("project");
    fs::create_dir_all(&project).unwrap();
    // Named `usicheck`, so that `--simulate` knows the built-in engine in it.
    std::os::unix::fs::symlink(USICHECK, project.join("usicheck")).unwrap();
    let file = "[engine]\ncommand = \"./usicheck\"\nargs = [\"engine\"]\ncwd = \".\"\n\
                [certify]\nreport-dir = \"report\"\n";
    fs::write(project.join("usicheck.toml"), file).unwrap();
    let (code, out, err) = outcome(usicheck(&dir).args([
        "run",
        SCENARIO,
        "--simulate",
        "--config",
        "project/usicheck.toml",
        "--format",
        "json",
    ]));
    assert_eq!(code, 0, "{out}{err}");
    let (_, run) = json_run(&out);
    let engine = run["engine"][0].as_str().unwrap();
    assert!(Path::new(engine).is_absolute(), "{engine}");
    assert!(engine.ends_with("/project/usicheck"), "{engine}");
    assert!(project.join("report/summary.md").is_file());
    assert!(!dir.join("report").exists());
}

/// A directory `repo` in `dir` that is a repository's root (its `.git` a directory), with the
/// subdirectory `a/b` to run from.
fn repository(dir: &Path) -> (PathBuf, PathBuf) {
    let repo = dir.join("repo");
    let deep = repo.join("a/b");
    fs::create_dir_all(&deep).unwrap();
    fs::create_dir(repo.join(".git")).unwrap();
    (repo, deep)
}

/// The nearest usicheck.toml is found two directories up, and the report's header names it.
#[test]
fn the_file_is_found_from_a_subdirectory() {
    let dir = scratch("walk");
    let (repo, deep) = repository(&dir);
    let faulty = reference_engine(&["--fault", "double-readyok"]);
    fs::write(repo.join("usicheck.toml"), faulty).unwrap();
    let (code, out, err) = outcome(usicheck(&deep).args(["run", SCENARIO, "--simulate"]));
    assert_eq!(code, 1, "the file's engine has the fault: {out}{err}");
    let header = out.lines().next().unwrap_or_default();
    let named = format!(" · config {}", repo.join("usicheck.toml").display());
    assert!(header.ends_with(&named), "{header}");
}

/// The search stops at the repository root: a file above it is not the project's.
#[test]
fn no_file_above_the_repository_root_is_read() {
    let dir = scratch("walk-root");
    let (_, deep) = repository(&dir);
    let faulty = reference_engine(&["--fault", "double-readyok"]);
    fs::write(dir.join("usicheck.toml"), faulty).unwrap();
    let (code, out, err) =
        outcome(usicheck(&deep).args(["run", SCENARIO, "--simulate", "--format", "json"]));
    assert_eq!(code, 0, "the outer file's engine was run: {out}{err}");
    let (_, run) = json_run(&out);
    assert_eq!(run["engine"].as_array().map(Vec::len), Some(2), "{run}");
    assert_eq!(run["engine"][1], "engine");
    let (_, out, _) = outcome(usicheck(&deep).args(["run", SCENARIO, "--simulate"]));
    assert!(
        !out.lines()
            .next()
            .unwrap_or_default()
            .contains(" · config "),
        "{out}"
    );
}

/// `--config` wins over the file the search would find.
#[test]
fn the_config_flag_wins_over_the_file_found() {
    let dir = scratch("walk-flag");
    let (repo, deep) = repository(&dir);
    let faulty = reference_engine(&["--fault", "double-readyok"]);
    fs::write(repo.join("usicheck.toml"), faulty).unwrap();
    fs::write(deep.join("clean.toml"), reference_engine(&[])).unwrap();
    let (code, out, err) =
        outcome(usicheck(&deep).args(["run", SCENARIO, "--simulate", "--config", "clean.toml"]));
    assert_eq!(code, 0, "{out}{err}");
    let header = out.lines().next().unwrap_or_default();
    assert!(header.ends_with(" · config clean.toml"), "{header}");
}

#[test]
fn without_a_config_the_built_in_engine_is_certified_as_before() {
    let dir = scratch("none");
    let (code, out, err) =
        outcome(usicheck(&dir).args(["run", SCENARIO, "--simulate", "--format", "json"]));
    assert_eq!(code, 0, "{out}{err}");
    let (_, run) = json_run(&out);
    assert_eq!(run["engine"][1], "engine");
}

#[test]
fn errors_in_the_file_are_one_line_naming_its_line() {
    let dir = scratch("errors");
    let engine = reference_engine(&[]);
    let cases = [
        (
            format!("{engine}colour = \"blue\"\n"),
            "usicheck.toml:4:1: unknown field `colour`",
        ),
        (
            "[certify]\nprofile = \"usi3\"\n".to_owned(),
            "usicheck.toml:2:11:",
        ),
        ("[certify]\njobs = 0\n".to_owned(), "usicheck.toml:2:8:"),
        (
            "[timeouts]\nusiok = \"5 parsecs\"\n".to_owned(),
            "usicheck.toml:2:9:",
        ),
        (
            format!("{engine}[engine.options]\nUSI_Hash = {{ size = 1 }}\n"),
            "usicheck.toml:5:12: invalid type: map",
        ),
        ("[engine\n".to_owned(), "usicheck.toml:1:8:"),
    ];
    for (text, expected) in cases {
        fs::write(dir.join("usicheck.toml"), &text).unwrap();
        for command in [vec!["certify"], vec!["run", SCENARIO], vec!["fuzz"]] {
            let (code, out, err) = outcome(usicheck(&dir).args(&command));
            assert_eq!(code, 2, "{command:?} {text:?}: {out}{err}");
            assert!(
                err.starts_with(&format!("usicheck: error: {expected}")),
                "{command:?} {text:?}: {err}"
            );
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    let (code, _, err) = outcome(usicheck(&dir).args(["certify", "--config", "missing.toml"]));
    assert_eq!(code, 2);
    assert!(
        err.starts_with("usicheck: error: missing.toml: cannot read:"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
#[ignore = "slow tier: a fuzz session of the reference process in real time"]
fn fuzz_drives_the_configured_engine() {
    let dir = scratch("fuzz");
    fs::write(dir.join("usicheck.toml"), reference_engine(&[])).unwrap();
    let (code, out, err) =
        outcome(usicheck(&dir).args(["fuzz", "--runs", "1", "--episodes", "2", "--seed", "1"]));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 sessions"), "{out}");
    let header = out.lines().next().unwrap_or_default();
    assert!(header.ends_with(" · config usicheck.toml"), "{header}");
}

#[test]
#[ignore = "slow tier: a fuzz session of the reference process in real time"]
fn fuzz_takes_its_report_dir_from_its_own_table() {
    let dir = scratch("fuzz-table");
    let fuzz_with = |table: &str| {
        let config = format!("{}{table}", reference_engine(&[]));
        fs::write(dir.join("usicheck.toml"), config).unwrap();
        let (code, out, err) =
            outcome(usicheck(&dir).args(["fuzz", "--runs", "1", "--episodes", "2", "--seed", "1"]));
        assert_eq!(code, 0, "{out}{err}");
    };
    fuzz_with("[fuzz]\nreport-dir = \"campaign\"\njobs = 1\n");
    let report = fs::read_to_string(dir.join("campaign/report.json")).expect("report.json");
    let report: Value = serde_json::from_str(&report).unwrap();
    assert_eq!(report["sessions"], 1, "{report}");
    // A campaign's reports are not the gate's: certify's report-dir does not reach fuzz.
    fuzz_with("[certify]\nreport-dir = \"gate\"\n");
    assert!(!dir.join("gate").exists());
}

#[test]
fn init_writes_a_file_that_loads_back() {
    let dir = scratch("init");
    let (code, out, err) = outcome(usicheck(&dir).args(["init", "--", USICHECK, "engine"]));
    assert_eq!(code, 0, "{out}{err}");
    let text = fs::read_to_string(dir.join("usicheck.toml")).unwrap();
    for expected in [
        "usicheck-refengine",
        "\n# USI_Hash = 16  # spin, 1..256\n",
        "\n# ShowCurrMove = false  # check\n",
        "\n# ClearHash  # button",
        "\n# profile = \"shogidokoro\"",
        "\n# usiok = \"10s\"",
        "\n[play]\n",
        "\n# adjudicate-resign = \"movecount=3,score=1000\"",
    ] {
        assert!(text.contains(expected), "{expected:?} missing:\n{text}");
    }
    let (code, out, err) =
        outcome(usicheck(&dir).args(["run", SCENARIO, "--simulate", "--format", "json"]));
    assert_eq!(code, 0, "{out}{err}");
    let (_, run) = json_run(&out);
    assert_eq!(run["engine"], serde_json::json!([USICHECK, "engine"]));

    // Every setting uncommented, with its default, loads too.
    let uncommented = uncomment_settings(&text);
    fs::write(dir.join("usicheck.toml"), uncommented).unwrap();
    let (code, out, err) =
        outcome(usicheck(&dir).args(["run", SCENARIO, "--simulate", "--format", "json"]));
    assert_eq!(code, 0, "{out}{err}");
    let (_, run) = json_run(&out);
    assert_eq!(run["options"][0]["name"], "USI_Hash");
    assert!(dir.join("usicheck-report/summary.md").is_file());
}

#[test]
fn init_refuses_to_overwrite_without_force() {
    let dir = scratch("overwrite");
    fs::write(dir.join("usicheck.toml"), "# mine\n").unwrap();
    let (code, _, err) = outcome(usicheck(&dir).args(["init", "--", USICHECK, "engine"]));
    assert_eq!(code, 2);
    assert!(err.contains("usicheck.toml: already exists"), "{err}");
    assert_eq!(
        fs::read_to_string(dir.join("usicheck.toml")).unwrap(),
        "# mine\n"
    );

    let (code, out, err) =
        outcome(usicheck(&dir).args(["init", "--output", "other.toml", "--", USICHECK, "engine"]));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("--config other.toml"), "{out}");
    let (code, out, err) =
        outcome(usicheck(&dir).args(["init", "--force", "--", USICHECK, "engine"]));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        fs::read_to_string(dir.join("usicheck.toml"))
            .unwrap()
            .contains("[engine.options]")
    );
}

#[test]
fn init_escapes_what_a_hostile_engine_says() {
    let dir = scratch("hostile");
    let script = r#"read line
printf 'id name Evil\033[2J "x"\001\r\n'
printf 'id author back\\slash\n'
printf 'option name Pon"der type check default true\n'
printf 'option name Eval.Dir type string default "a\\b\001"\n'
printf 'option name Mode type combo default A"\002 var A"\002 var B\n'
printf 'usiok\n'
read line"#;
    let (code, out, err) = outcome(usicheck(&dir).args(["init", "--", "sh", "-c", script]));
    assert_eq!(code, 0, "{out}{err}");
    let text = fs::read_to_string(dir.join("usicheck.toml")).unwrap();
    assert!(
        !text.contains(|c: char| c.is_control() && c != '\n'),
        "control characters written:\n{text}"
    );
    assert!(text.contains("# 'Pon\"der' = true  # check\n"), "{text}");
    let uncommented = uncomment_settings(&text);
    let table: toml::Table = toml::from_str(&uncommented).unwrap();
    let options = table["engine"]["options"].as_table().unwrap();
    assert_eq!(options["Pon\"der"].as_bool(), Some(true));
    assert_eq!(options["Eval.Dir"].as_str(), Some("\"a\\b\u{1}\""));
    assert_eq!(options["Mode"].as_str(), Some("A\"\u{2}"));
    assert_eq!(table["engine"]["args"][1].as_str(), Some(script));
}

/// `init --cwd DIR`: the handshake runs in DIR (a relative engine path inside it, as for
/// certify), and the file says `cwd` and the engine's path relative to itself.
#[test]
fn init_runs_the_engine_in_cwd_and_writes_it() {
    let dir = scratch("init-cwd");
    let engines = dir.join("engines");
    fs::create_dir_all(&engines).unwrap();
    let script = engines.join("engine.sh");
    fs::write(
        &script,
        "#!/bin/sh\nread line\nprintf 'option name Dir type string default %s\\nusiok\\n' \"$(pwd)\"\nread line\n",
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let (code, out, err) =
        outcome(usicheck(&dir).args(["init", "--cwd", "engines", "--", "./engine.sh"]));
    assert_eq!(code, 0, "{out}{err}");
    let text = fs::read_to_string(dir.join("usicheck.toml")).unwrap();
    assert!(
        text.contains("/engines\"  # string\n"),
        "the engine's pwd:\n{text}"
    );
    let table: toml::Table = toml::from_str(&text).unwrap();
    assert_eq!(
        table["engine"]["command"].as_str(),
        Some("engines/engine.sh")
    );
    assert_eq!(table["engine"]["cwd"].as_str(), Some("engines"));

    let (code, _, err) = outcome(usicheck(&dir).args([
        "init", "--force", "--cwd", "missing", "--", USICHECK, "engine",
    ]));
    assert_eq!(code, 2);
    assert_eq!(err, "usicheck: error: --cwd missing: not a directory\n");
}

/// `init`'s timeouts bound its own handshake and go into `[timeouts]`, where they load back.
#[test]
fn init_takes_the_timeouts_and_writes_them() {
    let dir = scratch("init-timeouts");
    let (code, _, err) = outcome(usicheck(&dir).args([
        "init",
        "--usiok-timeout",
        "300ms",
        "--",
        "sh",
        "-c",
        "exec sleep 5",
    ]));
    assert_eq!(code, 2);
    assert!(
        err.contains("did not answer `usi` with `usiok` within 300ms"),
        "{err}"
    );
    // An engine flooding lines instead of `usiok` is cut off at the same deadline: its queued
    // lines do not keep the wait going (issue 48).
    let (code, _, err) = outcome(usicheck(&dir).args([
        "init",
        "--usiok-timeout",
        "300ms",
        "--",
        "sh",
        "-c",
        "exec yes 'info string flooding'",
    ]));
    assert_eq!(code, 2);
    assert!(
        err.contains("did not answer `usi` with `usiok` within 300ms"),
        "{err}"
    );

    let (code, _, err) =
        outcome(usicheck(&dir).args(["init", "--ready-timeout", "5", "--", USICHECK, "engine"]));
    assert_eq!(code, 2);
    assert!(
        err.starts_with("usicheck: error: --ready-timeout 5: expected a positive duration"),
        "{err}"
    );
    assert!(!dir.join("usicheck.toml").exists());

    let (code, out, err) = outcome(usicheck(&dir).args([
        "init",
        "--usiok-timeout",
        "5s",
        "--ready-timeout",
        "40s",
        "--quit-timeout",
        "2s",
        "--",
        USICHECK,
        "engine",
    ]));
    assert_eq!(code, 0, "{out}{err}");
    let text = fs::read_to_string(dir.join("usicheck.toml")).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let timeouts = table["timeouts"].as_table().unwrap();
    assert_eq!(timeouts["usiok"].as_str(), Some("5s"), "{text}");
    assert_eq!(timeouts["ready"].as_str(), Some("40s"), "{text}");
    assert_eq!(timeouts["quit"].as_str(), Some("2s"), "{text}");
    let (code, out, err) = outcome(usicheck(&dir).args(["run", SCENARIO, "--simulate"]));
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn init_reports_an_engine_that_never_answers_usi() {
    let dir = scratch("silent");
    // Gone before `usi` is sent, or with its stdin closed when it comes.
    for script in ["exit 0", "exec 0<&-; sleep 0.2"] {
        let (code, _, err) = outcome(usicheck(&dir).args(["init", "--", "sh", "-c", script]));
        assert_eq!(code, 2, "{script}");
        assert!(
            err.contains("ended before it answered `usi`"),
            "{script}: {err}"
        );
        assert!(!dir.join("usicheck.toml").exists());
    }
}

/// `[play]`: the keys stand in for play's flags, relative paths are the file's (the opponent
/// is usicheck linked beside it), `opponent-options` reach the opponent, and a flag given
/// wins (`--games 1` over `games = 2`).
#[test]
fn play_takes_its_flags_from_its_table() {
    let dir = scratch("play");
    let project = dir.join("project");
    fs::create_dir_all(&project).unwrap();
    std::os::unix::fs::symlink(USICHECK, project.join("opponent")).unwrap();
    let file = format!(
        "{}[play]\ntc = \"depth=1\"\nopponent-tc = \"depth=2\"\ngames = 2\n\
         openings = \"bundled\"\nopening-order = \"random\"\nseed = 7\nmax-moves = 6\n\
         opponent = \"./opponent\"\nopponent-args = [\"engine\"]\nopponent-cwd = \".\"\n\
         opponent-options = {{ USI_Hash = 8 }}\njobs = 1\n\
         adjudicate-draw = \"movenumber=100,movecount=2,score=0\"\n\
         report-dir = \"play-report\"\n",
        reference_engine(&[])
    );
    fs::write(project.join("usicheck.toml"), file).unwrap();
    let (code, out, err) =
        outcome(usicheck(&dir).args(["play", "--config", "project/usicheck.toml", "--games", "1"]));
    assert_eq!(code, 0, "{out}{err}");
    let report = fs::read_to_string(project.join("play-report/report.json")).expect("report.json");
    let report: Value = serde_json::from_str(&report).unwrap();
    assert_eq!(
        report["games"].as_array().unwrap().len(),
        1,
        "the flag wins"
    );
    assert_eq!(report["control"], "depth=1");
    assert_eq!(report["opponent_control"], "depth=2");
    assert_eq!(report["seed"], 7);
    assert_eq!(report["adjudication"]["draw"]["movenumber"], 100);
    let game = &report["games"][0];
    let plies =
        game["opening_moves"].as_array().unwrap().len() + game["plies"].as_array().unwrap().len();
    assert_eq!(plies, 6, "max-moves counts the opening's moves: {game}");
    let opponent = fs::read_to_string(project.join("play-report/games/game-001.opponent.usi"))
        .expect("the opponent's transcript");
    assert!(
        opponent.contains("> setoption name USI_Hash value 8"),
        "{opponent}"
    );
    assert!(out.contains("/project/opponent engine"), "{out}");
    let header = out.lines().next().unwrap_or_default();
    assert!(
        header.ends_with(" · config project/usicheck.toml"),
        "{header}"
    );
}

/// A bad `[play]` key or value is a one-line input error naming it, before any game.
#[test]
fn play_table_errors_name_the_key() {
    let dir = scratch("play-errors");
    let cases = [
        (
            "[play]\ntcc = \"1s\"\n",
            "usicheck.toml:2:1: unknown field `tcc`",
        ),
        ("[play]\ntc = \"fast\"\n", "usicheck.toml:2:6: tc: `fast`:"),
        (
            "[play]\ngames = 0\n",
            "usicheck.toml:2:9: games: 0: expected a whole number from 1",
        ),
        (
            "[play]\nponder = \"yes\"\n",
            "usicheck.toml:2:10: ponder: invalid type",
        ),
        (
            "[play]\nadjudicate-resign = \"movecount=0,score=5\"\n",
            "usicheck.toml:2:21: adjudicate-resign: movecount=`0`",
        ),
        (
            "[play]\nsprt = \"elo0=5,elo1=0\"\n",
            "usicheck.toml:2:8: sprt: elo0 must be below elo1",
        ),
        (
            "[play]\nopening-order = \"shuffled\"\n",
            "usicheck.toml:2:17: opening-order: \"shuffled\"",
        ),
        (
            "[play]\ngames = 2\nrounds = 1\n",
            "usicheck.toml: [play] games and rounds",
        ),
        (
            "[play]\nopponent-args = [\"x\"]\n",
            "usicheck.toml: [play] opponent-args needs opponent",
        ),
    ];
    for (text, expected) in cases {
        fs::write(dir.join("usicheck.toml"), text).unwrap();
        let (code, out, err) = outcome(usicheck(&dir).args(["play", "--", USICHECK, "engine"]));
        assert_eq!(code, 2, "{text:?}: {out}{err}");
        assert!(
            err.starts_with(&format!("usicheck: error: {expected}")),
            "{text:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// docs/config.md is the reference of every key: it must be the code's, not a stale copy.
#[test]
fn docs_config_md_is_the_generated_reference() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/config.md");
    let output = Command::new(USICHECK).arg("config-doc").output().unwrap();
    assert!(output.status.success());
    let generated = String::from_utf8(output.stdout).unwrap();
    if std::env::var_os("USICHECK_BLESS").is_some() {
        fs::write(path, &generated).unwrap();
        return;
    }
    let on_disk = fs::read_to_string(path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/config.md is out of date; run `usicheck config-doc > docs/config.md` \
         (or USICHECK_BLESS=1 cargo test --release --test cli_config docs_config)"
    );
}
