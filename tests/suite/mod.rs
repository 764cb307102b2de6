//! Running the bundled suite in-process (the library the `certify` command uses), for the
//! certification tests, against the reference engine simulated ([`reference_engine`]) or as a
//! process ([`reference_process`]).
#![allow(dead_code)] // each test crate uses its own subset

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use usicheck::engine::EngineCommand;
use usicheck::refengine::faults::FaultSet;
use usicheck::report::ScenarioReport;
use usicheck::scenario::runner::{RunSettings, WarmProcess, run_scenario};
use usicheck::scenario::{BUNDLED, Scenario, load_str};

/// The usicheck binary under test.
pub const USICHECK: &str = env!("CARGO_BIN_EXE_usicheck");

/// The reference engine with the given faults, run simulated (in this process, on a virtual
/// clock: the same verdicts every run, whatever the machine's load). Its command line is the
/// process's, `usicheck engine --fault F…`, so transcripts and replay commands read as for
/// [`reference_process`]. Settings that run it leave `search_slots` at None: a simulated
/// engine takes no core.
pub fn reference_engine(faults: &[&str]) -> EngineCommand {
    let set = FaultSet::from_names(faults.iter().copied()).expect("faults of the catalogue");
    reference_process(faults).simulated(usicheck::refengine::simulated(
        usicheck::refengine::Config {
            faults: set,
            seed: 1,
            ..Default::default()
        },
    ))
}

/// The reference engine with the given faults as a real process, in real time: for what only
/// a process shows (signals, pipes, exit statuses, the machine's load). Slow tier when a
/// verdict depends on its timing.
pub fn reference_process(faults: &[&str]) -> EngineCommand {
    let mut command = EngineCommand::new(USICHECK).arg("engine");
    for fault in faults {
        command = command.arg("--fault").arg(*fault);
    }
    command
}

/// Every bundled scenario with its name.
pub fn bundled() -> Vec<(String, Scenario)> {
    BUNDLED
        .iter()
        .map(|(name, yaml)| {
            (
                (*name).to_owned(),
                load_str(name, yaml).expect("bundled scenarios load"),
            )
        })
        .collect()
}

/// Runs `scenarios` that apply under `settings`, `jobs` at a time, in plan order.
pub fn run(
    settings: &RunSettings,
    scenarios: &[(String, Scenario)],
    jobs: usize,
) -> Vec<ScenarioReport> {
    run_recording(settings, scenarios, jobs, None)
}

/// The file [`run_recording`] writes the transcript of scenario `name` to, in `dir`.
pub fn transcript_file(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{}.log", name.replace('/', "-")))
}

/// [`run`], each transcript written to [`transcript_file`] in `transcripts` when given.
pub fn run_recording(
    settings: &RunSettings,
    scenarios: &[(String, Scenario)],
    jobs: usize,
    transcripts: Option<&Path>,
) -> Vec<ScenarioReport> {
    let planned: Vec<&(String, Scenario)> = scenarios
        .iter()
        .filter(|(_, s)| settings.not_applicable(s).is_none())
        .collect();
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let mut warm = WarmProcess::default();
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some((name, scenario)) = planned.get(index) else {
                        break;
                    };
                    let mut settings = settings.clone();
                    settings.transcript_path = transcripts.map(|dir| transcript_file(dir, name));
                    let replay = format!("usicheck run {name}");
                    let report = run_scenario(scenario, name, &settings, replay, &mut warm)
                        .expect("the engine starts");
                    results.lock().unwrap().push((index, report));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, report)| report).collect()
}

/// Violations the reference engine is known to commit, as (rule, scenario, evidence). The
/// certification test fails when one disappears, so the list stays honest. Empty: the
/// reference engine has no known deviation.
pub const KNOWN_REFERENCE_DEVIATIONS: &[(&str, &str, &str)] = &[];

/// `usicheck run` of the scenario `yaml` against the reference engine with `fault`, simulated:
/// each rule flagged (FAIL, WARN or INFO) as `RULE OUTCOME`.
#[allow(dead_code)]
pub fn flagged_by_run(yaml: &str, fault: &str) -> Vec<String> {
    let path = std::env::temp_dir().join(format!(
        "usicheck-scenario-{fault}-{}.yaml",
        std::process::id()
    ));
    std::fs::write(&path, yaml).expect("a temporary file");
    let output = std::process::Command::new(USICHECK)
        .arg("run")
        .arg(&path)
        .args(["--simulate", "--format", "json", "--"])
        .args([USICHECK, "engine", "--fault", fault])
        .output()
        .expect("usicheck runs");
    std::fs::remove_file(&path).ok();
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("report.json on stdout");
    let rules = report["runs"][0]["rules"].as_array().expect("rules");
    rules
        .iter()
        .filter(|r| matches!(r["outcome"].as_str(), Some("FAIL" | "WARN" | "INFO")))
        .map(|r| {
            format!(
                "{} {}",
                r["rule"].as_str().unwrap(),
                r["outcome"].as_str().unwrap()
            )
        })
        .collect()
}
