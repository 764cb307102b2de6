//! The `expect` step: a line judged by its matcher, or a missed deadline charged by
//! [`charge`](super::blame::charge). What a wait needs first is in `preconditions`; the
//! replies the engine owes whatever the scenario, and the load that excuses a late one, in
//! `owed`; `expect_silence` in `silence`.

use super::engine_io::Next;
use super::execute::{Halt, Run};
use super::matchers::{Eval, awaited, describe};
use super::owed::EngineWait;
use super::preconditions::{Precondition, UNREAD_WAIT};
use crate::blame::{Symptom, never_answered};
use crate::engine::CpuWait;
use crate::observer::{CLOCK_RULES, HeldUp, LEGALITY_RULES, load_excuse, without_bom};
use crate::quote::quote;
use crate::report::WindowKind;
use crate::rules::{RuleId, Section};
use crate::scenario::{Deadline, Expect, Matcher, NamedTimeout, Step};
use crate::usi::Message;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Lines quoted in a failure besides the transcript excerpt: the last ones read.
const SEEN_LINES: usize = 2;

/// How long a warm process may take to answer `isready`: it prepared in the scenario that
/// started it, so its `readyok` is owed at once. One that takes longer is stuck in what an
/// earlier scenario left it in (gpsusi, having resigned a game, computes without end at the
/// next position with White to move), and waiting T-READY (30 s) there would show nothing
/// that the fresh process the scenario then runs in does not.
const WARM_READY_PATIENCE: Duration = Duration::from_secs(5);

impl Run<'_> {
    pub(super) fn expect(&mut self, step: &Step, expect: &Expect) -> Result<(), Halt> {
        // An engine that already played an illegal move where it could not misread the
        // position has a move-generation fault: its illegal moves stay with the legality rules.
        let clean = !LEGALITY_RULES
            .iter()
            .any(|rule| self.engine.observer().judge().violated(*rule));
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
        let start = self.engine.session().now();
        let keep_alive = expect.restarts_on_every_line();
        let terminal = matches!(
            expect.matcher,
            Matcher::Bestmove { .. } | Matcher::Checkmate(_)
        );
        // Only a step that names its rule can be excused by load: only it reads /proc. The
        // reply to a search under a clock is excused by the observer's late window instead,
        // unless the step times that reply itself (`times_reply`): its window is the step's.
        let under_clock = terminal
            && !expect.times_reply
            && self.engine.observer().protocol().clock().due().is_some();
        let engine_cpu_wait = (expect.rule.is_some() && !keep_alive).then(|| {
            if under_clock {
                EngineWait::LateWindow
            } else {
                EngineWait::Since(CpuWait::of(self.engine.session().pid()))
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
        let mut doubt_at = self.warm_doubt_at(start, &expect.matcher);
        // The doubt is extended once by the load, as a deadline is: a loaded machine is no
        // stuck engine. Taken when it is used, so once.
        let mut doubt_cpu_wait =
            doubt_at.map(|_| EngineWait::Since(CpuWait::of(self.engine.session().pid())));
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
            let until = self.engine.session().micros_at(deadline);
            self.engine.observer_mut().claim_reply_timing(until);
        }
        if expect.untimed {
            self.engine.observer_mut().claim_reply_timing(u64::MAX);
        }
        // A reply a deaf engine may never send because it has not read the command is the
        // pre-flight's USI-GO-012, not a missing or late reply against the search's clock: the
        // wait owns its timing, as the immediate SKIP did before it waited at all.
        if unread.is_some() && terminal {
            self.engine.observer_mut().claim_reply_timing(u64::MAX);
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
            let doubted = doubt_at.filter(|&at| at < deadline);
            let next = self.next_line(doubted.unwrap_or(deadline));
            if let (Next::Timeout, Some(at)) = (&next, doubted) {
                if let Some(wait) = doubt_cpu_wait.take() {
                    let held_up = self.held_up_since(start, Some(&wait));
                    if held_up.most() > 0 {
                        doubt_at = Some(at + Duration::from_micros(held_up.most()));
                        continue;
                    }
                }
                return Err(self.doubt(step, expected, WARM_READY_PATIENCE));
            }
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
                    // A `usiok` the step's own limit (USI-HANDSHAKE-001's 2 s) missed is still
                    // waited for until T-USIOK: when it comes, its latency proves the verdict.
                    if !died
                        && rule.is_some()
                        && matches!(expect.matcher, Matcher::Usiok)
                        && within < self.resolve(&Deadline::named(NamedTimeout::Usiok))
                        && let Some(late) = self.late_usiok(start)
                    {
                        let halt =
                            self.fail(step, Symptom::Late, (rule, part), expected, late.quoted);
                        return Err(halt.proved_by(late.entry));
                    }
                    // A check of another rule than the clock's, whose reply comes after the
                    // clock's deadline: the clock's violation, judged by the observer as the
                    // reply arrives, not the check's.
                    if !died && terminal && rule.is_some() && !clock_check {
                        let clock_due = self.engine.observer().protocol().clock().due();
                        let clock_due = clock_due.map(|(due, _)| due.at_micros);
                        if let Some(clock_due) = clock_due
                            && let Some(late) = self.late_reply(&expect.matcher)
                            && late.at_micros > clock_due
                        {
                            let symptom = Symptom::AlreadyCharged;
                            let actual = late.quoted;
                            let halt = self.fail(step, symptom, (rule, part), expected, actual);
                            return Err(halt.proved_by(late.entry));
                        }
                    }
                    // A check that failed for want of a reply owns its absence.
                    if rule.is_some() && terminal {
                        self.engine.observer_mut().claim_reply_timing(u64::MAX);
                    }
                    // An engine that died or stayed silent before `usiok` never finished its
                    // handshake (the observer's USI-HANDSHAKE-004): whatever the step checks
                    // was not reached. A deadline of the step's own is the step's business.
                    let no_usiok = self.engine.observer().protocol().awaiting_usiok()
                        && (died || expect.within == Deadline::named(NamedTimeout::Usiok));
                    let mut cause = None;
                    // A clock times a reply that comes: one that never comes at all is a
                    // missing terminal reply (USI-GO-002).
                    let mut late = None;
                    if !died
                        && terminal
                        && let Some(missing) = never_answered(rule, self.engine.observer())
                    {
                        late = self.late_reply(&expect.matcher);
                        if late.is_none() {
                            cause = Some(missing);
                        }
                    }
                    let symptom = match died && !no_usiok {
                        true => Symptom::Died(crate::blame::death(self.engine.observer())),
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
                        && let Some(setup_late) = self.late_reply(&expect.matcher)
                    {
                        late = Some(setup_late);
                    }
                    let evidence = late.as_ref().and_then(|late| late.entry);
                    if let Some(late) = late {
                        actual = late.quoted;
                    }
                    return Err(self
                        .fail(step, symptom, (rule, part), expected, actual)
                        .proved_by(evidence));
                }
            };
            if keep_alive {
                deadline = (self.engine.session().now() + within).min(cap);
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
                return Err(self
                    .fail(
                        step,
                        symptom,
                        (rule, part),
                        format!("{expected}, and no line matching `{}`", forbid.as_str()),
                        format!("`{}`", line.quoted()),
                    )
                    .proved_by(line.entry));
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
                            .checked_sub(self.engine.session().micros_at(due))
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
                    let halt = self.fail(step, symptom, (rule, part), expected, actual);
                    return Err(halt.proved_by(line.entry));
                }
                Eval::Charged(actual) => {
                    let symptom = Symptom::AlreadyCharged;
                    let halt = self.fail(step, symptom, (rule, part), expected, actual);
                    return Err(halt.proved_by(line.entry));
                }
                Eval::Malformed(actual) => {
                    let symptom = Symptom::MalformedMove;
                    let halt = self.fail(step, symptom, (rule, part), expected, actual);
                    return Err(halt.proved_by(line.entry));
                }
                Eval::Illegal(actual) => {
                    let misread = self.misread.as_ref().map(|(rule, _)| *rule);
                    let symptom = Symptom::IllegalMove { misread };
                    let halt = self.fail(step, symptom, (rule, part), expected, actual);
                    return Err(halt.proved_by(line.entry));
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

    /// When a wait for `matcher` in a warm process turns to doubt
    /// ([`WARM_READY_PATIENCE`] after `start`): only a `readyok` is owed at once there.
    fn warm_doubt_at(&self, start: Instant, matcher: &Matcher) -> Option<Instant> {
        (self.resumed && matches!(matcher, Matcher::Readyok)).then_some(start + WARM_READY_PATIENCE)
    }
}
