//! What `run` and `certify` share: the engine command line, settings flags, running scenarios
//! in parallel (one engine process each) and feeding the events to a reporter.

use super::claim_order::ClaimOrder;
use super::jobs::{self, cores};
use super::report_args::ReportArgs;
use super::timeout_flags::TimeoutFlags;
use clap::Args;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};
use usicheck::blame::{Missed, Owed};
use usicheck::engine::EngineCommand;
use usicheck::engine::{SearchSlots, reaped_cpu};
use usicheck::pool::Pool;
use usicheck::report::{
    Baseline, EngineCpu, Event, FailOn, Reporter, RunInfo, ScenarioReport, Speaker,
};
use usicheck::rules::{Claims, Profile, RuleId};
use usicheck::scenario::runner::{RunSettings, WarmProcess, run_pre_flight, run_scenario};
use usicheck::scenario::{OptionSettings, Scenario};

/// Flags shared by `run` and `certify`.
#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// Profile to certify against.
    #[arg(long, value_enum, default_value_t = Profile::Shogidokoro)]
    pub profile: Profile,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Sessions at once, each with its own engine under test: here, scenarios (default: eight
    /// per core, at most 16, as a scenario mostly waits; one per core with --simulate, where an
    /// engine never waits). However many run, only one engine per core computes at a time (an
    /// engine searching with N threads counts N: `--option Threads=N`, else its declared
    /// default).
    #[arg(long, value_parser = super::jobs::parser())]
    pub jobs: Option<u16>,
    /// Engine option sent before `isready` in every handshake (repeatable); NAME alone
    /// presses a button.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// A vendor extension the engine implements, by rule ID (repeatable; e.g. USI-EXT-015,
    /// early ponder): its scenarios run and judge it like a MUST.
    #[arg(long = "claim", value_name = "RULE")]
    pub claims: Vec<String>,
    /// Working directory of the engine.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    #[command(flatten)]
    pub timeouts: TimeoutFlags,
    /// MyShogi engine_define.xml naming the engine's extended protocol (default: the one beside
    /// the engine binary, if any).
    #[arg(long, value_name = "FILE")]
    pub engine_define: Option<PathBuf>,
    /// Accepted deviations, one per line: RULE<TAB>SCENARIO or *<TAB>why. Their FAIL and
    /// WARN verdicts are shown as waived and do not fail the gate; a waiver whose rule no
    /// longer fails does (stale: remove it).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write the verdicts that fail the gate as a baseline to FILE (one waiver per rule), to
    /// edit and pass to --baseline.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// Settings file (default: the nearest usicheck.toml from the current directory up to the
    /// repository root, the first directory holding .git; paths in it are relative to its
    /// directory; the report's header names the file read). A flag given here wins over it,
    /// and `--option` replaces its option of the same NAME.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Run the built-in reference engine (no ENGINE, or `usicheck engine [--fault NAME]…
    /// [--seed N]`) in simulated time inside this process: the same verdicts every run, and
    /// no real second spent waiting. What only a process shows (signals, pipes, the machine's
    /// load) needs a real run.
    #[arg(long)]
    pub simulate: bool,
    /// Start an engine process for every scenario. By default a scenario that needs no fresh
    /// process (see `fresh` in scenarios/README.md) runs in the process an earlier clean
    /// scenario left, after an `isready` exchange, as a GUI keeps one process for many games.
    #[arg(long)]
    pub fresh_processes: bool,
    /// The engine command line (default: the config file's engine, else this binary's built-in
    /// reference engine). Given here, it replaces the config file's `command` and `args`.
    #[arg(last = true, value_name = "ENGINE ARGS")]
    pub engine: Vec<String>,
}

/// The command of the engine under test: the words after `--` (or the config file's), run in
/// `--cwd` when given.
pub fn engine_command(argv: &[String], cwd: Option<&Path>) -> Result<EngineCommand, String> {
    let (program, rest) = argv
        .split_first()
        .ok_or("no engine given: put it after `--`, or in usicheck.toml")?;
    in_dir(EngineCommand::new(program).args(rest), cwd, "--cwd")
}

/// `command` run in `dir` when given, which must be a directory (`flag` names it in the error).
pub fn in_dir(
    command: EngineCommand,
    dir: Option<&Path>,
    flag: &str,
) -> Result<EngineCommand, String> {
    match dir {
        Some(dir) if !dir.is_dir() => Err(format!("{flag} {}: not a directory", dir.display())),
        Some(dir) => Ok(command.current_dir(dir)),
        None => Ok(command),
    }
}

/// An `--option NAME=VALUE` (or `NAME`, a button press) as name and value.
pub fn option_flag(option: &str) -> Result<(String, Option<String>), String> {
    let (name, value) = match option.split_once('=') {
        Some((name, value)) => (name, Some(value.to_owned())),
        None => (option, None),
    };
    if !usicheck::usi::is_settable_option_name(name) {
        return Err(format!(
            "--option {option}: expected NAME=VALUE with a name without whitespace"
        ));
    }
    Ok((name.to_owned(), value))
}

/// What the engine claims: its engine_define.xml (`--engine-define`, else the one beside the
/// binary, found relative to `cwd` for a relative path) and the `--claim` rule IDs.
pub fn engine_claims(
    program: &Path,
    engine_define: Option<&Path>,
    cwd: Option<&Path>,
    claim_flags: &[String],
) -> Result<Claims, String> {
    let beside = program
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| match cwd {
            Some(cwd) if dir.is_relative() => cwd.join(dir),
            _ => dir.to_path_buf(),
        })
        .map(|dir| dir.join("engine_define.xml"))
        .filter(|path| path.is_file());
    let mut claims = match engine_define.map(Path::to_path_buf).or(beside) {
        Some(path) => super::engine_define::read_claims(&path)?,
        None => Claims::default(),
    };
    for claim in claim_flags {
        add_claim(&mut claims, claim).map_err(|e| format!("--claim {claim}: {e}"))?;
    }
    Ok(claims)
}

/// Adds the vendor extension named by rule ID `text` (any case) to `claims`.
pub fn add_claim(claims: &mut Claims, text: &str) -> Result<(), String> {
    let id: RuleId = text
        .to_ascii_uppercase()
        .parse()
        .map_err(|e| format!("{e}"))?;
    claims.add_rule(id)
}

/// What a duration that is not positive is told.
pub const DURATION_EXPECTED: &str =
    "expected a positive duration up to 1h with its unit, such as 500ms, 10s or 1m";

/// Longest timeout a flag or the config file may set (an hour): anything longer is a typo.
const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// `text` as a positive duration of at most an hour with its unit (`500ms`, `10s`, `1m`):
/// a bare number, seconds elsewhere, is too easily meant as milliseconds here.
pub fn positive_duration(text: &str) -> Option<Duration> {
    let has_unit = text.trim().contains(|c: char| !c.is_ascii_digit());
    usicheck::duration::parse(text)
        .ok()
        .filter(|d| has_unit && !d.is_zero() && *d <= MAX_TIMEOUT)
}

/// A positive duration given to `--FLAG`; the error names the flag.
pub fn duration_flag(flag: &str, text: &str) -> Result<Duration, String> {
    positive_duration(text).ok_or_else(|| format!("--{flag} {text}: {DURATION_EXPECTED}"))
}

impl SuiteArgs {
    /// The engine argv: as given, or this binary with `engine`.
    pub fn engine_argv(&self) -> Result<Vec<String>, String> {
        if !self.engine.is_empty() {
            return Ok(self.engine.clone());
        }
        let me = std::env::current_exe().map_err(|e| {
            format!("cannot locate the usicheck binary for the built-in engine: {e}")
        })?;
        Ok(vec![me.display().to_string(), "engine".to_owned()])
    }

    /// Scenarios in flight: `--jobs`, else [`jobs::SCENARIOS_PER_CORE`] per core
    /// ([`jobs::SIMULATED_PER_CORE`] simulated), at most [`jobs::MAX_DEFAULT_JOBS`].
    pub fn jobs(&self) -> usize {
        let per_core = if self.simulate {
            jobs::SIMULATED_PER_CORE
        } else {
            jobs::SCENARIOS_PER_CORE
        };
        self.jobs
            .map_or_else(|| jobs::per_core(per_core), usize::from)
    }

    /// Builds the run settings, reading engine_define.xml for claims.
    pub fn settings(&self) -> Result<RunSettings, String> {
        let argv = self.engine_argv()?;
        let mut engine = engine_command(&argv, self.cwd.as_deref())?;
        if self.simulate {
            engine = engine.simulated(super::engine::simulated(&argv)?);
        }
        let mut settings = RunSettings::new(engine, self.profile);
        for option in &self.options {
            settings.options.0.push(option_flag(option)?);
        }
        settings.search_slots = (!self.simulate).then(search_slots);
        settings.reuse_processes = !self.fresh_processes;
        let given = self.timeouts.parsed()?;
        settings.timeouts.usiok = given.usiok.unwrap_or(settings.timeouts.usiok);
        settings.timeouts.ready_silence = given.ready.unwrap_or(settings.timeouts.ready_silence);
        settings.timeouts.quit = given.quit.unwrap_or(settings.timeouts.quit);
        let mut claims = self.claims.clone();
        if self.engine.is_empty() {
            claims.extend(usicheck::refengine::CLAIMS.iter().map(|c| c.to_string()));
        }
        settings.claims = engine_claims(
            Path::new(&argv[0]),
            self.engine_define.as_deref(),
            self.cwd.as_deref(),
            &claims,
        )?;
        Ok(settings)
    }

    /// The `--option` settings as name/value pairs for the run header.
    pub fn option_pairs(&self) -> Vec<(String, String)> {
        self.options
            .iter()
            .map(|o| match o.split_once('=') {
                Some((n, v)) => (n.to_owned(), v.to_owned()),
                None => (o.clone(), String::new()),
            })
            .collect()
    }
}

/// One scenario to run: how reports and replay commands name it, and the scenario itself.
#[derive(Clone)]
pub struct Planned {
    /// The argument `usicheck run` takes to run it again (a path or a bundled name).
    pub name: String,
    pub file: String,
    pub scenario: Scenario,
}

/// Quotes a word for a POSIX shell when it needs it.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The engine flags of a replay command: `--option`, `--claim`, `--cwd`, `--engine-define`,
/// each shell-quoted.
pub fn engine_flag_words(
    options: &[String],
    claims: &[String],
    cwd: Option<&Path>,
    engine_define: Option<&Path>,
) -> Vec<String> {
    let mut words = Vec::new();
    let mut flag = |name: &str, value: &str| {
        words.push(name.to_owned());
        words.push(shell_word(value));
    };
    options.iter().for_each(|o| flag("--option", o));
    claims.iter().for_each(|c| flag("--claim", c));
    if let Some(dir) = cwd {
        flag("--cwd", &dir.display().to_string());
    }
    if let Some(path) = engine_define {
        flag("--engine-define", &path.display().to_string());
    }
    words
}

/// `usicheck run NAME --profile P [--option …] -- ENGINE ARGS`.
pub fn replay_command(name: &str, args: &SuiteArgs, argv: &[String]) -> String {
    let mut words = vec![
        "usicheck".to_owned(),
        "run".to_owned(),
        shell_word(name),
        "--profile".to_owned(),
        args.profile.to_string(),
    ];
    words.extend(engine_flag_words(
        &args.options,
        &args.claims,
        args.cwd.as_deref(),
        args.engine_define.as_deref(),
    ));
    words.push("--".to_owned());
    words.extend(argv.iter().map(|w| shell_word(w)));
    words.join(" ")
}

/// The name under which the pre-flight's transcript is kept.
pub const PRE_FLIGHT_NAME: &str = "00-pre-flight";

/// What to try when the engine never finished its handshake, appended to that verdict.
fn handshake_hint(settings: &RunSettings, pre_flight: &mut ScenarioReport) {
    let hint = format!(
        "; no scenario was run. If the engine needs longer to start, raise --usiok-timeout \
         (now {} ms); if it loads files relative to its own directory, pass --cwd DIR; its \
         stderr (`!` lines) is in the transcript",
        settings.timeouts.usiok.as_millis()
    );
    let missed = |m: &&Missed| m.owed == Owed::Usiok;
    let Some(&Missed { rule, .. }) = pre_flight.missed_replies.iter().find(missed) else {
        return;
    };
    for verdict in &mut pre_flight.verdicts {
        if verdict.rule == rule {
            verdict.reason.push_str(&hint);
        }
    }
}

/// Runs the pre-flight and adapts the settings to the facts it established.
fn pre_flight(
    args: &SuiteArgs,
    argv: &[String],
    settings: &mut RunSettings,
    transcript_path: Option<PathBuf>,
) -> Result<ScenarioReport, String> {
    let replay = replay_command("01-handshake/fast-usiok", args, argv);
    let (mut report, facts) =
        run_pre_flight(settings, transcript_path, replay).map_err(|e| e.to_string())?;
    // Settling a process for the next scenario costs T-SILENT: worth it for an engine whose
    // start (launch to its first `readyok`, as the pre-flight's took) costs more. A simulated
    // one costs no time either way, and keeps its processes warm.
    if settings.engine.simulation().is_none() {
        let start_up = first_readyok(&report);
        settings.reuse_processes &= start_up.is_some_and(|t| t > settings.timeouts.silent);
    }
    if facts.no_usiok {
        handshake_hint(settings, &mut report);
    }
    settings.facts = facts;
    Ok(report)
}

/// When the session of `report` read its first `readyok`, from the engine's launch.
fn first_readyok(report: &ScenarioReport) -> Option<Duration> {
    let timeline = report.timeline.as_ref()?;
    timeline
        .head
        .iter()
        .find(|entry| entry.from == Speaker::Engine && entry.text == "readyok")
        .map(|entry| Duration::from_secs_f64(entry.at_ms / 1000.0))
}

/// What the baseline did over a run: the waivers used, and the rules judged at all (a waiver
/// of a rule never judged is not stale: nothing shows it).
#[derive(Default)]
struct Waiving {
    used: Vec<usize>,
    judged: Vec<RuleId>,
}

impl Waiving {
    /// Marks the waived verdicts of the report of scenario `name` before it is reported.
    fn apply(
        &mut self,
        baseline: &Baseline,
        name: &str,
        report: &mut ScenarioReport,
        fail_on: FailOn,
    ) {
        self.used
            .extend(baseline.apply(name, &mut report.verdicts, fail_on));
        for verdict in &report.verdicts {
            if verdict.outcome != usicheck::rules::Outcome::Skip
                && !self.judged.contains(&verdict.rule)
            {
                self.judged.push(verdict.rule);
            }
        }
    }
}

/// Runs the planned scenarios `jobs` at a time and reports every event; returns the reports
/// (the pre-flight's first, named [`PRE_FLIGHT_NAME`]) with the names their scenarios are run
/// by. Each scenario streams its full transcript to its entry of `transcript_paths`, if any.
/// Verdicts `baseline` waives are marked so; `selection` says the plan is a chosen part of
/// the suite (see [`RunInfo::selection`]). `Err` when the engine cannot be started at all.
pub fn run_all(
    plan: &[Planned],
    selection: bool,
    args: &SuiteArgs,
    settings: &RunSettings,
    transcript_paths: &[Option<PathBuf>],
    baseline: &Baseline,
    reporter: &mut dyn Reporter,
) -> Result<Vec<(String, ScenarioReport)>, String> {
    let fail_on = args.report.fail_on;
    let mut waiving = Waiving::default();
    let started = Instant::now();
    let cpu_before = reaped_cpu();
    let argv = args.engine_argv()?;
    let (pre_flight_path, transcript_paths) = match transcript_paths.split_first() {
        Some((first, rest)) => (first.clone(), rest),
        None => (None, transcript_paths),
    };
    let info = RunInfo {
        usicheck_version: env!("CARGO_PKG_VERSION").to_owned(),
        started_at: rfc3339_now(),
        profile: settings.profile,
        engine: argv.clone(),
        engine_name: None,
        engine_author: None,
        options: args.option_pairs(),
        config: args.config.as_ref().map(|path| path.display().to_string()),
        scenarios: plan.len(),
        jobs: args.jobs(),
        selection,
    };
    emit(reporter, &Event::RunStarted(info));
    let mut settings = settings.clone();
    let report = match pre_flight(args, &argv, &mut settings, pre_flight_path) {
        Err(_) if super::interrupt::interrupted().is_some() => None,
        result => Some(result?),
    };
    let mut pre_flight_report = None;
    if let Some(report) = report {
        let mut report = super::interrupt::cut_if_interrupted(report);
        waiving.apply(baseline, PRE_FLIGHT_NAME, &mut report, fail_on);
        emit(reporter, &Event::ScenarioFinished(Box::new(report.clone())));
        pre_flight_report = Some(report);
    }
    let settings = &settings;
    // Scenarios run `alone` go first, each with nothing beside it (the write lock); the others
    // share the read lock. A worker that keeps a warm process takes the next scenario that may
    // run in it (see `ClaimOrder`); each line longest required wait first: a long scenario
    // started last would end the run alone.
    let longest_first =
        |i: &usize| std::cmp::Reverse(plan[*i].scenario.required_wait(&settings.timeouts));
    let (warm, mut fresh): (Vec<usize>, Vec<usize>) =
        (0..plan.len()).partition(|&i| settings.may_share(&plan[i].scenario));
    // A warm scenario's key: the options its handshake sets (those of a process it fits).
    let opening = |i: usize| plan[i].scenario.opening_options().cloned();
    let mut warm: Vec<(usize, OptionSettings)> = (warm.into_iter())
        .map(|i| (i, opening(i).unwrap_or_default()))
        .collect();
    warm.sort_by_key(|(i, _)| longest_first(i));
    fresh.sort_by_key(|i| (!plan[*i].scenario.alone, longest_first(i)));
    let order = ClaimOrder::new(fresh, warm);
    let alone = RwLock::new(());
    /// What the workers tell this thread: a scenario started, or finished (with the signal
    /// that interrupted the run by then, if any).
    enum Progress {
        Started(usize),
        Finished(usize, Result<Box<ScenarioReport>, String>, Option<String>),
    }
    let mut reports: Vec<Option<ScenarioReport>> = (0..plan.len()).map(|_| None).collect();
    let mut start_error = None;
    // Results are reported in plan order whatever order they finish in, so reports do not
    // depend on --jobs: `done` marks the finished, `emitted` counts the reported prefix.
    let mut done = vec![false; plan.len()];
    let mut emitted = 0;
    let interrupted = || super::interrupt::interrupted().is_some();
    Pool::new(args.jobs())
        .items(plan.len())
        .stop_when(&interrupted)
        .run(
            |worker| {
                // The process this worker's last scenario left warm, for its next.
                let mut warm = WarmProcess::default();
                // Each claim takes one scenario; which one, the order decides.
                for _ in worker.claims() {
                    let Some(index) = order.next(warm.kept_options()) else {
                        break;
                    };
                    let planned = &plan[index];
                    let _alone = planned
                        .scenario
                        .alone
                        .then(|| alone.write().unwrap_or_else(PoisonError::into_inner));
                    let _beside = (!planned.scenario.alone)
                        .then(|| alone.read().unwrap_or_else(PoisonError::into_inner));
                    worker.send(Progress::Started(index));
                    let replay = replay_command(&planned.name, args, &argv);
                    let mut settings = settings.clone();
                    settings.transcript_path = transcript_paths.get(index).cloned().flatten();
                    let result = run_scenario(
                        &planned.scenario,
                        &planned.file,
                        &settings,
                        replay,
                        &mut warm,
                    )
                    .map(Box::new)
                    .map_err(|e| e.to_string());
                    let failed = result.is_err();
                    worker.send(Progress::Finished(
                        index,
                        result,
                        super::interrupt::interrupted(),
                    ));
                    if failed {
                        // The engine cannot start: no point trying the rest.
                        worker.stop();
                        break;
                    }
                }
            },
            |progress| {
                let index = match progress {
                    Progress::Started(index) => {
                        emit(
                            reporter,
                            &Event::ScenarioStarted {
                                name: plan[index].scenario.name.clone(),
                                file: plan[index].file.clone(),
                            },
                        );
                        return;
                    }
                    Progress::Finished(index, Ok(report), interrupted) => {
                        // The engine was killed mid-way: the verdicts would judge the kill.
                        let mut report = match interrupted {
                            Some(signal) => (*report).cut_short(&signal),
                            None => *report,
                        };
                        waiving.apply(baseline, &plan[index].name, &mut report, fail_on);
                        reports[index] = Some(report);
                        index
                    }
                    Progress::Finished(index, Err(_), Some(_)) => index,
                    Progress::Finished(index, Err(error), None) => {
                        start_error.get_or_insert(error);
                        index
                    }
                };
                done[index] = true;
                while emitted < plan.len() && done[emitted] {
                    if let Some(report) = &reports[emitted] {
                        emit(reporter, &Event::ScenarioFinished(Box::new(report.clone())));
                    }
                    emitted += 1;
                }
            },
        );
    // Cut short (a signal, or the engine could not start): what finished, in plan order.
    for report in reports[emitted..].iter().flatten() {
        emit(reporter, &Event::ScenarioFinished(Box::new(report.clone())));
    }
    if let Some(error) = start_error {
        return Err(error);
    }
    emit(
        reporter,
        &Event::RunFinished {
            duration_ms: started.elapsed().as_millis() as u64,
            // Every engine process has ended and been waited for: the workers quit theirs.
            engine_cpu: (settings.search_slots.as_ref())
                .filter(|_| settings.engine.simulation().is_none())
                .map(|_| EngineCpu {
                    ms: reaped_cpu().saturating_sub(cpu_before).as_millis() as u64,
                    cores: cores(),
                }),
            interrupted: super::interrupt::interrupted(),
            stale_waivers: baseline.stale(&waiving.used, &waiving.judged),
        },
    );
    let pre_flight = pre_flight_report.map(|r| (PRE_FLIGHT_NAME.to_owned(), r));
    let named = plan
        .iter()
        .zip(reports)
        .filter_map(|(p, r)| r.map(|r| (p.name.clone(), r)));
    Ok(pre_flight.into_iter().chain(named).collect())
}

fn emit(reporter: &mut dyn Reporter, event: &Event) {
    if let Err(error) = reporter.event(event) {
        eprintln!("usicheck: cannot write the report: {error}");
    }
}

/// Runs the plan (a `selection` of the suite, or all of it that applies), reporting as
/// `--format` and `--report-dir` say; the exit code follows `--fail-on`.
pub fn run_and_report(
    plan: &[Planned],
    selection: bool,
    args: &SuiteArgs,
    settings: &RunSettings,
) -> Result<u8, String> {
    let mut outputs = args.report.outputs()?;
    let names = std::iter::once(PRE_FLIGHT_NAME).chain(plan.iter().map(|p| p.name.as_str()));
    let transcript_paths = outputs.transcript_paths(names);
    let baseline = match &args.baseline {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--baseline {}: {e}", path.display()))?;
            Baseline::parse(&path.display().to_string(), &text)?
        }
        None => Baseline::default(),
    };
    let reports = run_all(
        plan,
        selection,
        args,
        settings,
        &transcript_paths,
        &baseline,
        &mut outputs,
    )?;
    if let Some(path) = &args.write_baseline {
        let verdicts: Vec<(String, usicheck::rules::Verdict)> = reports
            .into_iter()
            .flat_map(|(name, r)| r.verdicts.into_iter().map(move |v| (name.clone(), v)))
            .collect();
        let text = usicheck::report::render_baseline(&verdicts, args.report.fail_on);
        std::fs::write(path, text)
            .map_err(|e| format!("--write-baseline {}: {e}", path.display()))?;
    }
    let passed = outputs
        .finish()
        .map_err(|e| format!("cannot write the report: {e}"))?;
    Ok(if passed {
        super::EXIT_PASS
    } else {
        super::EXIT_FAIL
    })
}

/// The machine's cores, shared by the engines: one per engine that computes, whatever its
/// threads. A conformance run measures no strength, and an engine keeps its time by the wall
/// clock: a search on four threads beside another engine's searches on its share of the cores
/// and is not made to wait for all four (gpsusi, two threads, certified in 278 s when each of
/// its searches waited for both cores of the machine, 193–202 s without). What another engine's
/// threads take from a reply's time is measured and excused ([`usicheck::engine::CpuWait`]).
pub(super) fn search_slots() -> Arc<SearchSlots> {
    SearchSlots::new(cores(), 1)
}

/// The current UTC time as RFC 3339, seconds precision.
fn rfc3339_now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
