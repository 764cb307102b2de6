//! Executing one scenario against an engine process: one started for it, or one an earlier
//! scenario left warm, idle, where the scenario allows it ([`WarmProcess`]).

use super::captures::Captures;
use super::settings::RunSettings;
use super::warm::{Served, WarmProcess};
use crate::blame::{Charge, Symptom, charge};
use crate::engine::{HeldCores, Line, SendError, Session, SessionOptions, StartError};
use crate::observer::{Cores, Judge, ObservedEngine, Observer, SessionState, worst};
use crate::report::{MAX_WINDOWS, ScenarioReport, StepFailure, Timeline, Window, WindowKind};
use crate::rules::{Outcome, RuleId};
use crate::scenario::{Deadline, ForEachOption, Scenario, Step, Template, readyok_sync};
use crate::usi::{Command, Go, Message};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Lets the observer excuse a reply the machine's load made late: never in simulated time,
/// where nothing is late but the engine.
fn follow_load(engine: &mut ObservedEngine<Session>) {
    let session = engine.session();
    if !session.is_simulated() {
        let (origin, pid) = (session.origin(), session.pid());
        engine.observer_mut().set_origin(origin, pid);
    }
}

/// Runs `scenario` (from `file`) against an engine and judges it: in the process `warm`
/// keeps, if the scenario may run in one and it fits, else in one started for it; a clean
/// scenario leaves its process to `warm` in turn.
///
/// Blame has one rule: a step that names a `rule` is a check, and its failure is charged to
/// that rule only (a reply of the expected kind with wrong content to the rule for that
/// content: an illegal `bestmove` to USI-BESTMOVE-002, a wrong mating line to USI-MATE-003,
/// a refuted `nomate` to USI-MATE-004); a step without one is setup, and its failure leaves
/// the scenario's unjudged rules SKIP "not reached". Every engine line also goes through the
/// always-on checks (marked [`Verdict::always_on`](crate::rules::Verdict)), which judge
/// what the observer can see for itself: grammar, legality, protocol order, owed replies and
/// every reply against its clock. A rule neither a step nor the observer judged is SKIP.
pub fn run_scenario(
    scenario: &Scenario,
    file: &str,
    settings: &RunSettings,
    replay: String,
    warm: &mut WarmProcess,
) -> Result<ScenarioReport, StartError> {
    if settings.not_applicable(scenario).is_none()
        && let Some(resumed) = warm.take_for(scenario, settings)?
    {
        let (report, charged_at_end) = run_in(
            scenario,
            file,
            settings,
            replay.clone(),
            warm,
            Some(resumed),
        )?;
        // Interrupted, it runs nowhere again (no process would start): its caller cuts it
        // short.
        let interrupted = crate::engine::interrupted().is_some();
        // What the warm process went through before is in no replay command: a scenario
        // whose steps did not all pass there, that was owed a reply, or whose ending was
        // charged (how the engine takes `quit` may depend on what it did before) runs again
        // in a process of its own, whose verdicts stand. Its transcript goes on after the
        // warm attempt's, which shows why.
        let why = if interrupted {
            return Ok(report);
        } else if let Some(failure) = &report.failure {
            let step = failure.step_text.lines().next().unwrap_or_default();
            let step = crate::quote::quote(step.trim());
            format!(
                "step {} (`{step}`) failed: {}",
                failure.step, failure.actual
            )
        } else if !report.missed_replies.is_empty() {
            "a reply was still owed at its end".to_owned()
        } else if let Some(rule) = charged_at_end {
            format!("its ending was charged to {rule}")
        } else {
            return Ok(report);
        };
        let again = RunSettings {
            transcript_continues: Some(format!(
                "run again in a process of its own: in the warm process above, {why}; the \
                 verdicts are this run's"
            )),
            ..settings.clone()
        };
        return run_in(scenario, file, &again, replay, warm, None).map(|(report, _)| report);
    }
    run_in(scenario, file, settings, replay, warm, None).map(|(report, _)| report)
}

/// [`run_scenario`] in the warm process `resumed`, else in a process started for it; with
/// the rule charged on how the engine took its ending, if one was.
fn run_in(
    scenario: &Scenario,
    file: &str,
    settings: &RunSettings,
    replay: String,
    warm: &mut WarmProcess,
    resumed: Option<super::warm::Resumed>,
) -> Result<(ScenarioReport, Option<RuleId>), StartError> {
    let started = Instant::now();
    let report = |verdicts: Vec<crate::rules::Verdict>,
                  failure: Option<StepFailure>,
                  skipped: Option<String>,
                  names: (Option<String>, Option<String>),
                  tail: Vec<String>| {
        ScenarioReport {
            name: scenario.name.clone(),
            file: file.to_owned(),
            // A scenario skipped or not reached is SKIP, unless something it counts failed.
            outcome: match worst(&verdicts, &scenario.rules) {
                crate::rules::Outcome::Pass if skipped.is_some() => crate::rules::Outcome::Skip,
                outcome => outcome,
            },
            rules: scenario.rules.clone(),
            verdicts,
            failure,
            skipped,
            engine_name: names.0,
            engine_author: names.1,
            advertised_options: None,
            missed_replies: Vec::new(),
            duration: started.elapsed(),
            transcript_path: None,
            transcript_tail: tail,
            replay: replay.clone(),
            timed_searches: Default::default(),
            timeline: None,
        }
    };
    if let Some(reason) = settings.not_applicable(scenario) {
        let mut judge = Judge::new(settings.profile, settings.claims.clone());
        for &rule in &scenario.rules {
            judge.skip(rule, &reason);
        }
        let report = report(
            judge.into_verdicts(),
            None,
            Some(reason),
            (None, None),
            Vec::new(),
        );
        return Ok((report, None));
    }
    let mut observer = Observer::new(settings.profile, settings.claims.clone(), settings.timeouts);
    if scenario.alone {
        observer = observer.judging_startup();
    }
    let (engine, served, resumed) = match resumed {
        Some(resumed) => {
            observer.swap_session(resumed.state);
            let cores = HeldCores::idle(settings.search_slots.as_ref());
            cores.watch(resumed.session.pid());
            let engine = ObservedEngine::new(resumed.session, observer, cores);
            (engine, resumed.served, true)
        }
        None => {
            let options = SessionOptions {
                transcript_path: settings.transcript_path.clone(),
                transcript_continues: settings.transcript_continues.clone(),
                ..SessionOptions::default()
            };
            // An engine's start-up is computing too (gpsusi loads its tables for a second).
            let cores = HeldCores::starting(settings.search_slots.as_ref());
            let session = Session::start(&settings.engine, options)?;
            cores.watch(session.pid());
            let served = Served {
                names: (None, None),
                scenarios: vec![scenario.name.clone()],
            };
            (ObservedEngine::new(session, observer, cores), served, false)
        }
    };
    let mut engine = engine;
    let session_started = engine.session().now();
    follow_load(&mut engine);
    let mut run = Run {
        scenario,
        settings,
        engine,
        judge: Judge::new(settings.profile, settings.claims.clone()),
        captures: Captures::default(),
        pending: VecDeque::new(),
        pending_bytes: 0,
        step: 0,
        engine_name: served.names.0.clone(),
        engine_author: served.names.1.clone(),
        resumed,
        missed_replies: Vec::new(),
        requirements_checked: false,
        last_sent: String::new(),
        sent_at: None,
        exit_awaited: false,
        charged_at_end: None,
        misread: None,
        windows: Vec::new(),
        last_go: None,
        sent_during_search: false,
        read_during_search: false,
        gameover_sent: false,
        isready_sent: false,
    };
    let halt = scenario
        .steps
        .iter()
        .enumerate()
        .try_for_each(|(index, step)| {
            run.step = index;
            run.steps(std::slice::from_ref(step))
        })
        .err();
    // A scenario skipped (a requirement unmet) leaves the engine as every step left it.
    let steps_passed = !matches!(halt, Some(Halt::Failed { .. } | Halt::Setup { .. }));
    let stays_warm = run.end_engine(halt.is_some(), steps_passed);
    let halt_evidence = halt.as_ref().and_then(Halt::evidence);
    let (failure, skipped) = run.conclude(halt);
    let names = (run.engine_name.clone(), run.engine_author.clone());
    // A symptom a scenario's own check judged is not charged again by the observer on the
    // same rule (nor for the same line: see `conclude`).
    for rule in run.judge.violated_rules() {
        run.engine.observer_mut().judge_mut().forget(rule);
    }
    let mut verdicts = run.judge.take_verdicts();
    verdicts.extend(run.engine.observer_mut().judge_mut().take_verdicts());
    // The evidence: the failed step's line, else the first violation's that the scenario
    // shows (`None` within: a failure no one line proves, such as a reply that never came).
    let evidence = match (&failure, halt_evidence) {
        (Some(_), evidence) => Some(evidence),
        (None, _) => verdicts
            .iter()
            .filter(|v| !v.always_on || scenario.rules.contains(&v.rule))
            .find(|v| matches!(v.outcome, Outcome::Fail | Outcome::Warn))
            .map(|v| v.evidence),
    };
    // The excerpt shows the evidence; a scenario without any has its transcript file.
    let tail = match evidence {
        Some(evidence) => run.transcript_excerpt(evidence),
        None => Vec::new(),
    };
    let mut report = report(verdicts, failure, skipped, names, tail);
    if settings.engine.simulation().is_some() {
        // Simulated, a scenario lasts what its world's clock says: the same every run.
        report.duration = run
            .engine
            .session()
            .now()
            .saturating_duration_since(session_started);
    }
    report.transcript_path = settings.transcript_path.clone();
    let protocol = run.engine.observer().protocol();
    report.advertised_options = protocol.usi_answered().then(|| protocol.option_decls());
    report.missed_replies = std::mem::take(&mut run.missed_replies);
    report.timed_searches = run.engine.observer().timed_searches().clone();
    report.timeline = Some(run.timeline(evidence.flatten()));
    if stays_warm {
        let served = Served {
            names: (run.engine_name, run.engine_author),
            scenarios: served.scenarios,
        };
        warm.keep(run.engine, scenario, settings, served);
    }
    Ok((report, run.charged_at_end))
}

/// Why the steps stopped early.
pub(super) enum Halt {
    /// A check failed: charged to its rule.
    Failed {
        failure: Box<StepFailure>,
        rule: RuleId,
        part: Option<String>,
        evidence: Option<u64>,
    },
    /// A setup step failed, or a check met another rule's violation (an illegal move, the
    /// observer's): what the step was needed for is not reached.
    Setup {
        failure: Box<StepFailure>,
        evidence: Option<u64>,
    },
    Skipped {
        reason: String,
        rules: Vec<RuleId>,
    },
}

impl Halt {
    /// The failure is proved by the engine line at transcript entry `entry` (its
    /// [`Line::entry`]): the always-on checks' violations on that line are the same evidence,
    /// not charged again.
    pub(super) fn proved_by(mut self, entry: Option<u64>) -> Halt {
        if let Halt::Failed { evidence, .. } | Halt::Setup { evidence, .. } = &mut self {
            *evidence = entry;
        }
        self
    }

    /// The transcript entry of the engine line that proves the failure, if one does.
    fn evidence(&self) -> Option<u64> {
        match self {
            Halt::Failed { evidence, .. } | Halt::Setup { evidence, .. } => *evidence,
            Halt::Skipped { .. } => None,
        }
    }
}

pub(super) struct Run<'a> {
    pub(super) scenario: &'a Scenario,
    pub(super) settings: &'a RunSettings,
    /// The engine process, the always-on checks that follow it, and the cores it holds from a
    /// command until its answer (see [`crate::engine::HeldCores`]).
    pub(super) engine: ObservedEngine<Session>,
    /// The scenario's own checks.
    pub(super) judge: Judge,
    pub(super) captures: Captures,
    /// Lines read during a `sleep`, for the next `expect`.
    pub(super) pending: VecDeque<(Line, Message, bool)>,
    /// Bytes of line text held in `pending`.
    pub(super) pending_bytes: usize,
    /// 0-based index of the running top-level step (as written in the file).
    pub(super) step: usize,
    pub(super) engine_name: Option<String>,
    pub(super) engine_author: Option<String>,
    /// The process was kept warm by an earlier scenario: its handshake is done.
    pub(super) resumed: bool,
    /// The owed replies that never came, as charged.
    pub(super) missed_replies: Vec<crate::blame::Missed>,
    pub(super) requirements_checked: bool,
    /// The last line sent, for messages.
    pub(super) last_sent: String,
    /// When the commands just sent went out (session clock), until a step other than a send
    /// runs: a silence window right after them watches for any reply to them.
    pub(super) sent_at: Option<u64>,
    /// Stdin was closed or an exit already awaited: ending the engine needs no `quit`.
    pub(super) exit_awaited: bool,
    /// A rule charged on how the engine took its ending (`quit` ignored, an unclean exit).
    pub(super) charged_at_end: Option<RuleId>,
    /// The running `expect` step's `legality_rule` (with the step's `part` when its `rule` is
    /// the same), while it applies.
    pub(super) misread: Option<(RuleId, Option<String>)>,
    /// The windows the checks waited in, for the report's timeline.
    pub(super) windows: Vec<Window>,
    /// The last `go` sent.
    pub(super) last_go: Option<Go>,
    /// A command went out while the search now outstanding ran (reset by each `go`).
    pub(super) sent_during_search: bool,
    /// A `readyok` answered an `isready` sent while the search now outstanding ran (reset by
    /// each `go`): the engine reads its input in this search, whatever the pre-flight's
    /// `go infinite` showed.
    pub(super) read_during_search: bool,
    /// A `gameover` went out in this session.
    pub(super) gameover_sent: bool,
    /// An `isready` went out to the current engine process.
    pub(super) isready_sent: bool,
}

fn step_text(step: &Step) -> String {
    serde_json::to_string(step).unwrap_or_else(|_| format!("{step:?}"))
}

impl Run<'_> {
    pub(super) fn steps(&mut self, steps: &[Step]) -> Result<(), Halt> {
        for step in steps {
            match step {
                Step::Handshake(handshake) if self.resumed => {
                    // The warm process shook hands with these options: what it advertised
                    // decides whether the scenario runs, and its game starts after
                    // `isready` as a fresh one's does.
                    self.check_requirements()?;
                    let steps = handshake.expand(&self.settings.options);
                    self.steps(&steps[steps.len().saturating_sub(3)..])?
                }
                Step::Handshake(handshake) => {
                    let steps = handshake.expand(&self.settings.options);
                    // `usi`, `usiok`; then usicheck's game rules (USI-EXT-019), which the
                    // command line's and the scenario's options may override.
                    let (usi, rest) = steps.split_at(2);
                    self.steps(usi)?;
                    let given: Vec<&str> = self
                        .settings
                        .options
                        .0
                        .iter()
                        .chain(&handshake.options.0)
                        .map(|(name, _)| name.as_str())
                        .collect();
                    let protocol = self.engine.observer().protocol();
                    let rules: Vec<Step> =
                        super::game_rule_settings(|name| protocol.option(name), &given)
                            .into_iter()
                            .map(|line| Step::Send(Template::literal(line)))
                            .collect();
                    self.steps(&rules)?;
                    self.steps(rest)?
                }
                Step::Repeat(repeat) => {
                    for _ in 0..repeat.count {
                        self.steps(&repeat.steps)?;
                    }
                }
                Step::ForEachOption(each) => self.for_each_option(each)?,
                _ => self.primitive(step)?,
            }
        }
        Ok(())
    }

    pub(super) fn primitive(&mut self, step: &Step) -> Result<(), Halt> {
        if !matches!(
            step,
            Step::Send(_) | Step::SendRaw(_) | Step::ExpectSilence(_)
        ) {
            self.sent_at = None;
        }
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
                self.engine.observer_mut().on_close_stdin();
                self.engine.session_mut().close_stdin();
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
    pub(super) fn for_each_option(&mut self, each: &ForEachOption) -> Result<(), Halt> {
        let type_name = each.option_type.name();
        let names = self.engine.observer().protocol().options_of_type(type_name);
        if names.is_empty() {
            return Err(Halt::Skipped {
                reason: each.option_type.none_advertised(),
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
            let mut outer = std::mem::replace(self.engine.session_mut(), fresh);
            let observed = self
                .engine
                .observer_mut()
                .swap_session(SessionState::default());
            follow_load(&mut self.engine);
            let pending = std::mem::take(&mut self.pending);
            let exit_awaited = std::mem::replace(&mut self.exit_awaited, false);
            let isready_sent = std::mem::replace(&mut self.isready_sent, false);
            // Send times are on the session clock of the engine they went to.
            self.sent_at = None;
            self.captures.option_name = Some(name);
            if let Err(halt) = self.steps(&each.steps) {
                let _ = outer.quit(Duration::ZERO);
                return Err(halt);
            }
            // A round's process always ends: the next round needs a fresh one.
            self.end_engine(false, false);
            *self.engine.session_mut() = outer;
            self.engine.observer_mut().swap_session(observed);
            self.pending = pending;
            self.exit_awaited = exit_awaited;
            self.isready_sent = isready_sent;
            self.sent_at = None;
        }
        self.captures.option_name = None;
        Ok(())
    }

    /// A window a check waits in, from now for `length`, kept for the timeline.
    pub(super) fn note_window(
        &mut self,
        kind: WindowKind,
        length: Duration,
        rule: Option<RuleId>,
        label: String,
    ) {
        if self.windows.len() < MAX_WINDOWS {
            let from = self.engine.session().elapsed_micros();
            self.windows.push(Window {
                kind,
                from_ms: crate::report::ms(from),
                to_ms: crate::report::ms(from + length.as_micros() as u64),
                rule,
                label,
            });
        }
    }

    /// The session's transcript as the report draws it, the line at transcript entry
    /// `evidence` marked.
    fn timeline(&mut self, evidence: Option<u64>) -> Timeline {
        let entries = self.engine.session().transcript().entries();
        let evidence = evidence.and_then(|e| super::ending::kept_index(entries, e));
        Timeline::new(
            entries.head(),
            entries.omitted(),
            entries.tail(),
            evidence,
            std::mem::take(&mut self.windows),
        )
    }

    pub(super) fn resolve(&self, deadline: &Deadline) -> Duration {
        deadline.resolve(&self.settings.timeouts)
    }

    /// The halt of a failed step: charged as [`charge`] decides from the symptom and the
    /// step's own `rule` (and `part`).
    pub(super) fn fail(
        &self,
        step: &Step,
        symptom: Symptom,
        (rule, part): (Option<RuleId>, Option<&str>),
        expected: String,
        actual: String,
    ) -> Halt {
        let failure = self.step_failure(step, expected, actual);
        match charge(symptom, rule) {
            Charge::Rule { rule, own_part } => Halt::Failed {
                failure,
                rule,
                part: part.filter(|_| own_part).map(str::to_owned),
                evidence: None,
            },
            Charge::NotReached => Halt::Setup {
                failure,
                evidence: None,
            },
        }
    }

    /// The halt of a step in a warm process that waited `patience` for a reply owed at once:
    /// no rule is charged, and the scenario runs again in a process of its own
    /// ([`run_scenario`]), which waits the step's full time.
    pub(super) fn doubt(&self, step: &Step, expected: String, patience: Duration) -> Halt {
        let actual = format!(
            "nothing within {} ms, which a warm process takes for doubt",
            patience.as_millis()
        );
        Halt::Setup {
            failure: self.step_failure(step, expected, actual),
            evidence: None,
        }
    }

    fn step_failure(&self, step: &Step, expected: String, actual: String) -> Box<StepFailure> {
        let source = self.scenario.step_sources.get(self.step);
        Box::new(StepFailure {
            step: self.step + 1,
            line: source.map(|s| s.line),
            step_text: source.map_or_else(|| step_text(step), |s| s.text.clone()),
            expected: crate::quote::bound_reason(expected),
            actual: crate::quote::bound_reason(actual),
        })
    }

    pub(super) fn follow_sent(&mut self, line: &str) {
        self.last_sent = line.to_owned();
        let searching = self.engine.observer().protocol().searching();
        let sent = self.engine.follow(line, Cores::Take);
        self.sent_at.get_or_insert(sent.at_micros);
        let command = sent.command;
        self.gameover_sent |= matches!(command, Command::GameOver(_));
        self.isready_sent |= matches!(command, Command::IsReady);
        if matches!(command, Command::Go(_)) {
            self.read_during_search = false;
        }
        self.sent_during_search = match command {
            Command::Go(_) => false,
            _ => self.sent_during_search || searching,
        };
        match command {
            Command::Position(_) => self.captures.position = Some(line.trim().to_owned()),
            Command::Go(go) => self.last_go = Some(go),
            _ => {}
        }
    }

    pub(super) fn send(&mut self, step: &Step, line: &str) -> Result<(), Halt> {
        self.follow_sent(line);
        match self.engine.write(line) {
            Ok(()) => self.settle_newgame(line),
            Err(error) => self.unsent(step, error, format!("the engine reads `{line}`")),
        }
    }

    /// After `usinewgame`, where the pre-flight showed the engine working at it
    /// (USI-READY-007) or replying unprompted (USI-GO-001), both charged there, or this
    /// session did the latter: waits for a `readyok`, so that the work delays no search of the
    /// scenario and a stray reply is not taken for the next search's (each later check would
    /// fail its own rule for the same cause).
    fn settle_newgame(&mut self, line: &str) -> Result<(), Halt> {
        let unsettled = self.newgame_unsettled().is_some();
        if line.trim() == "usinewgame" && unsettled && !self.settings.facts.no_readyok {
            let sent_at = self.sent_at;
            self.steps(&readyok_sync())?;
            self.sent_at = sent_at;
        }
        Ok(())
    }

    pub(super) fn send_raw(&mut self, step: &Step, text: &str) -> Result<(), Halt> {
        for line in crate::observer::complete_lines(text) {
            self.follow_sent(line);
        }
        match self.engine.write_raw(text.as_bytes()) {
            Ok(()) => Ok(()),
            Err(error) => self.unsent(step, error, "the engine reads its input".to_owned()),
        }
    }

    /// A line that could not be written. An engine that has ended is the next check's to
    /// judge (its death after the stimulus is that check's symptom); one that is alive but
    /// does not read its input stops the scenario here.
    fn unsent(&mut self, step: &Step, error: SendError, expected: String) -> Result<(), Halt> {
        let actual = self.send_failure(error);
        if self.engine.session().termination().is_some() || self.engine.session().stdout_closed() {
            return Ok(());
        }
        Err(self.fail(step, Symptom::SendFailed, (None, None), expected, actual))
    }

    /// Turns the halt (if any) into verdicts for the scenario's rules: a failed check is
    /// charged to its rule; whatever a failed setup step or check kept from running is SKIP
    /// "not reached"; a rule no step and no line judged is SKIP "not exercised".
    pub(super) fn conclude(&mut self, halt: Option<Halt>) -> (Option<StepFailure>, Option<String>) {
        let (left, failure, skipped) = match halt {
            None => (
                "not exercised: no step or engine line of the session judged it".to_owned(),
                None,
                None,
            ),
            Some(Halt::Failed {
                failure,
                rule,
                part,
                evidence,
            }) => {
                // The line the check charged is not charged again by the always-on checks.
                if let Some(entry) = evidence {
                    self.engine
                        .observer_mut()
                        .judge_mut()
                        .forget_evidence(entry);
                }
                self.judge.judging_line(evidence);
                self.judge.violation(
                    rule,
                    part.as_deref(),
                    format!(
                        "step {}: expected {}; got {}",
                        failure.step, failure.expected, failure.actual
                    ),
                );
                self.judge.judging_line(None);
                let reason = format!("not reached: step {} failed", failure.step);
                (reason, Some(*failure), None)
            }
            Some(Halt::Setup { failure, .. }) => {
                // The failure itself (expected vs actual) is reported with the scenario.
                let reason = format!(
                    "not reached: step {} failed: expected {}; got {}",
                    failure.step, failure.expected, failure.actual
                );
                (reason.clone(), Some(*failure), Some(reason))
            }
            Some(Halt::Skipped {
                reason,
                rules: skipped,
            }) => {
                for rule in skipped {
                    self.judge.skip(rule, &reason);
                }
                (format!("not reached: {reason}"), None, Some(reason))
            }
        };
        for &rule in &self.scenario.rules {
            if !self.engine.observer().judge().has_verdict(rule) {
                self.judge.skip(rule, &left);
            }
        }
        (failure, skipped)
    }
}
