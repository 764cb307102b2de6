//! The fuzzer against the reference engine (no findings) and against faults that only show on
//! some inputs (each found within a fixed seed and a bounded number of sessions); the engine
//! perft check against a test engine with a broken move generator.

mod common;

use assert_cmd::Command;
use std::path::PathBuf;
use std::time::Duration;
use usicheck::engine::EngineCommand;
use usicheck::fuzzer::{self, Config, Finding, oracle::Oracle, plan::Mix};
use usicheck::rules::RuleId;

fn reference(faults: &[&str]) -> EngineCommand {
    let mut engine = EngineCommand::new(env!("CARGO_BIN_EXE_usicheck")).arg("engine");
    for f in faults {
        engine = engine.arg("--fault").arg(*f);
    }
    engine
}

fn campaign(engine: EngineCommand, seed: u64, runs: u64) -> Vec<Finding> {
    campaign_of(Mix::Full, engine, seed, runs)
}

fn campaign_of(mix: Mix, engine: EngineCommand, seed: u64, runs: u64) -> Vec<Finding> {
    let mut config = Config::new(engine);
    config.mix = mix;
    config.seed = seed;
    config.runs = Some(runs);
    config.jobs = 2;
    config.episodes = 15;
    config.shrink_runs = 30;
    fuzzer::run(&config, &|_| {})
        .expect("engine starts")
        .findings
}

fn assert_loads(finding: &Finding) {
    usicheck::scenario::load_str("finding.yaml", &finding.scenario_yaml)
        .unwrap_or_else(|e| panic!("{e}\n{}", finding.scenario_yaml));
}

/// Runs `fault` for up to `runs` sessions and returns the finding of `oracle` and `rule`.
fn finds(fault: &str, runs: u64, oracle: Oracle, rule: RuleId) -> Finding {
    let findings = campaign(reference(&[fault]), 1, runs);
    let found = findings
        .iter()
        .find(|f| f.violation.key() == (oracle, rule))
        .unwrap_or_else(|| panic!("{fault}: no {oracle} {rule} finding in {findings:#?}"));
    assert_loads(found);
    found.clone()
}

mod reference_engine {
    use super::*;

    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn a_short_run_has_no_findings() {
        let findings = campaign(reference(&[]), 2, 8);
        assert!(findings.is_empty(), "{findings:#?}");
    }

    /// The long clean run: a minute in the slow tier, `USICHECK_LONG_FUZZ_SECONDS` for
    /// longer (600 before a release).
    #[test]
    #[ignore = "slow tier: a long fuzz campaign"]
    fn a_long_run_has_no_findings() {
        let seconds = std::env::var("USICHECK_LONG_FUZZ_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(60);
        let mut config = Config::new(reference(&[]));
        config.runs = None;
        config.time = Some(Duration::from_secs(seconds));
        config.jobs = 2;
        let summary = fuzzer::run(&config, &|_| {}).expect("engine starts");
        assert!(summary.findings.is_empty(), "{:#?}", summary.findings);
    }
}

mod some_inputs_faults {
    use super::*;

    /// A fault that only shows on some inputs, and what finding it must give.
    struct Case {
        fault: &'static str,
        /// Each seed alone must find it, and nothing else, within `runs` sessions.
        seeds: &'static [u64],
        runs: u64,
        oracle: Oracle,
        rule: RuleId,
        /// Text the shrunk scenario must keep (what provokes or judges the fault).
        scenario_shows: &'static str,
        /// Text the violation must report.
        detail_shows: &'static str,
    }

    const CASES: &[Case] = &[
        // Charged to the `sfen` form of `position`, not to the move or pv rules.
        Case {
            fault: "mirrored-sfen",
            seeds: &[1, 2],
            runs: 6,
            oracle: Oracle::Legality,
            rule: usicheck::rule!("USI-POSITION-001"),
            scenario_shows: "position sfen",
            detail_shows: "mirrored",
        },
        Case {
            fault: "illegal-ponder",
            seeds: &[1],
            runs: 6,
            oracle: Oracle::Legality,
            rule: usicheck::rule!("USI-PONDER-001"),
            scenario_shows: "ponder: legal",
            detail_shows: "ponder",
        },
        // A late second `bestmove` read as the answer to the next `go` must not also show as
        // an illegal move there (seeds 1 and 2 did before failures were confirmed
        // synchronised).
        Case {
            fault: "occasional-double-bestmove",
            seeds: &[1, 2],
            runs: 12,
            oracle: Oracle::Protocol,
            rule: usicheck::rule!("USI-GO-002"),
            scenario_shows: "go ",
            detail_shows: "second terminal reply",
        },
        // The reply of a search `gameover` did not end is that rule's, not an illegal move
        // of the next search; the next search's reply it keeps from coming is the same
        // finding, not a hang of its own.
        Case {
            fault: "gameover-keeps-searching",
            seeds: &[3],
            runs: 12,
            oracle: Oracle::Protocol,
            rule: usicheck::rule!("USI-GAMEOVER-004"),
            scenario_shows: "gameover",
            detail_shows: "the search `gameover`",
        },
        // A reply that comes, but after its deadline, is judged against the clock that set
        // it (the fuzzer waits longer, to tell a late reply from none).
        Case {
            fault: "slow-stop",
            seeds: &[1],
            runs: 1,
            oracle: Oracle::Hang,
            rule: usicheck::rule!("USI-STOP-001"),
            scenario_shows: "stop",
            detail_shows: "after the deadline (T-STOP",
        },
        // A controlled exit, reported as such, not as a crash.
        Case {
            fault: "crash-on-debug",
            seeds: &[1],
            runs: 10,
            oracle: Oracle::Exit,
            rule: usicheck::rule!("USI-ROBUST-010"),
            scenario_shows: "debug",
            detail_shows: "status 1",
        },
    ];

    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn each_is_found_and_charged_only_to_its_rule() {
        for case in CASES {
            for &seed in case.seeds {
                let at = format!("{} seed {seed}", case.fault);
                let findings = campaign(reference(&[case.fault]), seed, case.runs);
                let keys: Vec<_> = findings.iter().map(|f| f.violation.key()).collect();
                assert_eq!(keys, [(case.oracle, case.rule)], "{at}: {findings:#?}");
                let found = &findings[0];
                assert!(found.session < case.runs, "{at}");
                assert!(found.shrunk_len <= found.original_len, "{at}");
                assert_loads(found);
                assert!(
                    found.scenario_yaml.contains(case.scenario_shows),
                    "{at}: {}",
                    found.scenario_yaml
                );
                assert!(
                    found.violation.detail.contains(case.detail_shows),
                    "{at}: {:?}",
                    found.violation
                );
            }
        }
    }
}

/// A finding replayed with `usicheck run` gives the rule and the outcome the fuzzer reported.
mod replay {
    use super::*;

    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn findings_replay_to_the_same_rule_and_outcome() {
        let cases = [
            (
                "mirrored-sfen",
                Oracle::Legality,
                usicheck::rule!("USI-POSITION-001"),
                6,
            ),
            (
                "illegal-ponder",
                Oracle::Legality,
                usicheck::rule!("USI-PONDER-001"),
                6,
            ),
            (
                "crash-on-debug",
                Oracle::Exit,
                usicheck::rule!("USI-ROBUST-010"),
                10,
            ),
            // A search `gameover` did not end: its late reply, or the next `go`'s reply that
            // does not come behind it.
            (
                "gameover-keeps-searching",
                Oracle::Protocol,
                usicheck::rule!("USI-GAMEOVER-004"),
                12,
            ),
            // Noted by the observer; the session went on.
            (
                "chatty-stdout",
                Oracle::Output,
                usicheck::rule!("USI-ROBUST-009"),
                2,
            ),
        ];
        let exe = env!("CARGO_BIN_EXE_usicheck");
        for (fault, oracle, rule, runs) in cases {
            let finding = finds(fault, runs, oracle, rule);
            let graded = finding.violation.outcome.expect("graded under the profile");
            let path = std::env::temp_dir().join(format!(
                "usicheck-replay-{fault}-{}.yaml",
                std::process::id()
            ));
            std::fs::write(&path, &finding.scenario_yaml).unwrap();
            let output = Command::cargo_bin("usicheck")
                .unwrap()
                .arg("run")
                .arg(&path)
                .args(["--format", "json", "--", exe, "engine", "--fault", fault])
                .output()
                .unwrap();
            std::fs::remove_file(&path).ok();
            let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
            let replayed = report["runs"][0]["rules"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["rule"] == rule.as_str())
                .map(|r| r["outcome"].as_str().unwrap().to_owned());
            assert_eq!(
                replayed.as_deref(),
                Some(graded.as_str()),
                "{fault}: {}\n{}",
                finding.scenario_yaml,
                String::from_utf8_lossy(&output.stdout)
            );
        }
    }
}

mod command_line {
    use super::*;

    fn usicheck() -> Command {
        Command::cargo_bin("usicheck").expect("binary built")
    }

    /// `usicheck fuzz --seed 5 --runs 2 --episodes 5 GATE… --out DIR` on the illegal-ponder
    /// fault: its stdout, with the exit code checked.
    fn fuzz_illegal_ponder(dir: &std::path::Path, gate: &[&str], code: i32) -> String {
        let exe = env!("CARGO_BIN_EXE_usicheck");
        let out = usicheck()
            .args(["fuzz", "--seed", "5", "--runs", "2", "--episodes", "5"])
            .args(gate)
            .arg("--out")
            .arg(dir)
            .args(["--", exe, "engine", "--fault", "illegal-ponder"])
            .assert()
            .code(code)
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    }

    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn findings_are_written_and_the_seed_printed() {
        let dir = std::env::temp_dir().join(format!("usicheck-fuzz-{}", std::process::id()));
        let out = fuzz_illegal_ponder(&dir, &["--fail-on", "should"], 1);
        assert!(out.contains("seed 5"), "{out}");
        let yaml = dir.join("legality-USI-PONDER-001.yaml");
        let text = std::fs::read_to_string(&yaml).expect("finding written");
        usicheck::scenario::load_str("finding", &text).expect("finding loads");
        assert!(dir.join("legality-USI-PONDER-001.transcript").is_file());
        // By default, as `run` and `certify`, only a FAIL fails: an illegal ponder move is a
        // SHOULD (WARN).
        let graded = fuzz_illegal_ponder(&dir, &[], 0);
        assert!(graded.contains("WARN legality USI-PONDER-001"), "{graded}");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// `isready` during a search is a ping: an engine that answers it only once the search
    /// ends (USI-READY-006, optional) has its search ended, not a 30 s `readyok` hang charged.
    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn isready_answered_after_the_search_is_no_finding() {
        let findings = campaign(reference(&["readyok-after-search"]), 1, 6);
        assert!(findings.is_empty(), "{findings:#?}");
    }

    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn a_finding_replays_with_usicheck_run() {
        let finding = finds(
            "illegal-ponder",
            6,
            Oracle::Legality,
            usicheck::rule!("USI-PONDER-001"),
        );
        let path =
            std::env::temp_dir().join(format!("usicheck-replay-{}.yaml", std::process::id()));
        std::fs::write(&path, &finding.scenario_yaml).unwrap();
        let exe = env!("CARGO_BIN_EXE_usicheck");
        let replay = |faults: &[&str]| {
            usicheck()
                .arg("run")
                .arg(&path)
                .args(["--fail-on", "should", "--", exe, "engine"])
                .args(faults)
                .assert()
        };
        replay(&["--fault", "illegal-ponder"]).code(1);
        replay(&[]).code(0);
        std::fs::remove_file(&path).ok();
    }

    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn the_reference_engine_passes() {
        let exe = env!("CARGO_BIN_EXE_usicheck");
        usicheck()
            .args(["fuzz", "--seed", "9", "--runs", "2", "--episodes", "5"])
            .args(["--out", "/nonexistent/never-written", "--", exe, "engine"])
            .assert()
            .code(0);
    }

    /// A campaign whose time ends before its first session does is no pass: a CI gate
    /// must not turn green on an engine nothing was checked against.
    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn a_run_that_checked_nothing_in_its_time_is_no_pass() {
        let start = std::time::Instant::now();
        let out = usicheck()
            .args([
                "fuzz",
                "--seed",
                "1",
                "--time",
                "1s",
                "--usiok-timeout",
                "30s",
            ])
            .args(["--out", "/nonexistent/never-written", "--", "sleep", "100"])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("nothing was checked"), "{stderr}");
        assert!(
            start.elapsed() < Duration::from_secs(1 + 5),
            "{:?}",
            start.elapsed()
        );
    }

    /// `usicheck fuzz --seed S --runs 2 --episodes 5 ARGS… --report-dir DIR -- usicheck engine
    /// FAULTS…` in a fresh DIR: the exit code, and report.json checked against its schema.
    fn fuzz_report(
        name: &str,
        args: &[&str],
        faults: &[&str],
    ) -> (PathBuf, i32, serde_json::Value) {
        let dir = std::env::temp_dir().join(format!(
            "usicheck-fuzz-report-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let exe = env!("CARGO_BIN_EXE_usicheck");
        let output = usicheck()
            .args(["fuzz", "--runs", "2", "--episodes", "5"])
            .args(args)
            .arg("--out")
            .arg(dir.join("out"))
            .arg("--report-dir")
            .arg(dir.join("report"))
            .args(["--", exe, "engine"])
            .args(faults)
            .output()
            .expect("usicheck runs");
        let text = std::fs::read_to_string(dir.join("report/report.json"))
            .unwrap_or_else(|e| panic!("no report.json ({e}): {output:?}"));
        let report: serde_json::Value = serde_json::from_str(&text).expect("report.json is JSON");
        let errors =
            common::schema_errors(include_str!("../docs/fuzz-report.schema.json"), &report);
        assert!(errors.is_empty(), "{errors:#?}");
        (dir, output.status.code().unwrap_or(-1), report)
    }

    fn read(dir: &std::path::Path, file: &str) -> String {
        std::fs::read_to_string(dir.join("report").join(file))
            .unwrap_or_else(|e| panic!("{file}: {e}"))
    }

    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn report_dir_gets_four_reports_with_the_finding() {
        let (dir, code, report) = fuzz_report(
            "finding",
            &["--seed", "5", "--fail-on", "should"],
            &["--fault", "illegal-ponder"],
        );
        assert_eq!(code, 1, "a WARN on a SHOULD fails --fail-on should");
        assert_eq!(report["passed"], false);
        assert_eq!(report["seed"], 5);
        let finding = &report["findings"][0];
        assert_eq!(finding["rule"], "USI-PONDER-001");
        assert_eq!(finding["grade"], "WARN");
        assert_eq!(finding["strength"], "SHOULD");
        let reproducer = finding["reproducer"].as_str().unwrap();
        usicheck::scenario::load_str("finding", &read(&dir, reproducer))
            .expect("the reproducer loads");
        let transcript = finding["transcript"].as_str().unwrap();
        assert!(read(&dir, transcript).contains(" ponder "));
        assert!(report["coverage"]["exercised"].as_u64().unwrap() > 0);
        let junit = read(&dir, "junit.xml");
        assert!(junit.contains("type=\"USI-PONDER-001\""), "{junit}");
        assert!(
            junit.contains("&lt; bestmove"),
            "the transcript, escaped: {junit}"
        );
        let summary = read(&dir, "summary.md");
        assert!(summary.starts_with("# usicheck fuzz: FAIL"), "{summary}");
        assert!(
            summary.contains("| WARN | legality | USI-PONDER-001 [SHOULD]"),
            "{summary}"
        );
        assert!(
            summary.contains("transcript transcripts/legality-USI-PONDER-001.log"),
            "{summary}"
        );
        let html = read(&dir, "report.html");
        for shown in [
            "USI-PONDER-001",
            "<table class=\"counts coverage\">",
            "&lt; bestmove",
        ] {
            assert!(html.contains(shown), "{shown} in {html}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn a_clean_campaign_reports_no_findings() {
        let (dir, code, report) = fuzz_report("clean", &["--seed", "9"], &[]);
        assert_eq!(code, 0);
        assert_eq!(report["passed"], true);
        assert_eq!(report["findings"].as_array().unwrap().len(), 0);
        assert_eq!(report["sessions"], 2);
        let junit = read(&dir, "junit.xml");
        assert!(
            junit.contains("<testcase name=\"campaign seed 9\""),
            "{junit}"
        );
        assert!(!junit.contains("<failure"), "{junit}");
        assert!(read(&dir, "summary.md").contains("No findings."));
        assert!(read(&dir, "report.html").contains("<p>No findings.</p>"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_report_dir_in_the_way_is_an_input_error() {
        let file =
            std::env::temp_dir().join(format!("usicheck-fuzz-in-the-way-{}", std::process::id()));
        std::fs::write(&file, "").unwrap();
        let out = usicheck()
            .args(["fuzz", "--runs", "1", "--report-dir"])
            .arg(&file)
            .args(["--", "/nonexistent/engine"])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--report-dir "), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        std::fs::remove_file(&file).ok();
    }

    #[test]
    fn a_missing_engine_is_an_input_error() {
        usicheck()
            .args(["fuzz", "--runs", "1", "--", "/nonexistent/engine"])
            .assert()
            .code(2);
    }
}

mod engine_perft {
    use super::*;

    fn perft_engine() -> PathBuf {
        let exe = std::env::current_exe().expect("test binary path");
        let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
        let path = dir.join("examples").join("perft_engine");
        assert!(
            path.is_file(),
            "{} is missing: run `cargo build --examples`",
            path.display()
        );
        path
    }

    fn perft() -> Command {
        let mut cmd = Command::cargo_bin("usicheck").expect("binary built");
        cmd.arg("perft").arg("--engine");
        cmd
    }

    #[test]
    fn a_dropped_move_is_bisected_to_its_position() {
        let out = perft()
            .args(["--depth", "3", "--"])
            .arg(perft_engine())
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("FAIL startpos depth 3"), "{out}");
        assert!(out.contains("(depth 1)"), "{out}");
        assert!(out.contains("missing: 8h3c+"), "{out}");
        assert!(out.contains("extra: (none)"), "{out}");
    }

    fn stdout(assert: assert_cmd::assert::Assert) -> String {
        String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
    }

    #[test]
    fn a_correct_engine_passes() {
        let assert = perft()
            .args(["--depth", "2", "--sfen", "startpos", "--"])
            .arg(perft_engine())
            .arg("--correct")
            .assert()
            .code(0);
        assert!(stdout(assert).contains("PASS startpos depth 2"));
    }

    #[test]
    fn an_engine_without_perft_is_reported_unsupported() {
        let assert = perft()
            .args([
                "--depth",
                "1",
                "--",
                env!("CARGO_BIN_EXE_usicheck"),
                "engine",
            ])
            .assert()
            .code(2);
        assert!(stdout(assert).contains("UNSUPPORTED"));
    }
}

/// `fuzz` takes the engine flags `certify` takes: an `--option` goes into every session's
/// handshake, and a finding's replay command carries it and the profile. Dying of a setting
/// of an option the engine did not advertise is USI-OPTION-010's, as `usicheck run` charges it.
#[test]
fn options_reach_the_engine_and_the_replay_command() {
    let out_dir = std::env::temp_dir().join(format!("usicheck-fuzz-option-{}", std::process::id()));
    let assert = Command::new(env!("CARGO_BIN_EXE_usicheck"))
        .args([
            "fuzz",
            "--runs",
            "1",
            "--seed",
            "1",
            "--option",
            "NoSuchOption=1",
        ])
        .args(["--profile", "strict"])
        .arg("--out")
        .arg(&out_dir)
        .args(["--", env!("CARGO_BIN_EXE_usicheck"), "engine"])
        .args(["--fault", "crash-on-unknown-option"])
        .assert()
        .code(1);
    let out = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(
        out.contains("exit USI-OPTION-010")
            && out.contains("after `setoption name NoSuchOption value 1`"),
        "{out}"
    );
    assert!(
        out.contains("--option NoSuchOption=1 --profile strict --"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&out_dir);
}

/// The C engine of fuzz/afl/toy_engine.c, built with the system's C compiler (`$CC`, else `cc`):
/// it aborts when a search is asked for in a position whose last move, the 8th or later, is a
/// drop.
mod c_engine {
    use super::*;

    fn build_toy_engine() -> PathBuf {
        let source = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/afl/toy_engine.c");
        let exe = std::env::temp_dir().join(format!("usicheck-toy-engine-{}", std::process::id()));
        let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let status = std::process::Command::new(&compiler)
            .args(["-O2", "-o"])
            .arg(&exe)
            .arg(source)
            .status()
            .unwrap_or_else(|e| panic!("`{compiler}` builds {source}: {e}"));
        assert!(status.success(), "`{compiler}` failed on {source}");
        exe
    }

    /// A search without a limit (`go infinite`, `go ponder`, `go mate infinite`) owes no reply
    /// at once, so the death may show only at the next command (`stop`, `ponderhit`); the death
    /// is still the `go`'s: its missing reply, USI-GO-002 or USI-MATE-002. The quick mix pauses
    /// at most a millisecond before that command; at these seeds the fuzzer charged
    /// USI-STOP-002 or USI-STOP-005 before deaths were moved to their cause.
    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn its_crash_is_charged_to_the_go_it_dies_on() {
        let exe = build_toy_engine();
        let crashes: Vec<Finding> = [18, 31, 39]
            .into_iter()
            .flat_map(|seed| campaign_of(Mix::Quick, EngineCommand::new(&exe), seed, 20))
            .filter(|f| f.violation.oracle == Oracle::Crash)
            .collect();
        std::fs::remove_file(&exe).ok();
        let untimed = ["`go infinite`", "`go ponder", "`go mate infinite`"];
        assert!(
            crashes
                .iter()
                .any(|f| untimed.iter().any(|go| f.violation.detail.contains(go))),
            "no death on a search without a limit: {crashes:#?}"
        );
        for f in &crashes {
            assert!(
                [
                    usicheck::rule!("USI-GO-002"),
                    usicheck::rule!("USI-MATE-002")
                ]
                .contains(&f.violation.rule)
                    && f.violation.detail.contains("after `go"),
                "{:?}\n{}",
                f.violation,
                f.scenario_yaml
            );
            assert_loads(f);
        }
    }
}

/// A known finding the session can go on from is met and recovered from, not steered away
/// from: once `gameover` is known not to end a search, it is still sent during searches, each
/// such search is ended at once with `stop`, and the sessions go on.
#[test]
#[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
fn a_recoverable_known_finding_is_met_again_not_avoided() {
    use usicheck::fuzzer::coverage::{Gap, Sent, State};
    let mut config = Config::new(reference(&["gameover-keeps-searching"]));
    config.seed = 3;
    config.runs = Some(24);
    config.jobs = 2;
    config.episodes = 15;
    config.shrink_runs = 10;
    let summary = fuzzer::run(&config, &|_| {}).expect("engine starts");
    let keys: Vec<_> = summary.findings.iter().map(|f| f.violation.key()).collect();
    assert_eq!(
        keys,
        [(Oracle::Protocol, usicheck::rule!("USI-GAMEOVER-004"))],
        "{:#?}",
        summary.findings
    );
    assert!(
        summary.steered_away.is_empty(),
        "{:?}",
        summary.steered_away
    );
    assert!(summary.progress.known > 0, "{:?}", summary.progress);
    let in_search: u64 = [State::Searching, State::Pondering, State::AfterPonderhit]
        .into_iter()
        .flat_map(|state| Gap::ALL.map(|gap| summary.coverage.count(state, Sent::GameOver, gap)))
        .sum();
    assert!(in_search >= 5, "{}", summary.coverage.table());
}

/// `usicheck fuzz --time 30s` alone finds a fault that only shows at some timings while the
/// engine also carries noisy known ones (an option name with a blank, seen in every session;
/// `go mate` left unanswered when its time runs out, a hang): the noise is recorded once and
/// then counted, not waited out again, so the campaign goes on exploring.
mod found_in_30_s_behind_noise {
    use super::*;
    use usicheck::rule;

    const NOISE: [&str; 2] = ["option-name-with-space", "silent-mate-timeout"];

    /// The findings `usicheck fuzz --time 30s --seed 1` reports against the reference engine
    /// with `fault` and the noise, as (oracle, rule) pairs, and its stdout.
    fn findings_with(fault: &str) -> (Vec<(String, String)>, String) {
        let exe = env!("CARGO_BIN_EXE_usicheck");
        let dir =
            std::env::temp_dir().join(format!("usicheck-fuzz-{fault}-{}", std::process::id()));
        let mut faults = vec![fault];
        faults.extend(NOISE);
        let start = std::time::Instant::now();
        let out = Command::cargo_bin("usicheck")
            .unwrap()
            .args(["fuzz", "--time", "30s", "--seed", "1", "--out"])
            .arg(&dir)
            .args(["--", exe, "engine"])
            .args(faults.iter().flat_map(|f| ["--fault", f]))
            .output()
            .unwrap();
        std::fs::remove_dir_all(&dir).ok();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        // The whole run, shrinking included, is bounded by --time (plus an engine's exit).
        assert!(
            start.elapsed() < Duration::from_secs(45),
            "{:?}",
            start.elapsed()
        );
        let found = stdout
            .lines()
            .filter(|l| ["FAIL ", "WARN "].iter().any(|g| l.starts_with(g)))
            .map(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                (
                    words[1].to_owned(),
                    words[2].trim_end_matches(':').to_owned(),
                )
            })
            .collect();
        (found, stdout)
    }

    /// `fault`'s finding is among those reported, and every finding is charged to a rule one
    /// of the faults breaks.
    fn assert_found(fault: &str, oracle: Oracle, rule: RuleId) {
        let (found, stdout) = findings_with(fault);
        let key = (oracle.name().to_owned(), rule.as_str().to_owned());
        assert!(found.contains(&key), "{fault}: no {key:?} in\n{stdout}");
        let faults: Vec<usicheck::refengine::faults::Fault> = NOISE
            .iter()
            .chain([&fault])
            .map(|f| f.parse().unwrap())
            .collect();
        for (_, rule) in &found {
            assert!(
                faults
                    .iter()
                    .any(|f| f.rules().iter().any(|r| r.as_str() == rule)),
                "{fault}: {rule} is no rule of {faults:?}:\n{stdout}"
            );
        }
    }

    /// A `bestmove` 400 ms into `go ponder`: only a ponder phase that long shows it.
    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn a_bestmove_leaked_400_ms_into_go_ponder() {
        assert_found(
            "ponder-leaks-bestmove",
            Oracle::Protocol,
            rule!("USI-PONDER-002"),
        );
    }

    /// One search with byoyomi in five answered 800 ms past its clock.
    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn an_occasional_reply_late_under_byoyomi() {
        assert_found("occasional-late-byoyomi", Oracle::Hang, rule!("USI-GO-004"));
    }

    #[test]
    #[ignore = "slow tier: fuzz campaigns against engine processes, in real time"]
    fn a_slow_stop() {
        assert_found("slow-stop", Oracle::Hang, rule!("USI-STOP-001"));
    }
}
