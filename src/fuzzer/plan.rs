//! Sessions as command lists, generated from a model of the GUI state machine.
//!
//! Each command carries what the GUI knows about it (the position it sets, the search it
//! starts), so the executor can derive what the engine owes after any subset of the list:
//! that is what lets the shrinker drop commands freely.

use super::Rng;
use super::coverage::{Cell, Coverage, Gap, Sent, State};
use super::illegal::{self, RawLine};
use super::positions::{self, Kind as PositionKind};
use crate::shogi::{Move, Position};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeSet;
use std::ops::Range;
use std::time::Duration;

/// One step of a session: a line to send, or a pause.
#[derive(Clone, Debug)]
pub struct Cmd {
    /// The line, without its newline unless `raw`.
    pub text: String,
    /// Sent exactly as `text` (CR LF and all), no newline added.
    pub raw: bool,
    pub kind: Kind,
    /// When it is sent relative to the command before it.
    pub when: When,
    /// The kind of episode that generated it: what a known finding's trigger is avoided by.
    pub episode: Episode,
}

/// When a command is sent relative to the previous one.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum When {
    /// Once the previous command is handled (its reply awaited, if it owes one).
    #[default]
    After,
    /// While the previous `go`'s search runs: its reply is awaited only after this command
    /// (a race with the search).
    DuringSearch,
    /// In the same write as the previous command (and so during its search, if it was a `go`).
    SameWrite,
}

/// The kinds of GUI episode a session is made of.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Episode {
    /// A legal position searched under one of the `go` forms: the bulk, never avoided.
    #[default]
    Search,
    IllegalPosition,
    MalformedPosition,
    Garbage,
    /// `stop` or `ponderhit` with no search.
    IdleStopOrPonderhit,
    /// `go infinite` ended by `stop` or `gameover`.
    Infinite,
    Ponder,
    NewGame,
    Mate,
    IsReady,
    /// One (state × command × timing) cell probed: a command in the same write as the one
    /// before, or after a pause, in a state a GUI can send it in (racing a search, too).
    Probe,
    /// `quit`, the session's last command: while idle or racing a search.
    Quit,
}

/// What triggers a known finding, as far as the generator can avoid it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Trigger {
    /// Any `go mate` (the engine answers it wrongly or not at all).
    GoMate,
    /// A `go mate` with a time limit (the engine lets it pass); `go mate infinite`, which
    /// `stop` ends, still shows the mate-search state.
    GoMateTimed,
    /// Any `go ponder`.
    GoPonder,
    /// `gameover` during a search (the engine does not end it).
    GameOverInSearch,
    /// An episode of this kind.
    Episode(Episode),
}

impl Trigger {
    /// Whether avoiding this trigger keeps sessions from sending `sent` in `state`: the cells
    /// a campaign steers away from once the trigger's finding is known.
    ///
    /// ```
    /// use usicheck::fuzzer::coverage::{Sent, State};
    /// use usicheck::fuzzer::plan::Trigger;
    /// assert!(Trigger::GoMate.steers_away(State::MateSearch, Sent::Stop));
    /// assert!(Trigger::GameOverInSearch.steers_away(State::Pondering, Sent::GameOver));
    /// assert!(!Trigger::GameOverInSearch.steers_away(State::Idle, Sent::GameOver));
    /// ```
    pub fn steers_away(self, state: State, sent: Sent) -> bool {
        match self {
            Trigger::GoMate => state == State::MateSearch,
            Trigger::GoPonder => matches!(state, State::Pondering | State::AfterPonderhit),
            Trigger::GameOverInSearch => state.in_search() && sent == Sent::GameOver,
            Trigger::GoMateTimed | Trigger::Episode(_) => false,
        }
    }

    /// What to avoid after `v`, seen after `cmds[v.step]`: the search form its rule is about
    /// (`go mate`, timed or not, `go ponder`, `gameover` ending a search), else the episode of
    /// the command, unless that is the plain search every session is made of.
    ///
    /// ```
    /// use std::time::Duration;
    /// use usicheck::fuzzer::oracle::{Oracle, Violation};
    /// use usicheck::fuzzer::plan::{Cmd, Kind, Search, Trigger};
    /// let cmds = [Cmd::line("go mate infinite", Kind::Go(Search::Mate(None)))];
    /// let v = Violation::graded(Oracle::Protocol, usicheck::rule!("USI-MATE-002"), String::new(), Some(0));
    /// assert_eq!(Trigger::of(&cmds, &v), Some(Trigger::GoMate));
    /// let timed = [Cmd::line("go mate 100", Kind::Go(Search::Mate(Some(Duration::from_millis(100)))))];
    /// assert_eq!(Trigger::of(&timed, &v), Some(Trigger::GoMateTimed));
    /// ```
    pub fn of(cmds: &[Cmd], v: &super::oracle::Violation) -> Option<Trigger> {
        if v.rule == crate::blame::runs_on_after_gameover() {
            return Some(Trigger::GameOverInSearch);
        }
        match v.rule.rule().section {
            crate::rules::Section::Mate => {
                let last_go = cmds.iter().take(v.step? + 1).rev().find(|c| c.is_go());
                let timed =
                    last_go.is_some_and(|c| matches!(c.kind, Kind::Go(Search::Mate(Some(_)))));
                return Some(if timed {
                    Trigger::GoMateTimed
                } else {
                    Trigger::GoMate
                });
            }
            crate::rules::Section::Ponder => return Some(Trigger::GoPonder),
            _ => {}
        }
        let episode = cmds.get(v.step?)?.episode;
        (episode != Episode::Search).then_some(Trigger::Episode(episode))
    }
}

impl Episode {
    pub const fn name(self) -> &'static str {
        match self {
            Episode::Search => "search",
            Episode::IllegalPosition => "illegal position",
            Episode::MalformedPosition => "malformed position",
            Episode::Garbage => "garbage",
            Episode::IdleStopOrPonderhit => "stop or ponderhit while idle",
            Episode::Infinite => "go infinite",
            Episode::Ponder => "ponder",
            Episode::NewGame => "new game",
            Episode::Mate => "go mate",
            Episode::IsReady => "isready",
            Episode::Probe => "probe of a state",
            Episode::Quit => "quit",
        }
    }
}

/// What a command means to the GUI model.
#[derive(Clone, Debug)]
pub enum Kind {
    /// A `position` line; `None` when it is illegal or malformed (no move can be judged).
    Position(Option<Box<Position>>),
    Go(Search),
    Stop,
    PonderHit,
    IsReady,
    NewGame,
    GameOver,
    SetOption,
    /// Garbage, rare commands, anything the engine must survive.
    Other,
    /// Not sent: wait this long, still reading the engine.
    Sleep(Duration),
    /// `quit`: the session's last command; the engine must exit.
    Quit,
}

/// The search a `go` starts, as the GUI sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Search {
    /// Ends by itself; the answer is due within this time.
    Timed(Duration),
    /// `go infinite`: ends only on `stop`.
    Infinite,
    /// `go ponder`: ends on `stop`, or after `ponderhit` within this time.
    Ponder(Duration),
    /// `go mate`: due within the time, or only on `stop` (`go mate infinite`).
    Mate(Option<Duration>),
}

impl Cmd {
    /// A line sent once the previous command is handled, from a search episode.
    pub fn line(text: impl Into<String>, kind: Kind) -> Cmd {
        Cmd {
            text: text.into(),
            raw: false,
            kind,
            when: When::After,
            episode: Episode::Search,
        }
    }

    fn from_raw(raw: RawLine, kind: Kind) -> Cmd {
        Cmd {
            raw: raw.raw,
            ..Cmd::line(raw.text, kind)
        }
    }

    fn when(self, when: When) -> Cmd {
        Cmd { when, ..self }
    }

    fn sleep(ms: u64) -> Cmd {
        Cmd::line(String::new(), Kind::Sleep(Duration::from_millis(ms)))
    }

    /// Whether the command starts a search.
    pub fn is_go(&self) -> bool {
        matches!(self.kind, Kind::Go(_))
    }
}

/// Whether a GUI could send `cmds` in this order: nothing but `stop`, `ponderhit`, `isready`,
/// `gameover`, pauses and garbage while an open search (`go infinite`, `go ponder`, `go mate
/// infinite`) runs, and nothing after `quit`. The shrinker only tries such lists.
pub fn well_formed(cmds: &[Cmd]) -> bool {
    let mut open = false;
    for (i, cmd) in cmds.iter().enumerate() {
        match &cmd.kind {
            Kind::Quit if i + 1 < cmds.len() => return false,
            Kind::Go(_) | Kind::Position(_) | Kind::NewGame | Kind::SetOption if open => {
                return false;
            }
            Kind::Go(Search::Infinite | Search::Ponder(_) | Search::Mate(None)) => open = true,
            Kind::Stop | Kind::PonderHit | Kind::GameOver => open = false,
            _ => {}
        }
    }
    true
}

/// Whether the next command sent after `cmds[i]` (pauses skipped) races the search `cmds[i]`
/// started or released, rather than waiting for its reply.
pub fn raced(cmds: &[Cmd], i: usize) -> bool {
    cmds[i + 1..]
        .iter()
        .find(|c| !matches!(c.kind, Kind::Sleep(_)))
        .is_some_and(|c| c.when != When::After)
}

/// `cmds` with an `isready` after every command that ends a search (a timed `go`, `stop`,
/// `ponderhit`, `gameover`) or starts a game (`usinewgame`, the session's own before the first
/// command too) and is not raced by the next: the engine must answer `readyok` after all its
/// output for that search, so an extra terminal reply shows as one, before the next `go`
/// could take it for its own, and the work of a new game is done before its first search (as
/// the GUIs that follow `usinewgame` with `isready` wait for it). Failures are confirmed this
/// way: a late double `bestmove` is then charged to the one-reply rule, not to the next
/// position's legality; a `bestmove` sent on `usinewgame` to USI-GO-001, not to the search.
pub fn synced(cmds: &[Cmd]) -> Vec<Cmd> {
    let mut out = Vec::with_capacity(cmds.len() * 2 + 1);
    // The session's own `usinewgame` comes right before the first command.
    if cmds
        .first()
        .is_some_and(|c| !matches!(c.kind, Kind::IsReady) && c.when != When::SameWrite)
    {
        out.push(Cmd {
            episode: cmds[0].episode,
            ..Cmd::line("isready", Kind::IsReady)
        });
    }
    for (i, cmd) in cmds.iter().enumerate() {
        out.push(cmd.clone());
        let ends_search = matches!(
            cmd.kind,
            Kind::Go(Search::Timed(_) | Search::Mate(Some(_)))
                | Kind::Stop
                | Kind::PonderHit
                | Kind::GameOver
                | Kind::NewGame
        );
        if ends_search && !raced(cmds, i) {
            out.push(Cmd {
                episode: cmd.episode,
                ..Cmd::line("isready", Kind::IsReady)
            });
        }
    }
    out
}

/// What kind of session to generate.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Mix {
    /// Everything: legal and illegal positions, garbage, every protocol interleaving.
    #[default]
    Full,
    /// Only legal positions searched with `go depth 1` (the throughput benchmark).
    Depth1,
    /// The full mix with millisecond limits and pauses, for in-process sessions that must take
    /// milliseconds ([`crate::harness`]).
    Quick,
}

/// The limits a mix gives searches (ms) and the pauses between commands.
struct Pace {
    /// Slack added to every time the engine is given, so a loaded machine is not mistaken for
    /// a hang; a search without a time limit gets `untimed`.
    slack: Duration,
    untimed: Duration,
    /// Longest pause before `stop` or `ponderhit` (exclusive), and before stopping `go mate`.
    pause: u64,
    mate_pause: u64,
    /// Longest ponder phase (exclusive): long enough to see a `bestmove` leaked into it.
    ponder_phase: u64,
    /// `go depth` and `go nodes` draw `i32`s, as they always did: the same seed must keep
    /// giving the same session.
    depth: i32,
    nodes: Range<i32>,
    movetime: Range<u64>,
    byoyomi: Range<u64>,
    clock: Range<u64>,
    increment: Range<u64>,
    mate: Range<u64>,
    /// Sudden death near zero: the whole clock, no byoyomi or increment.
    sudden: Range<u64>,
    /// Longest pause (exclusive) between a `go` and the command racing it.
    race: u64,
}

const FULL: Pace = Pace {
    slack: Duration::from_millis(3000),
    untimed: Duration::from_secs(10),
    pause: 30,
    mate_pause: 50,
    depth: 3,
    nodes: 100..5000,
    movetime: 10..60,
    byoyomi: 20..100,
    clock: 100..1000,
    increment: 10..50,
    mate: 50..300,
    ponder_phase: 2000,
    sudden: 0..100,
    race: 50,
};

/// Every search about a millisecond or less: depth 1, a few hundred nodes, byoyomi and
/// `movetime` of 1 ms, a clock of tens of ms. The slack stays in seconds: only a real hang
/// outlasts it.
const QUICK: Pace = Pace {
    slack: Duration::from_millis(2000),
    untimed: Duration::from_secs(5),
    pause: 2,
    mate_pause: 2,
    depth: 1,
    nodes: 50..300,
    movetime: 1..2,
    byoyomi: 1..2,
    clock: 5..30,
    increment: 1..2,
    mate: 1..4,
    ponder_phase: 5,
    sudden: 0..5,
    race: 2,
};

impl Mix {
    fn pace(self) -> &'static Pace {
        match self {
            Mix::Quick => &QUICK,
            Mix::Full | Mix::Depth1 => &FULL,
        }
    }
}

/// What steers generation: the episodes that trigger findings already known in the run
/// (avoided), and the coverage predicted for the sessions generated so far (each episode is
/// the least exercised of a few candidates).
#[derive(Clone, Debug, Default)]
pub struct Steer {
    pub avoid: BTreeSet<Trigger>,
    pub predicted: Coverage,
}

impl Steer {
    /// What triggered `v`, seen in `cmds`, is mostly avoided from now on.
    pub fn avoid_trigger_of(&mut self, cmds: &[Cmd], v: &super::oracle::Violation) {
        if let Some(trigger) = Trigger::of(cmds, v) {
            self.avoid.insert(trigger);
        }
    }
}

/// Candidates drawn per steered episode of a session.
const CANDIDATES: usize = 4;

/// The share of a session's episodes chosen among candidates by novelty.
const STEERED: f64 = 0.5;

/// The share of a session's episodes that probe a cell no session was predicted to exercise
/// yet (while there is one): each such cell costs one probe, not the luck of a draw.
const TARGETED: f64 = 0.15;

/// The share of sessions in which a known finding's trigger is not avoided (it still shows now
/// and then, so its variants are not lost for good).
const KNOWN_RETRIED: f64 = 0.05;

/// The share of sessions that end with `quit` racing a search (or while idle), not with the
/// executor's own `stop`, `isready`, `quit`, once every `quit` cell was exercised.
const QUIT_SHARE: f64 = 0.3;

/// A random session of `episodes` GUI episodes.
pub fn session(rng: &mut Rng, mix: Mix, episodes: usize) -> Vec<Cmd> {
    let mut cmds = Vec::new();
    match mix {
        Mix::Depth1 => depth1(rng, episodes, &mut cmds),
        Mix::Full | Mix::Quick => {
            for _ in 0..episodes {
                episode(rng, mix.pace(), &BTreeSet::new(), &mut cmds);
            }
        }
    }
    cmds
}

/// A random session of `episodes` GUI episodes steered by `steer`: some episodes probe a cell
/// no session was predicted to exercise yet, others are the one of several candidates whose
/// predicted cells ([`predicted_cells`]) were least exercised, episodes of known findings are
/// mostly avoided, and some sessions end with `quit` (in a cell not exercised yet, if any).
pub fn steered_session(rng: &mut Rng, mix: Mix, episodes: usize, steer: &Steer) -> Vec<Cmd> {
    if mix == Mix::Depth1 {
        return session(rng, mix, episodes);
    }
    let pace = mix.pace();
    let avoid: BTreeSet<Trigger> = steer
        .avoid
        .iter()
        .copied()
        .filter(|_| !rng.random_bool(KNOWN_RETRIED))
        .collect();
    let mut cmds = Vec::new();
    let mut seen = steer.predicted.clone();
    for _ in 0..episodes {
        let target = if rng.random_bool(TARGETED) {
            unexercised(rng, pace, &seen, &avoid, false)
        } else {
            None
        };
        let chosen = match target {
            Some(cell) => {
                let mut probe = Vec::new();
                probe_cell(rng, pace, &avoid, cell, &mut probe);
                for cmd in &mut probe {
                    cmd.episode = Episode::Probe;
                }
                probe
            }
            None => best_of_candidates(rng, pace, &avoid, &seen, &cmds),
        };
        let before = cmds.len();
        cmds.extend(chosen);
        for (state, sent, gap) in predicted_cells(&cmds)
            .into_iter()
            .skip(cells_before(&cmds[..before]))
        {
            seen.note(state, sent, gap);
        }
    }
    // A `quit` cell is exercised once per session at most: while one is left, every session
    // ends in one.
    let quit_cell = unexercised(rng, pace, &seen, &avoid, true);
    if (quit_cell.is_some() || rng.random_bool(QUIT_SHARE))
        && !avoid.contains(&Trigger::Episode(Episode::Quit))
    {
        let start = cmds.len();
        match quit_cell {
            Some(cell) => probe_cell(rng, pace, &avoid, cell, &mut cmds),
            None => probe(rng, pace, &avoid, &mut cmds, true),
        }
        for cmd in &mut cmds[start..] {
            cmd.episode = Episode::Quit;
        }
    }
    cmds
}

/// An episode: drawn as it comes half the time, so the plain searches that check most
/// positions keep their share of the session; otherwise the most novel of a few candidates
/// for its cost.
fn best_of_candidates(
    rng: &mut Rng,
    pace: &Pace,
    avoid: &BTreeSet<Trigger>,
    seen: &Coverage,
    cmds: &[Cmd],
) -> Vec<Cmd> {
    let candidates = if rng.random_bool(STEERED) {
        CANDIDATES
    } else {
        1
    };
    let mut best: Option<(f64, Vec<Cmd>)> = None;
    for _ in 0..candidates {
        let mut candidate = Vec::new();
        episode(rng, pace, avoid, &mut candidate);
        let score = novelty(seen, cmds, &candidate) / cost(&candidate);
        if best.as_ref().is_none_or(|(top, _)| score > *top) {
            best = Some((score, candidate));
        }
    }
    best.expect("candidates were drawn").1
}

/// A reachable cell `seen` has no count for, drawn at random among those of `quit` (or of
/// every other command), leaving out the cells of avoided triggers and the pauses longer than
/// the pace allows (the in-process mix's sessions take milliseconds).
fn unexercised(
    rng: &mut Rng,
    pace: &Pace,
    seen: &Coverage,
    avoid: &BTreeSet<Trigger>,
    quit: bool,
) -> Option<Cell> {
    let achievable = |gap: Gap| match gap {
        Gap::SameWrite => true,
        _ => pause_before(gap, pace).is_some_and(|pause| Gap::after(ms(pause.start)) == gap),
    };
    if avoid.contains(&Trigger::Episode(Episode::Probe)) {
        return None;
    }
    let cells: Vec<Cell> = Coverage::reachable_cells()
        .filter(|&(_, sent, _)| (sent == Sent::Quit) == quit)
        .filter(|&(state, sent, gap)| achievable(gap) && seen.count(state, sent, gap) == 0)
        .filter(|&(state, sent, _)| !avoid.iter().any(|t| t.steers_away(state, sent)))
        .collect();
    cells.choose(rng).copied()
}

/// What an episode costs in time, as a factor: 1 plus its pauses and searches' clocks in units
/// of 200 ms. Dividing novelty by it keeps a campaign from trading its throughput for rare
/// cells: a long pause must buy correspondingly more.
fn cost(cmds: &[Cmd]) -> f64 {
    let millis: u64 = cmds
        .iter()
        .map(|cmd| match &cmd.kind {
            Kind::Sleep(d) => d.as_millis() as u64,
            Kind::Go(_) => {
                let words: Vec<&str> = cmd.text.split_whitespace().collect();
                let value = |name: &str| {
                    let at = words.iter().position(|w| *w == name)?;
                    words.get(at + 1)?.parse::<u64>().ok()
                };
                value("byoyomi")
                    .or_else(|| value("movetime"))
                    .or_else(|| value("btime").map(|t| t / 10))
                    .unwrap_or(5)
            }
            _ => 0,
        })
        .sum();
    1.0 + millis as f64 / 200.0
}

/// How many cells `cmds` sends in (pauses send nothing).
fn cells_before(cmds: &[Cmd]) -> usize {
    cmds.iter()
        .filter(|c| !matches!(c.kind, Kind::Sleep(_)))
        .count()
}

/// What a position searched is worth next to a cell never exercised: once the cells an
/// episode sends in were exercised a few times, the searches that check positions are worth
/// more than yet another long pause.
const POSITION_WORTH: f64 = 0.1;

/// What `candidate`, sent after `cmds`, adds: each cell it sends in weighs 1 / (1 + how often
/// it was exercised so far), each search [`POSITION_WORTH`].
fn novelty(seen: &Coverage, cmds: &[Cmd], candidate: &[Cmd]) -> f64 {
    let searches = candidate.iter().filter(|c| c.is_go()).count() as f64;
    let mut all = cmds.to_vec();
    all.extend_from_slice(candidate);
    let mut cells: Vec<_> = predicted_cells(&all)
        .into_iter()
        .skip(cells_before(cmds))
        .collect();
    cells.sort();
    cells.dedup();
    let cells: f64 = cells
        .into_iter()
        .map(|(state, sent, gap)| 1.0 / (1 + seen.count(state, sent, gap)) as f64)
        .sum();
    cells + searches * POSITION_WORTH
}

/// The cell each command of `cmds` is predicted to be sent in (pauses skipped), from the GUI's
/// model alone: the engine is assumed to answer every search in time, and a command after an
/// awaited reply to come 10–100 ms after the one before.
///
/// ```
/// use usicheck::fuzzer::coverage::{Gap, Sent, State};
/// use usicheck::fuzzer::plan::{Cmd, Kind, Search, predicted_cells};
/// let cmds = [Cmd::line("go infinite", Kind::Go(Search::Infinite)), Cmd::line("stop", Kind::Stop)];
/// assert_eq!(predicted_cells(&cmds)[1], (State::Searching, Sent::Stop, Gap::Under1));
/// ```
pub fn predicted_cells(cmds: &[Cmd]) -> Vec<Cell> {
    let mut cells = Vec::new();
    let mut search: Option<State> = None;
    let mut after_gameover = false;
    let mut ready_pending = false;
    let mut awaited = false;
    let mut pause = Duration::ZERO;
    for (i, cmd) in cmds.iter().enumerate() {
        if let Kind::Sleep(d) = cmd.kind {
            pause += d;
            continue;
        }
        let gap = match cmd.when {
            When::SameWrite => Gap::SameWrite,
            _ if !pause.is_zero() => Gap::after(pause),
            _ if awaited => Gap::To100,
            _ => Gap::Under1,
        };
        let state = if ready_pending && cmd.when == When::SameWrite {
            State::BeforeReadyok
        } else if let Some(state) = search {
            state
        } else if after_gameover {
            State::AfterGameover
        } else {
            State::Idle
        };
        cells.push((state, Sent::of(&cmd.text), gap));
        pause = Duration::ZERO;
        let raced = raced(cmds, i);
        // Whether the executor waits for a reply to it (unless the next command races it).
        awaited = !raced
            && match &cmd.kind {
                Kind::Go(go) => matches!(go, Search::Timed(_) | Search::Mate(Some(_))),
                Kind::Stop | Kind::PonderHit => search.is_some(),
                Kind::IsReady => true,
                _ => false,
            };
        ready_pending = false;
        match &cmd.kind {
            Kind::Go(go) => {
                after_gameover = false;
                search = match go {
                    Search::Timed(_) if raced => Some(State::Searching),
                    Search::Mate(Some(_)) if raced => Some(State::MateSearch),
                    Search::Timed(_) | Search::Mate(Some(_)) => None,
                    Search::Infinite => Some(State::Searching),
                    Search::Ponder(_) => Some(State::Pondering),
                    Search::Mate(None) => Some(State::MateSearch),
                };
            }
            Kind::Stop if search.is_some() && raced => search = Some(State::AfterStop),
            Kind::PonderHit if search == Some(State::Pondering) && raced => {
                search = Some(State::AfterPonderhit);
            }
            Kind::Stop => search = None,
            Kind::PonderHit if search == Some(State::Pondering) => search = None,
            Kind::IsReady => ready_pending = true,
            Kind::GameOver => {
                search = None;
                after_gameover = true;
            }
            Kind::NewGame => after_gameover = false,
            _ => {}
        }
    }
    cells
}

/// Whether what is being drawn is to be drawn again because it triggers a known finding.
fn avoided(avoid: &BTreeSet<Trigger>, trigger: Trigger) -> bool {
    avoid.contains(&trigger)
}

/// A session of one GUI episode per seed, each generated from its seed alone: a change to one
/// seed changes one episode, which lets a coverage-guided fuzzer mutate sessions piecewise.
///
/// ```
/// use usicheck::fuzzer::plan::{self, Mix};
/// let texts = |seeds: &[u64]| {
///     plan::episodes(seeds.iter().copied(), Mix::Quick).into_iter().map(|c| c.text).collect::<Vec<_>>()
/// };
/// let (one, two) = (texts(&[1]), texts(&[2]));
/// assert_eq!(texts(&[1, 2]), [one, two].concat());
/// ```
pub fn episodes(seeds: impl IntoIterator<Item = u64>, mix: Mix) -> Vec<Cmd> {
    let mut cmds = Vec::new();
    for seed in seeds {
        let mut rng = Rng::seed_from_u64(seed);
        match mix {
            Mix::Depth1 => depth1(&mut rng, 1, &mut cmds),
            Mix::Full | Mix::Quick => episode(&mut rng, mix.pace(), &BTreeSet::new(), &mut cmds),
        }
    }
    cmds
}

/// The positions of random games, one ply apart, each searched with `go depth 1`: one move
/// generation per position keeps the generator's cost far below the engine's.
fn depth1(rng: &mut Rng, episodes: usize, cmds: &mut Vec<Cmd>) {
    let mut game = positions::Playout::new(rng);
    for _ in 0..episodes {
        let (line, pos) = game.next(rng);
        cmds.push(position(&line, Some(pos)));
        cmds.push(Cmd::line(
            "go depth 1",
            Kind::Go(Search::Timed(FULL.untimed)),
        ));
    }
}

fn position(line: &str, pos: Option<Position>) -> Cmd {
    Cmd::line(line, Kind::Position(pos.map(Box::new)))
}

fn ms(d: u64) -> Duration {
    Duration::from_millis(d)
}

/// One GUI episode, of a kind drawn at random (a kind in `avoid` is mostly drawn again); its
/// commands carry the kind.
fn episode(rng: &mut Rng, pace: &Pace, avoid: &BTreeSet<Trigger>, cmds: &mut Vec<Cmd>) {
    let kind = loop {
        let kind = match rng.random_range(0..100) {
            0..=39 => Episode::Search,
            40..=45 => Episode::IllegalPosition,
            46..=51 => Episode::MalformedPosition,
            52..=58 => Episode::Garbage,
            59..=61 => Episode::IdleStopOrPonderhit,
            62..=66 => Episode::Infinite,
            67..=74 => Episode::Ponder,
            75..=79 => Episode::NewGame,
            80..=85 => Episode::Mate,
            86..=89 => Episode::IsReady,
            _ => Episode::Probe,
        };
        let trigger = match kind {
            Episode::Mate => Trigger::GoMate,
            Episode::Ponder => Trigger::GoPonder,
            _ => Trigger::Episode(kind),
        };
        if !avoided(avoid, trigger) {
            break kind;
        }
    };
    let start = cmds.len();
    let depth1 = || Cmd::line("go depth 1", Kind::Go(Search::Timed(pace.untimed)));
    match kind {
        Episode::Search => {
            let p = positions::legal(rng);
            cmds.push(position(&p.line, Some(p.position)));
            go(rng, pace, avoid, cmds);
        }
        Episode::IllegalPosition => {
            cmds.push(position(&illegal::illegal_position(rng), None));
            cmds.push(depth1());
        }
        Episode::MalformedPosition => {
            cmds.push(Cmd::from_raw(
                illegal::malformed_position(rng),
                Kind::Position(None),
            ));
            cmds.push(depth1());
        }
        Episode::Garbage => {
            cmds.push(Cmd::from_raw(illegal::garbage(rng), Kind::Other));
            isready(rng, cmds);
        }
        Episode::IdleStopOrPonderhit => {
            let idle = ["stop", "ponderhit"].choose(rng).expect("words");
            let kind = if *idle == "stop" {
                Kind::Stop
            } else {
                Kind::PonderHit
            };
            cmds.push(Cmd::line(*idle, kind));
        }
        Episode::Infinite => {
            let p = positions::legal(rng);
            cmds.push(position(&p.line, Some(p.position)));
            infinite(rng, pace, avoid, cmds);
        }
        Episode::Ponder => ponder(rng, pace, cmds),
        Episode::NewGame => new_game(rng, cmds),
        Episode::Mate => mate(rng, pace, avoid, cmds),
        Episode::IsReady => isready(rng, cmds),
        Episode::Probe => probe(rng, pace, avoid, cmds, false),
        Episode::Quit => probe(rng, pace, avoid, cmds, true),
    }
    for cmd in &mut cmds[start..] {
        cmd.episode = kind;
    }
}

fn isready(rng: &mut Rng, cmds: &mut Vec<Cmd>) {
    let raw = rng.random_bool(0.1);
    cmds.push(Cmd {
        raw,
        ..Cmd::line(if raw { "isready\r\n" } else { "isready" }, Kind::IsReady)
    });
}

/// A `go` with random limits for the position just sent.
fn go(rng: &mut Rng, pace: &Pace, avoid: &BTreeSet<Trigger>, cmds: &mut Vec<Cmd>) {
    match rng.random_range(0..10) {
        0..=3 => {
            let d = rng.random_range(1..=pace.depth);
            cmds.push(Cmd::line(
                format!("go depth {d}"),
                Kind::Go(Search::Timed(pace.untimed)),
            ));
        }
        4 => {
            let n = rng.random_range(pace.nodes.clone());
            cmds.push(Cmd::line(
                format!("go nodes {n}"),
                Kind::Go(Search::Timed(pace.untimed)),
            ));
        }
        5 => {
            let t = rng.random_range(pace.movetime.clone());
            cmds.push(Cmd::line(
                format!("go movetime {t}"),
                Kind::Go(Search::Timed(ms(t) + pace.slack)),
            ));
        }
        6 => {
            let b = rng.random_range(pace.byoyomi.clone());
            cmds.push(Cmd::line(
                format!("go btime 0 wtime 0 byoyomi {b}"),
                Kind::Go(Search::Timed(ms(b) + pace.slack)),
            ));
        }
        7 => {
            let t = rng.random_range(pace.clock.clone());
            let inc = rng.random_range(pace.increment.clone());
            cmds.push(Cmd::line(
                format!("go btime {t} wtime {t} binc {inc} winc {inc}"),
                Kind::Go(Search::Timed(ms(t + inc) + pace.slack)),
            ));
        }
        8 => {
            let t = rng.random_range(pace.sudden.clone());
            cmds.push(Cmd::line(
                format!("go btime {t} wtime {t}"),
                Kind::Go(Search::Timed(ms(t) + pace.slack)),
            ));
        }
        _ => infinite(rng, pace, avoid, cmds),
    }
}

/// `go infinite`, perhaps probed with `isready`, ended by `stop` or `gameover`.
fn infinite(rng: &mut Rng, pace: &Pace, avoid: &BTreeSet<Trigger>, cmds: &mut Vec<Cmd>) {
    cmds.push(Cmd::line("go infinite", Kind::Go(Search::Infinite)));
    if rng.random_bool(0.3) {
        cmds.push(Cmd::line("isready", Kind::IsReady));
    }
    cmds.push(Cmd::sleep(rng.random_range(0..pace.pause)));
    if rng.random_bool(0.15) && !avoided(avoid, Trigger::GameOverInSearch) {
        let result = ["win", "lose", "draw"].choose(rng).expect("results");
        cmds.push(Cmd::line(format!("gameover {result}"), Kind::GameOver));
        cmds.push(Cmd::line("isready", Kind::IsReady));
    } else {
        cmds.push(Cmd::line("stop", Kind::Stop));
    }
}

/// A probe of one (state × command × timing) cell drawn at random among those of `quit` (or of
/// every other command) that avoid the known findings' triggers.
fn probe(rng: &mut Rng, pace: &Pace, avoid: &BTreeSet<Trigger>, cmds: &mut Vec<Cmd>, quit: bool) {
    let (state, sent) = loop {
        let state = *State::ALL.choose(rng).expect("states");
        let kinds: Vec<Sent> = Sent::ALL
            .into_iter()
            .filter(|&sent| (sent == Sent::Quit) == quit)
            .filter(|&sent| Coverage::reachable(state, sent, Gap::SameWrite))
            .collect();
        let Some(&sent) = kinds.choose(rng) else {
            return;
        };
        if !avoid.iter().any(|t| t.steers_away(state, sent)) {
            break (state, sent);
        }
    };
    let gaps: Vec<Gap> = Gap::ALL
        .into_iter()
        .filter(|&gap| Coverage::reachable(state, sent, gap))
        .collect();
    let gap = *gaps.choose(rng).expect("the same write is reachable");
    probe_cell(rng, pace, avoid, (state, sent, gap), cmds);
}

/// The pauses (ms) before a command sent after `gap`, scaled to the pace's ponder phase: none
/// in the same write; within the bucket otherwise, short within the longer buckets (a cell
/// costs what its bucket needs, no more).
fn pause_before(gap: Gap, pace: &Pace) -> Option<Range<u64>> {
    let full = match gap {
        Gap::SameWrite => return None,
        Gap::Under1 => 0..1,
        Gap::To10 => 1..10,
        Gap::To100 => 10..100,
        Gap::To1000 => 100..1000,
        Gap::Longer => 1000..1250,
    };
    let scale = |ms: u64| ms * pace.ponder_phase / FULL.ponder_phase;
    Some(scale(full.start)..scale(full.end).max(scale(full.start) + 1))
}

/// A probe of `cell`: the engine is put in its state, sent a command of its kind in the same
/// write as the command before or after a pause in its timing bucket, and then brought back to
/// idle. `quit` probes end the session.
fn probe_cell(
    rng: &mut Rng,
    pace: &Pace,
    avoid: &BTreeSet<Trigger>,
    (state, sent, gap): Cell,
    cmds: &mut Vec<Cmd>,
) {
    let pause = pause_before(gap, pace).map(|range| {
        if range.end - range.start > 100 {
            // Log-uniform: short ones as likely as long ones.
            let log = rng.random_range((range.start as f64).ln()..(range.end as f64).ln());
            (log.exp() as u64).clamp(range.start, range.end - 1)
        } else {
            rng.random_range(range)
        }
    });
    let waited = pause.unwrap_or(0);
    // A timed search outlasts the pause.
    let byoyomi = waited + pace.race + rng.random_range(pace.byoyomi.clone());
    let timed = |b: u64| {
        Cmd::line(
            format!("go btime 0 wtime 0 byoyomi {b}"),
            Kind::Go(Search::Timed(ms(b) + pace.slack)),
        )
    };
    let ponder = |b: u64| {
        Cmd::line(
            format!("go ponder btime 0 wtime 0 byoyomi {b}"),
            Kind::Go(Search::Ponder(ms(b) + pace.slack)),
        )
    };
    let legal = |rng: &mut Rng| {
        let p = positions::legal(rng);
        position(&p.line, Some(p.position))
    };
    let open = match state {
        State::Idle => {
            cmds.push(legal(rng));
            None
        }
        State::AfterGameover => {
            cmds.push(Cmd::line("gameover draw", Kind::GameOver));
            None
        }
        State::BeforeReadyok => {
            cmds.push(Cmd::line("isready", Kind::IsReady));
            None
        }
        State::Searching => {
            cmds.push(legal(rng));
            let go = if rng.random_bool(0.5) {
                Cmd::line("go infinite", Kind::Go(Search::Infinite))
            } else {
                timed(byoyomi)
            };
            let search = go.kind.clone();
            cmds.push(go);
            Some(search)
        }
        State::Pondering => {
            cmds.push(legal(rng));
            cmds.push(ponder(byoyomi));
            Some(Kind::Go(Search::Ponder(ms(byoyomi) + pace.slack)))
        }
        State::AfterPonderhit => {
            cmds.push(legal(rng));
            cmds.push(ponder(byoyomi));
            cmds.push(Cmd::line("ponderhit", Kind::PonderHit).when(When::DuringSearch));
            Some(Kind::Go(Search::Timed(ms(byoyomi) + pace.slack)))
        }
        State::AfterStop => {
            cmds.push(legal(rng));
            cmds.push(Cmd::line("go infinite", Kind::Go(Search::Infinite)));
            cmds.push(Cmd::sleep(rng.random_range(0..pace.pause)));
            cmds.push(Cmd::line("stop", Kind::Stop));
            None
        }
        State::MateSearch => {
            let p = positions::legal_of(PositionKind::InCheck, rng);
            cmds.push(position(&p.line, Some(p.position)));
            let go = if rng.random_bool(0.5) || avoided(avoid, Trigger::GoMateTimed) {
                Cmd::line("go mate infinite", Kind::Go(Search::Mate(None)))
            } else {
                Cmd::line(
                    format!("go mate {byoyomi}"),
                    Kind::Go(Search::Mate(Some(ms(byoyomi) + pace.slack))),
                )
            };
            let search = go.kind.clone();
            cmds.push(go);
            Some(search)
        }
    };
    let when = match pause {
        None => When::SameWrite,
        Some(ms) => {
            if ms > 0 {
                cmds.push(Cmd::sleep(ms));
            }
            if state.in_search() {
                When::DuringSearch
            } else {
                When::After
            }
        }
    };
    let probe = match sent {
        Sent::Position => legal(rng),
        Sent::Go => Cmd::line("go depth 1", Kind::Go(Search::Timed(pace.untimed))),
        Sent::Stop => Cmd::line("stop", Kind::Stop),
        Sent::PonderHit => Cmd::line("ponderhit", Kind::PonderHit),
        Sent::IsReady => Cmd::line("isready", Kind::IsReady),
        Sent::NewGame => Cmd::line("usinewgame", Kind::NewGame),
        Sent::GameOver => {
            let result = ["win", "lose", "draw"].choose(rng).expect("results");
            Cmd::line(format!("gameover {result}"), Kind::GameOver)
        }
        Sent::SetOption => Cmd::line("setoption name USI_Hash value 16", Kind::SetOption),
        Sent::Quit => Cmd::line("quit", Kind::Quit),
        Sent::Other => Cmd::from_raw(illegal::garbage(rng), Kind::Other),
    };
    let probe_kind = probe.kind.clone();
    cmds.push(probe.when(when));
    // Back to idle: a `go` probe has a position (the last one sent), a search the probe did
    // not end is stopped, a game over is followed by a new one.
    let ended = match (&open, &probe_kind) {
        (_, Kind::Stop | Kind::GameOver | Kind::Quit) => true,
        (Some(Kind::Go(Search::Ponder(_))), Kind::PonderHit) => {
            // The ponder search is a timed one now: it ends by itself.
            true
        }
        (Some(Kind::Go(Search::Timed(_) | Search::Mate(Some(_)))), _) => true,
        _ => false,
    };
    if open.is_some() && !ended {
        cmds.push(Cmd::line("stop", Kind::Stop));
    }
    if matches!(probe_kind, Kind::GameOver) || state == State::AfterGameover {
        cmds.push(Cmd::line("isready", Kind::IsReady));
        cmds.push(Cmd::line("usinewgame", Kind::NewGame));
    }
}

/// `go ponder` on a position two plies on (a guessed best move and reply), then a hit or a miss.
fn ponder(rng: &mut Rng, pace: &Pace, cmds: &mut Vec<Cmd>) {
    let start = positions::legal_of(PositionKind::Playout, rng);
    let mut pos = start.position.clone();
    let mut line = start.line.clone();
    if !line.contains(" moves") {
        line.push_str(" moves");
    }
    for _ in 0..2 {
        let Some(&m) = pos.legal_moves().as_slice().choose(rng) else {
            return;
        };
        let m: Move = m;
        pos.play_unchecked(m);
        line.push(' ');
        line.push_str(&m.to_string());
    }
    cmds.push(position(&line, Some(pos)));
    let b = rng.random_range(pace.byoyomi.clone());
    cmds.push(Cmd::line(
        format!("go ponder btime 0 wtime 0 byoyomi {b}"),
        Kind::Go(Search::Ponder(ms(b) + pace.slack)),
    ));
    // Mostly a short phase; now and then one from a millisecond to seconds, as long in each
    // decade (log-uniform), long enough to show a `bestmove` leaked into it.
    let phase = if rng.random_bool(0.25) {
        let log: f64 = rng.random_range(0.0..(pace.ponder_phase as f64).ln());
        log.exp() as u64
    } else {
        rng.random_range(0..pace.pause)
    };
    cmds.push(Cmd::sleep(phase));
    if rng.random_bool(0.6) {
        cmds.push(Cmd::line("ponderhit", Kind::PonderHit));
    } else {
        cmds.push(Cmd::line("stop", Kind::Stop));
    }
}

/// `gameover`, options between games, `isready`, `usinewgame`.
fn new_game(rng: &mut Rng, cmds: &mut Vec<Cmd>) {
    let result = ["win", "lose", "draw"].choose(rng).expect("results");
    cmds.push(Cmd::line(format!("gameover {result}"), Kind::GameOver));
    let options = [
        "setoption name USI_Hash value 16",
        "setoption name MultiPV value 2",
        "setoption name MultiPV value 1",
        "setoption name USI_Ponder value true",
    ];
    for _ in 0..rng.random_range(0..3) {
        cmds.push(Cmd::line(
            *options.choose(rng).expect("options"),
            Kind::SetOption,
        ));
    }
    cmds.push(Cmd::line("isready", Kind::IsReady));
    cmds.push(Cmd::line("usinewgame", Kind::NewGame));
}

/// `go mate` with a short limit (unless that is avoided), or `go mate infinite` and a `stop`.
fn mate(rng: &mut Rng, pace: &Pace, avoid: &BTreeSet<Trigger>, cmds: &mut Vec<Cmd>) {
    let kind = *[
        PositionKind::InCheck,
        PositionKind::Playout,
        PositionKind::FullHands,
    ]
    .choose(rng)
    .expect("kinds");
    let p = positions::legal_of(kind, rng);
    cmds.push(position(&p.line, Some(p.position)));
    if rng.random_bool(0.7) && !avoided(avoid, Trigger::GoMateTimed) {
        let t = rng.random_range(pace.mate.clone());
        cmds.push(Cmd::line(
            format!("go mate {t}"),
            Kind::Go(Search::Mate(Some(ms(t) + pace.slack))),
        ));
    } else {
        cmds.push(Cmd::line("go mate infinite", Kind::Go(Search::Mate(None))));
        cmds.push(Cmd::sleep(rng.random_range(0..pace.mate_pause)));
        cmds.push(Cmd::line("stop", Kind::Stop));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn sessions_are_reproducible_and_varied() {
        let texts = |seed| {
            let mut rng = Rng::seed_from_u64(seed);
            session(&mut rng, Mix::Full, 40)
                .into_iter()
                .map(|c| c.text)
                .collect::<Vec<_>>()
        };
        assert_eq!(texts(5), texts(5));
        let all = texts(5).join("\n");
        for word in [
            "go depth",
            "go ponder",
            "ponderhit",
            "go mate",
            "gameover",
            "isready",
        ] {
            assert!(all.contains(word), "no {word} in\n{all}");
        }
        for seed in 0..50 {
            let mut rng = Rng::seed_from_u64(seed);
            assert!(well_formed(&session(&mut rng, Mix::Full, 30)));
        }
    }

    /// The cells predicted for `sessions` steered sessions, each steered by the ones before.
    fn steered_coverage(sessions: u64) -> Coverage {
        let mut steer = Steer::default();
        for seed in 0..sessions {
            let mut rng = Rng::seed_from_u64(seed);
            let cmds = steered_session(&mut rng, Mix::Full, 20, &steer);
            for (state, sent, gap) in predicted_cells(&cmds) {
                steer.predicted.note(state, sent, gap);
            }
        }
        steer.predicted
    }

    #[test]
    fn probes_aimed_at_unexercised_cells_cover_every_reachable_cell() {
        let coverage = steered_coverage(60);
        let (reached, all) = coverage.reached();
        assert_eq!(reached, all, "{}", coverage.table());
    }

    #[test]
    fn a_probe_keeps_off_the_cells_of_an_avoided_trigger() {
        // Pondering is a search too: `gameover` while pondering is `gameover` in a search.
        let avoid: BTreeSet<Trigger> = [Trigger::GameOverInSearch, Trigger::GoMateTimed].into();
        let mut rng = Rng::seed_from_u64(1);
        let mut mate_searches = 0;
        for _ in 0..3000 {
            let mut cmds = Vec::new();
            probe(&mut rng, &FULL, &avoid, &mut cmds, false);
            let cells = predicted_cells(&cmds);
            assert!(
                !cells
                    .iter()
                    .any(|&(state, sent, _)| state.in_search() && sent == Sent::GameOver),
                "{cmds:#?}"
            );
            for cmd in &cmds {
                if cmd.text.starts_with("go mate") {
                    assert_eq!(cmd.text, "go mate infinite");
                    mate_searches += 1;
                }
            }
        }
        // `go mate infinite` still shows the mate-search state.
        assert!(mate_searches > 100, "{mate_searches}");
    }

    #[test]
    fn the_depth1_mix_alternates_position_and_go() {
        let mut rng = Rng::seed_from_u64(1);
        let cmds = session(&mut rng, Mix::Depth1, 10);
        assert_eq!(cmds.len(), 20);
        assert!(
            cmds.iter()
                .skip(1)
                .step_by(2)
                .all(|c| c.text == "go depth 1")
        );
    }
}
