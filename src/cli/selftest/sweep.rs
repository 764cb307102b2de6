//! The sweep: every engine's pre-flight, then every session of the plan on the pool, each
//! engine judged (and reported, in the plan's order) as soon as its sessions are in.

use super::emit;
use super::engines::{engine_argv, engine_command, faults_of, replay, settings};
use crate::cli::jobs;
use crate::cli::suite::PRE_FLIGHT_NAME;
use std::collections::BTreeMap;
use usicheck::blame::Facts;
use usicheck::engine::SearchSlots;
use usicheck::pool::Pool;
use usicheck::refengine::fault_gaps::gap_of;
use usicheck::refengine::faults::Fault;
use usicheck::report::{Event, Reporter, ScenarioReport};
use usicheck::rules::Profile;
use usicheck::scenario::runner::{WarmProcess, pre_flight_scenario, run_pre_flight, run_scenario};
use usicheck::selftest::{
    ExactResult, FaultProof, Flags, PairResult, Plan, Target, clean_report, exact_result, judge,
    pair_result,
};

/// Searches at once per core in real time: the reference engine searches at the simulated
/// node rate (`usicheck engine --nodes-per-ms`), sleeping most of each millisecond.
const PACED_SEARCHES_PER_CORE: usize = 8;

/// Runs `work` on every item, `jobs` at a time, each worker with a state `W` of its own (the
/// process it keeps warm); `done` sees each result on this thread as it arrives.
fn in_parallel<T: Sync, R: Send, W: Default>(
    jobs: usize,
    items: &[T],
    work: impl Fn(&T, &mut W) -> R + Sync,
    mut done: impl FnMut(usize, R),
) {
    Pool::new(jobs).items(items.len()).run(
        |worker| {
            let mut state = W::default();
            for index in worker.claims() {
                worker.send((index, work(&items[index], &mut state)));
            }
        },
        |(index, result)| done(index, result),
    );
}

/// A whole-suite run: each bundled scenario's name and report.
type NamedRuns = Vec<(String, ScenarioReport)>;

pub(super) struct Results {
    pub(super) proofs: Vec<FaultProof>,
    pub(super) exact: Vec<ExactResult>,
    pub(super) pairs: Vec<PairResult>,
}

/// Runs the pre-flight of every engine, then every session of the plan, judging (and
/// reporting) each engine as soon as its sessions are in.
pub(super) fn run_plan(
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
    let session = |engine: usize, target: &Target, facts: &Facts, warm: &mut WarmProcess| {
        let mut settings = settings(command(engine), target.profile);
        settings.search_slots = slots.clone();
        settings.facts = facts.clone();
        let file = format!("scenarios/{}.yaml", target.name);
        let replay = replay(&target.name, target.profile, &argvs[engine]);
        run_scenario(&target.scenario, &file, &settings, replay, warm).map_err(|e| e.to_string())
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
        |&engine, _: &mut ()| pre_flight_session(engine),
        |index, result| match result {
            Ok(report) => first[index] = Some(report),
            Err(e) => {
                error.get_or_insert(e);
            }
        },
    );
    if let Some(error) = error {
        return match crate::cli::interrupt::interrupted() {
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
        let interrupted = crate::cli::interrupt::interrupted();
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
        |&(engine, target), warm: &mut WarmProcess| {
            session(engine, &plan.targets[target], &found[engine], warm)
        },
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
        Some(error) if crate::cli::interrupt::interrupted().is_none() => Err(error),
        _ => Ok(results),
    }
}
