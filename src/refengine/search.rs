//! A plain iterative-deepening alpha-beta search on material. Strength is not the point: it
//! polls its stop flag and clock every few nodes, so the engine stays responsive.
//! One job, kept whole: its limits (`Control`), its `info` lines and its evaluation are parts
//! of this one search, and apart they would scatter one `Searcher`.

use super::faults::{Fault, FaultSet};
use super::info::{PvReport, Score};
use super::io::Output;
use super::timeman::Budget;
use super::tt::Tt;
use crate::shogi::{Color, Move, MoveList, PieceKind, Position, Square};
use crate::sim::Clock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Score of being mated at the root; mate at ply `n` scores `MATE - n`.
const MATE: i32 = 32_000;
const INFINITY: i32 = MATE + 1;
/// Scores beyond this are mate scores.
const MATE_BOUND: i32 = MATE - 1000;
const MAX_DEPTH: u32 = 64;
/// Nodes between polls of the stop flag and the clock.
const POLL_INTERVAL: u64 = 64;
const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// Shared between the main loop and a running search.
pub struct Control {
    /// The engine's clock, real or simulated.
    pub clock: Clock,
    /// Shared with the mate solver, which polls the same flag.
    pub stop: Arc<AtomicBool>,
    pondering: AtomicBool,
    /// Start of the timed part: `go`, or `ponderhit` for a ponder search.
    clock_start: Mutex<Instant>,
    /// The time limit; a `ponderhit` carrying a clock may set it.
    budget: Mutex<Option<Budget>>,
}

impl Control {
    pub fn new(clock: Clock, pondering: bool, budget: Option<Budget>) -> Control {
        Control {
            stop: Arc::new(AtomicBool::new(false)),
            pondering: AtomicBool::new(pondering),
            clock_start: Mutex::new(clock.now()),
            clock,
            budget: Mutex::new(budget),
        }
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// `ponderhit`: the clock starts now, under `budget` if the `ponderhit` carried a clock.
    pub fn ponderhit(&self, budget: Option<Budget>) {
        if budget.is_some() {
            *self.budget.lock().unwrap_or_else(PoisonError::into_inner) = budget;
        }
        *self
            .clock_start
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = self.clock.now();
        self.pondering.store(false, Ordering::Relaxed);
    }

    fn budget(&self) -> Option<Budget> {
        *self.budget.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Time spent under the clock, `None` while pondering.
    fn timed_elapsed(&self) -> Option<Duration> {
        if self.pondering.load(Ordering::Relaxed) {
            return None;
        }
        let start = *self
            .clock_start
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        Some(self.clock.now() - start)
    }

    /// Time since `start` on the engine's clock.
    fn since(&self, start: Instant) -> Duration {
        self.clock.now().saturating_duration_since(start)
    }
}

/// Whether a timed search stops inside its current iteration: at the hard limit, or at once
/// when there is no time to spare (a `ponderhit` whose clock the margin eats) and an iteration
/// has finished, which is answer enough.
fn must_stop_now(budget: Budget, elapsed: Duration, completed: u32) -> bool {
    elapsed >= budget.hard || (budget.soft.is_zero() && completed > 0)
}

/// What to search and within which limits.
pub struct SearchJob {
    pub root: Position,
    /// Keys of the game's earlier positions, for repetition.
    pub history: Vec<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub multi_pv: usize,
    pub searchmoves: Vec<Move>,
    /// Root moves that complete a perpetual check and so lose (USI-RULES-004): not played
    /// while any other move is legal.
    pub losing: Vec<Move>,
    /// `MaxMovesToDraw`: a position this many moves into the game is a draw.
    pub max_moves: Option<usize>,
    pub show_currmove: bool,
    /// Fault `mirrored-pv`: `pv` and `currmove` moves are printed mirrored left to right.
    pub mirror_pv: bool,
    pub go_start: Instant,
}

/// The outcome: `best` is `None` only when the root has no legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
}

struct Searcher<'a> {
    job: &'a SearchJob,
    control: &'a Control,
    tt: &'a mut Tt,
    out: &'a Output,
    faults: &'a FaultSet,
    nodes: u64,
    seldepth: u32,
    /// Keys from the root to the current node.
    path: Vec<u64>,
    aborted: bool,
    /// The deepest iteration finished.
    completed: u32,
    last_progress: Instant,
    /// Lines sent by the `info-flood` fault.
    flood_lines: u64,
    /// The clock the nodes are spent on ([`Clock::for_search`]).
    work_clock: Clock,
}

/// Runs the search, printing `info` lines, and returns the best move with a ponder move.
pub fn search(
    job: &SearchJob,
    control: &Control,
    tt: &mut Tt,
    out: &Output,
    faults: &FaultSet,
) -> SearchResult {
    let mut s = Searcher {
        job,
        control,
        tt,
        out,
        faults,
        nodes: 0,
        seldepth: 0,
        path: Vec::new(),
        aborted: false,
        completed: 0,
        last_progress: control.clock.now(),
        flood_lines: 0,
        work_clock: control
            .clock
            .for_search(job.depth.is_some() || job.nodes.is_some()),
    };
    let result = s.root_search();
    // The nodes since the last poll take their time too.
    s.work_clock.work(s.nodes % POLL_INTERVAL);
    result
}

impl Searcher<'_> {
    fn root_search(&mut self) -> SearchResult {
        let root = &self.job.root;
        let legal = root.legal_moves();
        let mut root_moves: Vec<Move> = legal.iter().copied().collect();
        let restrict =
            !self.job.searchmoves.is_empty() && !self.faults.has(Fault::IgnoreSearchmoves);
        if restrict {
            let allowed: Vec<Move> = root_moves
                .iter()
                .copied()
                .filter(|m| self.job.searchmoves.contains(m))
                .collect();
            if !allowed.is_empty() {
                root_moves = allowed;
            }
        }
        if root_moves.iter().any(|m| !self.job.losing.contains(m)) {
            root_moves.retain(|m| !self.job.losing.contains(m));
        }
        if root_moves.is_empty() {
            return SearchResult {
                best: None,
                ponder: None,
            };
        }
        if self.faults.has(Fault::BadCurrmove) {
            let bogus = illegal_variant(root, root_moves[0]);
            self.out
                .line(&format!("info currmove {bogus} currmovenumber 0"));
        }
        let multi_pv = self.job.multi_pv.clamp(1, root_moves.len());
        let max_depth = self.job.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let mut best: Vec<(Move, i32)> = vec![(root_moves[0], 0)];
        for depth in 1..=max_depth {
            let mut scored: Vec<(Move, i32)> = Vec::new();
            let mut alpha = -INFINITY;
            self.path.push(root.key());
            for &m in &root_moves {
                // `currmove` only after a second, and without `currmovenumber`, which
                // MyShogi cannot parse (USI-INFO-013).
                if self.job.show_currmove
                    && self.control.since(self.job.go_start) >= PROGRESS_INTERVAL
                {
                    let shown = if self.job.mirror_pv { mirrored(m) } else { m };
                    self.out
                        .line(&format!("info depth {depth} currmove {shown}"));
                }
                let window_alpha = if multi_pv > 1 { -INFINITY } else { alpha };
                let score = -self.negamax(
                    &root.after(m),
                    depth as i32 - 1,
                    1,
                    -INFINITY,
                    -window_alpha,
                );
                if self.aborted {
                    break;
                }
                scored.push((m, score));
                alpha = alpha.max(score);
            }
            self.path.pop();
            // An aborted iteration is only used when nothing better exists: depth 1, partly done.
            let partial_first = self.completed == 0 && !scored.is_empty();
            if self.aborted && !partial_first {
                break;
            }
            scored.sort_by_key(|&(_, score)| std::cmp::Reverse(score));
            let searched: Vec<Move> = scored.iter().map(|&(m, _)| m).collect();
            root_moves.retain(|m| !searched.contains(m));
            root_moves.splice(0..0, searched);
            best = scored;
            self.completed = depth;
            self.tt.store(root.key(), best[0].0);
            let mut order: Vec<usize> = (0..best.len().min(multi_pv)).collect();
            if self.faults.has(Fault::MultiPvOutOfOrder) && order.len() >= 3 {
                order.swap(1, 2);
            }
            for k in order {
                let (m, score) = best[k];
                let multipv = (multi_pv > 1).then_some(k + 1);
                self.report(depth, m, score, multipv);
            }
            if self.aborted || self.out_of_soft_time() {
                break;
            }
            let mate_found =
                best[0].1.abs() >= MATE_BOUND && (MATE - best[0].1.abs()) as u32 <= depth;
            if mate_found {
                break;
            }
        }
        let (best_move, best_score) = best[0];
        let pv = self.pv_from(best_move, self.completed.max(1));
        self.report(
            self.completed.max(1),
            best_move,
            best_score,
            (multi_pv > 1).then_some(1),
        );
        let ponder = pv
            .get(1)
            .copied()
            .or_else(|| root.after(best_move).legal_moves().iter().next().copied());
        SearchResult {
            best: Some(best_move),
            ponder,
        }
    }

    fn out_of_soft_time(&self) -> bool {
        match (self.control.budget(), self.control.timed_elapsed()) {
            (Some(budget), Some(elapsed)) => elapsed >= budget.soft,
            _ => false,
        }
    }

    fn report(&self, depth: u32, m: Move, score: i32, multipv: Option<usize>) {
        if self.faults.has(Fault::NoFinalInfo) {
            return;
        }
        let mut pv = self.pv_from(m, depth);
        if self.job.mirror_pv {
            pv = pv.into_iter().map(mirrored).collect();
        }
        let report = PvReport {
            depth,
            seldepth: self.seldepth,
            time_ms: self.control.since(self.job.go_start).as_millis() as u64,
            nodes: self.nodes,
            hashfull: self.tt.hashfull(),
            score: to_usi_score(score),
            multipv,
            root_side: self.job.root.side_to_move(),
            pv,
        };
        self.out.line(&report.line(self.faults));
    }

    /// `first` followed by the table's best moves, as long as they stay legal and new.
    fn pv_from(&self, first: Move, depth: u32) -> Vec<Move> {
        let mut pv = vec![first];
        let mut pos = self.job.root.after(first);
        let mut seen = vec![self.job.root.key(), pos.key()];
        while pv.len() < depth as usize {
            let Some(m) = self.tt.probe(pos.key()) else {
                break;
            };
            if !pos.is_legal(m) {
                break;
            }
            pos.play_unchecked(m);
            if seen.contains(&pos.key()) {
                break;
            }
            seen.push(pos.key());
            pv.push(m);
        }
        pv
    }

    fn poll(&mut self) {
        self.work_clock.work(POLL_INTERVAL);
        if self.control.stopped() {
            self.aborted = true;
            return;
        }
        if let (Some(budget), Some(elapsed)) = (self.control.budget(), self.control.timed_elapsed())
            && must_stop_now(budget, elapsed, self.completed)
        {
            self.aborted = true;
            return;
        }
        if self.job.nodes.is_some_and(|limit| self.nodes >= limit)
            && !self.faults.has(Fault::IgnoreNodeLimit)
        {
            self.aborted = true;
            return;
        }
        let now = self.control.clock.now();
        if self.faults.has(Fault::InfoFlood) {
            // One line per millisecond, however slowly the search runs.
            while self.flood_lines < self.control.since(self.job.go_start).as_millis() as u64 {
                self.flood_lines += 1;
                self.progress_line();
            }
        }
        if now - self.last_progress >= PROGRESS_INTERVAL && !self.faults.has(Fault::NoFinalInfo) {
            self.last_progress = now;
            self.progress_line();
        }
    }

    fn progress_line(&self) {
        let time = self.control.since(self.job.go_start).as_millis() as u64;
        let nps = self.nodes * 1000 / time.max(1);
        let hashfull = self.tt.hashfull();
        self.out.line(&format!(
            "info time {time} nodes {} nps {nps} hashfull {hashfull}",
            self.nodes
        ));
    }

    fn repeated(&self, key: u64) -> bool {
        let in_game = !self.faults.has(Fault::IgnoreHistory) && self.job.history.contains(&key);
        in_game || self.path.contains(&key)
    }

    fn negamax(&mut self, pos: &Position, depth: i32, ply: u32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.nodes.is_multiple_of(POLL_INTERVAL) {
            self.poll();
        }
        if self.aborted {
            return 0;
        }
        if self.repeated(pos.key()) {
            return 0;
        }
        // The move limit: the game's moves so far, `ply` more in the search.
        if self
            .job
            .max_moves
            .is_some_and(|limit| self.job.history.len() + ply as usize >= limit)
        {
            return 0;
        }
        if depth <= 0 {
            if pos.in_check() && !pos.has_legal_moves() {
                return -MATE + ply as i32;
            }
            return evaluate(pos);
        }
        let list = pos.legal_moves();
        if list.is_empty() {
            return -MATE + ply as i32;
        }
        let moves = ordered(&list, self.tt.probe(pos.key()), pos);
        let mut best = -INFINITY;
        let mut best_move = moves[0];
        self.path.push(pos.key());
        for m in moves {
            let score = -self.negamax(&pos.after(m), depth - 1, ply + 1, -beta, -alpha);
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                best_move = m;
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        self.path.pop();
        if !self.aborted {
            self.tt.store(pos.key(), best_move);
        }
        best
    }
}

/// The engine's view of a score, in USI terms.
fn to_usi_score(score: i32) -> Score {
    if score >= MATE_BOUND {
        Score::Mate(MATE - score)
    } else if score <= -MATE_BOUND {
        Score::Mate(-(MATE + score))
    } else {
        Score::Cp(score)
    }
}

/// A move resembling `m` that is never legal in `pos` (for faults that send illegal moves):
/// a board move runs backwards from `m`'s destination, which holds no piece of the side to
/// move; a drop uses a kind the side to move lacks, or an occupied square.
pub fn illegal_variant(pos: &Position, m: Move) -> Move {
    match m {
        Move::Normal { from, to, .. } => Move::Normal {
            from: to,
            to: from,
            promote: false,
        },
        Move::Drop { kind, to } => {
            let hand = pos.hand(pos.side_to_move());
            match PieceKind::HAND_ORDER.iter().find(|&&k| hand.count(k) == 0) {
                Some(&missing) => Move::Drop { kind: missing, to },
                None => Move::Drop {
                    kind,
                    to: pos.occupied().into_iter().next().unwrap_or(to),
                },
            }
        }
    }
}

/// `m` reflected left to right: file 9 as 1 on both squares (fault `mirrored-pv`).
fn mirrored(m: Move) -> Move {
    let flip =
        |sq: Square| Square::new(10 - sq.file(), sq.rank()).expect("mirror stays on the board");
    match m {
        Move::Normal { from, to, promote } => Move::Normal {
            from: flip(from),
            to: flip(to),
            promote,
        },
        Move::Drop { kind, to } => Move::Drop { kind, to: flip(to) },
    }
}

/// The moves of `list` in the order to search them: `tt_move` (the table's best) first, then
/// captures, the most valuable victim first, then the rest as generated. Only the captures are
/// sorted (stably): most moves capture nothing, and sorting every move at every node cost the
/// simulated self-test a seventh of its time.
fn ordered(list: &MoveList, tt_move: Option<Move>, pos: &Position) -> Vec<Move> {
    let victim = |m: Move| {
        m.from()
            .and_then(|_| pos.piece_at(m.to()))
            .map_or(0, |p| value(p.kind))
    };
    let mut first = None;
    let mut captures = Vec::new();
    let mut quiet = Vec::with_capacity(list.len());
    for m in list {
        match victim(*m) {
            _ if Some(*m) == tt_move => first = Some(*m),
            0 => quiet.push(*m),
            v => captures.push((*m, v)),
        }
    }
    captures.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
    let captures = captures.into_iter().map(|(m, _)| m);
    first.into_iter().chain(captures).chain(quiet).collect()
}

fn value(kind: PieceKind) -> i32 {
    match kind {
        PieceKind::Pawn => 100,
        PieceKind::Lance => 300,
        PieceKind::Knight => 350,
        PieceKind::Silver => 500,
        PieceKind::Gold
        | PieceKind::ProPawn
        | PieceKind::ProLance
        | PieceKind::ProKnight
        | PieceKind::ProSilver => 550,
        PieceKind::Bishop => 800,
        PieceKind::Rook => 1000,
        PieceKind::Horse => 1050,
        PieceKind::Dragon => 1250,
        PieceKind::King => 0,
    }
}

/// Material balance from the side to move's point of view.
fn evaluate(pos: &Position) -> i32 {
    let us = pos.side_to_move();
    let mut score = 0;
    for color in Color::ALL {
        let sign = if color == us { 1 } else { -1 };
        for sq in pos.pieces(color) {
            if let Some(p) = pos.piece_at(sq) {
                score += sign * value(p.kind);
            }
        }
        for (kind, n) in pos.hand(color).iter() {
            score += sign * value(kind) * 11 / 10 * n as i32;
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(sfen: &str, depth: u32) -> SearchJob {
        SearchJob {
            root: Position::from_sfen(sfen).unwrap(),
            history: Vec::new(),
            losing: Vec::new(),
            max_moves: None,
            depth: Some(depth),
            nodes: None,
            multi_pv: 1,
            searchmoves: Vec::new(),
            show_currmove: false,
            mirror_pv: false,
            go_start: Instant::now(),
        }
    }

    fn run(job: &SearchJob) -> SearchResult {
        let out = Output::new(
            &FaultSet::none(),
            Box::new(std::io::stdout()),
            Box::new(std::io::stderr()),
        );
        search(
            job,
            &Control::new(Clock::Real, false, None),
            &mut Tt::new(1),
            &out,
            &FaultSet::none(),
        )
    }

    #[test]
    fn finds_the_one_ply_mate_and_resigns_when_mated() {
        let r = run(&job("4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1", 1));
        assert_eq!(r.best, Some("G*5b".parse().unwrap()));
        let r = run(&job("4k4/9/9/9/9/9/4s4/4g4/4K4 b 2r2b3g3s4n4l18p 1", 2));
        assert_eq!(r.best, None);
    }

    #[test]
    fn no_time_to_spare_stops_once_an_iteration_is_done() {
        let ms = Duration::from_millis;
        let none_to_spare = Budget {
            soft: ms(0),
            hard: ms(1),
        };
        assert!(
            !must_stop_now(none_to_spare, ms(0), 0),
            "depth 1 runs to its end first"
        );
        assert!(must_stop_now(none_to_spare, ms(0), 3));
        let some = Budget {
            soft: ms(500),
            hard: ms(900),
        };
        assert!(
            !must_stop_now(some, ms(600), 3),
            "past soft: ends with its iteration"
        );
        assert!(must_stop_now(some, ms(900), 0));
    }

    #[test]
    fn ponder_move_is_legal_after_the_best_move() {
        let j = job("startpos", 2);
        let r = run(&j);
        let after = j.root.after(r.best.unwrap());
        assert!(after.is_legal(r.ponder.unwrap()));
    }
}
