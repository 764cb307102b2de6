//! `usicheck selftest [RULE…]`: the proof that each check can fail. Every reference-engine
//! fault that names one of the rules runs through the bundled scenarios that list its rules
//! and must make each rule fail there; the clean engine must pass the same scenarios. With
//! `--exact`, every fault runs the whole suite and what it flags is compared with the gap
//! table (src/refengine/fault_gaps.tsv), which `--write` regenerates.

use super::jobs;
use super::report_args::ReportArgs;
use super::suite::{PRE_FLIGHT_NAME, shell_word};
use clap::Args;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use usicheck::blame::Facts;
use usicheck::engine::EngineCommand;
use usicheck::engine::SearchSlots;
use usicheck::engine::sanitise;
use usicheck::pool::Pool;
use usicheck::refengine::fault_gaps::{self, fault_gaps, gap_of};
use usicheck::refengine::faults::Fault;
use usicheck::report::{Event, Reporter, RunInfo, ScenarioReport};
use usicheck::rules::{Profile, RuleId, Status, catalogue};
use usicheck::scenario::bundled_coverage;
use usicheck::scenario::runner::{RunSettings, pre_flight_scenario, run_pre_flight, run_scenario};
use usicheck::selftest::{
    ExactResult, FaultProof, Flags, PairResult, Plan, Planned, RuleProof, Target, clean_report,
    exact_result, judge, merge_table, pair_result, plan, plan_pairs, sample_pairs,
};

/// Show that each check can fail: run the faults that break the given rules (all by default)
/// through the bundled scenarios that check them, against the built-in reference engine.
#[derive(Args, Debug)]
pub struct SelftestArgs {
    /// Rules to prove (case-insensitive; default: every rule a fault names).
    #[arg(value_name = "RULE")]
    pub rules: Vec<String>,
    /// Only this fault (repeatable; `usicheck engine --list-faults` lists them).
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// Run the whole suite against each fault and compare every rule it flags with the gap
    /// table (src/refengine/fault_gaps.tsv): about 30 s per fault.
    #[arg(long)]
    pub exact: bool,
    /// With --exact: write the gap table (the committed one, with the swept faults' entries
    /// as observed) to FILE.
    #[arg(long, value_name = "FILE", requires = "exact")]
    pub write: Option<PathBuf>,
    /// Sessions at once, each with its own engine under test: here, scenarios run against the
    /// faulty and the clean engines (default: one per core, at most 16, as a simulated engine
    /// never waits; 32 with --real, where the paced engines mostly sleep). Whatever the number,
    /// at most eight searches per core run at a time.
    #[arg(long, value_parser = super::jobs::parser())]
    pub jobs: Option<u16>,
    /// Run each engine as a process in real time, as certify does, instead of in simulated
    /// time in this process (the default: same verdicts every run, and no real second spent
    /// waiting). What only a process shows (signals, pipes, the machine's load) needs it.
    #[arg(long)]
    pub real: bool,
    /// Sweep this many pairs of faults (a fixed sample for --seed; `all` for every pair):
    /// the whole suite against each pair must flag what its two faults flag alone, except
    /// the rules one of them keeps from being checked (SKIP "not reached").
    /// With --exact, every fault is swept alone as well.
    #[arg(long, value_name = "N|all", conflicts_with_all = ["faults", "rules"])]
    pub pairs: Option<String>,
    /// Sweep this pair of faults (`A+B`, repeatable), as --pairs does.
    #[arg(long, value_name = "A+B", conflicts_with_all = ["faults", "rules", "pairs"])]
    pub pair: Vec<String>,
    /// The seed of the --pairs sample.
    #[arg(long, default_value_t = 1, requires = "pairs")]
    pub seed: u64,
    #[command(flatten)]
    pub report: ReportArgs,
}

/// The reference engine answers within milliseconds: shorter waits than §0.3's keep the
/// faults that never answer from costing the full timeouts in every scenario.
const USIOK_TIMEOUT: &str = "5s";
const READY_TIMEOUT: &str = "3s";
const QUIT_TIMEOUT: &str = "3s";
/// Searches at once per core in real time: the reference engine searches at the simulated
/// node rate (`usicheck engine --nodes-per-ms`), sleeping most of each millisecond.
const PACED_SEARCHES_PER_CORE: usize = 8;

fn parse_rule(text: &str) -> Result<RuleId, String> {
    text.to_ascii_uppercase()
        .parse()
        .map_err(|e| format!("{e}"))
}

fn parse_fault(name: &str) -> Result<Fault, String> {
    Fault::ALL
        .iter()
        .copied()
        .find(|f| f.name() == name)
        .ok_or_else(|| {
            format!("--fault {name}: no such fault (see `usicheck engine --list-faults`)")
        })
}

/// The reference engine with `faults`, as argv.
fn engine_argv(faults: &[Fault]) -> Result<Vec<String>, String> {
    let me = std::env::current_exe()
        .map_err(|e| format!("cannot locate the usicheck binary for the built-in engine: {e}"))?;
    let mut argv = vec![me.display().to_string(), "engine".to_owned()];
    for fault in faults {
        argv.extend(["--fault".to_owned(), fault.name().to_owned()]);
    }
    Ok(argv)
}

/// The faults of a planned engine: none, one, or a pair.
fn faults_of(planned: &Planned) -> Vec<Fault> {
    planned.fault.into_iter().chain(planned.partner).collect()
}

/// The pairs asked for: `--pair A+B`…, else `--pairs N|all` sampled with `seed`.
fn pairs_asked(args: &SelftestArgs) -> Result<Vec<(Fault, Fault)>, String> {
    if !args.pair.is_empty() {
        return args
            .pair
            .iter()
            .map(|pair| {
                let (a, b) = pair
                    .split_once('+')
                    .ok_or_else(|| format!("--pair {pair}: expected two faults as A+B"))?;
                Ok((parse_fault(a)?, parse_fault(b)?))
            })
            .collect();
    }
    let Some(count) = &args.pairs else {
        return Ok(Vec::new());
    };
    let count = match count.as_str() {
        "all" => usize::MAX,
        n => n
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("--pairs {n}: expected a positive number or `all`"))?,
    };
    Ok(sample_pairs(count, args.seed))
}

/// The command of the reference engine with `faults`: the process `argv` names, or,
/// simulated, its loop in this process.
fn engine_command(argv: &[String], faults: &[Fault], simulated: bool) -> EngineCommand {
    let command = EngineCommand::new(&argv[0]).args(&argv[1..]);
    if !simulated {
        return command;
    }
    let mut set = usicheck::refengine::faults::FaultSet::none();
    set.extend(faults.iter().copied());
    command.simulated(usicheck::refengine::simulated(
        usicheck::refengine::Config {
            faults: set,
            seed: 1,
            ..Default::default()
        },
    ))
}

fn settings(command: EngineCommand, profile: Profile) -> RunSettings {
    let mut settings = RunSettings::new(command, profile);
    let duration = |text| super::suite::duration_flag("", text).expect("a valid duration");
    settings.timeouts.usiok = duration(USIOK_TIMEOUT);
    settings.timeouts.ready_silence = duration(READY_TIMEOUT);
    settings.timeouts.quit = duration(QUIT_TIMEOUT);
    for claim in usicheck::refengine::CLAIMS {
        settings
            .claims
            .add_rule(*claim)
            .expect("a vendor extension");
    }
    settings
}

fn replay(target: &str, profile: Profile, argv: &[String]) -> String {
    let mut words: Vec<String> = [
        "usicheck",
        "run",
        target,
        "--profile",
        profile.as_str(),
        "--usiok-timeout",
        USIOK_TIMEOUT,
        "--ready-timeout",
        READY_TIMEOUT,
        "--quit-timeout",
        QUIT_TIMEOUT,
    ]
    .iter()
    .map(|w| shell_word(w))
    .collect();
    for claim in usicheck::refengine::CLAIMS {
        words.extend(["--claim".to_owned(), claim.to_string()]);
    }
    words.push("--".to_owned());
    words.extend(argv.iter().map(|w| shell_word(w)));
    words.join(" ")
}

/// Runs `work` on every item, `jobs` at a time; `done` sees each result on this thread as it
/// arrives.
fn in_parallel<T: Sync, R: Send>(
    jobs: usize,
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    mut done: impl FnMut(usize, R),
) {
    Pool::new(jobs).items(items.len()).run(
        |worker| {
            for index in worker.claims() {
                worker.send((index, work(&items[index])));
            }
        },
        |(index, result)| done(index, result),
    );
}

pub fn run(args: SelftestArgs) -> Result<ExitCode, String> {
    let rules: Vec<RuleId> = args
        .rules
        .iter()
        .map(|r| parse_rule(r))
        .collect::<Result<_, _>>()?;
    let faults: Vec<Fault> = args
        .faults
        .iter()
        .map(|f| parse_fault(f))
        .collect::<Result<_, _>>()?;
    let clean_argv = engine_argv(&[])?;
    let clean_settings = settings(engine_command(&clean_argv, &[], false), Profile::Usi2);
    let pairs = pairs_asked(&args)?;
    let plan = if pairs.is_empty() {
        plan(&faults, &rules, args.exact, &clean_settings)
    } else {
        plan_pairs(&pairs, args.exact, &clean_settings)
    };
    if plan.engines.len() == 1 {
        return Err(format!(
            "no fault breaks {}: nothing to prove (`usicheck rules ID` shows what covers a rule)",
            args.rules.join(", ")
        ));
    }
    let jobs = args.jobs.map_or_else(
        || match args.real {
            true => jobs::SELFTEST_REAL_JOBS,
            false => jobs::per_core(jobs::SIMULATED_PER_CORE),
        },
        usize::from,
    );
    let mut outputs = args.report.outputs()?;
    let started = Instant::now();
    emit(
        &mut outputs,
        &Event::RunStarted(RunInfo {
            usicheck_version: env!("CARGO_PKG_VERSION").to_owned(),
            started_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            profile: Profile::Usi2,
            engine: clean_argv.clone(),
            engine_name: None,
            engine_author: None,
            options: Vec::new(),
            config: None,
            scenarios: plan.engines.len(),
            jobs,
            selection: false,
        }),
    );
    let whole_suite = args.exact || !pairs.is_empty();
    let results = run_plan(&plan, whole_suite, !args.real, jobs, &mut outputs)?;
    let (proofs, exact): (Vec<_>, Vec<_>) = (results.proofs, results.exact);
    if args.report.format == usicheck::report::Format::Human {
        let text = if !pairs.is_empty() {
            format!("{}{}", exact_summary(&exact), pairs_summary(&results.pairs))
        } else if args.exact {
            exact_summary(&exact)
        } else {
            proof_summary(&proofs, &rules, !faults.is_empty())
        };
        super::stdout::write_stdout(&text);
    }
    if let Some(path) = &args.write {
        let table = fault_gaps::render(&merge_table(fault_gaps(), &exact));
        std::fs::write(path, table).map_err(|e| format!("--write {}: {e}", path.display()))?;
    }
    emit(
        &mut outputs,
        &Event::RunFinished {
            duration_ms: started.elapsed().as_millis() as u64,
            interrupted: super::interrupt::interrupted(),
            stale_waivers: Vec::new(),
        },
    );
    let passed = outputs
        .finish()
        .map_err(|e| format!("cannot write the report: {e}"))?;
    Ok(ExitCode::from(if passed {
        super::EXIT_PASS
    } else {
        super::EXIT_FAIL
    }))
}

fn emit(reporter: &mut dyn Reporter, event: &Event) {
    if let Err(error) = reporter.event(event) {
        eprintln!("usicheck: cannot write the report: {error}");
    }
}

/// A whole-suite run: each bundled scenario's name and report.
type NamedRuns = Vec<(String, ScenarioReport)>;

struct Results {
    proofs: Vec<FaultProof>,
    exact: Vec<ExactResult>,
    pairs: Vec<PairResult>,
}

/// The pair sweep's counts.
fn pairs_summary(results: &[PairResult]) -> String {
    let agree = results.iter().filter(|r| r.agrees()).count();
    format!(
        "{} pairs swept: {agree} flag what their faults flag alone (less what one keeps from being checked), {} differ\n",
        results.len(),
        results.len() - agree
    )
}

/// Runs the pre-flight of every engine, then every session of the plan, judging (and
/// reporting) each engine as soon as its sessions are in.
fn run_plan(
    plan: &Plan,
    exact: bool,
    simulated: bool,
    jobs: usize,
    reporter: &mut dyn Reporter,
) -> Result<Results, String> {
    let argvs: Vec<Vec<String>> = plan
        .engines
        .iter()
        .map(|e| engine_argv(&faults_of(e)))
        .collect::<Result<_, _>>()?;
    let pre_flight = Target {
        name: PRE_FLIGHT_NAME.to_owned(),
        scenario: pre_flight_scenario(),
        profile: Profile::Usi2,
    };
    // As certify schedules: many sessions in flight, one search per core, so that a fault's
    // timing verdicts do not depend on how many sessions run beside it.
    // Simulated sessions only compute, and no clock is shared: one per core, no slots.
    let slots = (!simulated).then(|| SearchSlots::new(jobs::cores() * PACED_SEARCHES_PER_CORE, 1));
    let command = |engine: usize| {
        engine_command(&argvs[engine], &faults_of(&plan.engines[engine]), simulated)
    };
    let session = |engine: usize, target: &Target, facts: &Facts| {
        let mut settings = settings(command(engine), target.profile);
        settings.search_slots = slots.clone();
        settings.facts = facts.clone();
        let file = format!("scenarios/{}.yaml", target.name);
        let replay = replay(&target.name, target.profile, &argvs[engine]);
        run_scenario(&target.scenario, &file, &settings, replay).map_err(|e| e.to_string())
    };
    let pre_flight_session = |engine: usize| {
        let mut settings = settings(command(engine), pre_flight.profile);
        settings.search_slots = slots.clone();
        let replay = replay(&pre_flight.name, pre_flight.profile, &argvs[engine]);
        run_pre_flight(&settings, None, replay).map_err(|e| e.to_string())
    };
    let engines: Vec<usize> = (0..plan.engines.len()).collect();
    let mut first: Vec<Option<(ScenarioReport, Facts)>> = vec![None; engines.len()];
    let mut error = None;
    in_parallel(
        jobs,
        &engines,
        |&engine| pre_flight_session(engine),
        |index, result| match result {
            Ok(report) => first[index] = Some(report),
            Err(e) => {
                error.get_or_insert(e);
            }
        },
    );
    if let Some(error) = error {
        return match super::interrupt::interrupted() {
            Some(_) => Ok(Results {
                proofs: Vec::new(),
                exact: Vec::new(),
                pairs: Vec::new(),
            }),
            None => Err(error),
        };
    }
    let (first, found): (Vec<ScenarioReport>, Vec<Facts>) = first.into_iter().flatten().unzip();
    let sessions: Vec<(usize, usize)> = plan
        .engines
        .iter()
        .enumerate()
        .flat_map(|(e, planned)| planned.targets.iter().map(move |&t| (e, t)))
        .collect();
    let mut pending: Vec<usize> = plan.engines.iter().map(|p| p.targets.len()).collect();
    let mut runs: BTreeMap<(usize, usize), ScenarioReport> = BTreeMap::new();
    let mut results = Results {
        proofs: Vec::new(),
        exact: Vec::new(),
        pairs: Vec::new(),
    };
    let mut alone: std::collections::HashMap<Fault, Flags> = Default::default();
    let mut paired: Vec<((Fault, Fault), NamedRuns)> = Vec::new();
    // Reports go out in the plan's order, each once every earlier engine's has: the output is
    // the same run to run, whatever order the sessions finish in (a pair's engine has none
    // until the end).
    let mut finished: BTreeMap<usize, Option<ScenarioReport>> = BTreeMap::new();
    let mut next_to_emit = 0;
    let mut emit_in_order = |engine: usize, report: Option<ScenarioReport>| {
        finished.insert(engine, report);
        while let Some(report) = finished.remove(&next_to_emit) {
            if let Some(report) = report {
                emit(reporter, &Event::ScenarioFinished(Box::new(report)));
            }
            next_to_emit += 1;
        }
    };
    // An engine's reports leave `runs` as it is judged: a sweep holds the reports of the
    // engines in flight, not of every engine swept.
    let mut finish = |engine: usize, runs: &mut BTreeMap<(usize, usize), ScenarioReport>| {
        let planned = &plan.engines[engine];
        let mut judged: Vec<(&Target, ScenarioReport)> = vec![(&pre_flight, first[engine].clone())];
        judged.extend(planned.targets.iter().map(|&t| {
            let report = runs
                .remove(&(engine, t))
                .expect("every session of the engine is in");
            (&plan.targets[t], report)
        }));
        // Interrupted: the sessions' engines were killed, so nothing here is a proof.
        let interrupted = super::interrupt::interrupted();
        let named = || -> NamedRuns {
            judged
                .iter()
                .map(|(t, r)| (t.name.clone(), r.clone()))
                .collect()
        };
        // A pair is judged once both its faults have been swept alone: at the end.
        if let (Some(fault), Some(partner)) = (planned.fault, planned.partner) {
            paired.push(((fault, partner), named()));
            emit_in_order(engine, None);
            return;
        }
        if let Some(fault) = planned.fault.filter(|_| exact) {
            alone.insert(fault, Flags::of(&named()));
        }
        let report = match planned.fault {
            None => clean_report(&judged),
            Some(fault) if interrupted.is_some() => {
                judge(planned, &judged, gap_of(fault)).report(Profile::Usi2)
            }
            Some(fault) if exact => {
                let result = exact_result(fault, &named(), gap_of(fault));
                let report = result.report(Profile::Usi2);
                results.exact.push(result);
                report
            }
            Some(fault) => {
                let proof = judge(planned, &judged, gap_of(fault));
                let report = proof.report(Profile::Usi2);
                results.proofs.push(proof);
                report
            }
        };
        let report = match interrupted {
            Some(signal) => report.cut_short(&signal),
            None => report,
        };
        emit_in_order(engine, Some(report));
    };
    for (engine, planned) in plan.engines.iter().enumerate() {
        if planned.targets.is_empty() {
            finish(engine, &mut runs);
        }
    }
    in_parallel(
        jobs,
        &sessions,
        |&(engine, target)| session(engine, &plan.targets[target], &found[engine]),
        |index, result| {
            let (engine, target) = sessions[index];
            match result {
                Ok(report) => {
                    runs.insert((engine, target), report);
                    pending[engine] -= 1;
                    if pending[engine] == 0 {
                        finish(engine, &mut runs);
                    }
                }
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        },
    );
    // The summaries list faults in the plan's order too.
    let place = |fault: Fault| plan.engines.iter().position(|p| p.fault == Some(fault));
    results.exact.sort_by_key(|r| place(r.fault));
    results.proofs.sort_by_key(|p| place(p.fault));
    paired.sort_by_key(|((fault, partner), _)| (place(*fault), place(*partner)));
    for (pair, runs) in paired {
        let none = Flags::default();
        let flags_of = |fault| alone.get(&fault).unwrap_or(&none);
        let result = pair_result(pair, [flags_of(pair.0), flags_of(pair.1)], &runs);
        emit(
            reporter,
            &Event::ScenarioFinished(Box::new(result.report(Profile::Usi2))),
        );
        results.pairs.push(result);
    }
    // Starts refused after an interrupt are not errors: the run reports what finished.
    match error {
        Some(error) if super::interrupt::interrupted().is_none() => Err(error),
        _ => Ok(results),
    }
}

/// Per rule, each fault that proved it (scenario and what was seen) or why not; then the
/// counts over the rules asked for (all by default).
fn proof_summary(proofs: &[FaultProof], only: &[RuleId], faults_given: bool) -> String {
    let mut by_rule: BTreeMap<RuleId, Vec<(Fault, &RuleProof)>> = BTreeMap::new();
    for proof in proofs {
        for (rule, rule_proof) in &proof.rules {
            by_rule
                .entry(*rule)
                .or_default()
                .push((proof.fault, rule_proof));
        }
    }
    let mut text = String::from("\nproofs (rule · fault · scenario · what the check saw)\n");
    for (rule, entries) in &by_rule {
        for (fault, proof) in entries {
            let line = match proof {
                RuleProof::Proven(seen) => {
                    format!("{} in {}: {}", seen.outcome, seen.scenario, seen.reason)
                }
                RuleProof::KnownGap { why } => format!("not flagged (known gap: {why})"),
                RuleProof::GapClosed(seen) => format!(
                    "{} in {} although fault_gaps.tsv says missed",
                    seen.outcome, seen.scenario
                ),
                RuleProof::NotProven { .. } => "NOT FLAGGED by any scenario".to_owned(),
            };
            text.push_str(&format!(
                "  {:<18} {:<28} {}\n",
                rule.as_str(),
                fault.name(),
                sanitise(&line)
            ));
        }
    }
    let coverage = bundled_coverage();
    let asked: Vec<RuleId> = if !only.is_empty() {
        only.to_vec()
    } else if faults_given {
        by_rule.keys().copied().collect()
    } else {
        catalogue().rules().iter().map(|r| r.rule_id).collect()
    };
    let proven = |rule: &RuleId| {
        by_rule
            .get(rule)
            .is_some_and(|e| e.iter().any(|(_, p)| matches!(p, RuleProof::Proven(_))))
    };
    let proven_count = asked.iter().filter(|r| proven(r)).count();
    let checked = asked
        .iter()
        .filter(|r| !proven(r) && coverage.status(**r) != Status::NotImplemented)
        .count();
    let held = proofs.iter().filter(|p| p.holds()).count();
    text.push_str(&format!(
        "\n{} of {} rules proven by a fault here; {checked} checked but not proven (no fault breaks them, or a known gap); {} not checked by any scenario or check\n{held} of {} faults flagged every rule they name (known gaps aside)\n",
        proven_count,
        asked.len(),
        asked.len() - proven_count - checked,
        proofs.len(),
    ));
    text
}

/// The exact sweep's counts.
fn exact_summary(results: &[ExactResult]) -> String {
    let exact = results.iter().filter(|r| r.observed.is_none()).count();
    let agree = results.iter().filter(|r| r.agrees()).count();
    let mut text = format!(
        "\n{} faults swept: {exact} fail exactly their named rules, {} as the gap table says, {} differ from it\n",
        results.len(),
        agree - exact.min(agree),
        results.len() - agree
    );
    for result in results.iter().filter(|r| !r.unjudged.is_empty()) {
        let rules: Vec<&str> = result.unjudged.iter().map(|r| r.as_str()).collect();
        text.push_str(&format!(
            "  {}: not judged on {} (the machine's load held usicheck up when a reply was due)\n",
            result.fault.name(),
            rules.join(", ")
        ));
    }
    text
}
