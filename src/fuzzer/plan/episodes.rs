//! The GUI episodes sessions are made of (a search, an illegal or malformed position, garbage,
//! `go infinite`, ponder, a new game, `go mate`, `isready`, a probe of one state × command ×
//! timing cell), each drawn at random, and the unsteered sessions made of them.

use super::pace::{FULL, Mix, Pace};
use super::{Cmd, Episode, Kind, Search, Trigger, When};
use crate::fuzzer::Rng;
use crate::fuzzer::coverage::{Cell, Coverage, Gap, Sent, State};
use crate::fuzzer::illegal;
use crate::fuzzer::positions::{self, Kind as PositionKind};
use crate::shogi::{Move, Position};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeSet;
use std::ops::Range;
use std::time::Duration;

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

pub(super) fn ms(d: u64) -> Duration {
    Duration::from_millis(d)
}

/// One GUI episode, of a kind drawn at random (a kind in `avoid` is mostly drawn again); its
/// commands carry the kind.
pub(super) fn episode(rng: &mut Rng, pace: &Pace, avoid: &BTreeSet<Trigger>, cmds: &mut Vec<Cmd>) {
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
pub(super) fn probe(
    rng: &mut Rng,
    pace: &Pace,
    avoid: &BTreeSet<Trigger>,
    cmds: &mut Vec<Cmd>,
    quit: bool,
) {
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
pub(super) fn pause_before(gap: Gap, pace: &Pace) -> Option<Range<u64>> {
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
pub(super) fn probe_cell(
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
    use crate::fuzzer::plan::{predicted_cells, well_formed};

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
