//! A campaign: the workers on the pool, each running sessions in their order and feeding
//! what they show into the shared groups, the confirmation and the shrinking queue.

mod confirm;
mod groups;
mod shrink_queue;

use super::known::Known;
use super::oracle::Oracle;
use super::{Config, Finding, Progress, Rng, Summary, exec, plan, session_seed};
use crate::engine::StartError;
use crate::fuzzer::coverage::Coverage;
use crate::pool::{Pool, Worker};
use crate::rules::RuleId;
use confirm::record;
use groups::{met_again, note};
use rand::SeedableRng;
use shrink_queue::{ToShrink, shrink_finding, shrink_next, shrinking_is_due};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// What steers the sessions not generated yet: the findings known so far and the coverage the
/// sessions generated so far were predicted to exercise.
#[derive(Default)]
struct Steering {
    plan: plan::Steer,
    known: Known,
}

struct Shared<'a> {
    config: &'a Config,
    start: Instant,
    /// When the run's time runs out ([`Config::time`]).
    end: Option<Instant>,
    sessions: AtomicU64,
    positions: AtomicU64,
    unconfirmed: AtomicU64,
    cut_short: AtomicU64,
    known: AtomicU64,
    groups: Mutex<BTreeMap<(Oracle, RuleId), Finding>>,
    /// Generation is serialised (in session order, so a campaign does not depend on `--jobs`
    /// beyond the findings it knows when each session starts).
    steering: Mutex<Steering>,
    /// Confirmed findings waiting to be shrunk (see [`shrinking_is_due`]).
    to_shrink: Mutex<Vec<ToShrink>>,
    /// Workers shrinking now (see `shrink_queue::shrinkers`).
    shrinking: AtomicUsize,
    waived_met: Mutex<BTreeMap<(Oracle, RuleId), u64>>,
    coverage: Mutex<Coverage>,
    start_error: Mutex<Option<StartError>>,
    on_progress: &'a (dyn Fn(Progress) + Sync),
}

/// Runs a campaign; `on_progress` is called after every session.
pub fn run(
    config: &Config,
    on_progress: &(dyn Fn(Progress) + Sync),
) -> Result<Summary, StartError> {
    let start = Instant::now();
    let shared = Shared {
        config,
        start,
        end: config.time.map(|time| start + time),
        sessions: AtomicU64::new(0),
        positions: AtomicU64::new(0),
        unconfirmed: AtomicU64::new(0),
        cut_short: AtomicU64::new(0),
        known: AtomicU64::new(0),
        groups: Mutex::new(BTreeMap::new()),
        to_shrink: Mutex::new(Vec::new()),
        shrinking: AtomicUsize::new(0),
        steering: Mutex::new(Steering {
            plan: plan::Steer::default(),
            known: Known::waiving(config.waived.iter().copied()),
        }),
        waived_met: Mutex::new(BTreeMap::new()),
        coverage: Mutex::new(Coverage::default()),
        start_error: Mutex::new(None),
        on_progress,
    };
    {
        let stop = || time_is_up(&shared) || crate::engine::interrupted().is_some();
        let pool = match config.runs {
            Some(runs) => Pool::new(config.jobs).items(usize::try_from(runs).unwrap_or(usize::MAX)),
            None => Pool::new(config.jobs),
        };
        pool.stop_when(&stop)
            .run(|sessions| worker(&shared, sessions), |()| {});
    }
    // Findings the time left no turn to shrink are written as found.
    let unshrunk = std::mem::take(&mut *shared.to_shrink.lock().expect("no panics"));
    for job in unshrunk {
        shrink_finding(&shared, job, Some(Instant::now()));
    }
    let progress = snapshot(&shared);
    if let Some(e) = shared.start_error.into_inner().expect("no panics") {
        return Err(e);
    }
    let mut findings: Vec<Finding> = shared
        .groups
        .into_inner()
        .expect("no panics")
        .into_values()
        .collect();
    // Listed by oracle, then by rule ID as text (not catalogue order), as they always were.
    findings.sort_by_key(|f| (f.violation.oracle, f.violation.rule.as_str()));
    Ok(Summary {
        seed: config.seed,
        progress,
        findings,
        waived: shared
            .waived_met
            .into_inner()
            .expect("no panics")
            .into_iter()
            .collect(),
        coverage: shared.coverage.into_inner().expect("no panics"),
        steered_away: shared.steering.into_inner().expect("no panics").plan.avoid,
    })
}

fn time_is_up(shared: &Shared) -> bool {
    shared.end.is_some_and(|end| Instant::now() >= end)
}

fn snapshot(shared: &Shared) -> Progress {
    Progress {
        sessions: shared.sessions.load(Ordering::Relaxed),
        positions: shared.positions.load(Ordering::Relaxed),
        findings: shared.groups.lock().expect("no panics").len() as u64,
        unconfirmed: shared.unconfirmed.load(Ordering::Relaxed),
        cut_short: shared.cut_short.load(Ordering::Relaxed),
        known: shared.known.load(Ordering::Relaxed),
        elapsed: shared.start.elapsed(),
    }
}

/// One worker: sessions claimed from `sessions` (stopped by a start error, the run's time or
/// an interrupt), with the confirmed findings shrunk in between when due and once the sessions
/// run out.
fn worker(shared: &Shared, sessions: &Worker<'_, ()>) {
    let config = shared.config;
    loop {
        if sessions.stopped() {
            return;
        }
        if shrinking_is_due(shared) && shrink_next(shared) {
            continue;
        }
        let (index, cmds, known) = {
            let mut steering = shared.steering.lock().expect("no panics");
            // Claimed under the lock: sessions are generated in their order.
            let Some(index) = sessions.claim() else {
                drop(steering);
                // The sessions ran out (stopped, the findings left are written as found).
                while !sessions.stopped() && shrink_next(shared) {}
                return;
            };
            let index = index as u64;
            let mut rng = Rng::seed_from_u64(session_seed(config.seed, index));
            let cmds = plan::steered_session(&mut rng, config.mix, config.episodes, &steering.plan);
            for (state, sent, gap) in plan::predicted_cells(&cmds) {
                steering.plan.predicted.note(state, sent, gap);
            }
            (index, cmds, steering.known.clone())
        };
        let result = exec::run(config, &cmds, shared.end, &known);
        // Interrupted (SIGINT/SIGTERM): the engine was killed, not misbehaving.
        if crate::engine::interrupted().is_some() {
            return;
        }
        let result = match result {
            Ok(r) => r,
            Err(e) => {
                sessions.stop();
                shared
                    .start_error
                    .lock()
                    .expect("no panics")
                    .get_or_insert(e);
                return;
            }
        };
        shared
            .positions
            .fetch_add(result.answered, Ordering::Relaxed);
        shared
            .coverage
            .lock()
            .expect("no panics")
            .merge(&result.coverage);
        for v in result.noted {
            note(shared, index, &cmds, v);
        }
        for v in result.known {
            met_again(shared, index, v);
        }
        // A known finding the session could not go on from is costly after all.
        if let Some(v) = &result.known_end {
            let mut steering = shared.steering.lock().expect("no panics");
            steering.plan.avoid_trigger_of(&cmds, v);
        }
        if result.cut {
            shared.cut_short.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if let Some(v) = result.violation {
            record(shared, index, &cmds, &known, v, result.late_after_newgame);
        }
        shared.sessions.fetch_add(1, Ordering::Relaxed);
        (shared.on_progress)(snapshot(shared));
    }
}
