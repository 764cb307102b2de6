//! The event stream every reporter consumes. The runner (scenarios, fuzzer) produces events;
//! reporters (terminal, JSON, JUnit, Markdown) only read them, so every output tells the same
//! story.

use super::timeline::Timeline;
use crate::observer::TimedSearches;
use crate::rules::{Outcome, Profile, RuleId, Verdict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// One thing that happened during a run, in order.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    RunStarted(RunInfo),
    ScenarioStarted {
        name: String,
        file: String,
    },
    ScenarioFinished(Box<ScenarioReport>),
    RunFinished {
        duration_ms: u64,
        /// What the engine processes used of the machine's CPU meanwhile; `None` where the
        /// engines ran simulated in usicheck's process.
        #[serde(skip_serializing_if = "Option::is_none")]
        engine_cpu: Option<EngineCpu>,
        /// The signal that interrupted the run (`SIGINT`, `SIGTERM`): the scenarios it cut
        /// short are SKIP "interrupted", those not started are absent.
        #[serde(skip_serializing_if = "Option::is_none")]
        interrupted: Option<String>,
        /// Waivers of the `--baseline` that no violation used while their rule was judged
        /// (each fails the gate: the engine is fixed, the line must go).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        stale_waivers: Vec<String>,
    },
}

/// The CPU time a run's engine processes used, and the cores they shared: the run cannot take
/// less than `ms / cores`, however its scenarios are scheduled.
///
/// ```
/// let cpu = usicheck::report::EngineCpu {
///     ms: 390_000,
///     cores: 2,
/// };
/// assert_eq!(cpu.floor_ms(), 195_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EngineCpu {
    /// User and system time of every engine process the run started, summed over their
    /// threads (a search on four threads for 1 s counts 4000), in milliseconds.
    pub ms: u64,
    /// The cores of the machine.
    pub cores: usize,
}

impl EngineCpu {
    /// The shortest the run could have been: the engines' CPU time spread over every core.
    pub fn floor_ms(&self) -> u64 {
        self.ms / self.cores.max(1) as u64
    }
}

/// What was certified, how and with what.
#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    pub usicheck_version: String,
    /// RFC 3339 UTC time the run started.
    pub started_at: String,
    pub profile: Profile,
    /// The engine command line (argv) as given.
    pub engine: Vec<String>,
    /// `id name` / `id author` as first seen; filled by the first scenario's handshake.
    pub engine_name: Option<String>,
    pub engine_author: Option<String>,
    /// `--option NAME=VALUE` settings sent before `isready`.
    pub options: Vec<(String, String)>,
    /// The usicheck.toml the settings came from, if any (as `--config` or its discovery named it).
    pub config: Option<String>,
    pub scenarios: usize,
    pub jobs: usize,
    /// The run is a chosen part of the suite (`run`, or `certify --rule/--skip`): its
    /// certificate counts the rules its scenarios judged, not every rule of the profile.
    pub selection: bool,
}

impl RunInfo {
    /// Info for a stream that did not start with `RunStarted`: this usicheck, default profile,
    /// nothing else known.
    pub fn unknown() -> RunInfo {
        RunInfo {
            usicheck_version: env!("CARGO_PKG_VERSION").to_owned(),
            started_at: String::new(),
            profile: Profile::default(),
            engine: Vec::new(),
            engine_name: None,
            engine_author: None,
            options: Vec::new(),
            config: None,
            scenarios: 0,
            jobs: 1,
            selection: false,
        }
    }
}

/// The result of one scenario (or one fuzz finding) against the engine.
#[derive(Clone, Debug, Serialize)]
pub struct ScenarioReport {
    pub name: String,
    /// Path of the scenario file (bundled scenarios: their path inside `scenarios/`).
    pub file: String,
    /// The worst outcome of the verdicts (PASS when all passed, SKIP when nothing ran).
    pub outcome: Outcome,
    /// The rules the scenario lists (its checks, and the always-on rules it provides the
    /// traffic for).
    pub rules: Vec<RuleId>,
    /// One verdict per rule the scenario judged, and the always-on checks' verdicts on its
    /// session (marked [`Verdict::always_on`]).
    pub verdicts: Vec<Verdict>,
    /// The step that failed, when one did.
    pub failure: Option<StepFailure>,
    /// Why the whole scenario was skipped (unmet requirement), when it was.
    pub skipped: Option<String>,
    /// Engine `id name` seen in this scenario's handshake, if any.
    pub engine_name: Option<String>,
    pub engine_author: Option<String>,
    /// The options the engine advertised in this scenario's handshake, once its `usiok`
    /// completed the list: the pre-flight's tell which scenarios' requirements are unmet, and
    /// which go through a type of option the engine has none of.
    #[serde(skip)]
    pub advertised_options: Option<Vec<crate::usi::OptionDecl>>,
    /// The replies the engine owed and never sent in this scenario (`usiok`, `readyok`), as
    /// charged: the pre-flight's facts come from them.
    #[serde(skip)]
    pub missed_replies: Vec<crate::blame::Missed>,
    /// How long the scenario took: on its world's clock for a simulated engine (the same
    /// every run), else real time.
    #[serde(serialize_with = "as_millis")]
    pub duration: Duration,
    /// The full transcript on disk, when the run keeps transcripts.
    pub transcript_path: Option<PathBuf>,
    /// The last transcript lines before and around the failure (raw engine text: reporters
    /// escape it for their medium).
    pub transcript_tail: Vec<String>,
    /// A shell command that replays this scenario against the same engine.
    pub replay: String,
    /// The searches with a clock and how their replies met it.
    pub timed_searches: TimedSearches,
    /// The transcript as report.html draws it; `None` when no engine ran.
    pub timeline: Option<Timeline>,
}

impl ScenarioReport {
    /// This scenario cut short by `signal` (its engine killed mid-way): SKIP, its verdicts
    /// dropped, since they would judge the kill and not the engine.
    pub fn cut_short(mut self, signal: &str) -> ScenarioReport {
        self.verdicts.clear();
        self.failure = None;
        self.outcome = Outcome::Skip;
        self.skipped = Some(format!("interrupted by {signal} before it finished"));
        self
    }

    /// Whether the scenario was [cut short](ScenarioReport::cut_short).
    pub fn was_interrupted(&self) -> bool {
        self.skipped
            .as_deref()
            .is_some_and(|why| why.starts_with("interrupted by "))
    }

    /// The verdicts that make the scenario's outcome: its own, and the always-on ones on the
    /// rules it lists. Other always-on verdicts are the run's, reported once
    /// ([`Run::always_on`](super::Run::always_on)).
    pub fn counted_verdicts(&self) -> impl Iterator<Item = &Verdict> {
        self.verdicts
            .iter()
            .filter(|v| !v.always_on || self.rules.contains(&v.rule))
    }
}

/// Expected vs actual for the step that failed, like h2spec prints it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct StepFailure {
    /// 1-based index of the step as written in the scenario (a `handshake`, `repeat` or
    /// `for_each_option` counts as one step).
    #[schemars(range(min = 1))]
    pub step: usize,
    /// The step's 1-based line in the scenario file, when known.
    #[schemars(range(min = 1))]
    pub line: Option<usize>,
    /// The step as written (e.g. `- expect: {bestmove: legal, within: 1s}`).
    pub step_text: String,
    /// What the step awaited.
    pub expected: String,
    /// What came instead (engine text, raw).
    pub actual: String,
}

fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

/// Something that consumes events. Reporters write as events arrive (a terminal reporter prints
/// progress) and finish when the run ends.
pub trait Reporter {
    fn event(&mut self, event: &Event) -> std::io::Result<()>;
}
