//! Steering: each session's episodes chosen for the protocol-state cells they are predicted to
//! exercise (probes aimed at cells not exercised yet, other episodes the most novel of a few
//! candidates for their cost), and away from the triggers of known findings.

use super::episodes::{episode, ms, pause_before, probe, probe_cell, session};
use super::pace::{Mix, Pace};
use super::{Cmd, Episode, Kind, Search, Trigger, When, raced};
use crate::fuzzer::Rng;
use crate::fuzzer::coverage::{Cell, Coverage, Gap, Sent};
use crate::observer::{Conversation, Reply, State};
use crate::usi::Command;
use rand::RngExt;
use rand::seq::IndexedRandom;
use std::collections::BTreeSet;
use std::time::Duration;

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
    pub fn avoid_trigger_of(&mut self, cmds: &[Cmd], v: &crate::fuzzer::oracle::Violation) {
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
/// model alone: the [`Conversation`] the executor's observer keeps, run over the commands with
/// each awaited reply assumed to come in time (a `readyok` before the next command not written
/// with its `isready`, a search's reply before the next command unless that one races it), and
/// a command after an awaited reply assumed to come 10–100 ms after the one before.
///
/// ```
/// use usicheck::fuzzer::coverage::{Gap, Sent, State};
/// use usicheck::fuzzer::plan::{Cmd, Kind, Search, predicted_cells};
/// let cmds = [Cmd::line("go infinite", Kind::Go(Search::Infinite)), Cmd::line("stop", Kind::Stop)];
/// assert_eq!(predicted_cells(&cmds)[1], (State::Searching, Sent::Stop, Gap::Under1));
/// ```
pub fn predicted_cells(cmds: &[Cmd]) -> Vec<Cell> {
    let mut cells = Vec::new();
    let mut conversation = Conversation::default();
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
        // Only the commands in the write of an `isready` are sent before its `readyok`.
        while cmd.when != When::SameWrite && conversation.awaiting_readyok() {
            conversation.on_reply(Reply::ReadyOk);
        }
        cells.push((conversation.state(), Sent::of(&cmd.text), gap));
        pause = Duration::ZERO;
        let raced = raced(cmds, i);
        let owed = conversation.owed_search().is_some();
        let pondering = conversation.search_state() == Some(State::Pondering);
        // Whether the executor waits for a reply to it (unless the next command races it).
        awaited = !raced
            && match &cmd.kind {
                Kind::Go(go) => matches!(go, Search::Timed(_) | Search::Mate(Some(_))),
                Kind::Stop | Kind::PonderHit => owed,
                Kind::IsReady => true,
                _ => false,
            };
        let lines = match cmd.raw {
            true => crate::observer::complete_lines(&cmd.text).collect(),
            false => vec![cmd.text.as_str()],
        };
        // As the executor's observer follows them, with no clock.
        for line in lines {
            conversation.on_send(&Command::parse(line), 0);
        }
        // The reply of a search that ends by itself, or that the command ends.
        let answered = match &cmd.kind {
            Kind::Go(go) => matches!(go, Search::Timed(_) | Search::Mate(Some(_))),
            Kind::Stop => owed,
            Kind::PonderHit => pondering,
            _ => false,
        };
        if answered && !raced {
            conversation.on_reply(Reply::Terminal);
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

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

    /// The prediction classifies as the executor counts: by the one [`Conversation`].
    #[test]
    fn predicted_states_are_the_conversations() {
        let line = |text: &str, kind| Cmd::line(text, kind);
        let cmds = [
            line("go mate infinite", Kind::Go(Search::Mate(None))),
            line("stop", Kind::Stop),
            // Raced: the `checkmate` is still owed.
            line("isready", Kind::IsReady).when(When::SameWrite),
            // Both before the `readyok`: in the write of the `isready`.
            line("ponderhit", Kind::PonderHit).when(When::SameWrite),
            line("gameover win", Kind::GameOver).when(When::SameWrite),
            line("usinewgame", Kind::NewGame),
        ];
        let states: Vec<State> = predicted_cells(&cmds).iter().map(|c| c.0).collect();
        use State::*;
        assert_eq!(
            states,
            [
                Idle,
                MateSearch,
                MateSearch,
                BeforeReadyok,
                BeforeReadyok,
                AfterGameover
            ]
        );
    }

    #[test]
    fn probes_aimed_at_unexercised_cells_cover_every_reachable_cell() {
        let coverage = steered_coverage(60);
        let (reached, all) = coverage.reached();
        assert_eq!(reached, all, "{}", coverage.table());
    }
}
