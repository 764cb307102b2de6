//! The waiting steps: `expect` (a line, judged by its matcher, or a missed deadline charged by
//! [`charge`](super::blame::charge)) and `expect_silence`; the replies the engine owes
//! whatever the scenario go to the observer.

use super::engine_io::Next;
use super::execute::{Halt, Run};
use super::matchers::{Eval, awaited, describe};
use crate::blame::{Fact, Missed, Owed, Symptom, missing_reply, never_answered};
use crate::engine::{CpuWait, Termination, stall};
use crate::observer::{
    CLOCK_RULES, ClockKind, HeldUp, LEGALITY_RULES, REPLY_PATIENCE, load_excuse, without_bom,
};
use crate::quote::quote;
use crate::report::WindowKind;
use crate::rules::{RuleId, Section};
use crate::scenario::{Deadline, Expect, Matcher, NamedTimeout, Silence, Step};
use crate::usi::Message;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Lines quoted in a failure besides the transcript excerpt: the last ones read.
const SEEN_LINES: usize = 2;

/// Whether what a wait needs holds, as far as the session facts tell.
enum Precondition {
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
const UNREAD_WAIT: Duration = Duration::from_secs(5);

/// Which of the engine's CPU waits can excuse a missed deadline.
enum EngineWait {
    /// Any wait since this sample: the engine had the whole time to answer.
    Since(CpuWait),
    /// The wait from shortly before the outstanding search's clock ran out, which the observer
    /// follows ([`crate::observer::ReplyDeadline::late_window_start_micros`]).
    LateWindow,
}

impl Run<'_> {
    pub(super) fn expect(&mut self, step: &Step, expect: &Expect) -> Result<(), Halt> {
        // An engine that already played an illegal move where it could not misread the
        // position has a move-generation fault: its illegal moves stay with the legality rules.
        let clean = !LEGALITY_RULES
            .iter()
            .any(|rule| self.observer.judge().violated(*rule));
        self.misread = expect.legality_rule.filter(|_| clean).map(|rule| {
            let part = expect.part.clone().filter(|_| expect.rule == Some(rule));
            (rule, part)
        });
        let result = self.await_line(step, expect);
        self.misread = None;
        result
    }

    pub(super) fn await_line(&mut self, step: &Step, expect: &Expect) -> Result<(), Halt> {
        let mut unread = None;
        match self.precondition(expect) {
            Precondition::Holds => {}
            Precondition::Unread(reason) => unread = Some(reason),
            Precondition::NotAwaited => return Ok(()),
            Precondition::Survives(rule) => return self.survive(step, expect, rule),
            Precondition::Broken(reason) => {
                return Err(Halt::Skipped {
                    reason,
                    rules: self.scenario.rules.clone(),
                });
            }
        }
        let timeouts = self.settings.timeouts;
        let start = self.session.now();
        let keep_alive = expect.restarts_on_every_line();
        let terminal = matches!(
            expect.matcher,
            Matcher::Bestmove { .. } | Matcher::Checkmate(_)
        );
        // Only a step that names its rule can be excused by load: only it reads /proc. The
        // reply to a search under a clock is excused by the observer's late window instead,
        // unless the step times that reply itself (`times_reply`): its window is the step's.
        let under_clock =
            terminal && !expect.times_reply && self.observer.protocol().clock().due().is_some();
        let engine_cpu_wait = (expect.rule.is_some() && !keep_alive).then(|| {
            if under_clock {
                EngineWait::LateWindow
            } else {
                EngineWait::Since(CpuWait::of(self.session.pid()))
            }
        });
        let within = self.resolve(&expect.within);
        let mut deadline = start + within;
        // Setup only needs the reply: past its clock's patience it counts as never sent.
        if expect.rule.is_none()
            && terminal
            && let Some(never_sent) = self.never_sent_at()
        {
            deadline = deadline.min(never_sent.max(start));
        }
        let mut cap = start + timeouts.ready_cap.max(within);
        if unread.is_some() {
            cap = cap.min(start + UNREAD_WAIT);
            deadline = deadline.min(cap);
        }
        // An explicit keep-alive budget is a limit on silences, and says so (T-READY keeps
        // its usual wording).
        let expected = if expect.keep_alive {
            format!(
                "{}, no silence longer than {} ms",
                awaited(&expect.matcher),
                within.as_millis()
            )
        } else {
            describe(&expect.matcher, within)
        };
        let mut seen: VecDeque<String> = VecDeque::new();
        let part = expect.part.as_deref();
        let rule = expect.rule;
        if rule.is_some() && !keep_alive {
            self.note_window(WindowKind::Deadline, within, rule, expected.clone());
        }
        // A check of a clock, or one that times the reply itself (`times_reply`), owns the
        // timing of the reply it waits for; any other check leaves it to the clock, so a reply
        // late against its clock is charged once, to the clock.
        let clock_check = rule.is_some_and(|r| CLOCK_RULES.contains(&r)) || expect.times_reply;
        if clock_check && terminal {
            let until = self.session.micros_at(deadline);
            self.observer.claim_reply_timing(until);
        }
        if expect.untimed {
            self.observer.claim_reply_timing(u64::MAX);
        }
        // A reply a deaf engine may never send because it has not read the command is the
        // pre-flight's USI-GO-012, not a missing or late reply against the search's clock: the
        // wait owns its timing, as the immediate SKIP did before it waited at all.
        if unread.is_some() && terminal {
            self.observer.claim_reply_timing(u64::MAX);
        }
        // Set when the step's deadline passed while the machine's load held usicheck or the
        // engine up: (the delays, the original deadline).
        let mut load_grace: Option<(HeldUp, Instant)> = None;
        // A setup step waiting its default time for the reply every engine owes (`usiok`,
        // `readyok`): extended as a check is (a stalled machine is no missing reply), and its
        // absence is that reply's rule's.
        let owed_wait = rule.is_none()
            && (expect.within == Deadline::named(NamedTimeout::Usiok)
                || expect.within == Deadline::named(NamedTimeout::Ready));
        loop {
            let next = self.next_line(deadline);
            // A deadline missed while the machine's load held usicheck or the engine up is
            // extended once by the delay; a reply in that extension is not judged (see
            // `engine::stall` and `engine::CpuWait`).
            if matches!(next, Next::Timeout)
                && (rule.is_some() || owed_wait)
                && !keep_alive
                && load_grace.is_none()
            {
                let held_up = self.held_up_since(start, engine_cpu_wait.as_ref());
                if held_up.most() > 0 {
                    load_grace = Some((held_up, deadline));
                    deadline += Duration::from_micros(held_up.most());
                    continue;
                }
            }
            let (line, message, stale) = match next {
                Next::Line(line, message, stale) => (line, message, stale),
                Next::Timeout | Next::Over(_) => {
                    let died = matches!(next, Next::Over(_));
                    if !died && let Some(reason) = unread.take() {
                        return Err(Halt::Skipped {
                            reason,
                            rules: self.scenario.rules.clone(),
                        });
                    }
                    let what = match next {
                        Next::Over(reason) => reason,
                        _ if expect.keep_alive && deadline < cap => {
                            format!("no line at all for {} ms", within.as_millis())
                        }
                        _ => format!("nothing matching within {} ms", within.as_millis()),
                    };
                    // The reply the engine owes whatever the scenario, when a setup step waited
                    // its default time for it.
                    if owed_wait {
                        self.owed_reply_missed(&expect.matcher, died, &what);
                    }
                    // A check of another rule than the clock's, whose reply comes after the
                    // clock's deadline: the clock's violation, judged by the observer as the
                    // reply arrives, not the check's.
                    if !died && terminal && rule.is_some() && !clock_check {
                        let clock_due = self.observer.protocol().clock().due();
                        let clock_due = clock_due.map(|(due, _)| due.at_micros);
                        if let Some(clock_due) = clock_due
                            && let Some((late, at)) = self.late_reply_at(&expect.matcher)
                            && at > clock_due
                        {
                            let symptom = Symptom::AlreadyCharged;
                            return Err(self.fail(step, symptom, (rule, part), expected, late));
                        }
                    }
                    // A check that failed for want of a reply owns its absence.
                    if rule.is_some() && terminal {
                        self.observer.claim_reply_timing(u64::MAX);
                    }
                    // An engine that died or stayed silent before `usiok` never finished its
                    // handshake (the observer's USI-HANDSHAKE-004): whatever the step checks
                    // was not reached. A deadline of the step's own is the step's business.
                    let no_usiok = self.observer.protocol().awaiting_usiok()
                        && (died || expect.within == Deadline::named(NamedTimeout::Usiok));
                    let mut cause = None;
                    // A clock times a reply that comes: one that never comes at all is a
                    // missing terminal reply (USI-GO-002).
                    let mut late = None;
                    if !died
                        && terminal
                        && let Some(missing) = never_answered(rule, &self.observer)
                    {
                        late = self.late_reply(&expect.matcher);
                        if late.is_none() {
                            cause = Some(missing);
                        }
                    }
                    let symptom = match died && !no_usiok {
                        true => Symptom::Died(crate::blame::death(&self.observer)),
                        false => Symptom::NoReply {
                            died,
                            before_usiok: no_usiok,
                            cause,
                        },
                    };
                    let mut actual = if seen.is_empty() {
                        what
                    } else {
                        let lines: Vec<String> =
                            seen.iter().map(|l| format!("`{}`", quote(l))).collect();
                        format!("{what}; last lines: {}", lines.join(", "))
                    };
                    // A setup step's reply that comes late is the clock's violation (judged
                    // by the observer as it arrives), not a reason to charge the scenario.
                    if !died
                        && rule.is_none()
                        && terminal
                        && let Some(late) = self.late_reply(&expect.matcher)
                    {
                        actual = late;
                    }
                    if let Some(late) = late {
                        actual = late;
                    }
                    return Err(self.fail(step, symptom, (rule, part), expected, actual));
                }
            };
            if keep_alive {
                deadline = (self.session.now() + within).min(cap);
            }
            let text = without_bom(&line.text);
            if let Some(forbid) = &expect.forbid
                && forbid.is_match(text)
            {
                // A step with no `rule` of its own names its `part` for the forbidden line's.
                let (rule, part) = match expect.forbid_rule {
                    Some(forbid_rule) if rule.is_none() => (Some(forbid_rule), part),
                    Some(forbid_rule) if Some(forbid_rule) != rule => (Some(forbid_rule), None),
                    _ => (rule, part),
                };
                let symptom = match self.wrong_kind_reply(&message) {
                    true => Symptom::AlreadyCharged,
                    false => Symptom::Forbidden,
                };
                return Err(self.fail(
                    step,
                    symptom,
                    (rule, part),
                    format!("{expected}, and no line matching `{}`", forbid.as_str()),
                    format!("`{}`", line.quoted()),
                ));
            }
            let eval = if stale {
                Eval::NoMatch
            } else {
                self.evaluate(&expect.matcher, &message, text)
            };
            match eval {
                Eval::NoMatch => {
                    if seen.len() == SEEN_LINES {
                        seen.pop_front();
                    }
                    seen.push_back(line.text);
                }
                Eval::Pass => {
                    // A reply in the extension a loaded machine earned is not judged.
                    let excuse = load_grace.and_then(|(held_up, due)| {
                        let late = line
                            .at_micros
                            .checked_sub(self.session.micros_at(due))
                            .filter(|late| *late > 0)?;
                        let deadline = format!("the step's deadline ({} ms)", within.as_millis());
                        load_excuse(&line.quoted(), late, &deadline, held_up)
                    });
                    match (rule, excuse) {
                        (Some(rule), Some(why)) => self.judge.not_judged(rule, why),
                        (Some(rule), None) => self.judge.pass(rule, part),
                        (None, _) => {}
                    }
                    // A reply the always-on checks charged (an illegal or malformed move) is
                    // no evidence that the forbidden one was avoided for the right reason.
                    if let Some(forbid_rule) = expect.forbid_rule {
                        let part = part.filter(|_| rule.is_none());
                        match &message {
                            Message::BestMove(best) if self.charged_move(best) => {
                                let reason = format!(
                                    "not reached: `{}` is the always-on checks' (an illegal or \
                                     malformed move)",
                                    line.quoted()
                                );
                                self.judge.skip(forbid_rule, &reason);
                            }
                            _ => self.judge.pass(forbid_rule, part),
                        }
                    }
                    if matches!(expect.matcher, Matcher::Usiok) {
                        self.check_requirements()?;
                    }
                    return Ok(());
                }
                Eval::Wrong {
                    actual,
                    rule: content_rule,
                } => {
                    let symptom = Symptom::WrongReply { content_rule };
                    return Err(self.fail(step, symptom, (rule, part), expected, actual));
                }
                Eval::Charged(actual) => {
                    let symptom = Symptom::AlreadyCharged;
                    return Err(self.fail(step, symptom, (rule, part), expected, actual));
                }
                Eval::Malformed(actual) => {
                    let symptom = Symptom::MalformedMove;
                    return Err(self.fail(step, symptom, (rule, part), expected, actual));
                }
                Eval::Illegal(actual) => {
                    let misread = self.misread.as_ref().map(|(rule, _)| *rule);
                    let symptom = Symptom::IllegalMove { misread };
                    return Err(self.fail(step, symptom, (rule, part), expected, actual));
                }
                Eval::Skip(reason) => {
                    // `requires: {mate: true}`: without `go mate` the scenario means nothing.
                    let mate_only = !self.scenario.requires.mate;
                    let rules: Vec<RuleId> = self
                        .scenario
                        .rules
                        .iter()
                        .copied()
                        .filter(|r| !mate_only || r.rule().section == Section::Mate)
                        .collect();
                    return Err(Halt::Skipped { reason, rules });
                }
            }
        }
    }

    /// Why each `usinewgame` of the session is followed by `isready`/`readyok`, if it is: the
    /// pre-flight showed the search right after it late, or a terminal reply no `go` asked
    /// for came, in the pre-flight or in this session.
    pub(super) fn newgame_unsettled(&self) -> Option<Fact> {
        let facts = &self.settings.facts;
        let stray = Fact::StrayReplies;
        if facts.slow_newgame {
            Some(Fact::SlowNewgame)
        } else if facts.stray_replies || self.observer.judge().violated(stray.rule()) {
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
            && self.observer.protocol().searching();
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
    fn precondition(&self, expect: &Expect) -> Precondition {
        let facts = &self.settings.facts;
        if let Some(reason) = self.unread_command(expect.rule) {
            return Precondition::Unread(reason);
        }
        if let Some(reason) = self.after_gameover(expect) {
            return Precondition::Broken(reason);
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
                    && (matcher.awaits_bestmove() || matches!(matcher, Matcher::Checkmate(_)))
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
                    .find(|rule| self.observer.judge().violated(**rule)) =>
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
        let clock = self.observer.protocol().clock();
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

    /// usicheck's worst stall since `start` (none in simulated time).
    fn host_stall_since(&self, start: Instant) -> Duration {
        if self.session.is_simulated() {
            return Duration::ZERO;
        }
        stall::worst_between(start, self.session.now())
    }

    /// How long the machine's load held usicheck (its reader's worst stall since `start`)
    /// and the engine (its threads' longest CPU wait, as `engine_wait` says) up.
    fn held_up_since(&self, start: Instant, engine_wait: Option<&EngineWait>) -> HeldUp {
        HeldUp {
            usicheck: self.host_stall_since(start).as_micros() as u64,
            engine: match engine_wait {
                None => 0,
                Some(EngineWait::Since(earlier)) => CpuWait::of(self.session.pid())
                    .longest_since(earlier)
                    .as_micros() as u64,
                Some(EngineWait::LateWindow) => {
                    self.observer.protocol().engine_late_cpu_wait_micros()
                }
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
                self.observer.protocol().awaiting_usiok(),
            ),
            Matcher::Readyok if !died => (
                Owed::Readyok,
                "readyok",
                self.observer.protocol().awaiting_readyok(),
            ),
            _ => return,
        };
        let rule = missing_reply(owed, &self.observer);
        if !awaited || self.observer.judge().violated(rule) {
            return;
        }
        let outcome = match self.session.termination() {
            Some(Termination::Signalled { .. }) if died => "crash",
            Some(_) if died => "controlled exit",
            _ => "hang",
        };
        self.observer
            .judge_mut()
            .violation(rule, None, format!("no `{reply}`, {outcome}: {what}"));
        self.missed_replies.push(Missed { owed, rule });
    }

    /// When the outstanding search's reply counts as never sent: [`REPLY_PATIENCE`] past its
    /// clock's deadline.
    fn never_sent_at(&self) -> Option<Instant> {
        let (due, _) = self.observer.protocol().clock().due()?;
        Some(self.session.origin() + Duration::from_micros(due.at_micros) + REPLY_PATIENCE)
    }

    /// After a reply's deadline passed with the engine alive, waits for the reply until it
    /// counts as never sent ([`REPLY_PATIENCE`] past its clock's deadline), so that the
    /// observer judges a late one against its clock. Returns what came, `None` when no reply
    /// comes or no clock set a deadline.
    pub(super) fn late_reply(&mut self, matcher: &Matcher) -> Option<String> {
        self.late_reply_at(matcher).map(|(late, _)| late)
    }

    /// As [`Run::late_reply`], with the time the reply came (session clock, µs).
    fn late_reply_at(&mut self, matcher: &Matcher) -> Option<(String, u64)> {
        let terminal = |message: &Message| match matcher {
            Matcher::Bestmove { .. } => matches!(message, Message::BestMove(_)),
            Matcher::Checkmate(_) => matches!(message, Message::Checkmate(_)),
            _ => false,
        };
        let rule = self.observer.protocol().clock().late_rule()?;
        let deadline = self
            .never_sent_at()
            .unwrap_or_else(|| self.session.now() + REPLY_PATIENCE);
        loop {
            match self.next_line(deadline) {
                Next::Line(line, message, stale) if !stale && terminal(&message) => {
                    let late = format!("`{}`, late (judged against the clock: {rule})", line.text);
                    return Some((late, line.at_micros));
                }
                Next::Line(..) => {}
                Next::Timeout | Next::Over(_) => return None,
            }
        }
    }

    /// `requires.options` and `requires.ponder`, judged once the option list is complete.
    pub(super) fn check_requirements(&mut self) -> Result<(), Halt> {
        if self.requirements_checked {
            return Ok(());
        }
        self.requirements_checked = true;
        let requires = &self.scenario.requires;
        let advertised = self.observer.protocol().options();
        let has = |name: &str| advertised.iter().any(|o| o.eq_ignore_ascii_case(name));
        let mut missing: Vec<&str> = requires
            .options
            .iter()
            .map(String::as_str)
            .filter(|name| !has(name))
            .collect();
        if requires.ponder && !has("USI_Ponder") && !has("Ponder") {
            missing.push("USI_Ponder");
        }
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Halt::Skipped {
                reason: format!("the engine does not advertise {}", missing.join(", ")),
                rules: self.scenario.rules.clone(),
            })
        }
    }

    /// The degraded synchronisation of an engine that never answers `isready` (USI-READY-001,
    /// charged in the pre-flight): a check whose `readyok` would show the engine still
    /// standing after what came before (a bad position, malformed arguments, a `gameover`)
    /// gives it T-SILENT instead. A death then is the check's, as it would be while waiting
    /// for `readyok`; a survival proves no more than that, so the rule is "not reached" unless
    /// a later step of the scenario judges it.
    fn survive(&mut self, step: &Step, expect: &Expect, rule: RuleId) -> Result<(), Halt> {
        let window = self.settings.timeouts.silent;
        let deadline = self.session.now() + window;
        loop {
            match self.next_line(deadline) {
                Next::Line(..) => {}
                Next::Timeout => break,
                Next::Over(what) => {
                    let symptom = Symptom::Died(crate::blame::death(&self.observer));
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

    pub(super) fn expect_silence(&mut self, step: &Step, silence: &Silence) -> Result<(), Halt> {
        self.halt_if(self.unread_command(silence.rule))?;
        let duration = self.resolve(&silence.duration);
        let start = self.session.now();
        let mut deadline = start + duration;
        // Silence proves nothing while the engine could not run: a window the machine's load
        // held the engine or usicheck up in is extended once by that delay.
        let engine_cpu_wait = silence
            .rule
            .map(|_| EngineWait::Since(CpuWait::of(self.session.pid())));
        let mut extended = false;
        // Lines already in the pipe do not break it, but a reply to the commands sent just
        // before does, even one that came before the window opened (usicheck may be
        // descheduled between sending and opening).
        let opened = self
            .sent_at
            .take()
            .unwrap_or_else(|| self.session.elapsed_micros());
        let label = match &silence.pattern {
            Some(p) => format!(
                "no line matching `{}` for {} ms",
                p.as_str(),
                duration.as_millis()
            ),
            None => format!("no output for {} ms", duration.as_millis()),
        };
        self.note_window(WindowKind::Silence, duration, silence.rule, label);
        let mut unsolicited = self.observer.protocol().unsolicited_readyoks();
        loop {
            let (line, message) = match self.read(deadline) {
                Next::Line(line, message, _) => (line, message),
                Next::Timeout if !extended => {
                    extended = true;
                    let held_up = self.held_up_since(start, engine_cpu_wait.as_ref());
                    deadline += Duration::from_micros(held_up.most());
                    continue;
                }
                Next::Timeout | Next::Over(_) => break,
            };
            // A stray `readyok` is USI-READY-001's violation, already recorded; it says
            // nothing about what this silence watches for.
            let stray_readyok = self.observer.protocol().unsolicited_readyoks() > unsolicited;
            unsolicited = self.observer.protocol().unsolicited_readyoks();
            let text = without_bom(&line.text);
            let breaks = !stray_readyok
                && line.at_micros >= opened
                && silence.pattern.as_ref().is_none_or(|p| p.is_match(text))
                && !silence.ignore.as_ref().is_some_and(|p| p.is_match(text));
            if breaks {
                let what = match &silence.pattern {
                    Some(p) => format!("no line matching `{}`", p.as_str()),
                    None => "no output".to_owned(),
                };
                let symptom = match self.wrong_kind_reply(&message) {
                    true => Symptom::AlreadyCharged,
                    false => Symptom::SilenceBroken,
                };
                return Err(self.fail(
                    step,
                    symptom,
                    (silence.rule, None),
                    format!("{what} for {} ms", duration.as_millis()),
                    format!("`{}`", line.quoted()),
                ));
            }
        }
        if let Some(rule) = silence.rule {
            self.judge.pass(rule, None);
        }
        Ok(())
    }
}

/// Why a check that needs a `readyok` is not reached, the same words everywhere.
fn no_readyok() -> String {
    Fact::NoReadyok.not_reached(None)
}
