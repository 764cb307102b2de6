//! Sessions as command lists, generated from a model of the GUI state machine.
//!
//! Each command carries what the GUI knows about it (the position it sets, the search it
//! starts), so the executor can derive what the engine owes after any subset of the list:
//! that is what lets the shrinker drop commands freely.

use super::Rng;
use super::illegal::{self, RawLine};
use super::positions::{self, Kind as PositionKind};
use crate::shogi::{Move, Position};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
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
    fn line(text: impl Into<String>, kind: Kind) -> Cmd {
        Cmd {
            text: text.into(),
            raw: false,
            kind,
        }
    }

    fn from_raw(raw: RawLine, kind: Kind) -> Cmd {
        Cmd {
            text: raw.text,
            raw: raw.raw,
            kind,
        }
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
/// infinite`) runs. The shrinker only tries such lists.
pub fn well_formed(cmds: &[Cmd]) -> bool {
    let mut open = false;
    for cmd in cmds {
        match &cmd.kind {
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

/// `cmds` with an `isready` after every command that ends a search (a timed `go`, `stop`,
/// `ponderhit`, `gameover`): the engine must answer `readyok` after all its output for that
/// search, so an extra terminal reply shows as one, before the next `go` could take it for its
/// own. Failures are confirmed this way: a late double `bestmove` is then charged to the
/// one-reply rule, not to the next position's legality.
pub fn synced(cmds: &[Cmd]) -> Vec<Cmd> {
    let mut out = Vec::with_capacity(cmds.len() * 2);
    for cmd in cmds {
        out.push(cmd.clone());
        let ends_search = matches!(
            cmd.kind,
            Kind::Go(Search::Timed(_) | Search::Mate(Some(_)))
                | Kind::Stop
                | Kind::PonderHit
                | Kind::GameOver
        );
        if ends_search {
            out.push(Cmd::line("isready", Kind::IsReady));
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
    /// `go depth` and `go nodes` draw `i32`s, as they always did: the same seed must keep
    /// giving the same session.
    depth: i32,
    nodes: Range<i32>,
    movetime: Range<u64>,
    byoyomi: Range<u64>,
    clock: Range<u64>,
    increment: Range<u64>,
    mate: Range<u64>,
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
};

impl Mix {
    fn pace(self) -> &'static Pace {
        match self {
            Mix::Quick => &QUICK,
            Mix::Full | Mix::Depth1 => &FULL,
        }
    }
}

/// A random session of `episodes` GUI episodes.
pub fn session(rng: &mut Rng, mix: Mix, episodes: usize) -> Vec<Cmd> {
    let mut cmds = Vec::new();
    match mix {
        Mix::Depth1 => depth1(rng, episodes, &mut cmds),
        Mix::Full | Mix::Quick => {
            for _ in 0..episodes {
                episode(rng, mix.pace(), &mut cmds);
            }
        }
    }
    cmds
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
            Mix::Full | Mix::Quick => episode(&mut rng, mix.pace(), &mut cmds),
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

fn episode(rng: &mut Rng, pace: &Pace, cmds: &mut Vec<Cmd>) {
    let depth1 = || Cmd::line("go depth 1", Kind::Go(Search::Timed(pace.untimed)));
    match rng.random_range(0..100) {
        0..=44 => {
            let p = positions::legal(rng);
            cmds.push(position(&p.line, Some(p.position)));
            go(rng, pace, cmds);
        }
        45..=51 => {
            cmds.push(position(&illegal::illegal_position(rng), None));
            cmds.push(depth1());
        }
        52..=58 => {
            cmds.push(Cmd::from_raw(
                illegal::malformed_position(rng),
                Kind::Position(None),
            ));
            cmds.push(depth1());
        }
        59..=66 => {
            cmds.push(Cmd::from_raw(illegal::garbage(rng), Kind::Other));
            isready(rng, cmds);
        }
        67..=70 => {
            let idle = ["stop", "ponderhit"].choose(rng).expect("words");
            let kind = if *idle == "stop" {
                Kind::Stop
            } else {
                Kind::PonderHit
            };
            cmds.push(Cmd::line(*idle, kind));
        }
        71..=80 => ponder(rng, pace, cmds),
        81..=86 => new_game(rng, cmds),
        87..=92 => mate(rng, pace, cmds),
        _ => isready(rng, cmds),
    }
}

fn isready(rng: &mut Rng, cmds: &mut Vec<Cmd>) {
    let raw = rng.random_bool(0.1);
    cmds.push(Cmd {
        text: if raw { "isready\r\n" } else { "isready" }.into(),
        raw,
        kind: Kind::IsReady,
    });
}

/// A `go` with random limits for the position just sent.
fn go(rng: &mut Rng, pace: &Pace, cmds: &mut Vec<Cmd>) {
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
        _ => {
            cmds.push(Cmd::line("go infinite", Kind::Go(Search::Infinite)));
            if rng.random_bool(0.3) {
                cmds.push(Cmd::line("isready", Kind::IsReady));
            }
            cmds.push(Cmd::sleep(rng.random_range(0..pace.pause)));
            if rng.random_bool(0.15) {
                let result = ["win", "lose", "draw"].choose(rng).expect("results");
                cmds.push(Cmd::line(format!("gameover {result}"), Kind::GameOver));
                cmds.push(Cmd::line("isready", Kind::IsReady));
            } else {
                cmds.push(Cmd::line("stop", Kind::Stop));
            }
        }
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
    cmds.push(Cmd::sleep(rng.random_range(0..pace.pause)));
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

/// `go mate` with a short limit, or `go mate infinite` and a `stop`.
fn mate(rng: &mut Rng, pace: &Pace, cmds: &mut Vec<Cmd>) {
    let kind = *[
        PositionKind::InCheck,
        PositionKind::Playout,
        PositionKind::FullHands,
    ]
    .choose(rng)
    .expect("kinds");
    let p = positions::legal_of(kind, rng);
    cmds.push(position(&p.line, Some(p.position)));
    if rng.random_bool(0.7) {
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
