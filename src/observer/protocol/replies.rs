//! The terminal replies judged: against the outstanding search's clock, once per `go`, a
//! reply at once after `ponderhit` noted, and a reply no `go` asked for charged.

use super::Protocol;
use crate::engine::Line;
use crate::observer::conversation::{GoKind, Reply};
use crate::observer::judge::Judge;
use crate::observer::timing::{HeldUp, ReplyTiming, TimedSearch};

impl Protocol {
    /// A reply to the outstanding search, against its clock (always-on, unless a step claimed
    /// the timing); kept as a [`TimedSearch`] either way.
    pub(super) fn judge_reply_time(&mut self, line: &Line, judge: &mut Judge) {
        let Some((due, claimed)) = self.clock.due_at(line.at_micros) else {
            return;
        };
        let due = due.clone();
        let late = line.at_micros.saturating_sub(due.at_micros);
        let excuse = (late > 0)
            .then(|| {
                let held_up = HeldUp {
                    usicheck: self.host_delay_micros(due.since_micros, line.at_micros),
                    engine: self.engine_late_cpu_wait_micros(),
                };
                let deadline = format!("the deadline ({})", due.limit);
                crate::observer::timing::load_excuse(&line.quoted(), late, &deadline, held_up)
            })
            .flatten();
        let timing = match (late, &excuse) {
            (0, _) => ReplyTiming::InTime,
            (_, Some(_)) => ReplyTiming::NotJudgedLoad,
            (_, None) => ReplyTiming::Late,
        };
        let search = TimedSearch::new(&due, Some(line.at_micros), timing, claimed);
        self.answered_timed = Some(search);
        if claimed {
            return;
        }
        match (late, excuse) {
            (0, _) => judge.pass(due.rule, None),
            (_, Some(why)) => judge.not_judged(due.rule, why),
            (late, None) => judge.violation(
                due.rule,
                None,
                format!(
                    "`{}` {} ms after the deadline ({})",
                    line.quoted(),
                    late / 1000,
                    due.limit
                ),
            ),
        }
    }

    /// The search just started is of a position with no legal move: its answer at once after
    /// `ponderhit` is forced, not a finished search (not noted as USI-PONDER-005).
    pub fn mark_nothing_to_search(&mut self) {
        if self.searching() {
            self.search.nothing_to_search = true;
        }
    }

    /// The reply to a `go ponder` that `ponderhit` (not `stop`) released: one within the
    /// grace of `ponderhit`, with no search `info` since, comes from a ponder search that had
    /// already finished, which may answer at once (USI-PONDER-005, a MAY rule: noted as INFO);
    /// otherwise the engine searched on (a short search under a tight clock reports as it goes).
    pub(super) fn note_answer_at_once(&self, line: &Line, judge: &mut Judge) {
        let search = self.search;
        if !self.searching() || self.conversation.stop_sent() || search.nothing_to_search {
            return;
        }
        let Some(ponderhit_at) = search.ponderhit_at else {
            return;
        };
        let rule = crate::rule!("USI-PONDER-005");
        let after = line.at_micros.saturating_sub(ponderhit_at);
        if after <= search.grace && !search.searched_after_ponderhit {
            judge.violation(
                rule,
                None,
                format!(
                    "`{}` {} ms after `ponderhit`: the ponder search had finished (allowed, \
                     noted)",
                    line.quoted(),
                    after / 1000
                ),
            );
        } else {
            judge.pass(rule, None);
        }
    }

    /// A `bestmove` (or, with `checkmate`, a `checkmate`) line.
    pub(super) fn terminal_reply(
        &mut self,
        checkmate: bool,
        previous: bool,
        line: &Line,
        judge: &mut Judge,
    ) {
        let word = if checkmate { "checkmate" } else { "bestmove" };
        let Some(kind) = self.search_kind().filter(|_| !previous) else {
            self.unprompted_reply(word, line.at_micros, judge);
            return;
        };
        let text = line.quoted();
        let ending = self.owed_search().is_none();
        let released = self.conversation.stop_sent() || self.search.ponderhit_at.is_some();
        self.conversation.on_reply(Reply::Terminal);
        self.abandoned_search = false;
        self.clock.on_reply();
        self.late_wait = None;
        self.answered = Some(kind);
        self.answered_before_release = false;
        self.idle_cause.replied(line.at_micros);
        self.stop_since_reply = None;
        self.ponderhit_since_reply = None;
        self.newgame_since_reply = None;
        if ending {
            return;
        }
        self.answered_before_release =
            !released && !checkmate && matches!(kind, GoKind::Infinite | GoKind::Ponder);
        match (kind, checkmate) {
            (GoKind::Mate, false) => judge.violation(
                crate::rule!("USI-MATE-002"),
                None,
                format!("`go mate` answered with `{text}`"),
            ),
            (GoKind::Mate, true) => {
                self.solves_mate = true;
                judge.pass(crate::rule!("USI-MATE-002"), None)
            }
            (_, true) => judge.violation(
                crate::rule!("USI-GO-002"),
                None,
                "a normal `go` answered with `checkmate`",
            ),
            (GoKind::Infinite, false) if !released => judge.violation(
                crate::rule!("USI-GO-008"),
                None,
                "`bestmove` during `go infinite` before `stop`",
            ),
            (GoKind::Ponder, false) if !released => judge.violation(
                crate::rule!("USI-PONDER-002"),
                None,
                "`bestmove` during `go ponder` before `stop` or `ponderhit`",
            ),
            (_, false) => judge.pass(crate::rule!("USI-GO-002"), None),
        }
    }

    /// A terminal reply with no `go` outstanding, or read before the outstanding one was sent:
    /// one rule, the one that names its cause (a reply stamped before a command did not answer
    /// it).
    fn unprompted_reply(&mut self, word: &str, at_micros: u64, judge: &mut Judge) {
        self.spoke_unprompted = true;
        let since = |sent: Option<u64>| sent.is_some_and(|sent| at_micros >= sent);
        let answered = self.answered.filter(|_| !since(self.newgame_since_reply));
        // A `stop` followed by `usinewgame` before the reply: the new game is its likelier
        // cause (an engine that answers `usinewgame`).
        let newgame_after_stop = matches!(
            (self.stop_since_reply, self.newgame_since_reply),
            (Some(stop), Some(newgame)) if newgame > stop
        );
        if since(self.stop_since_reply) && !(newgame_after_stop && since(self.newgame_since_reply))
        {
            judge.violation(
                crate::rule!("USI-STOP-003"),
                None,
                format!("`{word}` after a `stop` that had no search to end"),
            );
        } else if since(self.ponderhit_since_reply) {
            judge.violation(
                crate::rule!("USI-GO-001"),
                None,
                format!("`{word}` after a `ponderhit` that had no ponder search to end"),
            );
        } else if let Some(kind) = answered {
            let rule = if kind == GoKind::Mate {
                crate::rule!("USI-MATE-002")
            } else {
                crate::rule!("USI-GO-002")
            };
            judge.violation(
                rule,
                None,
                format!("second terminal reply (`{word}`) to one `go`"),
            );
        } else {
            judge.violation(
                crate::rule!("USI-GO-001"),
                None,
                format!("`{word}` without any `go`"),
            );
        }
    }
}
