//! One engine process as a GUI's game loop drives it: started once, `isready` and
//! `usinewgame` before each game, searches, `gameover`, `quit`; every line judged by the
//! always-on observer, each newly broken rule kept once with where it showed.

use crate::blame::Owed;
use crate::engine::{
    Arrival, EngineCommand, Escalation, Event, HeldCores, Line, Patience, SearchSlots, Session,
    SessionOptions, Stream, Wait,
};
use crate::observer::{Observer, SessionState};
use crate::rules::{Claims, Outcome, Profile, RuleId, Timeouts, Verdict};
use crate::usi::{BestMove, Command, Message, OptionKind, Score};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Lines of one game's transcript kept per player; more are counted, not stored.
const MAX_GAME_LOG_LINES: usize = 20_000;

/// Transcript lines quoted with a violation.
const EXCERPT_LINES: usize = 12;

/// How a player is set up: its command line and the options its handshake sets.
#[derive(Clone, Debug)]
pub struct PlayerConfig {
    pub command: EngineCommand,
    /// (name, value; `None` presses a button), sent after `usiok` in this order.
    pub options: Vec<(String, Option<String>)>,
}

/// Where in the match a player's line was judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Place {
    /// Game number, from 1 (0: before the first game).
    pub game: usize,
    /// Plies played in that game when the line came.
    pub ply: usize,
}

/// A rule the engine broke, recorded the first time it showed.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Violation {
    pub verdict: Verdict,
    #[serde(flatten)]
    pub place: Place,
    /// The last transcript lines of that game up to the evidence (`>` sent, `<` stdout, `!`
    /// stderr, `#` events, seconds since the process started).
    pub excerpt: Vec<String>,
    /// The `position` in force when it showed, for the replay scenario.
    pub position: Option<String>,
    /// The last other command sent (a `go`, …), for the replay scenario.
    pub command: Option<String>,
}

/// What the engine process holds after a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub rss_kib: u64,
    pub threads: u64,
    /// Processes it started that are still in its group.
    pub children: u64,
}

/// Why a player could not go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The process ended or closed its output.
    Crash(String),
    /// An owed reply (`usiok`, `readyok`) never came.
    Hang(String),
}

/// What a search came to.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A `bestmove`, the time from `go` to it, how long the machine's load held usicheck
    /// or the engine up meanwhile (a reply late by less is not judged late, as in certify),
    /// and the search's last score of its principal line (`None`: it reported none).
    Best {
        best: BestMove,
        used: Duration,
        held_up: Duration,
        score: Option<Score>,
    },
    /// Nothing before the deadline.
    NoReply,
    Failed(Failure),
}

/// One engine process (restarted after a crash) and everything judged of it.
pub struct Player {
    config: PlayerConfig,
    profile: Profile,
    timeouts: Timeouts,
    session: Option<Session>,
    observer: Observer,
    /// `id name`, once the handshake gave it.
    pub name: Option<String>,
    /// Options the engine declared: name and combo choices.
    declared: Vec<(String, Vec<String>)>,
    log: Vec<String>,
    log_omitted: usize,
    place: Place,
    last_position: Option<String>,
    last_command: Option<String>,
    reported: BTreeSet<RuleId>,
    violations: Vec<Violation>,
    /// Settings this match asks for when the engine has them (`MaxMovesToDraw`, …).
    match_options: Vec<(String, String)>,
    /// When the run's time (`--time`) is up: no wait lasts past it.
    cut_at: Option<Instant>,
    /// The match's cores, shared as certify shares them (none: not limited).
    slots: Option<Arc<SearchSlots>>,
    /// The cores this process holds while it computes.
    cores: HeldCores,
}

impl Player {
    pub fn new(config: PlayerConfig, profile: Profile, claims: Claims) -> Player {
        let timeouts = profile.timeouts();
        Player {
            config,
            profile,
            timeouts,
            session: None,
            observer: Observer::new(profile, claims, timeouts),
            name: None,
            declared: Vec::new(),
            log: Vec::new(),
            log_omitted: 0,
            place: Place::default(),
            last_position: None,
            last_command: None,
            reported: BTreeSet::new(),
            violations: Vec::new(),
            match_options: Vec::new(),
            cut_at: None,
            slots: None,
            cores: HeldCores::default(),
        }
    }

    /// Shares `slots` with the match's other processes: the process takes a core to start and
    /// its search's cores from the first command after it went idle until it answers (lending
    /// them while measured idle), as in certify, so that games at once do not slow each
    /// other's searches into time losses. A ponder search takes none: it would hold the cores
    /// its opponent waits for.
    pub fn share_cores(&mut self, slots: Option<Arc<SearchSlots>>) {
        self.slots = slots;
    }

    /// Waits end at `at` (the run's time limit), whatever they wait for.
    pub fn set_cut_at(&mut self, at: Option<Instant>) {
        self.cut_at = at;
    }

    /// Whether the run's time is up: a wait that ended now was cut short, not failed.
    pub fn past_cut(&self) -> bool {
        self.cut_at.is_some_and(|at| Instant::now() >= at)
    }

    /// Settings sent only to an engine that declares the option (`name`, `value`): a combo
    /// only when `value` is one of its choices.
    pub fn set_if_declared(&mut self, name: &str, value: &str) {
        self.match_options.push((name.to_owned(), value.to_owned()));
    }

    /// The profile its lines are judged under.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The grace G added to every clock bound, as certify measures it.
    pub fn grace(&self) -> Duration {
        self.timeouts.grace
    }

    /// The rules broken so far, each once.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The verdicts of every line judged so far (passes included), taken at the end of the
    /// match.
    pub fn take_verdicts(&mut self) -> Vec<Verdict> {
        self.observer.judge_mut().take_verdicts()
    }

    /// Charges `rule` with what the match saw (leaks across games).
    pub fn charge(&mut self, rule: RuleId, reason: String) {
        self.observer.judge_mut().violation(rule, None, reason);
        self.note_new_violations();
    }

    /// Starts a game: game `game` from ply 0, a fresh transcript.
    pub fn begin_game(&mut self, game: usize) {
        self.place = Place { game, ply: 0 };
        self.log.clear();
        self.log_omitted = 0;
    }

    pub fn set_ply(&mut self, ply: usize) {
        self.place.ply = ply;
    }

    /// This game's transcript so far (`>` sent, `<` stdout, `!` stderr, `#` events, seconds
    /// since the process started), with a note of the lines left out.
    pub fn game_transcript(&self) -> String {
        let mut text = self.log.join("\n");
        text.push('\n');
        if self.log_omitted > 0 {
            text.push_str(&format!("# {} more lines not kept\n", self.log_omitted));
        }
        text
    }

    /// The running process's id, if any.
    pub fn pid(&self) -> Option<i32> {
        self.session
            .as_ref()
            .filter(|s| !s.is_over())
            .map(Session::pid)
    }

    fn note(&mut self, at_micros: u64, sigil: char, text: &str) {
        if self.log.len() < MAX_GAME_LOG_LINES {
            self.log
                .push(format!("{:.6} {sigil} {text}", at_micros as f64 / 1e6));
        } else {
            self.log_omitted += 1;
        }
    }

    fn note_new_violations(&mut self) {
        let new: Vec<RuleId> = self
            .observer
            .judge()
            .violated_rules()
            .into_iter()
            .filter(|rule| !self.reported.contains(rule))
            .collect();
        for rule in new {
            // INFO (a MAY rule observed, a late reply the load explains) is no violation; the
            // rule is reported if it is broken later.
            let Some(verdict) = self
                .observer
                .judge()
                .verdict(rule)
                .filter(|v| matches!(v.outcome, Outcome::Fail | Outcome::Warn))
                .cloned()
            else {
                continue;
            };
            self.reported.insert(rule);
            let start = self.log.len().saturating_sub(EXCERPT_LINES);
            self.violations.push(Violation {
                verdict,
                place: self.place,
                excerpt: self.log[start..].to_vec(),
                position: self.last_position.clone(),
                command: self.last_command.clone(),
            });
        }
    }

    /// Sends one line (the observer follows it), once the engine has its cores.
    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        self.send_taking_cores(line, true)
    }

    /// Sends one line; `take_cores`: waits for the engine's cores first (the line is sent, and
    /// its clock starts, after that wait).
    fn send_taking_cores(&mut self, line: &str, take_cores: bool) -> Result<(), Failure> {
        if take_cores {
            self.cores.before_sending(&Command::parse(line));
        }
        let at = self
            .session
            .as_ref()
            .ok_or_else(|| Failure::Crash("the engine is not running".into()))?
            .elapsed_micros();
        self.note(at, '>', line);
        self.observer.on_send(line, at);
        self.cores.update(self.observer.protocol().computing());
        if line.starts_with("position ") {
            self.last_position = Some(line.to_owned());
        } else {
            self.last_command = Some(line.to_owned());
        }
        self.note_new_violations();
        let sent = self
            .session
            .as_mut()
            .ok_or_else(|| Failure::Crash("the engine is not running".into()))?
            .send(line);
        sent.map_err(|e| {
            // The line never reached the engine: it died of what came before.
            self.observer.on_unsent();
            self.died(format!("could not be sent `{line}` ({e})"))
        })
    }

    /// The engine ended unasked (`how`): charged by what was sent to it, as certify and the
    /// fuzzer charge it ([`crate::blame::death`]); the game is lost by the crash.
    fn died(&mut self, how: String) -> Failure {
        self.cores = HeldCores::default();
        // An interrupt (Ctrl-C) killed it: its death says nothing of the engine.
        if crate::engine::interrupted().is_some() {
            return Failure::Crash(how);
        }
        let death = crate::blame::death(&self.observer);
        let suspects: Vec<String> = (self.observer.sent().suspects().iter())
            .map(|command| format!("`{command}`"))
            .collect();
        self.charge(
            death.rule,
            format!("the engine {how} after {}", suspects.join(", ")),
        );
        // Ended here, so that no later `quit` judges the exit of an engine already charged.
        if let Some(mut session) = self.session.take() {
            session.quit(Duration::ZERO);
        }
        Failure::Crash(how)
    }

    /// A reply the engine owes never came (`how`): charged as certify and the fuzzer charge
    /// it ([`crate::blame::missing_reply`]); the game is lost by the hang.
    fn unanswered(&mut self, owed: Owed, how: String) -> Failure {
        if crate::engine::interrupted().is_some() {
            return Failure::Hang(how);
        }
        let rule = crate::blame::missing_reply(owed, &self.observer);
        self.charge(rule, how.clone());
        Failure::Hang(how)
    }

    /// Reads the engine's output until `wanted` accepts a message or `deadline` passes; every
    /// stdout line is judged. `Ok(None)` at the deadline: a line read after it is judged too,
    /// and ends the wait unanswered ([`Wait`]'s late-line policy).
    fn pump(
        &mut self,
        deadline: Instant,
        mut wanted: impl FnMut(&Message, bool) -> bool,
    ) -> Result<Option<(Line, Message)>, Failure> {
        let deadline = self.cut_at.map_or(deadline, |at| deadline.min(at));
        let mut wait = match &self.session {
            Some(session) => Wait::until(session, deadline),
            None => return Err(Failure::Crash("the engine is not running".into())),
        };
        loop {
            let session = self
                .session
                .as_mut()
                .ok_or_else(|| Failure::Crash("the engine is not running".into()))?;
            let (event, late) = match wait.next(session) {
                Arrival::OnTime(event) => (event, false),
                Arrival::Late(event) => (event, true),
                Arrival::Deadline => return Ok(None),
                Arrival::Over => {
                    let how = session
                        .termination()
                        .map_or("closed its output".to_owned(), |t| t.to_string());
                    return Err(self.died(how));
                }
            };
            match event {
                Event::Line(line) if line.stream == Stream::Stdout => {
                    self.note(line.at_micros, '<', &line.text);
                    let (message, stale) = self.observer.on_line(&line, None);
                    self.cores.update(self.observer.protocol().computing());
                    self.note_new_violations();
                    if !late && wanted(&message, stale) {
                        return Ok(Some((line, message)));
                    }
                }
                Event::Line(line) => self.note(line.at_micros, '!', &line.text),
                Event::Exited { termination, .. } => {
                    let at = session.elapsed_micros();
                    self.note(at, '#', &format!("{termination}"));
                    return Err(self.died(termination.to_string()));
                }
                Event::Eof { stream, at_micros } => {
                    self.note(at_micros, '#', &format!("{stream:?} closed"));
                }
            }
        }
    }

    /// Starts the process if it is not running (again after a crash) and does the
    /// handshake: `usi`, `usiok`, the options.
    pub fn ensure_started(&mut self) -> Result<(), Failure> {
        if self.session.as_ref().is_some_and(|s| !s.is_over()) {
            return Ok(());
        }
        // Start-up computes too (gpsusi loads its tables for a second).
        self.cores = HeldCores::starting(self.slots.as_ref());
        let session = match Session::start(&self.config.command, SessionOptions::default()) {
            Ok(session) => session,
            Err(e) => {
                self.cores = HeldCores::default();
                return Err(Failure::Crash(format!("cannot start: {e}")));
            }
        };
        self.cores.watch(session.pid());
        // A restarted process is a new engine for the observer; the verdicts stay.
        self.observer.swap_session(SessionState::default());
        self.observer.set_origin(session.origin(), session.pid());
        self.session = Some(session);
        self.send("usi")?;
        let deadline = Instant::now() + self.timeouts.usiok;
        let mut declared = Vec::new();
        let mut name = None;
        let usiok = self.pump(deadline, |message, _| {
            match message {
                Message::IdName(n) => name = Some(n.clone()),
                Message::Option(decl) => {
                    let vars = match &decl.kind {
                        OptionKind::Combo { vars, .. } => vars.clone(),
                        _ => Vec::new(),
                    };
                    declared.push((decl.name.clone(), vars));
                }
                _ => {}
            }
            matches!(message, Message::UsiOk)
        })?;
        self.name = name.or(self.name.take());
        self.declared = declared;
        if usiok.is_none() {
            let how = format!("no `usiok` within {} ms", self.timeouts.usiok.as_millis());
            return Err(self.unanswered(Owed::Usiok, how));
        }
        let mut settings: Vec<String> = Vec::new();
        for (option, value) in &self.match_options {
            let fits = self.declared.iter().any(|(name, vars)| {
                name.eq_ignore_ascii_case(option) && (vars.is_empty() || vars.contains(value))
            });
            if fits {
                settings.push(format!("setoption name {option} value {value}"));
            }
        }
        for (option, value) in &self.config.options {
            settings.push(match value {
                Some(value) => format!("setoption name {option} value {value}"),
                None => format!("setoption name {option}"),
            });
        }
        for line in settings {
            self.send(&line)?;
        }
        Ok(())
    }

    /// `isready` until `readyok` (keep-alive lines restart the wait), then `usinewgame`.
    pub fn new_game(&mut self) -> Result<(), Failure> {
        self.ensure_started()?;
        self.send("isready")?;
        let patience = Patience::KeepAlive {
            idle: self.timeouts.ready_silence,
            cap: self.timeouts.ready_cap,
        };
        let start = Instant::now();
        let cap = start + self.timeouts.ready_cap;
        loop {
            let idle = Instant::now() + patience.first_deadline();
            // A `readyok` read before this `isready` was sent answers an earlier one.
            match self.pump(idle.min(cap), |_, _| true)? {
                Some((_, Message::ReadyOk)) if !self.observer.protocol().awaiting_readyok() => {
                    break;
                }
                Some(_) if Instant::now() < cap => {}
                _ => {
                    let how = format!(
                        "no `readyok` (silence {} ms, cap {} ms)",
                        self.timeouts.ready_silence.as_millis(),
                        self.timeouts.ready_cap.as_millis()
                    );
                    return Err(self.unanswered(Owed::Readyok, how));
                }
            }
        }
        self.send("usinewgame")
    }

    /// Sends `position` and `go`, and waits up to `patience` after `go` for the `bestmove`.
    pub fn search(&mut self, position: &str, go: &str, patience: Duration) -> Reply {
        if let Err(failure) = self.send(position).and_then(|()| self.send(go)) {
            return Reply::Failed(failure);
        }
        self.await_best(patience)
    }

    /// Sends `position` with the predicted move and `go ponder …`: the engine thinks on the
    /// opponent's time until `ponderhit` or `stop`. Neither takes a core: pondering engines
    /// holding the cores their opponents wait for would wait on each other for ever.
    pub fn ponder(&mut self, position: &str, go_ponder: &str) -> Result<(), Failure> {
        self.send_taking_cores(position, false)?;
        self.send_taking_cores(go_ponder, false)
    }

    /// The predicted move was played: `ponderhit`, and the `bestmove` awaited up to
    /// `patience` from it (the engine's clock runs from `ponderhit`).
    pub fn ponderhit(&mut self, patience: Duration) -> Reply {
        if let Err(failure) = self.send("ponderhit") {
            return Reply::Failed(failure);
        }
        self.await_best(patience)
    }

    /// The `bestmove` of the search just started (the last line sent), within `patience`.
    fn await_best(&mut self, patience: Duration) -> Reply {
        let sent = match &self.session {
            Some(session) => session.elapsed_micros(),
            None => return Reply::Failed(Failure::Crash("the engine is not running".into())),
        };
        let cpu_wait = self.observer.protocol().engine_cpu_wait();
        let deadline = Instant::now() + patience;
        let mut score = None;
        match self.pump(deadline, |message, stale| {
            if let Message::Info(info) = message
                && info.multipv.is_none_or(|k| k == 1)
                && info.score.is_some()
            {
                score = info.score;
            }
            !stale && matches!(message, Message::BestMove(_))
        }) {
            Ok(Some((line, Message::BestMove(best)))) => {
                let used = line.at_micros.saturating_sub(sent);
                let held_up = self
                    .observer
                    .protocol()
                    .held_up_between(sent, line.at_micros, &cpu_wait)
                    .most();
                Reply::Best {
                    best,
                    used: Duration::from_micros(used),
                    held_up: Duration::from_micros(held_up),
                    score,
                }
            }
            Ok(_) => Reply::NoReply,
            Err(failure) => Reply::Failed(failure),
        }
    }

    /// `stop` to a search whose move will not be played (a ponder miss, a search past its
    /// time, the game over), and its `bestmove` awaited for T-STOP.
    pub fn stop(&mut self) -> Result<(), Failure> {
        self.send("stop")?;
        let deadline = Instant::now() + self.timeouts.stop;
        match self.pump(deadline, |message, stale| {
            !stale && matches!(message, Message::BestMove(_))
        })? {
            Some(_) => Ok(()),
            None => {
                let how = format!(
                    "no `bestmove` within {} ms of `stop`",
                    self.timeouts.stop.as_millis()
                );
                Err(self.unanswered(Owed::Search, how))
            }
        }
    }

    /// Stops a search still running, its `bestmove` awaited for T-STOP (no reply is judged
    /// by the observer, not by the referee: the game is over).
    pub fn end_search(&mut self) {
        if self.observer.protocol().searching() {
            let _ = self.stop();
        }
    }

    /// `gameover RESULT` (`win`, `lose`, `draw`: the engine's point of view).
    pub fn gameover(&mut self, result: &str) {
        let _ = self.send(&format!("gameover {result}"));
    }

    /// The process's resident memory (KiB) and threads, and the processes it has started
    /// still in its group, from `/proc`.
    pub fn sample(&self) -> Option<Sample> {
        let pid = self.pid()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse().ok())
        };
        let group = crate::engine::group_cpu(&[pid]).pop().flatten()?;
        Some(Sample {
            rss_kib: field("VmRSS:")?,
            threads: field("Threads:")?,
            children: group.processes.saturating_sub(1),
        })
    }

    /// `quit`, the exit awaited (then the group killed); a reply still owed is judged.
    pub fn quit(&mut self) {
        self.leave(true);
    }

    /// `quit` as [`quit`](Self::quit) does, for a game the run's time cut short: nothing of
    /// the engine's leaving (a search still running, its exit) is judged.
    pub fn abandon(&mut self) {
        self.leave(false);
    }

    fn leave(&mut self, judged: bool) {
        let Some(mut session) = self.session.take() else {
            return;
        };
        let at = session.elapsed_micros();
        let searching = self.observer.protocol().searching();
        if judged {
            self.observer.on_send("quit", at);
        }
        self.note(at, '>', "quit");
        let report = session.quit(self.timeouts.quit);
        self.cores = HeldCores::default();
        // An interrupt (Ctrl-C) kills the engine: its exit and a reply it still owed say
        // nothing of it then.
        if !judged || crate::engine::interrupted().is_some() {
            return;
        }
        self.observer.on_end(session.elapsed_micros());
        // Signals were usicheck's: the engine ignored `quit`. Its own exit must be clean.
        if report.escalation != Escalation::None {
            let reason = format!(
                "still running {} ms after `quit`: ended by usicheck's signals",
                self.timeouts.quit.as_millis()
            );
            let rule = crate::blame::ignored_quit(searching);
            self.observer.judge_mut().violation(rule, None, reason);
        } else if let Some(termination) = report.termination {
            self.observer.on_asked_exit(&termination, "after `quit`");
        }
        self.note_new_violations();
    }
}
