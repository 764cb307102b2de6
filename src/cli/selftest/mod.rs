//! `usicheck selftest [RULE…]`: the proof that each check can fail. Every reference-engine
//! fault that names one of the rules runs through the bundled scenarios that list its rules
//! and must make each rule fail there; the clean engine must pass the same scenarios. With
//! `--exact`, every fault runs the whole suite and what it flags is compared with the gap
//! table (src/refengine/fault_gaps.tsv), which `--write` regenerates.
//!
//! Here the flags and the run; `engines` sets up the reference engine's sessions, `sweep` runs
//! the plan and judges each engine, `summary` writes the human counts.

mod engines;
mod summary;
mod sweep;

use super::jobs;
use super::report_args::ReportArgs;
use clap::Args;
use engines::{engine_argv, engine_command, settings};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use summary::{exact_summary, pairs_summary, proof_summary};
use sweep::run_plan;
use usicheck::refengine::fault_gaps::{self, fault_gaps};
use usicheck::refengine::faults::Fault;
use usicheck::report::{Event, Reporter, RunInfo};
use usicheck::rules::{Profile, RuleId};
use usicheck::selftest::{merge_table, plan, plan_pairs, sample_pairs};

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
            engine_cpu: None,
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
