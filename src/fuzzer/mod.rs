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

mod campaign;

pub use campaign::run;

use crate::engine::{EngineCommand, Timeouts};
use crate::rules::{Claims, Profile, RuleId};
use coverage::Coverage;
use oracle::{Oracle, Violation};
use plan::Mix;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

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
