//! The GitHub Action's scripts (.github/action/), run here as the runner would run them: with
//! the INPUT_* variables action.yml sets, a temporary GITHUB_OUTPUT and GITHUB_STEP_SUMMARY,
//! and USICHECK naming this build, so nothing is installed. The engine is the reference
//! engine, clean and with a fault, run simulated; `--rule USI-READY-001 --simulate` (the
//! `flags` input) keeps each certify to two scenarios, on a virtual clock.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const USICHECK: &str = env!("CARGO_BIN_EXE_usicheck");

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".github/action")
        .join(name)
}

/// Whether bash runs here; the tests skip (saying why) where it does not.
fn have_bash() -> bool {
    let found = Command::new("bash")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: no bash to run the action's scripts");
    }
    found
}

/// A fresh directory for one test.
fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("usicheck-action-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// What one run of a script left: its exit code, output, step outputs and (run.sh) the job
/// summary.
struct Run {
    output: Output,
    outputs: String,
    summary: String,
}

impl Run {
    fn code(&self) -> i32 {
        self.output.status.code().unwrap()
    }

    fn log(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
            + &String::from_utf8_lossy(&self.output.stderr)
    }

    fn outputs(&self) -> BTreeMap<&str, &str> {
        self.outputs
            .lines()
            .map(|line| line.split_once('=').expect("NAME=VALUE"))
            .collect()
    }
}

/// Runs run.sh in `dir` with `inputs` (INPUT_* names without the prefix) and `usicheck` as
/// USICHECK. The job summary starts with an earlier step's line, which must stay.
fn run_step(dir: &Path, usicheck: &str, inputs: &[(&str, &str)]) -> Run {
    let outputs = dir.join("github_output");
    let summary = dir.join("step_summary");
    fs::write(&outputs, "").unwrap();
    fs::write(&summary, "earlier step\n").unwrap();
    let mut command = Command::new("bash");
    // Only the inputs given here: none left over from a CI runner's environment.
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("INPUT_")) {
        command.env_remove(name);
    }
    command
        .arg(script("run.sh"))
        .current_dir(dir)
        .env("USICHECK", usicheck)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", &summary);
    for (name, value) in inputs {
        command.env(format!("INPUT_{name}"), value);
    }
    let output = command.output().unwrap();
    Run {
        output,
        outputs: fs::read_to_string(&outputs).unwrap(),
        summary: fs::read_to_string(&summary).unwrap(),
    }
}

/// The first three outputs, then counts.txt's lines as report.json's certificate gives them;
/// and the certificate appended to the job summary.
fn assert_reported(run: &Run, dir: &Path, passed: bool) {
    let report_dir = dir.join("report");
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(report_dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["passed"], passed);
    let head = format!(
        "passed={passed}\nexit-code={}\nreport-dir=report\n",
        run.code()
    );
    assert_eq!(
        run.outputs,
        head + &common::counts_of(&report),
        "{}",
        run.log()
    );
    let certificate = fs::read_to_string(report_dir.join("summary.md")).unwrap();
    assert_eq!(run.summary, format!("earlier step\n{certificate}"));
}

/// The outputs only play's counts.txt writes.
const PLAY_OUTPUTS: [&str; 12] = [
    "games",
    "win",
    "draw",
    "loss",
    "faults",
    "broken",
    "score",
    "elo",
    "elo-error",
    "los",
    "llr",
    "sprt",
];

/// action.yml declares every output run.sh wrote, each taken from the usicheck step under its
/// own name; a certify writes all of them but play's.
fn assert_declared(run: &Run) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml");
    let action: serde_json::Value =
        serde_saphyr::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let declared = action["outputs"].as_object().unwrap();
    let certify_names: BTreeSet<&str> = declared
        .keys()
        .map(String::as_str)
        .filter(|name| !PLAY_OUTPUTS.contains(name))
        .collect();
    let written: BTreeSet<&str> = run.outputs().into_keys().collect();
    assert_eq!(certify_names, written);
    assert!(PLAY_OUTPUTS.iter().all(|name| declared.contains_key(*name)));
    for (name, output) in declared {
        assert_eq!(
            output["value"],
            format!("${{{{ steps.usicheck.outputs.{name} }}}}"),
            "{name}"
        );
    }
}

fn reference_engine(dir: &Path, args: &str) -> Run {
    run_step(
        dir,
        USICHECK,
        &[
            ("ENGINE", USICHECK),
            ("ARGS", args),
            ("FLAGS", "--rule USI-READY-001 --simulate"),
            ("REPORT_DIR", "report"),
        ],
    )
}

#[test]
fn the_reference_engine_passes_and_the_outputs_say_so() {
    if !have_bash() {
        return;
    }
    let dir = workdir("pass");
    let run = reference_engine(&dir, "engine");
    assert_eq!(run.code(), 0, "{}", run.log());
    assert_reported(&run, &dir, true);
    let outputs = run.outputs();
    assert_eq!(outputs["fail"], "0");
    assert_ne!(outputs["must-total"], "0");
    assert_eq!(outputs["must-pass"], outputs["must-total"]);
    assert_declared(&run);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fault_fails_the_step_and_the_outputs_are_still_written() {
    if !have_bash() {
        return;
    }
    let dir = workdir("fault");
    let run = reference_engine(&dir, "engine --fault 'double-readyok'");
    assert_eq!(run.code(), 1, "{}", run.log());
    assert_reported(&run, &dir, false);
    assert_eq!(run.outputs()["fail"], "1", "USI-READY-001 fails");
    assert!(run.summary.contains("USI-READY-001"), "{}", run.summary);
    assert!(
        run.log()
            .lines()
            .any(|l| l.starts_with("::error title=FAIL USI-READY-001%3A ")),
        "an annotation in the checks view: {}",
        run.log()
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// A certify of the reference engine (two scenarios, simulated) into `report_dir`, compared
/// with `previous` when given.
fn certify_against(dir: &Path, args: &str, report_dir: &str, previous: &str) -> Run {
    run_step(
        dir,
        USICHECK,
        &[
            ("ENGINE", USICHECK),
            ("ARGS", args),
            ("FLAGS", "--rule USI-READY-001 --simulate"),
            ("REPORT_DIR", report_dir),
            ("PREVIOUS", previous),
        ],
    )
}

#[test]
fn a_previous_report_is_compared_and_a_worse_run_fails() {
    if !have_bash() {
        return;
    }
    let dir = workdir("previous");
    let clean = certify_against(&dir, "engine", "clean", "");
    assert_eq!(clean.code(), 0, "{}", clean.log());
    let worse = certify_against(
        &dir,
        "engine --fault double-readyok",
        "worse",
        "clean/report.json",
    );
    assert_eq!(worse.code(), 1, "{}", worse.log());
    assert!(
        worse.summary.contains("## usicheck diff"),
        "{}",
        worse.summary
    );
    assert!(worse.summary.contains("USI-READY-001"), "{}", worse.summary);
    let fixed = certify_against(&dir, "engine", "fixed", "worse/report.json");
    assert_eq!(fixed.code(), 0, "a fix is no regression: {}", fixed.log());
    assert!(
        fixed.summary.contains("## usicheck diff"),
        "{}",
        fixed.summary
    );
    let certificate = fs::read_to_string(dir.join("fixed/summary.md")).unwrap();
    assert!(
        fixed
            .summary
            .starts_with(&format!("earlier step\n{certificate}"))
    );
    let compared = run_step(
        &dir,
        USICHECK,
        &[
            ("COMMAND", "diff"),
            ("PREVIOUS", "clean/report.json"),
            ("REPORT_DIR", "worse"),
        ],
    );
    assert_eq!(compared.code(), 1, "diff alone: {}", compared.log());
    assert_eq!(
        compared.summary.matches("## usicheck diff").count(),
        1,
        "only the comparison: {}",
        compared.summary
    );
    let unreadable = certify_against(&dir, "engine", "again", "no/such/report.json");
    assert_eq!(unreadable.code(), 2, "{}", unreadable.log());
    assert!(unreadable.log().contains("::error"), "{}", unreadable.log());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_command_input_chooses_the_command() {
    if !have_bash() {
        return;
    }
    let dir = workdir("command");
    let fake = argv_recorder(&dir, 0);
    let fake = fake.to_str().unwrap();
    let play = run_step(
        &dir,
        fake,
        &[
            ("COMMAND", "play"),
            ("ENGINE", "./engine"),
            ("FLAGS", "--tc 1s+100ms --sprt elo0=-10,elo1=0"),
        ],
    );
    assert_eq!(play.code(), 0, "{}", play.log());
    let argv = fs::read_to_string(dir.join("argv")).unwrap();
    let expected = [
        "play",
        "--report-dir",
        "usicheck-report",
        "--tc",
        "1s+100ms",
        "--sprt",
        "elo0=-10,elo1=0",
        "--",
        "./engine",
    ];
    assert_eq!(argv.lines().collect::<Vec<_>>(), expected);
    fs::remove_file(dir.join("argv")).unwrap();
    for (command, flags) in [("fuzz", "--time 60s"), ("certify", "--fail-on should")] {
        let step = run_step(
            &dir,
            fake,
            &[
                ("COMMAND", command),
                ("ENGINE", "./engine"),
                ("BASELINE", "known.toml"),
                ("FLAGS", flags),
            ],
        );
        assert_eq!(step.code(), 0, "{command}: {}", step.log());
        let argv = fs::read_to_string(dir.join("argv")).unwrap();
        let mut expected = vec![command, "--report-dir", "usicheck-report"];
        expected.extend(["--baseline", "known.toml"]);
        expected.extend(flags.split(' '));
        expected.extend(["--", "./engine"]);
        assert_eq!(argv.lines().collect::<Vec<_>>(), expected, "{command}");
        fs::remove_file(dir.join("argv")).unwrap();
    }
    for (inputs, says) in [
        (
            vec![("COMMAND", "perft")],
            "command must be certify, fuzz, play or diff",
        ),
        (
            vec![("COMMAND", "diff")],
            "command diff needs the previous input",
        ),
        (
            vec![("COMMAND", "diff"), ("PREVIOUS", "old/report.json")],
            "which is not there",
        ),
        (
            vec![("COMMAND", "play"), ("BASELINE", "known.toml")],
            "baseline applies to certify and fuzz",
        ),
    ] {
        let mut inputs = inputs;
        inputs.push(("ENGINE", "./engine"));
        let run = run_step(&dir, fake, &inputs);
        assert_eq!(run.code(), 2, "{}", run.log());
        assert!(run.log().contains(says), "{}", run.log());
        assert!(!dir.join("argv").exists(), "usicheck must not run");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// `command: play` runs a match and writes play's counts as step outputs, its summary to the
/// job summary.
#[test]
#[ignore = "slow tier: games against engine processes"]
fn play_through_the_action_writes_its_counts() {
    if !have_bash() {
        return;
    }
    let dir = workdir("play");
    let run = run_step(
        &dir,
        USICHECK,
        &[
            ("COMMAND", "play"),
            ("ENGINE", USICHECK),
            ("ARGS", "engine"),
            ("FLAGS", "--tc depth=1 --games 2"),
            ("REPORT_DIR", "report"),
        ],
    );
    assert_eq!(run.code(), 0, "{}", run.log());
    let outputs = run.outputs();
    assert_eq!(outputs["games"], "2");
    assert_eq!(outputs["faults"], "0");
    for name in PLAY_OUTPUTS.iter().filter(|n| !["llr", "sprt"].contains(n)) {
        assert!(outputs.contains_key(name), "{name}: {}", run.outputs);
    }
    assert!(
        run.summary.contains("## usicheck play: PASS"),
        "{}",
        run.summary
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// Writes an executable bash script.
fn write_script(path: &Path, body: &str) {
    fs::write(path, format!("#!/usr/bin/env bash\n{body}")).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// A stand-in for usicheck that writes its arguments one a line and exits with `code`.
fn argv_recorder(dir: &Path, code: i32) -> PathBuf {
    let path = dir.join("fake-usicheck");
    write_script(
        &path,
        &format!("printf '%s\\n' \"$@\" > argv\nexit {code}\n"),
    );
    path
}

#[test]
fn inputs_become_usicheck_arguments_word_for_word() {
    if !have_bash() {
        return;
    }
    let dir = workdir("argv");
    let fake = argv_recorder(&dir, 2);
    let run = run_step(
        &dir,
        fake.to_str().unwrap(),
        &[
            ("ENGINE", "./my engine"),
            ("ARGS", r#"--eval 'eval dir/nn.bin' "a b" c\ d $HOME"#),
            ("PROFILE", "usi2"),
            (
                "OPTIONS",
                "USI_Hash=256\n\n  EvalDir=eval dir  \r\nUSI_Ponder=true",
            ),
            ("FAIL_ON", "should"),
            ("JOBS", ""),
            ("FLAGS", "--claim USI-EXT-015"),
        ],
    );
    assert_eq!(run.code(), 2, "usicheck's exit code: {}", run.log());
    let argv = fs::read_to_string(dir.join("argv")).unwrap();
    let expected = [
        "certify",
        "--report-dir",
        "usicheck-report",
        "--profile",
        "usi2",
        "--fail-on",
        "should",
        "--option",
        "USI_Hash=256",
        "--option",
        "EvalDir=eval dir",
        "--option",
        "USI_Ponder=true",
        "--claim",
        "USI-EXT-015",
        "--",
        "./my engine",
        "--eval",
        "eval dir/nn.bin",
        "a b",
        "c d",
        "$HOME",
    ];
    assert_eq!(argv.lines().collect::<Vec<_>>(), expected);
    assert_eq!(
        run.outputs, "passed=false\nexit-code=2\nreport-dir=usicheck-report\n",
        "no report, so no counts"
    );
    assert_eq!(run.summary, "earlier step\n", "no report, no summary");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unmatched_quote_is_a_usage_error_before_anything_runs() {
    if !have_bash() {
        return;
    }
    let dir = workdir("quote");
    let fake = argv_recorder(&dir, 0);
    let run = run_step(
        &dir,
        fake.to_str().unwrap(),
        &[("ENGINE", "./engine"), ("ARGS", "--name 'unfinished")],
    );
    assert_eq!(run.code(), 2, "{}", run.log());
    assert!(run.log().contains("::error"), "{}", run.log());
    assert!(!dir.join("argv").exists(), "usicheck must not run");
    assert!(run.outputs.starts_with("passed=false\nexit-code=2\n"));
    fs::remove_dir_all(&dir).unwrap();
}

/// Runs install.sh `locate` on a Linux x64 runner whose `curl` serves the files of `release`
/// (by name) and fails for any other, as a missing release asset does.
fn locate(dir: &Path, release: &Path) -> Run {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    // The last argument is the URL; -o names the file to write. 22 is curl's exit code for
    // an HTTP error such as 404.
    let curl = format!(
        "while [ $# -gt 1 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n\
         cp \"{}/${{1##*/}}\" \"$out\" 2>/dev/null || exit 22\n",
        release.display()
    );
    write_script(&bin.join("curl"), &curl);
    let outputs = dir.join("github_output");
    fs::write(&outputs, "").unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let output = Command::new("bash")
        .arg(script("install.sh"))
        .arg("locate")
        .current_dir(dir)
        .env_remove("USICHECK")
        .env_remove("INPUT_VERSION")
        .env("PATH", path)
        .env("GITHUB_OUTPUT", &outputs)
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64")
        .env("RUNNER_TEMP", dir.join("temp"))
        .env("RUNNER_TOOL_CACHE", dir.join("tools"))
        .env("ACTION_REPOSITORY", "owner/usicheck")
        .env("ACTION_REF", "v1.2.3")
        .env("ACTION_PATH", env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    Run {
        output,
        outputs: fs::read_to_string(&outputs).unwrap(),
        summary: String::new(),
    }
}

/// A release as release.yml uploads it: usicheck-TARGET.tar.gz holding usicheck, and
/// usicheck-TARGET.sha256 in sha256sum's format, the digest replaced by `digest` if given.
fn release(dir: &Path, digest: Option<&str>) -> PathBuf {
    let release = dir.join("release");
    let staging = dir.join("staging");
    fs::create_dir_all(&release).unwrap();
    fs::create_dir_all(&staging).unwrap();
    // A stand-in binary: archiving the real one would take seconds.
    write_script(&staging.join("usicheck"), "echo usicheck 9.9.9\n");
    let archive = "usicheck-x86_64-unknown-linux-gnu.tar.gz";
    let status = Command::new("tar")
        .arg("-czf")
        .arg(release.join(archive))
        .arg("-C")
        .arg(&staging)
        .arg("usicheck")
        .status()
        .unwrap();
    assert!(status.success());
    let sums = Command::new("sha256sum")
        .arg(archive)
        .current_dir(&release)
        .output()
        .unwrap();
    let mut sums = String::from_utf8(sums.stdout).unwrap();
    if let Some(digest) = digest {
        sums = format!("{digest}  {archive}\n");
    }
    fs::write(
        release.join("usicheck-x86_64-unknown-linux-gnu.sha256"),
        sums,
    )
    .unwrap();
    release
}

#[test]
fn install_takes_the_release_binary_when_its_checksum_matches() {
    if !have_bash() {
        return;
    }
    let dir = workdir("release");
    let run = locate(&dir, &release(&dir, None));
    assert!(run.output.status.success(), "{}", run.log());
    let binary = dir.join("temp/usicheck-release/usicheck");
    assert_eq!(run.outputs, format!("usicheck={}\n", binary.display()));
    let version = Command::new(&binary).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&version.stdout), "usicheck 9.9.9\n");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn install_refuses_a_release_binary_whose_checksum_differs() {
    if !have_bash() {
        return;
    }
    let dir = workdir("tampered");
    let run = locate(&dir, &release(&dir, Some(&"0".repeat(64))));
    assert_eq!(run.output.status.code(), Some(1), "{}", run.log());
    assert!(run.log().contains("sha256"), "{}", run.log());
    assert_eq!(run.outputs, "", "no binary, no build either");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn install_without_a_release_plans_a_cached_build_of_the_action_itself() {
    if !have_bash() {
        return;
    }
    let dir = workdir("build");
    let empty = dir.join("no-release");
    fs::create_dir_all(&empty).unwrap();
    let run = locate(&dir, &empty);
    assert!(run.output.status.success(), "{}", run.log());
    let outputs = run.outputs();
    assert!(!outputs.contains_key("usicheck"), "{outputs:?}");
    let key = outputs["cache-key"];
    assert!(key.starts_with("usicheck-Linux-X64-path-"), "{key}");
    assert_eq!(
        outputs["root"],
        dir.join("tools/usicheck").join(key).display().to_string()
    );
    assert!(outputs["source"].starts_with("path "), "{outputs:?}");
    fs::remove_dir_all(&dir).unwrap();
}
