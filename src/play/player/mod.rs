//! One engine process as a GUI's game loop drives it: started once, `isready` and
//! `usinewgame` before each game, searches, `gameover`, `quit`; every line judged by the
//! always-on observer, each newly broken rule kept once with where it showed.
//!
//! Here the player's state and what it recorded (the process followed by the observer, an
//! [`ObservedEngine`], or the observer alone between processes); `wire` is every line in and
//! out, `commands` the GUI's commands, `leave` the `quit`.

mod commands;
mod leave;
mod wire;

use crate::engine::{EngineCommand, HeldCores, SearchSlots, Session};
use crate::observer::{ObservedEngine, Observer, SessionState};
use crate::rules::{Claims, Outcome, Profile, RuleId, Timeouts, Verdict};
use crate::usi::{BestMove, Score};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Lines of one game's transcript kept per player; more are counted, not stored.
const MAX_GAME_LOG_LINES: usize = 20_000;

/// Transcript lines quoted with a violation.
const EXCERPT_LINES: usize = 12;

/// How a player is set up: its command line and the options its handshake sets.
#[derive(Clone, Debug)]
pub struct PlayerConfig {
    pub command: EngineCommand,
    /// (name, value; `None` presses a button), sent after `usiok` in this order.
    pub options: Vec<(String, Option<String>)>,
}

/// Where in the match a player's line was judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Place {
    /// Game number, from 1 (0: before the first game).
    pub game: usize,
    /// Plies played in that game when the line came.
    pub ply: usize,
}

/// A rule the engine broke, recorded the first time it showed.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Violation {
    pub verdict: Verdict,
    #[serde(flatten)]
    pub place: Place,
    /// The last transcript lines of that game up to the evidence (`>` sent, `<` stdout, `!`
    /// stderr, `#` events, seconds since the process started).
    pub excerpt: Vec<String>,
    /// The `position` in force when it showed, for the replay scenario.
    pub position: Option<String>,
    /// The last other command sent (a `go`, …), for the replay scenario.
    pub command: Option<String>,
}

/// What the engine process holds after a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub rss_kib: u64,
    pub threads: u64,
    /// Processes it started that are still in its group.
    pub children: u64,
}

/// Why a player could not go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The process ended or closed its output.
    Crash(String),
    /// An owed reply (`usiok`, `readyok`) never came.
    Hang(String),
}

/// What a search came to.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A `bestmove`, the time from `go` to it, how long the machine's load held usicheck
    /// or the engine up meanwhile (a reply late by less is not judged late, as in certify),
    /// and the search's last score of its principal line (`None`: it reported none).
    Best {
        best: BestMove,
        used: Duration,
        held_up: Duration,
        score: Option<Score>,
    },
    /// Nothing before the deadline.
    NoReply,
    Failed(Failure),
}

/// One engine process after another, followed by one observer: its verdicts go on from a
/// process to the next.
#[allow(clippy::large_enum_variant)] // one per player, and both variants hold the observer
enum Engine {
    /// A process runs, followed by the observer, holding its cores while it computes.
    Running(ObservedEngine<Session>),
    /// None runs (none started yet, or the last one ended).
    Idle(Observer),
}

impl Engine {
    fn observer(&self) -> &Observer {
        match self {
            Engine::Running(running) => running.observer(),
            Engine::Idle(observer) => observer,
        }
    }

    fn observer_mut(&mut self) -> &mut Observer {
        match self {
            Engine::Running(running) => running.observer_mut(),
            Engine::Idle(observer) => observer,
        }
    }

    fn running(&self) -> Option<&ObservedEngine<Session>> {
        match self {
            Engine::Running(running) => Some(running),
            Engine::Idle(_) => None,
        }
    }

    fn running_mut(&mut self) -> Option<&mut ObservedEngine<Session>> {
        match self {
            Engine::Running(running) => Some(running),
            Engine::Idle(_) => None,
        }
    }
}

/// One engine process (restarted after a crash) and everything judged of it.
pub struct Player {
    config: PlayerConfig,
    profile: Profile,
    timeouts: Timeouts,
    engine: Engine,
    /// `id name`, once the handshake gave it.
    pub name: Option<String>,
    /// Options the engine declared: name and combo choices.
    declared: Vec<(String, Vec<String>)>,
    log: Vec<String>,
    log_omitted: usize,
    place: Place,
    last_position: Option<String>,
    last_command: Option<String>,
    reported: BTreeSet<RuleId>,
    violations: Vec<Violation>,
    /// Settings this match asks for when the engine has them (`MaxMovesToDraw`, …).
    match_options: Vec<(String, String)>,
    /// When the run's time (`--time`) is up: no wait lasts past it.
    cut_at: Option<Instant>,
    /// The match's cores, shared as certify shares them (none: not limited).
    slots: Option<Arc<SearchSlots>>,
}

impl Player {
    pub fn new(config: PlayerConfig, profile: Profile, claims: Claims) -> Player {
        let timeouts = profile.timeouts();
        Player {
            config,
            profile,
            timeouts,
            engine: Engine::Idle(Observer::new(profile, claims, timeouts)),
            name: None,
            declared: Vec::new(),
            log: Vec::new(),
            log_omitted: 0,
            place: Place::default(),
            last_position: None,
            last_command: None,
            reported: BTreeSet::new(),
            violations: Vec::new(),
            match_options: Vec::new(),
            cut_at: None,
            slots: None,
        }
    }

    /// Shares `slots` with the match's other processes: the process takes a core to start and
    /// its search's cores from the first command after it went idle until it answers (lending
    /// them while measured idle), as in certify, so that games at once do not slow each
    /// other's searches into time losses. A ponder search takes none: it would hold the cores
    /// its opponent waits for.
    pub fn share_cores(&mut self, slots: Option<Arc<SearchSlots>>) {
        self.slots = slots;
    }

    /// Waits end at `at` (the run's time limit), whatever they wait for.
    pub fn set_cut_at(&mut self, at: Option<Instant>) {
        self.cut_at = at;
    }

    /// Whether the run's time is up: a wait that ended now was cut short, not failed.
    pub fn past_cut(&self) -> bool {
        self.cut_at.is_some_and(|at| Instant::now() >= at)
    }

    /// Settings sent only to an engine that declares the option (`name`, `value`): a combo
    /// only when `value` is one of its choices.
    pub fn set_if_declared(&mut self, name: &str, value: &str) {
        self.match_options.push((name.to_owned(), value.to_owned()));
    }

    /// The profile its lines are judged under.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The grace G added to every clock bound, as certify measures it.
    pub fn grace(&self) -> Duration {
        self.timeouts.grace
    }

    /// The rules broken so far, each once.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The verdicts of every line judged so far (passes included), taken at the end of the
    /// match.
    pub fn take_verdicts(&mut self) -> Vec<Verdict> {
        self.engine.observer_mut().judge_mut().take_verdicts()
    }

    /// Charges `rule` with what the match saw (leaks across games).
    pub fn charge(&mut self, rule: RuleId, reason: String) {
        self.engine
            .observer_mut()
            .judge_mut()
            .violation(rule, None, reason);
        self.note_new_violations();
    }

    /// Starts a game: game `game` from ply 0, a fresh transcript.
    pub fn begin_game(&mut self, game: usize) {
        self.place = Place { game, ply: 0 };
        self.log.clear();
        self.log_omitted = 0;
    }

    pub fn set_ply(&mut self, ply: usize) {
        self.place.ply = ply;
    }

    /// This game's transcript so far (`>` sent, `<` stdout, `!` stderr, `#` events, seconds
    /// since the process started), with a note of the lines left out.
    pub fn game_transcript(&self) -> String {
        let mut text = self.log.join("\n");
        text.push('\n');
        if self.log_omitted > 0 {
            text.push_str(&format!("# {} more lines not kept\n", self.log_omitted));
        }
        text
    }

    /// The running process's id, if any.
    pub fn pid(&self) -> Option<i32> {
        (self.engine.running())
            .map(ObservedEngine::session)
            .filter(|s| !s.is_over())
            .map(Session::pid)
    }

    /// Follows `session`, a fresh process holding `cores`: a new engine for the observer, whose
    /// verdicts stay.
    fn follow(&mut self, session: Session, cores: HeldCores) {
        let mut observer = match self.take_engine() {
            Engine::Running(ended) => ended.into_parts().1,
            Engine::Idle(observer) => observer,
        };
        observer.swap_session(SessionState::default());
        observer.set_origin(session.origin(), session.pid());
        self.engine = Engine::Running(ObservedEngine::new(session, observer, cores));
    }

    /// Stops following the process, if one runs: its session and cores handed back, the
    /// observer kept for the next.
    fn stop_following(&mut self) -> Option<(Session, HeldCores)> {
        match self.take_engine() {
            Engine::Running(running) => {
                let (session, observer, cores) = running.into_parts();
                self.engine = Engine::Idle(observer);
                Some((session, cores))
            }
            idle => {
                self.engine = idle;
                None
            }
        }
    }

    /// The engine, taken out to change state: a blank observer stands in until it is put
    /// back (an [`ObservedEngine`] hands its observer over by value only).
    fn take_engine(&mut self) -> Engine {
        let blank = Observer::new(self.profile, Claims::default(), self.timeouts);
        std::mem::replace(&mut self.engine, Engine::Idle(blank))
    }

    fn note(&mut self, at_micros: u64, sigil: char, text: &str) {
        if self.log.len() < MAX_GAME_LOG_LINES {
            self.log
                .push(format!("{:.6} {sigil} {text}", at_micros as f64 / 1e6));
        } else {
            self.log_omitted += 1;
        }
    }

    fn note_new_violations(&mut self) {
        let new: Vec<RuleId> = (self.engine.observer().judge())
            .violated_rules()
            .into_iter()
            .filter(|rule| !self.reported.contains(rule))
            .collect();
        for rule in new {
            // INFO (a MAY rule observed, a late reply the load explains) is no violation; the
            // rule is reported if it is broken later.
            let Some(verdict) = (self.engine.observer().judge())
                .verdict(rule)
                .filter(|v| matches!(v.outcome, Outcome::Fail | Outcome::Warn))
                .cloned()
            else {
                continue;
            };
            self.reported.insert(rule);
            let start = self.log.len().saturating_sub(EXCERPT_LINES);
            self.violations.push(Violation {
                verdict,
                place: self.place,
                excerpt: self.log[start..].to_vec(),
                position: self.last_position.clone(),
                command: self.last_command.clone(),
            });
        }
    }

    /// The process's resident memory (KiB) and threads, and the processes it has started
    /// still in its group, from `/proc`.
    pub fn sample(&self) -> Option<Sample> {
        let pid = self.pid()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse().ok())
        };
        let group = crate::engine::group_cpu(&[pid]).pop().flatten()?;
        Some(Sample {
            rss_kib: field("VmRSS:")?,
            threads: field("Threads:")?,
            children: group.processes.saturating_sub(1),
        })
    }
}
