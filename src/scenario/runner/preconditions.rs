//! What a wait needs before it can judge: the session facts that make a check "not reached"
//! (a broken basic, a command the engine does not read while it searches, an ignored `quit`),
//! the scenario's requirements, and the degraded synchronisation of an engine that never
//! answers `isready`.

use super::engine_io::Next;
use super::execute::{Halt, Run};
use crate::blame::{Fact, Symptom};
use crate::observer::{CLOCK_RULES, ClockKind};
use crate::rules::RuleId;
use crate::scenario::{Expect, Matcher, Step};
use crate::usi::Message;
use std::time::Duration;

/// Whether what a wait needs holds, as far as the session facts tell.
pub(super) enum Precondition {
    Holds,
    /// Setup that does not wait for a reply known not to come.
    NotAwaited,
    /// A check that waits for `readyok` to see the engine survived what came before, where
    /// `isready` is known unanswered: it watches for a death instead ([`Run::survive`]).
    Survives(RuleId),
    /// A check whose precondition is broken: SKIP with this reason.
    Broken(String),
    /// A wait on a command sent during the search still outstanding, where the pre-flight
    /// showed the engine reads no command while it searches `go infinite` (USI-GO-012,
    /// charged there): the wait goes on for at most [`UNREAD_WAIT`], and only if nothing
    /// comes is it not reached, for this reason. An engine deaf in one kind of search may read
    /// its input in another (Sjaak II answers `stop` during `go ponder`): a reply that comes
    /// shows the command was read, and is judged as any other.
    Unread(String),
}

/// How long a wait on a command a deaf engine may not have read goes on: as long as the
/// pre-flight's control waited for `readyok` during `go infinite`.
pub(super) const UNREAD_WAIT: Duration = Duration::from_secs(5);

impl Run<'_> {
    /// Why each `usinewgame` of the session is followed by `isready`/`readyok`, if it is: the
    /// pre-flight showed the search right after it late, or a terminal reply no `go` asked
    /// for came, in the pre-flight or in this session.
    pub(super) fn newgame_unsettled(&self) -> Option<Fact> {
        let facts = &self.settings.facts;
        let stray = Fact::StrayReplies;
        if facts.slow_newgame {
            Some(Fact::SlowNewgame)
        } else if facts.stray_replies || self.engine.observer().judge().violated(stray.rule()) {
            Some(stray)
        } else {
            None
        }
    }

    /// A wait (of a silence or an exit) that a fact says is not reached, for `reason`, ends the
    /// scenario there.
    pub(super) fn halt_if(&self, reason: Option<String>) -> Result<(), Halt> {
        match reason {
            Some(reason) => Err(Halt::Skipped {
                reason,
                rules: self.scenario.rules.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Why a wait of a step checking `rule` (setup: `None`) is not reached, where the
    /// pre-flight showed the engine reads no command while it searches (USI-GO-012, charged
    /// there) and a command went out during the search still outstanding: whatever the wait
    /// is for depends on a command the engine may not have read (a wait for a line gives it
    /// [`UNREAD_WAIT`] to show it did: [`Precondition::Unread`]). A `readyok` to an
    /// `isready` sent during this search shows the engine reads its input in it: nothing is
    /// then unread.
    pub(super) fn unread_command(&self, rule: Option<RuleId>) -> Option<String> {
        let got = self.settings.facts.deaf_while_searching.as_ref()?;
        let waits_on_unread = !rule
            .is_some_and(|rule| Fact::DeafWhileSearching.is_checked_by(rule))
            && self.sent_during_search
            && !self.read_during_search
            && self.engine.observer().protocol().searching();
        waits_on_unread.then(|| Fact::DeafWhileSearching.not_reached(Some(got)))
    }

    /// Why a wait for the exit after `quit` of a step checking `rule` is not reached, where the
    /// pre-flight showed the engine ignores `quit` (USI-QUIT-001, charged there); a check of
    /// that rule itself still runs.
    pub(super) fn quit_ignored(&self, rule: Option<RuleId>) -> Option<String> {
        if self.last_sent.trim() != "quit" {
            return None;
        }
        let (fact, got) = self.ignored_quit_fact()?;
        (!rule.is_some_and(|r| fact.is_checked_by(r))).then(|| fact.not_reached(Some(got)))
    }

    /// The pre-flight's fact that this session's `quit` is ignored, with what showed it: any
    /// `quit`, or one before `isready` where no `isready` was sent.
    pub(super) fn ignored_quit_fact(&self) -> Option<(Fact, &str)> {
        let facts = &self.settings.facts;
        if let Some(got) = &facts.ignores_quit {
            return Some((Fact::IgnoresQuit, got));
        }
        let got = facts
            .quit_needs_isready
            .as_ref()
            .filter(|_| !self.isready_sent)?;
        Some((Fact::QuitNeedsIsready, got))
    }

    /// Why the wait `expect` after a `gameover` is not reached, where the pre-flight showed
    /// the engine leaves `isready` (USI-READY-005) or the next game's searches
    /// (USI-GAMEOVER-002) unanswered after one; a check of that rule itself still runs.
    fn after_gameover(&self, expect: &Expect) -> Option<String> {
        let facts = &self.settings.facts;
        let matcher = &expect.matcher;
        let cases = [
            (
                matcher.awaits_readyok(),
                Fact::DeafAfterGameover,
                &facts.deaf_after_gameover,
            ),
            (
                matcher.awaits_bestmove(),
                Fact::StuckAfterGameover,
                &facts.stuck_after_gameover,
            ),
        ];
        cases.into_iter().find_map(|(awaits, fact, got)| {
            let checked = expect.rule.is_some_and(|r| fact.is_checked_by(r));
            let applies = self.gameover_sent && awaits && !checked;
            let got = got.as_ref().filter(|_| applies)?;
            Some(fact.not_reached(Some(got)))
        })
    }

    /// Whether the wait `expect` is for a reply the pre-flight showed does not come.
    pub(super) fn precondition(&self, expect: &Expect) -> Precondition {
        let facts = &self.settings.facts;
        if let Some(reason) = self.unread_command(expect.rule) {
            return Precondition::Unread(reason);
        }
        if let Some(reason) = self.after_gameover(expect) {
            return Precondition::Broken(reason);
        }
        // Setup waiting after the release for the reply of a `go infinite` or `go ponder`
        // that answered before it (charged by the always-on checks, maybe while a step
        // waited for `readyok`) needs nothing more, and goes on as a GUI would: a fuzz
        // reproducer that went past such a known finding reaches its own symptom.
        if expect.rule.is_none()
            && expect.matcher.awaits_terminal_reply()
            && self.engine.observer().protocol().answered_before_release()
        {
            return Precondition::NotAwaited;
        }
        match &expect.matcher {
            // An engine that never answers `isready` is judged on everything else: setup does
            // not wait for its `readyok`, and a check that needs one watches for a death.
            matcher if facts.no_readyok && matcher.awaits_readyok() => match expect.rule {
                None => Precondition::NotAwaited,
                Some(rule) if Fact::NoReadyok.is_checked_by(rule) => {
                    Precondition::Broken(no_readyok())
                }
                Some(rule) => Precondition::Survives(rule),
            },
            // What `stop` ends a search with, where the control `go infinite` showed `stop`
            // goes unanswered: USI-STOP-001's, charged once (a check of that rule still runs).
            matcher
                if expect
                    .rule
                    .is_some_and(|rule| !Fact::UnansweredStop.is_checked_by(rule))
                    && matcher.awaits_terminal_reply()
                    && self.stop_pending()
                    && let Some(got) = &facts.unanswered_stop =>
            {
                Precondition::Broken(Fact::UnansweredStop.not_reached(Some(got)))
            }
            // The search right after `usinewgame`, where `usinewgame` is followed by `isready`
            // (its work late, or a stray reply): what the check times is no longer there.
            _ if expect.times_reply
                && expect.rule == Some(Fact::SlowNewgame.rule())
                && let Some(fact) = self.newgame_unsettled() =>
            {
                Precondition::Broken(fact.not_reached(None))
            }
            // A check of a search's timing in one circumstance compares it with a control
            // search: once a search was late against its own clock, it is not reached.
            _ if expect.times_reply
                && let Some(clock) = CLOCK_RULES
                    .iter()
                    .find(|rule| self.engine.observer().judge().violated(**rule)) =>
            {
                Precondition::Broken(format!(
                    "not reached: an earlier search of the session was late against its clock \
                     ({clock})"
                ))
            }
            _ if expect.times_reply
                && let Some(clock) = facts.late_search =>
            {
                Precondition::Broken(format!(
                    "not reached: the pre-flight's control search was late against its clock \
                     ({clock})"
                ))
            }
            // The search output of a search known not to be answered is not waited for
            // either: what it would show needs the search to run.
            matcher if matcher.awaits_bestmove() || matches!(matcher, Matcher::Info(_)) => {
                match (&facts.unanswered_search, &self.last_go) {
                    (Some(unanswered), Some(go)) if unanswered.covers(go) => {
                        Precondition::Broken(unanswered.not_reached())
                    }
                    _ => Precondition::Holds,
                }
            }
            _ => Precondition::Holds,
        }
    }

    /// Whether the outstanding search's reply is the one a `stop` asked for.
    fn stop_pending(&self) -> bool {
        let clock = self.engine.observer().protocol().clock();
        clock
            .due_at(u64::MAX)
            .is_some_and(|(due, _)| due.kind == ClockKind::Stop)
    }

    /// Whether `message` is a `checkmate` line answering a normal `go`: the always-on
    /// USI-GO-002 charged it as a reply of the wrong kind, so what else it breaks (a silence,
    /// a forbidden line) is the same cause.
    pub(super) fn wrong_kind_reply(&self, message: &Message) -> bool {
        matches!(message, Message::Checkmate(_))
            && self.last_go.as_ref().is_some_and(|go| go.mate.is_none())
    }

    /// `requires.options` and `requires.ponder`, judged once the option list is complete.
    pub(super) fn check_requirements(&mut self) -> Result<(), Halt> {
        if self.requirements_checked {
            return Ok(());
        }
        self.requirements_checked = true;
        let advertised = self.engine.observer().protocol().options();
        match self.scenario.requires.unmet(advertised) {
            None => Ok(()),
            Some(reason) => Err(Halt::Skipped {
                reason,
                rules: self.scenario.rules.clone(),
            }),
        }
    }

    /// The degraded synchronisation of an engine that never answers `isready` (USI-READY-001,
    /// charged in the pre-flight): a check whose `readyok` would show the engine still
    /// standing after what came before (a bad position, malformed arguments, a `gameover`)
    /// gives it T-SILENT instead. A death then is the check's, as it would be while waiting
    /// for `readyok`; a survival proves no more than that, so the rule is "not reached" unless
    /// a later step of the scenario judges it.
    pub(super) fn survive(
        &mut self,
        step: &Step,
        expect: &Expect,
        rule: RuleId,
    ) -> Result<(), Halt> {
        let window = self.settings.timeouts.silent;
        let deadline = self.engine.session().now() + window;
        loop {
            match self.next_line(deadline) {
                Next::Line(..) => {}
                Next::Timeout => break,
                Next::Over(what) => {
                    let symptom = Symptom::Died(crate::blame::death(self.engine.observer()));
                    let expected = format!(
                        "the engine still running after {} ms (it never answers `isready`)",
                        window.as_millis()
                    );
                    let part = expect.part.clone();
                    return Err(self.fail(
                        step,
                        symptom,
                        (Some(rule), part.as_deref()),
                        expected,
                        what,
                    ));
                }
            }
        }
        self.judge.skip(rule, &no_readyok());
        Ok(())
    }
}

/// Why a check that needs a `readyok` is not reached, the same words everywhere.
pub(super) fn no_readyok() -> String {
    Fact::NoReadyok.not_reached(None)
}
