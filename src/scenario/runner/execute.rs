//! Executing one scenario against one fresh engine process (the documented policy: a process
//! per scenario, so scenarios are independent and can run in parallel).

use super::board::Board;
use super::captures::Captures;
use super::flood::FloodMeter;
use super::judge::{Judge, worst};
use super::line_check::{LEGALITY_RULES, check_line, illegal_in_sequence, without_bom};
use super::protocol::Protocol;
use super::settings::RunSettings;
use super::timing::ReplyClock;
use crate::engine::{
    Direction, Escalation, Event, Line, SendError, Session, SessionOptions, StartError, Stream,
    Termination,
};
use crate::report::{ScenarioReport, StepFailure};
use crate::rules::{RuleId, Section};
use crate::scenario::{
    BestmoveCheck, CheckmateCheck, Deadline, ExitStatus, Expect, ExpectExit, ForEachOption,
    InfoCheck, Matcher, NamedTimeout, PonderCheck, PvCheck, Scenario, Silence, Step,
};
use crate::shogi::mate::{self, Limits, MateResult};
use crate::usi::{Checkmate, Command, Message, MoveToken, ScoreValue, SpecialMove};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Lines kept for the next `expect` after a `sleep`, and their bytes at most; older ones are
/// dropped (a flood of long lines must not fill memory).
const MAX_PENDING: usize = 10_000;
const MAX_PENDING_BYTES: usize = 16 << 20;
/// How long after the engine closes its stdout its exit may take to be noticed.
const STDOUT_CLOSED_GRACE: Duration = Duration::from_millis(100);
/// Transcript entries copied into the report.
const TAIL: usize = 30;
/// How long a missed reply is still waited for, to tell a late reply from none.
const LATE_REPLY_PATIENCE: Duration = Duration::from_secs(3);
/// The budget of one mate check (verifying a line, or looking for a mate that refutes
/// `nomate`): bounded in nodes and time so a hard position cannot slow the suite down.
const MATE_CHECK_NODES: u64 = 2_000_000;
const MATE_CHECK_TIME: Duration = Duration::from_secs(1);

/// Runs `scenario` (from `file`) against a fresh engine and judges it.
///
/// Every rule of the scenario gets a verdict: PASS when the scenario completed (or the step
/// naming it passed), the profile's severity when a step charged to it failed, SKIP with the
/// reason otherwise. Every engine line also goes through the always-on checks, whose verdicts
/// join the report. A reply of the expected kind with wrong content is charged to the rule
/// for that content: an illegal `bestmove` to USI-BESTMOVE-002, an illegal ponder move to
/// USI-PONDER-001, a wrong mating line to USI-MATE-003, a refuted `nomate` to USI-MATE-004.
pub fn run_scenario(
    scenario: &Scenario,
    file: &str,
    settings: &RunSettings,
    replay: String,
) -> Result<ScenarioReport, StartError> {
    let started = Instant::now();
    let report = |verdicts: Vec<crate::rules::Verdict>,
                  failure: Option<StepFailure>,
                  skipped: Option<String>,
                  names: (Option<String>, Option<String>),
                  tail: Vec<String>| {
        ScenarioReport {
            name: scenario.name.clone(),
            file: file.to_owned(),
            outcome: if skipped.is_some() && verdicts.is_empty() {
                crate::rules::Outcome::Skip
            } else {
                worst(&verdicts)
            },
            verdicts,
            failure,
            skipped,
            engine_name: names.0,
            engine_author: names.1,
            duration: started.elapsed(),
            transcript_path: None,
            transcript_tail: tail,
            replay: replay.clone(),
        }
    };
    if let Some(reason) = settings.not_applicable(scenario) {
        let mut judge = Judge::new(settings.profile, settings.claims.clone());
        for &rule in &scenario.rules {
            judge.skip(rule, &reason);
        }
        return Ok(report(
            judge.into_verdicts(),
            None,
            Some(reason),
            (None, None),
            Vec::new(),
        ));
    }
    let options = SessionOptions {
        transcript_path: settings.transcript_path.clone(),
        ..SessionOptions::default()
    };
    let session = Session::start(&settings.engine, options)?;
    let mut run = Run {
        scenario,
        settings,
        session,
        judge: Judge::new(settings.profile, settings.claims.clone()),
        board: Board::default(),
        captures: Captures::default(),
        protocol: Protocol::default(),
        flood: FloodMeter::default(),
        pending: VecDeque::new(),
        pending_bytes: 0,
        step: 0,
        engine_name: None,
        engine_author: None,
        requirements_checked: false,
        last_sent: String::new(),
        reply_clock: ReplyClock::default(),
        exit_awaited: false,
        misread: None,
    };
    let halt = run.steps(&scenario.steps).err();
    run.end_engine();
    let (failure, skipped) = run.conclude(halt);
    let tail = run.transcript_tail();
    let names = (run.engine_name.take(), run.engine_author.take());
    let mut report = report(run.judge.into_verdicts(), failure, skipped, names, tail);
    report.transcript_path = settings.transcript_path.clone();
    Ok(report)
}

/// Why the steps stopped early.
enum Halt {
    Failed {
        failure: Box<StepFailure>,
        rules: Vec<RuleId>,
        part: Option<String>,
    },
    Skipped {
        reason: String,
        rules: Vec<RuleId>,
    },
}

/// What reading the next line produced.
#[allow(clippy::large_enum_variant)] // one short-lived value per line read, never stored
enum Next {
    /// A line, its message, and whether it is a stale reply to an earlier `go`.
    Line(Line, Message, bool),
    Timeout,
    /// Nothing more can arrive; says why.
    Over(String),
}

/// How a line measures up to an `expect` matcher.
enum Eval {
    /// Not the line the step waits for.
    NoMatch,
    Pass,
    /// The awaited kind of line with wrong content; charged to `rule` when given.
    Wrong {
        actual: String,
        rule: Option<RuleId>,
    },
    Skip(String),
    /// A move token that is no move at all where a legal move was expected: charged to the
    /// step's own `rule` when it names one, else to USI-BESTMOVE-007 (the notation rule).
    Malformed(String),
    /// Accepted because the check could not decide within its budget; `note` says so on
    /// `rule`'s verdict.
    Undecided {
        rule: RuleId,
        note: String,
    },
}

struct Run<'a> {
    scenario: &'a Scenario,
    settings: &'a RunSettings,
    session: Session,
    judge: Judge,
    board: Board,
    captures: Captures,
    protocol: Protocol,
    flood: FloodMeter,
    /// Lines read during a `sleep`, for the next `expect`.
    pending: VecDeque<(Line, Message, bool)>,
    /// Bytes of line text held in `pending`.
    pending_bytes: usize,
    /// 1-based index of the running step in the expanded list.
    step: usize,
    engine_name: Option<String>,
    engine_author: Option<String>,
    requirements_checked: bool,
    /// The last line sent, for messages.
    last_sent: String,
    /// Stdin was closed or an exit already awaited: ending the engine needs no `quit`.
    exit_awaited: bool,
    /// What set the deadline of the current search's reply.
    reply_clock: ReplyClock,
    /// The running `expect` step's `legality_rule` (with the step's `part` when its `rule` is
    /// the same), while it applies.
    misread: Option<(RuleId, Option<String>)>,
}

fn id(text: &str) -> RuleId {
    text.parse()
        .expect("rule IDs used by the runner are in the catalogue")
}

fn step_text(step: &Step) -> String {
    serde_json::to_string(step).unwrap_or_else(|_| format!("{step:?}"))
}

impl Run<'_> {
    fn steps(&mut self, steps: &[Step]) -> Result<(), Halt> {
        for step in steps {
            match step {
                Step::Handshake(handshake) => {
                    let steps = handshake.expand(&self.settings.options);
                    self.steps(&steps)
                        .map_err(|halt| self.handshake_halt(halt))?
                }
                Step::Repeat(repeat) => {
                    for _ in 0..repeat.count {
                        self.steps(&repeat.steps)?;
                    }
                }
                Step::ForEachOption(each) => self.for_each_option(each)?,
                _ => {
                    self.step += 1;
                    self.primitive(step)?;
                }
            }
        }
        Ok(())
    }

    fn primitive(&mut self, step: &Step) -> Result<(), Halt> {
        match step {
            Step::Send(template) => {
                let line =
                    template
                        .render(|c| self.captures.value(c))
                        .map_err(|c| Halt::Skipped {
                            reason: Captures::missing_reason(c),
                            rules: self.scenario.rules.clone(),
                        })?;
                self.send(step, &line)
            }
            Step::SendRaw(text) => self.send_raw(step, text),
            Step::Expect(expect) => self.expect(step, expect),
            Step::ExpectSilence(silence) => self.expect_silence(step, silence),
            Step::Sleep(duration) => {
                self.sleep(self.resolve(duration));
                Ok(())
            }
            Step::CloseStdin => {
                self.exit_awaited = true;
                let now = self.session.elapsed_micros();
                self.protocol.on_close_stdin(now);
                self.session.close_stdin();
                Ok(())
            }
            Step::ExpectExit(exit) => self.expect_exit(step, exit),
            Step::Handshake(_) | Step::Repeat(_) | Step::ForEachOption(_) => {
                unreachable!("expanded by `steps`")
            }
        }
    }

    /// One round of `steps` per advertised option of the type, each in a fresh engine process.
    /// After a failed round the failing process stays current (its transcript is the evidence)
    /// and the scenario's own process is ended.
    fn for_each_option(&mut self, each: &ForEachOption) -> Result<(), Halt> {
        let type_name = each.option_type.name();
        let names = self.protocol.options_of_type(type_name);
        if names.is_empty() {
            return Err(Halt::Skipped {
                reason: format!("the engine advertises no `type {type_name}` option"),
                rules: self.scenario.rules.clone(),
            });
        }
        for name in names {
            let fresh = Session::start(&self.settings.engine, SessionOptions::default()).map_err(
                |error| Halt::Skipped {
                    reason: format!("a fresh engine for option `{name}` did not start: {error}"),
                    rules: self.scenario.rules.clone(),
                },
            )?;
            let mut outer = std::mem::replace(&mut self.session, fresh);
            let board = std::mem::take(&mut self.board);
            let protocol = std::mem::take(&mut self.protocol);
            let flood = std::mem::take(&mut self.flood);
            let pending = std::mem::take(&mut self.pending);
            let exit_awaited = std::mem::replace(&mut self.exit_awaited, false);
            self.captures.option_name = Some(name);
            if let Err(halt) = self.steps(&each.steps) {
                let _ = outer.quit(Duration::ZERO);
                return Err(halt);
            }
            self.end_engine();
            self.session = outer;
            self.board = board;
            self.protocol = protocol;
            self.flood = flood;
            self.pending = pending;
            self.exit_awaited = exit_awaited;
        }
        self.captures.option_name = None;
        Ok(())
    }

    /// An engine that dies during the handshake macro (typically on one of its `setoption`
    /// lines) leaves the scenario's rules untested: SKIP with the reason, because the macro's
    /// own rules (T-USIOK, T-READY) were not what failed, and the scenarios dedicated to
    /// options and `isready` judge such crashes with the precise rule.
    fn handshake_halt(&self, halt: Halt) -> Halt {
        match halt {
            Halt::Failed { failure, .. } if self.session.termination().is_some() => {
                // Dying on `usi` or `isready` breaks the rule of the reply it owed; the
                // scenario's own rules were never reached.
                let owed = if self.protocol.awaiting_usiok() {
                    Some("USI-HANDSHAKE-004")
                } else if self.protocol.awaiting_readyok() {
                    Some("USI-READY-001")
                } else {
                    None
                };
                match owed {
                    Some(rule) => Halt::Failed {
                        failure,
                        rules: vec![id(rule)],
                        part: None,
                    },
                    None => Halt::Skipped {
                        reason: format!(
                            "{} during the handshake, after `{}`",
                            self.end_reason(),
                            self.last_sent
                        ),
                        rules: self.scenario.rules.clone(),
                    },
                }
            }
            other => other,
        }
    }

    fn resolve(&self, deadline: &Deadline) -> Duration {
        deadline.resolve(&self.settings.timeouts)
    }

    fn fail(
        &self,
        step: &Step,
        rule: Option<RuleId>,
        part: Option<&str>,
        expected: String,
        actual: String,
    ) -> Halt {
        Halt::Failed {
            failure: Box::new(StepFailure {
                step: self.step,
                step_text: step_text(step),
                expected,
                actual,
            }),
            rules: self.scenario.blamed_rules(rule),
            part: part.map(str::to_owned),
        }
    }

    fn follow_sent(&mut self, line: &str) {
        self.last_sent = line.to_owned();
        let command = Command::parse(line);
        if matches!(command, Command::Position(_)) {
            self.captures.position = Some(line.trim().to_owned());
        }
        let now = self.session.elapsed_micros();
        self.board.on_send(&command, line);
        self.protocol.on_send(&command, now);
        self.reply_clock.on_send(&command);
    }

    fn send(&mut self, step: &Step, line: &str) -> Result<(), Halt> {
        self.follow_sent(line);
        match self.session.send(line) {
            Ok(()) => Ok(()),
            Err(error) => {
                let actual = self.send_failure(error);
                let expected = format!("the engine reads `{line}`");
                Err(self.fail(step, None, None, expected, actual))
            }
        }
    }

    /// Why a write failed: a closed stdin usually means the engine has ended, and how it ended
    /// is the evidence (it reaches the driver a moment after the pipe breaks).
    fn send_failure(&mut self, error: SendError) -> String {
        if matches!(error, SendError::Closed) {
            let deadline = Instant::now() + STDOUT_CLOSED_GRACE;
            while self.session.termination().is_none() {
                match self.session.next_event(deadline) {
                    Some(Event::Line(line)) if line.stream == Stream::Stdout => {
                        self.observe(&line);
                    }
                    Some(_) => {}
                    None => break,
                }
            }
            if let Some(termination) = self.session.termination() {
                return format!("the engine {termination} (its stdin is closed)");
            }
        }
        error.to_string()
    }

    fn send_raw(&mut self, step: &Step, text: &str) -> Result<(), Halt> {
        let mut lines: Vec<&str> = text.split('\n').collect();
        lines.pop(); // the part after the last line break is not a complete line yet
        for line in lines {
            self.follow_sent(line);
        }
        match self.session.send_raw(text.as_bytes()) {
            Ok(()) => Ok(()),
            Err(error) => {
                let actual = self.send_failure(error);
                let expected = "the engine reads its input".to_owned();
                Err(self.fail(step, None, None, expected, actual))
            }
        }
    }

    /// Runs the always-on checks on a stdout line and keeps the captures current.
    /// Returns the message and whether it is a stale reply to an earlier `go`.
    fn observe(&mut self, line: &Line) -> (Message, bool) {
        let (message, diagnostics) = Message::parse(&line.text);
        let stale = self.protocol.answers_previous(&message, line.at_micros);
        let searching = self.protocol.searching();
        check_line(
            line,
            &message,
            &diagnostics,
            self.board.searched_by(stale),
            searching,
            self.misread
                .as_ref()
                .map(|(rule, part)| (*rule, part.as_deref())),
            &mut self.judge,
        );
        self.protocol.on_message(&message, stale, &mut self.judge);
        match &message {
            Message::IdName(name) => {
                self.engine_name.get_or_insert_with(|| name.clone());
            }
            Message::IdAuthor(author) => {
                self.engine_author.get_or_insert_with(|| author.clone());
            }
            Message::BestMove(best) => {
                self.captures.bestmove = Some(best.best.to_string());
                self.captures.ponder = best.ponder.as_ref().map(ToString::to_string);
            }
            Message::Checkmate(checkmate) => {
                let text = checkmate.to_string();
                self.captures.checkmate =
                    Some(text.trim_start_matches("checkmate").trim().to_owned());
            }
            Message::Info(_) => {
                let rule = id("USI-INFO-013");
                if self.flood.record(line.at_micros) {
                    self.judge.violation(
                        rule,
                        None,
                        format!(
                            "more than {} `info` lines within one second",
                            super::flood::MAX_INFO_PER_SECOND
                        ),
                    );
                }
            }
            _ => {}
        }
        (message, stale)
    }

    /// The next stdout line from the engine (checked), not looking at `pending`.
    ///
    /// Under a flood the engine's output never runs dry, so what arrived after `deadline`
    /// ends the wait: a late stdout line is kept in `pending` for the next step.
    fn read(&mut self, deadline: Instant) -> Next {
        let mut stdout_closed_at = None;
        loop {
            let mut wait = deadline;
            if self.session.stdout_closed() {
                // No line can come any more: give the exit a moment to be seen, then say so
                // rather than wait out the deadline.
                let closed = *stdout_closed_at.get_or_insert_with(Instant::now);
                wait = wait.min(closed + STDOUT_CLOSED_GRACE);
            }
            let event = self.session.next_event(wait);
            let late = event
                .as_ref()
                .is_some_and(|e| e.at_micros() > self.session.micros_at(deadline));
            match event {
                Some(Event::Line(line)) if line.stream == Stream::Stdout => {
                    let (message, stale) = self.observe(&line);
                    if late {
                        self.keep_pending(line, message, stale);
                        return Next::Timeout;
                    }
                    return Next::Line(line, message, stale);
                }
                Some(_) if late => return Next::Timeout,
                Some(_) => {}
                None if self.session.is_over() => return Next::Over(self.end_reason()),
                None if stdout_closed_at
                    .is_some_and(|at| Instant::now() >= at + STDOUT_CLOSED_GRACE) =>
                {
                    return Next::Over(self.end_reason());
                }
                None if Instant::now() >= deadline => return Next::Timeout,
                None => {}
            }
        }
    }

    fn next_line(&mut self, deadline: Instant) -> Next {
        match self.pending.pop_front() {
            Some((line, message, stale)) => {
                self.pending_bytes -= line.text.len();
                Next::Line(line, message, stale)
            }
            None => self.read(deadline),
        }
    }

    fn end_reason(&self) -> String {
        match self.session.termination() {
            Some(termination) => format!("the engine {termination}"),
            None if self.session.stdout_closed() => "the engine closed its stdout".to_owned(),
            None => "the engine stopped responding".to_owned(),
        }
    }

    /// Keeps a line read ahead for the next `expect`, dropping the oldest beyond the bounds.
    fn keep_pending(&mut self, line: Line, message: Message, stale: bool) {
        self.pending_bytes += line.text.len();
        self.pending.push_back((line, message, stale));
        while self.pending.len() > MAX_PENDING || self.pending_bytes > MAX_PENDING_BYTES {
            let Some((dropped, _, _)) = self.pending.pop_front() else {
                break;
            };
            self.pending_bytes -= dropped.text.len();
        }
    }

    fn sleep(&mut self, duration: Duration) {
        let deadline = Instant::now() + duration;
        while let Next::Line(line, message, stale) = self.read(deadline) {
            self.keep_pending(line, message, stale);
        }
        // Nothing more can arrive (or the time is up): keep the sleep's length regardless.
        let now = Instant::now();
        if now < deadline && (self.session.is_over() || self.session.stdout_closed()) {
            std::thread::sleep(deadline - now);
        }
    }

    fn expect(&mut self, step: &Step, expect: &Expect) -> Result<(), Halt> {
        // An engine that already played an illegal move where it could not misread the
        // position has a move-generation fault: its illegal moves stay with the legality rules.
        let clean = !LEGALITY_RULES
            .iter()
            .any(|rule| self.judge.violated(id(rule)));
        self.misread = expect.legality_rule.filter(|_| clean).map(|rule| {
            let part = expect.part.clone().filter(|_| expect.rule == Some(rule));
            (rule, part)
        });
        let result = self.await_line(step, expect);
        self.misread = None;
        result
    }

    fn await_line(&mut self, step: &Step, expect: &Expect) -> Result<(), Halt> {
        let timeouts = self.settings.timeouts;
        let start = Instant::now();
        let keep_alive = expect.within == Deadline::named(NamedTimeout::Ready);
        let within = self.resolve(&expect.within);
        let mut deadline = start + within;
        let cap = start + timeouts.ready_cap.max(within);
        let expected = describe(&expect.matcher, within);
        let mut seen: VecDeque<String> = VecDeque::new();
        let part = expect.part.as_deref();
        // `usiok` and `readyok` without a rule of their own are charged like the handshake
        // macro's: to their timeouts' rules, not to everything the scenario checks.
        // A step with a deadline of its own (`usiok` within 2 s) tests that deadline: the
        // scenario's rules, not the default timeout's.
        let rule = expect.rule.or(match expect.matcher {
            Matcher::Usiok if expect.within == Deadline::named(NamedTimeout::Usiok) => {
                Some(id("USI-HANDSHAKE-004"))
            }
            Matcher::Readyok if keep_alive => Some(id("USI-READY-001")),
            _ => None,
        });
        loop {
            let next = self.next_line(deadline);
            let (line, message, stale) = match next {
                Next::Line(line, message, stale) => (line, message, stale),
                Next::Timeout | Next::Over(_) => {
                    // An engine that died after what this scenario sent broke the scenario's
                    // own rules; charging its silence to `readyok`'s or `usiok`'s rule would
                    // blame a rule the scenario never tested.
                    let died = matches!(next, Next::Over(_));
                    // An engine that died or stayed silent before `usiok` never finished its
                    // handshake: USI-HANDSHAKE-004 (with the outcome as evidence), whatever the
                    // step checks. A deadline of the step's own is the step's business.
                    let no_usiok = self.protocol.awaiting_usiok()
                        && (died || expect.within == Deadline::named(NamedTimeout::Usiok));
                    let rule = match rule {
                        _ if no_usiok => Some(id("USI-HANDSHAKE-004")),
                        Some(default)
                            if died
                                && expect.rule.is_none()
                                && !self.scenario.rules.contains(&default) =>
                        {
                            None
                        }
                        rule => rule,
                    };
                    if !died
                        && expect.rule.is_none()
                        && let Some((late_rule, actual)) =
                            self.late_reply(&expect.matcher, deadline)
                    {
                        return Err(self.fail(step, Some(late_rule), None, expected, actual));
                    }
                    let what = match next {
                        Next::Over(reason) => reason,
                        _ => format!("nothing matching within {} ms", within.as_millis()),
                    };
                    let actual = if seen.is_empty() {
                        what
                    } else {
                        let lines: Vec<String> = seen.iter().map(|l| format!("`{l}`")).collect();
                        format!("{what}; last lines: {}", lines.join(", "))
                    };
                    return Err(self.fail(step, rule, part, expected, actual));
                }
            };
            if keep_alive {
                deadline = (Instant::now() + timeouts.ready_silence).min(cap);
            }
            let text = without_bom(&line.text);
            if let Some(forbid) = &expect.forbid
                && forbid.is_match(text)
            {
                // A forbidden reply is the scenario's symptom, not a `readyok` problem.
                let rule = expect
                    .rule
                    .or_else(|| rule.filter(|default| self.scenario.rules.contains(default)));
                return Err(self.fail(
                    step,
                    rule,
                    part,
                    format!("{expected}, and no line matching `{}`", forbid.as_str()),
                    format!("`{}`", line.text),
                ));
            }
            let eval = if stale {
                Eval::NoMatch
            } else {
                self.evaluate(&expect.matcher, &message, text)
            };
            match eval {
                Eval::NoMatch => {
                    if seen.len() == 5 {
                        seen.pop_front();
                    }
                    seen.push_back(line.text);
                }
                Eval::Pass | Eval::Undecided { .. } => {
                    if let Eval::Undecided { rule, note } = eval {
                        self.judge.pass_noted(rule, None, note);
                    }
                    if let Some(rule) = rule {
                        self.judge.pass(rule, part);
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
                    let (rule, part) = match content_rule {
                        Some(content_rule) if Some(content_rule) != rule => {
                            (Some(content_rule), None)
                        }
                        _ => (rule, part),
                    };
                    return Err(self.fail(step, rule, part, expected, actual));
                }
                Eval::Malformed(actual) => {
                    let rule = expect.rule.or(Some(id("USI-BESTMOVE-007")));
                    return Err(self.fail(step, rule, part, expected, actual));
                }
                Eval::Skip(reason) => {
                    let rules: Vec<RuleId> = self
                        .scenario
                        .rules
                        .iter()
                        .copied()
                        .filter(|r| r.rule().section == Section::Mate)
                        .collect();
                    return Err(Halt::Skipped { reason, rules });
                }
            }
        }
    }

    /// After a reply's deadline passed with the engine alive, waits [`LATE_REPLY_PATIENCE`]
    /// more for the reply: one that comes late broke the time limit that
    /// set the deadline, so it is charged to that limit's rule (see [`ReplyClock`]) rather
    /// than to every rule of the scenario. `None` when no reply comes or no limit applies.
    fn late_reply(&mut self, matcher: &Matcher, missed: Instant) -> Option<(RuleId, String)> {
        let terminal = |message: &Message| match matcher {
            Matcher::Bestmove { .. } => matches!(message, Message::BestMove(_)),
            Matcher::Checkmate(_) => matches!(message, Message::Checkmate(_)),
            _ => false,
        };
        let rule = self.reply_clock.late_rule()?;
        if !matches!(matcher, Matcher::Bestmove { .. } | Matcher::Checkmate(_)) {
            return None;
        }
        let missed_at = self.session.micros_at(missed);
        let deadline = Instant::now() + LATE_REPLY_PATIENCE;
        loop {
            match self.next_line(deadline) {
                Next::Line(line, message, stale) if !stale && terminal(&message) => {
                    let late = line.at_micros.saturating_sub(missed_at) / 1000;
                    return Some((
                        rule,
                        format!("`{}`, {late} ms after the deadline", line.text),
                    ));
                }
                Next::Line(..) => {}
                Next::Timeout | Next::Over(_) => return None,
            }
        }
    }

    /// `requires.options` and `requires.ponder`, judged once the option list is complete.
    fn check_requirements(&mut self) -> Result<(), Halt> {
        if self.requirements_checked {
            return Ok(());
        }
        self.requirements_checked = true;
        let requires = &self.scenario.requires;
        let advertised = self.protocol.options();
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

    fn evaluate(&self, matcher: &Matcher, message: &Message, text: &str) -> Eval {
        let wrong = |actual: String, rule: Option<&str>| Eval::Wrong {
            actual,
            rule: rule.map(id),
        };
        let illegal = |actual: String, rule: &str| Eval::Wrong {
            actual,
            rule: Some(self.misread.as_ref().map_or_else(|| id(rule), |(r, _)| *r)),
        };
        match (matcher, message) {
            (Matcher::Usiok, Message::UsiOk) | (Matcher::Readyok, Message::ReadyOk) => Eval::Pass,
            (Matcher::Bestmove { bestmove, ponder }, Message::BestMove(best)) => {
                let position = self.board.searched();
                let legal = |mv| position.is_none_or(|p| p.is_legal(mv));
                let best_ok = match (bestmove, &best.best) {
                    (BestmoveCheck::Any, _) => true,
                    (BestmoveCheck::Legal, MoveToken::Move(mv)) if !legal(*mv) => {
                        return illegal(format!("illegal `{text}`"), "USI-BESTMOVE-002");
                    }
                    (BestmoveCheck::Legal, MoveToken::Move(_)) => true,
                    (BestmoveCheck::Legal, MoveToken::Invalid(_)) => {
                        return Eval::Malformed(format!("a malformed move in `{text}`"));
                    }
                    (BestmoveCheck::Resign, MoveToken::Special(SpecialMove::Resign)) => true,
                    (BestmoveCheck::Win, MoveToken::Special(SpecialMove::Win)) => true,
                    _ => false,
                };
                if !best_ok {
                    // Moving where `resign` is the only reply is USI-BESTMOVE-003's violation.
                    let no_move = matches!(bestmove, BestmoveCheck::Resign)
                        && position.is_some_and(|p| !p.has_legal_moves());
                    return wrong(format!("`{text}`"), no_move.then_some("USI-BESTMOVE-003"));
                }
                let after = match (&best.best, position) {
                    (MoveToken::Move(mv), Some(p)) => Some(p.after(*mv)),
                    _ => None,
                };
                let ponder_legal = |mv| after.as_ref().is_none_or(|p| p.is_legal(mv));
                match (ponder, &best.ponder) {
                    (None, _) | (Some(PonderCheck::LegalIfPresent | PonderCheck::Absent), None) => {
                        Eval::Pass
                    }
                    (Some(PonderCheck::Legal | PonderCheck::LegalIfPresent), Some(token)) => {
                        match token {
                            MoveToken::Move(mv) if ponder_legal(*mv) => Eval::Pass,
                            MoveToken::Invalid(_) => {
                                Eval::Malformed(format!("a malformed ponder move in `{text}`"))
                            }
                            _ => illegal(
                                format!("illegal ponder move in `{text}`"),
                                "USI-PONDER-001",
                            ),
                        }
                    }
                    (Some(PonderCheck::Legal), None) => {
                        wrong(format!("no ponder move: `{text}`"), None)
                    }
                    (Some(PonderCheck::Absent), Some(_)) => {
                        wrong(format!("a ponder move: `{text}`"), None)
                    }
                }
            }
            (Matcher::Checkmate(check), Message::Checkmate(reply)) => {
                self.evaluate_checkmate(*check, reply, text)
            }
            (Matcher::Info(check), Message::Info(info)) => {
                if self.info_matches(check, info, text) {
                    Eval::Pass
                } else {
                    Eval::NoMatch
                }
            }
            (Matcher::Line(pattern), _) if pattern.is_match(text) => Eval::Pass,
            _ => Eval::NoMatch,
        }
    }

    fn evaluate_checkmate(&self, check: CheckmateCheck, reply: &Checkmate, text: &str) -> Eval {
        let wrong = |actual: String, rule: Option<&str>| Eval::Wrong {
            actual,
            rule: rule.map(id),
        };
        let position = self.board.searched();
        let limits = || {
            Limits::new()
                .with_nodes(MATE_CHECK_NODES)
                .with_time(MATE_CHECK_TIME)
        };
        match (check, reply) {
            (CheckmateCheck::Any, _) => Eval::Pass,
            (CheckmateCheck::Notimplemented, Checkmate::NotImplemented) => Eval::Pass,
            (_, Checkmate::NotImplemented) => Eval::Skip(
                "the engine answered `checkmate notimplemented` (no mate solver)".to_owned(),
            ),
            (CheckmateCheck::Valid | CheckmateCheck::Mate, Checkmate::Mate(moves)) => {
                // A malformed token is a notation fault, already judged by the grammar check.
                let line: Option<Vec<_>> = moves.iter().map(MoveToken::as_move).collect();
                match (line, moves.iter().find(|m| m.as_move().is_none())) {
                    (_, Some(MoveToken::Special(_))) => {
                        wrong(format!("`{text}`"), Some("USI-MATE-010"))
                    }
                    (Some(line), _) => match position {
                        Some(p) => mate::verify(p, &line, &limits()).map_or_else(
                            |why| wrong(format!("{why}: `{text}`"), Some("USI-MATE-003")),
                            |()| Eval::Pass,
                        ),
                        None => Eval::Pass,
                    },
                    // One unknown word (`checkmate none`) is a fifth form, not a bad line.
                    (None, _) if moves.len() == 1 => {
                        wrong(format!("`{text}`"), Some("USI-MATE-010"))
                    }
                    (None, _) => wrong(format!("`{text}`"), Some("USI-POSITION-006")),
                }
            }
            // `nomate` is refuted only by a mate the solver finds within its budget; when it
            // cannot decide, the claim stands.
            (CheckmateCheck::Valid | CheckmateCheck::Nomate, Checkmate::NoMate) => {
                match position.map(|p| mate::solve(p, &limits())) {
                    Some(MateResult::Mate(line)) => {
                        let line: Vec<String> = line.iter().map(ToString::to_string).collect();
                        wrong(
                            format!("`{text}`, but `{}` mates", line.join(" ")),
                            Some("USI-MATE-004"),
                        )
                    }
                    Some(MateResult::Unknown) => Eval::Undecided {
                        rule: id("USI-MATE-004"),
                        note: format!(
                            "`{text}` accepted: the mate solver could not decide within {} nodes \
                             and {} ms",
                            MATE_CHECK_NODES,
                            MATE_CHECK_TIME.as_millis()
                        ),
                    },
                    Some(MateResult::NoMate) | None => Eval::Pass,
                }
            }
            (CheckmateCheck::Valid | CheckmateCheck::Timeout, Checkmate::Timeout) => Eval::Pass,
            _ => wrong(format!("`{text}`"), None),
        }
    }

    fn info_matches(&self, check: &InfoCheck, info: &crate::usi::Info, text: &str) -> bool {
        let searching = info.pv.is_some()
            || info.depth.is_some()
            || info.score.is_some()
            || info.nodes.is_some()
            || info.multipv.is_some()
            || info.currmove.is_some()
            || info.time.is_some()
            || info.nps.is_some();
        let pv_ok = match (check.pv, &info.pv) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(PvCheck::Present), Some(_)) => true,
            (Some(PvCheck::Legal), Some(pv)) => self
                .board
                .searched()
                .is_none_or(|p| illegal_in_sequence(p, pv).is_none()),
        };
        let multipv_ok = check.multipv.is_none_or(|n| info.multipv == Some(n));
        let mate_ok = check
            .score_mate
            .is_none_or(|n| info.score.is_some_and(|s| s.value == ScoreValue::Mate(n)));
        let regex_ok = check.matches.as_ref().is_none_or(|p| p.is_match(text));
        searching && pv_ok && multipv_ok && mate_ok && regex_ok
    }

    fn expect_silence(&mut self, step: &Step, silence: &Silence) -> Result<(), Halt> {
        let duration = self.resolve(&silence.duration);
        let deadline = Instant::now() + duration;
        // Lines read before the window opened (already in the pipe) do not break it.
        let opened = self.session.elapsed_micros();
        let mut unsolicited = self.protocol.unsolicited_readyoks();
        while let Next::Line(line, _, _) = self.read(deadline) {
            // A stray `readyok` is USI-READY-001's violation, already recorded; it says
            // nothing about what this silence watches for.
            let stray_readyok = self.protocol.unsolicited_readyoks() > unsolicited;
            unsolicited = self.protocol.unsolicited_readyoks();
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
                return Err(self.fail(
                    step,
                    silence.rule,
                    None,
                    format!("{what} for {} ms", duration.as_millis()),
                    format!("`{}`", line.text),
                ));
            }
        }
        if let Some(rule) = silence.rule {
            self.judge.pass(rule, None);
        }
        Ok(())
    }

    fn expect_exit(&mut self, step: &Step, exit: &ExpectExit) -> Result<(), Halt> {
        let stdin_closed = self.exit_awaited;
        self.exit_awaited = true;
        let within = self.resolve(&exit.within);
        let deadline = Instant::now() + within;
        while self.session.termination().is_none() {
            match self.session.next_event(deadline) {
                Some(Event::Line(line)) if line.stream == Stream::Stdout => {
                    self.observe(&line);
                }
                Some(_) => {}
                None if self.session.termination().is_some() => {}
                None if Instant::now() >= deadline || self.session.is_over() => {
                    return Err(self.fail(
                        step,
                        exit.rule,
                        None,
                        format!("the engine exits within {} ms", within.as_millis()),
                        "still running".to_owned(),
                    ));
                }
                None => {}
            }
        }
        let termination = self.session.termination().expect("checked by the loop");
        if exit.status == ExitStatus::Success && !termination.is_success() {
            return Err(self.fail(
                step,
                exit.rule,
                None,
                "exit status 0".to_owned(),
                format!("the engine {termination}"),
            ));
        }
        // An exit the engine was asked for must be clean (USI-QUIT-004); dying before the
        // request is judged by the step that saw it.
        if self.session.exited_after_end_request() && !termination.is_success() {
            self.unclean_exit(&termination, stdin_closed);
        }
        if let Some(rule) = exit.rule {
            self.judge.pass(rule, None);
        }
        Ok(())
    }

    /// An exit the engine was asked for (by `quit` or by closing its stdin) that was not
    /// clean: USI-QUIT-004.
    fn unclean_exit(&mut self, termination: &Termination, stdin_closed: bool) {
        let when = if stdin_closed {
            "after its stdin was closed"
        } else {
            "after quit"
        };
        self.judge.violation(
            id("USI-QUIT-004"),
            None,
            format!("the engine {termination} {when}"),
        );
    }

    /// Ends the engine (quit, then the process group is killed) and checks its last lines.
    fn end_engine(&mut self) {
        // An engine that got `usi` and never answered `usiok` failed the handshake: charged
        // to USI-HANDSHAKE-004 with the outcome, whichever step noticed it. Every `usiok`
        // answering a `usi` leaves a USI-HANDSHAKE-002 verdict (the `id` check).
        let usi_sent_at = self
            .session
            .transcript()
            .entries()
            .head()
            .iter()
            .find(|entry| entry.direction == Direction::ToEngine && entry.text.trim() == "usi")
            .map(|entry| entry.at_micros);
        let id_check = id("USI-HANDSHAKE-002");
        if let Some(usi_sent_at) = usi_sent_at
            && self.judge.profile().applies(id_check.rule())
            && !self.judge.has_verdict(id_check)
        {
            let evidence = match self.session.termination() {
                Some(Termination::Signalled { .. }) => format!("crash: {}", self.end_reason()),
                Some(Termination::Exited(_)) => {
                    format!("controlled exit: {}", self.end_reason())
                }
                None if self.session.stdout_closed() => format!("hang: {}", self.end_reason()),
                None => format!(
                    "hang: nothing matching `usiok` within {} ms of `usi`",
                    (self.session.elapsed_micros() - usi_sent_at) / 1000
                ),
            };
            self.judge.violation(
                id("USI-HANDSHAKE-004"),
                None,
                format!("no `usiok`, {evidence}"),
            );
        }
        let now = self.session.elapsed_micros();
        let limit = self.settings.timeouts.stop + self.settings.timeouts.grace;
        if self.protocol.unanswered_stop(now, limit.as_micros() as u64) {
            self.judge.violation(
                id("USI-GO-002"),
                None,
                format!(
                    "a `go` ended by `stop` was never answered ({} ms and more)",
                    limit.as_millis()
                ),
            );
        }
        if self.session.is_over() {
            let _ = self.session.quit(Duration::ZERO);
            return;
        }
        let now = self.session.elapsed_micros();
        self.protocol.on_send(&Command::Quit, now);
        // With stdin closed, or after the engine already ignored its chance to exit, `quit`
        // cannot help: go straight to the signals.
        let patience = if self.exit_awaited {
            Duration::ZERO
        } else {
            self.settings.timeouts.quit
        };
        let ended_before_quit = self.session.termination().is_some();
        let report = self.session.quit(patience);
        // Signals from usicheck's own escalation are the engine's failure to exit, judged
        // elsewhere; an exit of its own after `quit` must be clean (USI-QUIT-004).
        if let Some(termination) = report.termination
            && report.escalation == Escalation::None
            && !ended_before_quit
            && self.session.exited_after_end_request()
            && !termination.is_success()
        {
            let stdin_closed = self.exit_awaited && self.last_sent.trim() != "quit";
            self.unclean_exit(&termination, stdin_closed);
        }
        for event in report.seen.iter() {
            if let Event::Line(line) = event
                && line.stream == Stream::Stdout
            {
                self.observe(line);
            }
        }
    }

    /// Turns the halt (if any) into verdicts for the scenario's rules.
    fn conclude(&mut self, halt: Option<Halt>) -> (Option<StepFailure>, Option<String>) {
        let rules = self.scenario.rules.clone();
        match halt {
            None => {
                for rule in rules {
                    self.judge.pass(rule, None);
                }
                (None, None)
            }
            Some(Halt::Failed {
                failure,
                rules: blamed,
                part,
            }) => {
                for rule in blamed {
                    self.judge.violation(
                        rule,
                        part.as_deref(),
                        format!(
                            "step {}: expected {}; got {}",
                            failure.step, failure.expected, failure.actual
                        ),
                    );
                }
                let reason = format!("not reached: step {} failed", failure.step);
                for rule in rules {
                    self.judge.skip(rule, &reason);
                }
                (Some(*failure), None)
            }
            Some(Halt::Skipped {
                reason,
                rules: skipped,
            }) => {
                for rule in skipped {
                    self.judge.skip(rule, &reason);
                }
                let not_reached = format!("not reached: {reason}");
                for rule in rules {
                    self.judge.skip(rule, &not_reached);
                }
                (None, Some(reason))
            }
        }
    }

    fn transcript_tail(&self) -> Vec<String> {
        let entries = self.session.transcript().entries();
        let all: Vec<String> = entries.tail().map(ToString::to_string).collect();
        let tail = if all.is_empty() {
            entries.head().iter().map(ToString::to_string).collect()
        } else {
            all
        };
        tail[tail.len().saturating_sub(TAIL)..].to_vec()
    }
}

/// What a matcher waits for, in words.
fn describe(matcher: &Matcher, within: Duration) -> String {
    let what = match matcher {
        Matcher::Usiok => "`usiok`".to_owned(),
        Matcher::Readyok => "`readyok`".to_owned(),
        Matcher::Bestmove { bestmove, ponder } => {
            let best = match bestmove {
                BestmoveCheck::Any => "a `bestmove` line",
                BestmoveCheck::Legal => "a legal `bestmove`",
                BestmoveCheck::Resign => "`bestmove resign`",
                BestmoveCheck::Win => "`bestmove win`",
            };
            match ponder {
                Some(PonderCheck::Legal) => format!("{best} with a legal ponder move"),
                Some(PonderCheck::LegalIfPresent) => format!("{best} (ponder move legal if any)"),
                Some(PonderCheck::Absent) => format!("{best} without a ponder move"),
                None => best.to_owned(),
            }
        }
        Matcher::Checkmate(check) => match check {
            CheckmateCheck::Any => "a `checkmate` line".to_owned(),
            CheckmateCheck::Valid => {
                "a correct `checkmate` reply (verified line, `nomate` or `timeout`)".to_owned()
            }
            CheckmateCheck::Mate => "a verified mating line".to_owned(),
            CheckmateCheck::Nomate => "`checkmate nomate`".to_owned(),
            CheckmateCheck::Timeout => "`checkmate timeout`".to_owned(),
            CheckmateCheck::Notimplemented => "`checkmate notimplemented`".to_owned(),
        },
        Matcher::Info(_) => "a matching search `info` line".to_owned(),
        Matcher::Line(pattern) => format!("a line matching `{}`", pattern.as_str()),
    };
    format!("{what} within {} ms", within.as_millis())
}
