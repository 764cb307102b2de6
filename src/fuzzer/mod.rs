//! The engine fuzzer: random legal and illegal positions, malformed lines and protocol
//! interleavings, every reply judged by the oracles, every failure shrunk to a scenario.
//!
//! A campaign is reproducible: session `i` of seed `s` is generated from [`session_seed`]`(s,
//! i)` alone, so `--seed s` repeats every session whatever `--jobs` is. Findings are grouped by
//! (oracle, rule); the first session of each group is shrunk and written out.
//!
//! ```
//! use rand::SeedableRng;
//! use usicheck::fuzzer::{Rng, plan::{self, Mix}, session_seed};
//! let mut a = Rng::seed_from_u64(session_seed(42, 7));
//! let mut b = Rng::seed_from_u64(session_seed(42, 7));
//! let texts = |cmds: Vec<plan::Cmd>| cmds.into_iter().map(|c| c.text).collect::<Vec<_>>();
//! assert_eq!(texts(plan::session(&mut a, Mix::Full, 5)), texts(plan::session(&mut b, Mix::Full, 5)));
//! ```

pub mod coverage;
pub mod exec;
pub mod finding;
pub mod illegal;
pub mod known;
pub mod oracle;
pub mod plan;
pub mod positions;
pub mod shrink;
pub mod transport;

use crate::engine::{EngineCommand, StartError, Timeouts};
use crate::pool::{Pool, Worker};
use crate::rules::{Claims, Profile, RuleId};
use coverage::Coverage;
use known::Known;
use oracle::{Oracle, Violation};
use plan::Mix;
use rand::SeedableRng;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The profile fuzz sessions are judged and findings graded under unless `--profile` says
/// otherwise: the default of `usicheck run`, so a finding replays to the same rule and
/// severity.
pub const DEFAULT_PROFILE: Profile = Profile::Shogidokoro;

/// The generators' random number generator: small, fast and stable across versions.
pub type Rng = rand_xorshift::XorShiftRng;

/// The seed of session `index` in a campaign seeded `seed` (SplitMix64 of both).
pub fn session_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What to fuzz and for how long.
#[derive(Clone, Debug)]
pub struct Config {
    pub engine: EngineCommand,
    pub seed: u64,
    /// Stop after this many sessions…
    pub runs: Option<u64>,
    /// …or once this much time has passed (whichever comes first): the whole run, confirming
    /// and shrinking included, ends by then (a session still running is cut short).
    pub time: Option<Duration>,
    /// Engine processes run in parallel.
    pub jobs: usize,
    pub mix: Mix,
    /// GUI episodes per session.
    pub episodes: usize,
    /// Where findings are written (`None`: kept in memory only).
    pub out: Option<PathBuf>,
    pub timeouts: Timeouts,
    /// Re-runs allowed to shrink one finding.
    pub shrink_runs: usize,
    /// Options sent in every session's handshake after the fuzzer's own (`--option`): name,
    /// and value (`None` presses a button).
    pub options: Vec<(String, Option<String>)>,
    /// The profile sessions are judged and findings graded under (replay with the same).
    pub profile: Profile,
    /// The extensions the engine claims, as for `certify`.
    pub claims: Claims,
    /// Shared by the sessions run at once: how many of their engines compute at a time (none:
    /// no limit).
    pub search_slots: Option<std::sync::Arc<crate::engine::SearchSlots>>,
    /// Rules a baseline waives (`--baseline`): known from the start, counted, not reported.
    pub waived: Vec<RuleId>,
}

impl Config {
    /// Defaults for `engine`: seed 1, 100 sessions, one job, the full mix.
    pub fn new(engine: EngineCommand) -> Config {
        Config {
            engine,
            seed: 1,
            runs: Some(100),
            time: None,
            jobs: 1,
            mix: Mix::Full,
            episodes: 20,
            out: None,
            timeouts: Timeouts::default(),
            shrink_runs: 60,
            options: Vec::new(),
            profile: DEFAULT_PROFILE,
            claims: Claims::default(),
            search_slots: None,
            waived: Vec::new(),
        }
    }
}

/// One group of findings (same oracle, same rule) and its shrunk reproducer.
#[derive(Clone, Debug)]
pub struct Finding {
    pub violation: Violation,
    /// Sessions that failed this way.
    pub count: u64,
    /// Index of the first session that failed this way (so `index + 1` runs found it).
    pub session: u64,
    pub original_len: usize,
    pub shrunk_len: usize,
    /// The run's time ran out while the finding was being confirmed or shrunk: its reproducer
    /// is the smallest found by then.
    pub cut_by_time: bool,
    pub scenario_yaml: String,
    pub transcript: String,
    /// The scenario file, when written.
    pub path: Option<PathBuf>,
}

/// Counters shown while a campaign runs.
#[derive(Copy, Clone, Debug, Default)]
pub struct Progress {
    pub sessions: u64,
    pub positions: u64,
    pub findings: u64,
    /// Failures that the synchronised re-run of the same session did not repeat (a hang on a
    /// loaded machine, not the engine): counted, not reported as findings.
    pub unconfirmed: u64,
    /// Sessions cut short when the run's time ran out (`--time`): not counted in `sessions`.
    pub cut_short: u64,
    /// Known findings met again (recorded earlier in the run, or waived): counted, not
    /// reported.
    pub known: u64,
    pub elapsed: Duration,
}

impl Progress {
    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// The result of a campaign.
#[derive(Clone, Debug)]
pub struct Summary {
    pub seed: u64,
    pub progress: Progress,
    pub findings: Vec<Finding>,
    /// Waived findings (`--baseline`) met, by oracle and rule, with how often.
    pub waived: Vec<((Oracle, RuleId), u64)>,
    /// The (state × command × timing) cells the sessions' commands were sent in.
    pub coverage: Coverage,
    /// What the sessions steered away from at the end, for the findings known.
    pub steered_away: BTreeSet<plan::Trigger>,
}

impl Summary {
    /// Reachable cells exercised, and in all, leaving out those the campaign steered away
    /// from ([`plan::Trigger::steers_away`]); and how many it left out.
    pub fn reached_apart_from_known(&self) -> ((usize, usize), usize) {
        let away = |state, sent| self.steered_away.iter().any(|t| t.steers_away(state, sent));
        let rest = self
            .coverage
            .reached_among(|state, sent| !away(state, sent));
        let left_out = self.coverage.reached().1 - rest.1;
        (rest, left_out)
    }
}

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
    /// Workers shrinking now (see [`shrinkers`]).
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

/// A confirmed finding, known from its confirmation on, and the session that showed it.
struct ToShrink {
    index: u64,
    cmds: Vec<plan::Cmd>,
    known: Known,
    violation: Violation,
    /// The violation is the work at `usinewgame` ([`newgame_work`]), as each candidate's is.
    at_newgame: bool,
    transcript: String,
}

/// Whether confirmed findings are shrunk now rather than more sessions run: at once without
/// `--time`; with it, in the last quarter of the time, so that exploring is not held up by
/// hangs re-run one candidate after another.
fn shrinking_is_due(shared: &Shared) -> bool {
    match (shared.end, shared.config.time) {
        (Some(end), Some(time)) => Instant::now() + time / 4 >= end,
        _ => true,
    }
}

/// How many workers shrink at once: under `--time`, half of them (rounded up), so that the
/// others go on exploring in the last quarter; otherwise all.
fn shrinkers(shared: &Shared) -> usize {
    let jobs = shared.config.jobs.max(1);
    match shared.end {
        Some(_) => jobs.div_ceil(2),
        None => jobs,
    }
}

/// Shrinks the next confirmed finding, if any and if fewer than [`shrinkers`] workers are
/// shrinking; false if it did not.
fn shrink_next(shared: &Shared) -> bool {
    let limit = shrinkers(shared);
    let (job, left) = {
        let mut queue = shared.to_shrink.lock().expect("no panics");
        if shared.shrinking.load(Ordering::Relaxed) >= limit {
            return false;
        }
        let Some(job) = queue.pop() else {
            return false;
        };
        shared.shrinking.fetch_add(1, Ordering::Relaxed);
        (job, queue.len())
    };
    // The time left is shared by the findings still to shrink, `limit` at a time.
    let share = 1 + left / limit;
    let end = shared
        .end
        .map(|end| Instant::now() + end.saturating_duration_since(Instant::now()) / share as u32);
    shrink_finding(shared, job, end);
    shared.shrinking.fetch_sub(1, Ordering::Relaxed);
    true
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

/// Counts `v`, shown by session `index`, in its group if it has one already.
fn counted_in_group(
    groups: &mut BTreeMap<(Oracle, RuleId), Finding>,
    v: &Violation,
    index: u64,
) -> bool {
    let Some(group) = groups.get_mut(&v.key()) else {
        return false;
    };
    group.count += 1;
    group.session = group.session.min(index);
    true
}

/// Counts a known finding met again: in its group, or as waived.
fn met_again(shared: &Shared, index: u64, v: Violation) {
    shared.known.fetch_add(1, Ordering::Relaxed);
    if counted_in_group(&mut shared.groups.lock().expect("no panics"), &v, index) {
        return;
    }
    *shared
        .waived_met
        .lock()
        .expect("no panics")
        .entry(v.key())
        .or_default() += 1;
}

/// From now on `v` is known: sessions count it instead of ending on it, and what triggered it
/// ([`plan::Trigger::of`]) is mostly avoided if meeting it again is costly
/// ([`Known::costly`]).
fn learn(shared: &Shared, cmds: &[plan::Cmd], v: &Violation) {
    let mut steering = shared.steering.lock().expect("no panics");
    steering.known.add(v);
    if Known::costly(v) {
        steering.plan.avoid_trigger_of(cmds, v);
    }
}

/// Counts a non-fatal violation in its group; the first of a group gets, as its reproducer,
/// the session up to the command after which it showed (not shrunk: it does not end a
/// session, so shrinking has no failure to keep).
fn note(shared: &Shared, index: u64, cmds: &[plan::Cmd], v: Violation) {
    let prefix = &cmds[..v.step.map_or(0, |step| (step + 1).min(cmds.len()))];
    keep_as_found(shared, index, prefix, cmds.len(), v, false);
}

/// Counts `v` in its group, or makes it the first of its group with `reproducer` as found
/// (cut from a session of `original_len` commands, not shrunk).
fn keep_as_found(
    shared: &Shared,
    index: u64,
    reproducer: &[plan::Cmd],
    original_len: usize,
    v: Violation,
    cut_by_time: bool,
) {
    let mut groups = shared.groups.lock().expect("no panics");
    if counted_in_group(&mut groups, &v, index) {
        return;
    }
    let origin = finding::Origin::campaign(shared.config.seed, index, original_len);
    // The replay command carries the campaign's `--option`s.
    let yaml = finding::scenario_yaml(reproducer, &v, &origin, &[]);
    let path = shared
        .config
        .out
        .as_ref()
        .and_then(|dir| finding::write(dir, &finding::stem(&v), &yaml, "").ok());
    groups.insert(
        v.key(),
        Finding {
            violation: v,
            count: 1,
            session: index,
            original_len,
            shrunk_len: reproducer.len(),
            cut_by_time,
            scenario_yaml: yaml,
            transcript: String::new(),
            path,
        },
    );
}

/// Confirms a failing session by re-running it synchronised ([`plan::synced`]) and counts the
/// confirmed violation in its group; the first of a group is learnt and queued to be shrunk
/// and written ([`shrink_next`]). A failure the re-run does not repeat (a hang on a loaded
/// machine) is counted as unconfirmed, not reported. When the run's time runs out first, the
/// finding keeps the session as it failed. A violation of a group confirmed meanwhile (by a
/// session that began before this one knew it) is counted in it without a re-run.
fn record(
    shared: &Shared,
    index: u64,
    cmds: &[plan::Cmd],
    known: &Known,
    first: Violation,
    late_after_newgame: bool,
) {
    if counted_in_group(&mut shared.groups.lock().expect("no panics"), &first, index) {
        return;
    }
    let config = shared.config;
    let original = cmds;
    let mut cmds = plan::synced(cmds);
    let mut again = exec::run(config, &cmds, shared.end, known).ok();
    // A search right after `usinewgame` late, in time where `isready` settles the new game
    // first: the session as found, run again, tells the work at `usinewgame` from a hang of
    // the machine.
    let settled_in_time = again
        .as_ref()
        .is_some_and(|r| !r.cut && r.violation.is_none());
    if late_after_newgame && settled_in_time && crate::engine::interrupted().is_none() {
        cmds = original.to_vec();
        again = exec::run(config, &cmds, shared.end, known)
            .ok()
            .map(|mut r| {
                r.violation = (r.violation.take())
                    .filter(|_| r.late_after_newgame)
                    .map(|v| newgame_work(config, v));
                r
            });
    }
    let first = match late_after_newgame && settled_in_time {
        true => newgame_work(config, first),
        false => first,
    };
    // An interrupted re-run had its engine killed: it confirms nothing.
    if crate::engine::interrupted().is_some() {
        return;
    }
    // The run's time ran out first: the failure is kept as it was found.
    if again.as_ref().is_some_and(|r| r.cut) {
        keep_as_found(shared, index, original, original.len(), first, true);
        return;
    }
    let confirmed = again.and_then(|r| {
        let v = r.violation?;
        let repeated = first.oracle != Oracle::Hang || v.key() == first.key();
        repeated.then_some((v, r.transcript))
    });
    let Some((mut v, mut transcript)) = confirmed else {
        shared.unconfirmed.fetch_add(1, Ordering::Relaxed);
        return;
    };
    // A `quit` ignored during a search, where one sent idle is ignored as well: the engine
    // ignores every `quit` (USI-QUIT-001), as the certify pre-flight's idle `quit` shows
    // first; the idle control is the finding.
    if v.rule == crate::blame::ignored_quit(true) {
        let idle = vec![plan::Cmd::line("quit", plan::Kind::Quit)];
        if let Some(control) = exec::run(config, &idle, shared.end, known).ok()
            && let Some(ignored) = control.violation.or(control.known_end)
            && ignored.rule == crate::blame::ignored_quit(false)
        {
            (cmds, v, transcript) = (idle, ignored, control.transcript);
        }
    }
    let cmds = cmds.as_slice();
    {
        let mut groups = shared.groups.lock().expect("no panics");
        if counted_in_group(&mut groups, &v, index) {
            return;
        }
        groups.insert(
            v.key(),
            Finding {
                violation: v.clone(),
                count: 1,
                session: index,
                original_len: cmds.len(),
                shrunk_len: cmds.len(),
                cut_by_time: false,
                scenario_yaml: String::new(),
                transcript: String::new(),
                path: None,
            },
        );
    }
    // Known from now on, while it waits to shrink: the other sessions go on past it.
    learn(shared, cmds, &v);
    shared.to_shrink.lock().expect("no panics").push(ToShrink {
        index,
        cmds: cmds.to_vec(),
        known: known.clone(),
        violation: v,
        at_newgame: late_after_newgame && settled_in_time,
        transcript,
    });
}

/// A search reply late against its clock, right after a `usinewgame` not followed by
/// `isready`, where the settled session was in time: charged to the work at `usinewgame`
/// ([`crate::blame::late_search`]).
fn newgame_work(config: &Config, late: Violation) -> Violation {
    let rule = crate::blame::late_search(late.rule, true, true);
    let detail = format!(
        "{} (in time where `isready` follows `usinewgame`)",
        late.detail
    );
    let grading = (config.profile, &config.claims);
    Violation::graded_under(grading, late.oracle, rule, detail, late.step)
}

/// Shrinks a confirmed finding by `shrink_end`, then writes it; a finding shrinking moves onto
/// another group, or onto a waived rule, is counted there.
fn shrink_finding(shared: &Shared, job: ToShrink, shrink_end: Option<Instant>) {
    let config = shared.config;
    let ToShrink {
        index,
        cmds,
        known,
        violation: v,
        at_newgame,
        transcript,
    } = job;
    let (cmds, known) = (cmds.as_slice(), &known);
    let budget = shrink::Budget {
        runs: config.shrink_runs,
    };
    let out_of_time = || shrink_end.is_some_and(|end| Instant::now() >= end);
    let mut cut_by_time = false;
    let (min, violation) = shrink::shrink(cmds, v.clone(), budget, |candidate| {
        // Interrupted: no more engines; a candidate whose engine the interrupt killed
        // reproduces nothing. Out of time: no more engines either.
        if crate::engine::interrupted().is_some() || out_of_time() {
            cut_by_time |= out_of_time();
            return None;
        }
        let result = exec::run(config, candidate, shrink_end, known).ok()?;
        if crate::engine::interrupted().is_some() {
            return None;
        }
        cut_by_time |= result.cut;
        // A candidate late right after `usinewgame` shows the work at it, as the confirmed
        // finding did.
        let violation = match at_newgame && result.late_after_newgame {
            true => result.violation.map(|late| newgame_work(config, late)),
            false => result.violation,
        };
        // A death moved back to the command that caused it may be a known finding (a crash
        // on `go` recorded earlier): it still shows where the death belongs.
        violation.or(result.known_end)
    });
    let origin = finding::Origin::campaign(config.seed, index, cmds.len());
    let yaml = finding::scenario_yaml(&min, &violation, &origin, &[]);
    let mut groups = shared.groups.lock().expect("no panics");
    let mut group = groups.remove(&v.key()).expect("inserted above");
    if let Some(same) = groups.get_mut(&violation.key()) {
        // Shrinking charged a death to an earlier command, whose group exists already.
        same.count += group.count;
        same.session = same.session.min(group.session);
        return;
    }
    if known.contains(&violation) {
        // …or whose rule a baseline waives.
        drop(groups);
        *shared
            .waived_met
            .lock()
            .expect("no panics")
            .entry(violation.key())
            .or_default() += group.count;
        return;
    }
    let path = config
        .out
        .as_ref()
        .and_then(|dir| finding::write(dir, &finding::stem(&violation), &yaml, &transcript).ok());
    learn(shared, &min, &violation);
    group.violation = violation;
    group.shrunk_len = min.len();
    group.cut_by_time = cut_by_time;
    group.scenario_yaml = yaml;
    group.transcript = transcript;
    group.path = path;
    groups.insert(group.violation.key(), group);
}
