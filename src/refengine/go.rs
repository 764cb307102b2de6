//! The life of one `go`: its search started (or answered at once), `stop`, `ponderhit`, the
//! search's end and the one terminal reply (`bestmove` or `checkmate`) it is owed.

use super::options::DeclarationRule;
use super::search::{self, Control, SearchJob, SearchResult};
use super::setup::Setup;
use super::tt::Tt;
use super::{Engine, Event, Fault, Flow, Mode, Outcome, Running, book, reply, timeman};
use crate::shogi::Color;
use crate::shogi::mate::{self, MateResult};
use crate::shogi::{Declaration, Move, Position, declaration, missing_points};
use crate::sim::Task;
use crate::usi::{Clock, Go, MateLimit};
use std::sync::{Arc, PoisonError};
use std::time::Duration;

impl Engine {
    pub(super) fn go(&mut self, go: &Go) -> Flow {
        if self.running.is_some() {
            self.out
                .line("info string error: go while searching; ignored");
            return Flow::Continue;
        }
        if let Some(flow) = self.go_refused_by_fault(go) {
            return flow;
        }
        let setup = match &self.setup {
            Ok(s) => Some(s.clone()),
            Err(_) if self.has(Fault::SilentAfterBadPosition) => return Flow::Continue,
            Err(_) => None,
        };
        let mate_only;
        let go = if self.has(Fault::CheckmateForGo) && go.mate.is_none() {
            let side = setup
                .as_ref()
                .map_or(Color::Black, |s| s.position.side_to_move());
            mate_only = self.as_go_mate(go, side);
            &mate_only
        } else {
            go
        };
        let normal_search =
            self.has(Fault::MateAnsweredWithBestmove) || self.has(Fault::MateSearchedUntilStop);
        let mate = go.mate.filter(|_| !normal_search);
        let mode = match mate {
            Some(limit) => Mode::Mate {
                infinite: limit == MateLimit::Infinite,
            },
            None if go.ponder => Mode::Ponder,
            None if go.infinite && !self.has(Fault::InfiniteEndsEarly) => Mode::Infinite,
            None => Mode::Timed,
        };
        let id = self.next_id;
        self.next_id += 1;
        let root = setup
            .as_ref()
            .map_or_else(Position::startpos, |s| s.position.clone());
        let budget = self.search_budget(go, mode, root.side_to_move());
        let control = Arc::new(Control::new(
            self.clock.clone(),
            mode == Mode::Ponder,
            budget,
        ));
        let mut running = Running {
            id,
            mode,
            control: control.clone(),
            handle: None,
            finished: None,
            stop_requested: false,
            root,
            movestogo: go.movestogo,
            restart: None,
            held: false,
        };
        self.set_fault_timer(&mut running, go);
        if self.hangs_on_position(setup.as_ref()) {
            // A search that never ends: no thread, no answer, not even after `stop`.
            self.running = Some(running);
            return Flow::Continue;
        }
        // A game move (not a ponder or an analysis) from the book, when the GUI turned it on.
        let book_line = setup
            .as_ref()
            .filter(|_| mode == Mode::Timed && self.options.own_book)
            .and_then(|s| book::line_for(&s.position));
        let immediate = match &setup {
            None if matches!(mode, Mode::Mate { .. }) => Some(Outcome::Mate(MateResult::Unknown)),
            None => Some(Outcome::Resign),
            Some(_) if !self.newgame_ever && self.has(Fault::NeedsNewgame) => Some(Outcome::Resign),
            Some(s) if !matches!(mode, Mode::Mate { .. }) && self.declaration_wins(&s.position) => {
                Some(Outcome::Win)
            }
            Some(s) if !matches!(mode, Mode::Mate { .. }) && !s.position.has_legal_moves() => {
                let no_move = Outcome::Move(SearchResult {
                    best: None,
                    ponder: None,
                });
                if matches!(mode, Mode::Infinite | Mode::Ponder)
                    && self.has(Fault::MatedInfiniteResigns)
                {
                    self.running = Some(running);
                    self.answer(no_move);
                    return Flow::Continue;
                }
                Some(no_move)
            }
            Some(s) => book_line.map(|line| self.play_from_book(line, &s.position)),
        };
        if let Some(outcome) = immediate {
            running.finished = Some(outcome);
            self.running = Some(running);
            if self.answers_when_done(mode) {
                self.deliver_finished();
            }
            return Flow::Continue;
        }
        let setup = setup.expect("no setup means an immediate answer");
        // Stochastic_Ponder: ponder on the position before the predicted move (the opponent to
        // move), and search the real one from `ponderhit`.
        let searched = match setup.before_last_move() {
            Some(before) if mode == Mode::Ponder && self.options.stochastic_ponder => {
                running.restart = Some((go.clone(), setup));
                before
            }
            _ => setup,
        };
        running.handle = Some(match mode {
            Mode::Mate { .. } => self.spawn_mate(id, go, searched, control),
            _ => self.spawn_search(id, go, searched, control),
        });
        self.running = Some(running);
        Flow::Continue
    }

    /// A book move, reported with its book line as `pv` (USI-EXT-006) before the answer.
    fn play_from_book(&self, line: Vec<Move>, root: &Position) -> Outcome {
        let result = SearchResult {
            best: line.first().copied(),
            ponder: line.get(1).copied(),
        };
        // `no-final-info` sends no `info` at all, so none for a book move either.
        if !self.has(Fault::BookWithoutInfo) && !self.has(Fault::NoFinalInfo) {
            self.out.line(&book::report(line, root).line(&self.faults));
        }
        Outcome::Move(result)
    }

    fn declaration_wins(&self, pos: &Position) -> bool {
        if self.options.declaration_rule == DeclarationRule::None {
            return false;
        }
        let mut d = declaration(pos);
        if self.options.declaration_rule == DeclarationRule::Csa27H && d.color == Color::White {
            d.points += missing_points(pos);
        }
        if self.has(Fault::NeverDeclares) {
            return false;
        }
        if self.has(Fault::InvalidWin) {
            return d.king_in_camp && d.pieces_in_camp >= 10 && d.points >= 27 && !d.in_check;
        }
        if self.has(Fault::DeclaresWithNinePieces) {
            // Counts one piece too many in the camp: 9 pass for the 10 the rule needs.
            let one_more = Declaration {
                pieces_in_camp: d.pieces_in_camp + 1,
                ..d
            };
            return one_more.is_valid();
        }
        d.is_valid()
    }

    /// Whether a finished search is answered at once (otherwise it waits for `stop`).
    fn answers_when_done(&self, mode: Mode) -> bool {
        match mode {
            Mode::Timed => true,
            Mode::Infinite => false,
            Mode::Ponder => self.has(Fault::EarlyPonderBestmove),
            Mode::Mate { infinite } => !(infinite && self.has(Fault::MateInfiniteWaitsStop)),
        }
    }

    fn spawn_search(
        &mut self,
        id: u64,
        go: &Go,
        setup: Setup,
        control: Arc<Control>,
    ) -> Task<Outcome> {
        let nodes = go
            .nodes
            .or((self.options.nodes_limit > 0).then_some(self.options.nodes_limit as u64));
        // A board read mirrored shows as the mirror of the true moves only where no moves were
        // played on it: `moves` after a mirrored board would set up another position.
        let mirror_pv = self.has(Fault::MirroredPv) && setup.bare_sfen();
        let losing = if self.has(Fault::PlaysPerpetualCheck) {
            Vec::new()
        } else {
            setup.perpetual_checks()
        };
        let max_moves = self.options.max_moves_to_draw;
        let job = SearchJob {
            losing,
            max_moves: (max_moves > 0).then_some(max_moves as usize),
            root: setup.position,
            history: setup.history,
            depth: if self.has(Fault::InfiniteEndsEarly) && go.infinite {
                Some(2)
            } else if self.has(Fault::InstantPonderhit) && go.ponder {
                Some(1)
            } else {
                go.depth
            },
            nodes,
            multi_pv: if self.has(Fault::MultiPvIgnored) {
                1
            } else {
                self.options.multi_pv.max(1) as usize
            },
            searchmoves: go.searchmoves.clone(),
            show_currmove: self.options.show_currmove,
            mirror_pv,
            go_start: self.clock.now(),
        };
        let lazy_hash = self.has(Fault::LazyHashAllocation) && self.options.hash_mb != self.tt_mb;
        if lazy_hash {
            self.tt_mb = self.options.hash_mb;
        }
        let hash_mb = self.options.hash_mb;
        let (tt, out, faults, tx) = (
            self.tt.clone(),
            self.out.clone(),
            self.faults.clone(),
            self.tx.clone(),
        );
        let clock = self.clock.clone();
        self.clock.spawn(move || {
            let mut tt = tt.lock().unwrap_or_else(PoisonError::into_inner);
            if lazy_hash {
                clock.sleep(Duration::from_millis(1500));
                *tt = Tt::new(hash_mb);
            }
            let result = search::search(&job, &control, &mut tt, &out, &faults);
            tx.send(Event::Done { id });
            Outcome::Move(result)
        })
    }

    fn spawn_mate(
        &mut self,
        id: u64,
        go: &Go,
        setup: Setup,
        control: Arc<Control>,
    ) -> Task<Outcome> {
        let deadline = match go.mate {
            Some(MateLimit::Millis(ms)) if !self.has(Fault::MateLimitAsDistance) => {
                // The solver polls its clock between expansions; keep a little more back.
                let margin = self.options.network_delay_ms.max(0) as u64 + ms / 20;
                Some(self.clock.now() + Duration::from_millis(ms.saturating_sub(margin)))
            }
            _ => None,
        };
        let mut limits = mate::Limits::new()
            .with_clock(
                self.clock
                    .for_search(go.nodes.is_some() || go.depth.is_some()),
            )
            .with_stop(control.stop.clone())
            .with_table_entries(mate_table_entries(self.options.hash_mb));
        limits.deadline = deadline;
        limits.nodes = go.nodes.filter(|_| !self.has(Fault::MateNodesIgnored));
        if let Some(depth) = go.depth {
            limits.max_plies = depth;
        }
        if let Some(MateLimit::Millis(moves)) =
            go.mate.filter(|_| self.has(Fault::MateLimitAsDistance))
        {
            let plies = moves.saturating_mul(2).saturating_sub(1);
            limits.max_plies = u32::try_from(plies).unwrap_or(u32::MAX);
        }
        let tx = self.tx.clone();
        self.clock.spawn(move || {
            let result = mate::solve(&setup.position, &limits);
            tx.send(Event::Done { id });
            Outcome::Mate(result)
        })
    }

    pub(super) fn on_done(&mut self, id: u64) {
        let Some(running) = self.running.as_mut().filter(|r| r.id == id) else {
            return;
        };
        running.collect();
        let (mode, held) = (running.mode, running.held);
        if running.stop_requested || (self.answers_when_done(mode) && !held) {
            self.deliver_finished();
        }
    }

    pub(super) fn stop(&mut self) {
        let Some(running) = self.running.as_ref() else {
            self.unprompted_resign(Fault::StopWhileIdleBestmove);
            return;
        };
        if running.stop_requested {
            return;
        }
        if self.stop_by_fault(running.mode) {
            return;
        }
        // Wait for the search here, so its answer precedes anything sent after `stop`.
        let running = self.running.as_mut().expect("checked above");
        running.stop_requested = true;
        running.control.stop();
        running.collect();
        if running.restart.is_some() {
            // A Stochastic_Ponder search found a move for the position before the predicted
            // one: the GUI discards the answer to a stopped ponder (USI-PONDER-006), but it
            // must still be a move of the position it was given.
            let best = running.root.legal_moves().iter().next().copied();
            running.finished = Some(Outcome::Move(SearchResult { best, ponder: None }));
        }
        self.deliver_finished();
    }

    /// The time limit of a normal search; `None` for `go infinite`, `go mate` and no clock.
    pub(super) fn search_budget(
        &self,
        go: &Go,
        mode: Mode,
        side: Color,
    ) -> Option<timeman::Budget> {
        let margin = self.options.network_delay_ms.max(0) as u64;
        match (mode, go.mate) {
            (Mode::Infinite | Mode::Mate { .. }, _) => None,
            (Mode::Ponder, _) if self.has(Fault::PonderClockIgnored) => None,
            // A mate in N moves, searched without a time limit until found.
            (_, Some(_)) if self.has(Fault::MateSearchedUntilStop) => None,
            (_, Some(MateLimit::Millis(ms))) => {
                // Only a faulty engine searches normally on `go mate`.
                let ms = Duration::from_millis(ms.saturating_sub(margin).max(1));
                Some(timeman::Budget { soft: ms, hard: ms })
            }
            _ => timeman::budget(go, side, margin, &self.faults),
        }
    }

    pub(super) fn ponderhit(&mut self, clock: &Clock) {
        let clock_given = !clock.is_empty() && !self.has(Fault::PonderhitClockIgnored);
        let budget = self.running.as_ref().filter(|_| clock_given).and_then(|r| {
            let go = Go {
                clock: clock.clone(),
                movestogo: r.movestogo,
                ..Go::default()
            };
            self.search_budget(&go, Mode::Timed, r.root.side_to_move())
        });
        let Some(running) = self.running.as_mut() else {
            self.unprompted_resign(Fault::PonderhitWhileIdleBestmove);
            return;
        };
        if running.mode != Mode::Ponder || self.faults.has(Fault::PonderhitIgnored) {
            return;
        }
        if let Some((go, real)) = running.restart.take() {
            self.search_from_ponderhit(go, real, budget);
            return;
        }
        running.mode = Mode::Timed;
        running.control.ponderhit(budget);
        if running.finished.is_some() {
            self.deliver_finished();
        }
    }

    /// `ponderhit` ends a `Stochastic_Ponder` search, which was of the position before the
    /// predicted move: it is dropped (no reply), and the real position is searched from now
    /// under the clock, the `ponderhit`'s if it carried one, else the `go ponder`'s.
    fn search_from_ponderhit(&mut self, go: Go, real: Setup, hit_budget: Option<timeman::Budget>) {
        let Some(mut running) = self.running.take() else {
            return;
        };
        running.control.stop();
        if let Some(handle) = running.handle.take() {
            let _ = handle.join();
        }
        let side = real.position.side_to_move();
        let budget = if self.has(Fault::StochasticPonderhitUntimed) {
            None
        } else {
            hit_budget.or_else(|| self.search_budget(&go, Mode::Ponder, side))
        };
        let go = Go {
            ponder: false,
            ..go
        };
        let id = self.next_id;
        self.next_id += 1;
        let control = Arc::new(Control::new(self.clock.clone(), false, budget));
        running.id = id;
        running.mode = Mode::Timed;
        running.control = control.clone();
        running.finished = None;
        running.handle = Some(self.spawn_search(id, &go, real, control));
        self.running = Some(running);
    }

    /// Ends any search without a reply.
    pub(super) fn abort_search(&mut self) {
        if let Some(mut running) = self.running.take() {
            running.control.stop();
            if let Some(handle) = running.handle.take() {
                let _ = handle.join();
            }
        }
    }

    /// Ends the running search with no reply (`stop` or `gameover` ending it silently): the
    /// `readyok`s held until it ended (fault `readyok-after-search`) are owed now.
    pub(super) fn end_search_unanswered(&mut self) {
        self.abort_search();
        self.answer_held_readyoks();
    }

    /// Answers the `isready`s held while the search ran (fault `readyok-after-search`).
    pub(super) fn answer_held_readyoks(&mut self) {
        for _ in 0..std::mem::take(&mut self.pending_readyok) {
            self.readyok();
        }
    }

    /// Sends the held answer of the running search and returns to idle.
    pub(super) fn deliver_finished(&mut self) {
        let outcome = self.running.as_mut().and_then(|r| r.finished.take());
        if let Some(outcome) = outcome {
            self.answer(outcome);
        }
    }

    /// Sends the one terminal reply of the running search and returns to idle.
    fn answer(&mut self, outcome: Outcome) {
        let Some(running) = self.running.take() else {
            return;
        };
        let lines = match outcome {
            Outcome::Mate(result) => {
                reply::checkmate(result, &running.root, running.stop_requested, &self.faults)
            }
            Outcome::Win => vec![reply::special("win", &self.faults)],
            Outcome::Resign => vec![reply::special("resign", &self.faults)],
            Outcome::Move(result) => self.bestmove_lines(result, &running.root),
        };
        // One write: a doubled reply (faults `double-bestmove`, `double-checkmate`) arrives
        // as one chunk, before the GUI can send its next command.
        if !lines.is_empty() {
            self.out.line(&lines.join("\n"));
        }
        self.answer_held_readyoks();
    }

    fn bestmove_lines(&mut self, result: SearchResult, root: &Position) -> Vec<String> {
        let twice = self.bestmove_twice();
        if result.best.is_some() {
            self.self_ponder();
        }
        let line = reply::bestmove(&result, root, self.options.ponder, &self.faults);
        let copies = if twice { 2 } else { 1 };
        vec![line; copies]
    }
}

/// Mate-solver table entries for a `USI_Hash` of `mb` (counted as 24-byte entries), at most
/// 2^18 so each `go mate` allocates at most 9 MiB (36 bytes a slot), and only as it fills them.
fn mate_table_entries(mb: i64) -> usize {
    (((mb.max(1) as usize) << 20) / 24).min(1 << 18)
}
