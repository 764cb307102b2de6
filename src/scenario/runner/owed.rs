//! Replies the engine owes and their clocks: the load that excuses a missed deadline, a
//! reply owed whatever the scenario (`usiok`, `readyok`), a late terminal reply judged
//! against its clock, and a `usiok` later than a step's own limit, quoted with its latency.

use super::execute::Run;
use crate::blame::{Missed, Owed, missing_reply};
use crate::engine::{CpuWait, Termination, stall};
use crate::observer::{HeldUp, REPLY_PATIENCE};
use crate::scenario::{Deadline, Matcher, NamedTimeout};
use crate::usi::Message;
use std::time::{Duration, Instant};

/// Which of the engine's CPU waits can excuse a missed deadline.
pub(super) enum EngineWait {
    /// Any wait since this sample: the engine had the whole time to answer.
    Since(CpuWait),
    /// The wait from shortly before the outstanding search's clock ran out, which the observer
    /// follows ([`crate::observer::ReplyDeadline::late_window_start_micros`]).
    LateWindow,
}

impl Run<'_> {
    /// usicheck's worst stall since `start` (none in simulated time).
    fn host_stall_since(&self, start: Instant) -> Duration {
        if self.engine.session().is_simulated() {
            return Duration::ZERO;
        }
        stall::worst_between(start, self.engine.session().now())
    }

    /// How long the machine's load held usicheck (its reader's worst stall since `start`)
    /// and the engine (its threads' longest CPU wait, as `engine_wait` says) up.
    pub(super) fn held_up_since(&self, start: Instant, engine_wait: Option<&EngineWait>) -> HeldUp {
        HeldUp {
            usicheck: self.host_stall_since(start).as_micros() as u64,
            engine: match engine_wait {
                None => 0,
                Some(EngineWait::Since(earlier)) => CpuWait::of(self.engine.session().pid())
                    .longest_since(earlier)
                    .as_micros() as u64,
                Some(EngineWait::LateWindow) => self
                    .engine
                    .observer()
                    .protocol()
                    .engine_late_cpu_wait_micros(),
            },
        }
    }

    /// A reply the engine owes whatever the scenario (`usiok` for `usi`, `readyok` for
    /// `isready`) did not come while a step waited for it: the observer's violation, once. A
    /// death after the handshake is charged by what was sent instead ([`crate::blame::death`]),
    /// through the step.
    pub(super) fn owed_reply_missed(&mut self, matcher: &Matcher, died: bool, what: &str) {
        let (owed, reply, awaited) = match matcher {
            Matcher::Usiok => (
                Owed::Usiok,
                "usiok",
                self.engine.observer().protocol().awaiting_usiok(),
            ),
            Matcher::Readyok if !died => (
                Owed::Readyok,
                "readyok",
                self.engine.observer().protocol().awaiting_readyok(),
            ),
            _ => return,
        };
        let rule = missing_reply(owed, self.engine.observer());
        if !awaited || self.engine.observer().judge().violated(rule) {
            return;
        }
        let outcome = match self.engine.session().termination() {
            Some(Termination::Signalled { .. }) if died => "crash",
            Some(_) if died => "controlled exit",
            _ => "hang",
        };
        self.engine.observer_mut().judge_mut().violation(
            rule,
            None,
            format!("no `{reply}`, {outcome}: {what}"),
        );
        self.missed_replies.push(Missed { owed, rule });
    }

    /// When the outstanding search's reply counts as never sent: [`REPLY_PATIENCE`] past its
    /// clock's deadline.
    pub(super) fn never_sent_at(&self) -> Option<Instant> {
        let (due, _) = self.engine.observer().protocol().clock().due()?;
        Some(self.engine.session().origin() + Duration::from_micros(due.at_micros) + REPLY_PATIENCE)
    }

    /// After a reply's deadline passed with the engine alive, waits for the reply until it
    /// counts as never sent ([`REPLY_PATIENCE`] past its clock's deadline), so that the
    /// observer judges a late one against its clock. Returns what came, `None` when no reply
    /// comes or no clock set a deadline.
    pub(super) fn late_reply(&mut self, matcher: &Matcher) -> Option<LateReply> {
        let terminal = |message: &Message| match matcher {
            Matcher::Bestmove { .. } => matches!(message, Message::BestMove(_)),
            Matcher::Checkmate(_) => matches!(message, Message::Checkmate(_)),
            _ => false,
        };
        let rule = self.engine.observer().protocol().clock().late_rule()?;
        let deadline = self
            .never_sent_at()
            .unwrap_or_else(|| self.engine.session().now() + REPLY_PATIENCE);
        let line = self.first_line(deadline, terminal)?;
        Some(LateReply {
            quoted: format!("`{}`, late (judged against the clock: {rule})", line.text),
            at_micros: line.at_micros,
            entry: line.entry,
        })
    }

    /// A `usiok` that did not come within the step's own limit, awaited until T-USIOK from
    /// `start` (the step's start, right after `usi`): the late line quoted with its latency,
    /// or `None` when it does not come.
    pub(super) fn late_usiok(&mut self, start: Instant) -> Option<LateReply> {
        let until = start + self.resolve(&Deadline::named(NamedTimeout::Usiok));
        let since = self.engine.session().micros_at(start);
        let line = self.first_line(until, |message| *message == Message::UsiOk)?;
        Some(LateReply {
            quoted: format!(
                "`{}` after {} ms",
                line.text,
                line.at_micros.saturating_sub(since) / 1000
            ),
            at_micros: line.at_micros,
            entry: line.entry,
        })
    }
}

/// A reply that came after its deadline (a terminal reply's clock, or a step's own limit for
/// `usiok`), as a failed step quotes it.
pub(super) struct LateReply {
    /// The line, and what judged it late.
    pub(super) quoted: String,
    /// When it came (session clock, µs).
    pub(super) at_micros: u64,
    /// Its transcript entry, the evidence.
    pub(super) entry: Option<u64>,
}
