//! Runs one command list against a fresh engine, every line judged by the observer as in
//! `usicheck run`, and reports the first violation that ends the session. [`run`] drives an
//! engine process; [`drive`] drives any [`Transport`] (an in-process engine, too).

use super::coverage::{Coverage, Gap, Sent, State};
use super::known::Known;
use super::oracle::{Oracle, Violation};
use super::plan::{self, Cmd, Kind, Search, When};
use super::transport::Transport;
use crate::blame::{Owed, missing_reply};
use crate::engine::{
    Arrival, Event, HeldCores, Line, Session, SessionOptions, StartError, Stream, Termination,
    Timeouts, Wait, sanitise,
};
use crate::observer::{CLOCK_RULES, GoKind, Observer, complete_lines};
use crate::rules::{Claims, Outcome, Profile, RuleId};
use crate::usi::Command;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// The options the fuzzer sets before every session (the ponder faults need `USI_Ponder`).
pub const PRELUDE_OPTIONS: &[(&str, &str)] = &[("USI_Ponder", "true")];

/// What one session showed.
pub struct SessionResult {
    pub violation: Option<Violation>,
    /// Violations that leave the protocol in step (a line's grammar, free text): noted, the
    /// first of each rule, while the session goes on exploring; and the other rules the line
    /// that ended the session broke.
    pub noted: Vec<Violation>,
    /// `go` commands the engine answered (positions checked).
    pub answered: u64,
    /// The whole exchange, as the driver recorded it (only kept with a violation).
    pub transcript: String,
    /// The campaign's time ran out before the session ended ([`Driving::end`]): it was cut
    /// short, and what it did not reach is unjudged.
    pub cut: bool,
    /// Known findings met ([`Driving::known`]): counted, not reported again.
    pub known: Vec<Violation>,
    /// The known finding that ended the session (the last of `known`), if one did: what a
    /// shrinker re-running a candidate needs to see.
    pub known_end: Option<Violation>,
    /// The (state × command × timing) cells the session's commands were sent in.
    pub coverage: Coverage,
    /// The violation is a reply late against its clock, to the first search after a
    /// `usinewgame` not followed by `isready`: a settled re-run tells whether the work at
    /// `usinewgame` delayed it ([`crate::blame::late_search`]).
    pub late_after_newgame: bool,
}

/// How a session is driven and judged, whatever carries it.
pub struct Driving<'a> {
    /// Bounds of the waits for `usiok`, `readyok`, a reply after `stop`, the exit after `quit`.
    pub timeouts: &'a Timeouts,
    /// The user's options for the handshake (`--option`).
    pub options: &'a [(String, Option<String>)],
    /// The profile and claims findings are graded under.
    pub profile: Profile,
    pub claims: &'a Claims,
    /// Whether a reply that came, but later than its clock allows plus the grace
    /// ([`CLOCK_RULES`]), is a finding. A reply that does not come within the plan's deadline
    /// (the limit plus seconds of slack) is one either way.
    pub judge_clock: bool,
    /// When the campaign's time runs out (`--time`): every wait ends by then, the engine is
    /// killed, and the session is cut short rather than charged with a hang.
    pub end: Option<Instant>,
    /// Findings already known: met again, they are counted and the session recovers (a
    /// missing reply is asked for with `stop`) or, when the engine is gone, ends quietly.
    pub known: &'a Known,
}

/// Runs `cmds` against a fresh process of the configured engine, cut short at `end`.
pub fn run(
    config: &super::Config,
    cmds: &[Cmd],
    end: Option<Instant>,
    known: &Known,
) -> Result<SessionResult, StartError> {
    let cores = HeldCores::starting(config.search_slots.as_ref());
    let mut session = Session::start(&config.engine, SessionOptions::default())?;
    // An engine idle through a pause lends its cores to the other sessions.
    cores.watch(session.pid());
    let profile = config.profile;
    let mut observer = Observer::new(profile, config.claims.clone(), profile.timeouts());
    observer.set_origin(session.origin(), session.pid());
    let driving = Driving {
        timeouts: &config.timeouts,
        options: &config.options,
        profile,
        claims: &config.claims,
        judge_clock: true,
        end,
        known,
    };
    Ok(drive(&mut session, observer, &driving, cores, cmds))
}

/// Runs `cmds` against `engine`, fresh from its start: handshake, the commands, a closing
/// `isready` and `quit`, every line judged by `observer`.
pub fn drive(
    engine: &mut impl Transport,
    observer: Observer,
    driving: &Driving,
    cores: HeldCores,
    cmds: &[Cmd],
) -> SessionResult {
    let mut run = Run {
        session: engine,
        observer,
        seen: BTreeSet::new(),
        answered: 0,
        step: None,
        last_sent: None,
        last_go: None,
        last_message: None,
        timeouts: driving.timeouts,
        options: driving.options,
        grading: (driving.profile, driving.claims),
        judge_clock: driving.judge_clock,
        end: driving.end,
        handshake_option: None,
        noted: Vec::new(),
        cores,
        known: driving.known,
        known_met: Vec::new(),
        coverage: Coverage::default(),
        last_write: None,
        stop_sent: false,
        ponderhit_sent: false,
        after_gameover: false,
        newgame_unsettled: false,
        search_after_newgame: false,
        searching_at_quit: false,
        stdout_seen: false,
        raced_reply: None,
        released: None,
    };
    let (violation, known_end, cut) = match run.all(cmds) {
        Ok(()) => (None, None, false),
        Err(Stop::Violation(v)) => (Some(v), None, false),
        Err(Stop::Known(v)) => {
            run.known_met.push(v.clone());
            (None, Some(v), false)
        }
        Err(Stop::TimeUp) => (None, None, true),
    };
    let late_after_newgame = run.search_after_newgame
        && violation
            .as_ref()
            .is_some_and(|v| v.oracle == Oracle::Hang && CLOCK_RULES.contains(&v.rule));
    let ended = violation.is_some() || known_end.is_some() || cut;
    let answered = run.answered;
    let noted = std::mem::take(&mut run.noted);
    let known = std::mem::take(&mut run.known_met);
    let coverage = std::mem::take(&mut run.coverage);
    if ended {
        // The engine's state no longer matters: end it at once.
        let _ = engine.quit(Duration::ZERO, false);
    }
    let transcript = match violation {
        Some(_) => engine.transcript(),
        None => String::new(),
    };
    SessionResult {
        violation,
        noted,
        answered,
        transcript,
        cut,
        known,
        known_end,
        coverage,
        late_after_newgame,
    }
}

struct Run<'a, T: Transport> {
    session: &'a mut T,
    /// Judges every line, as in `usicheck run`.
    observer: Observer,
    /// Rules whose violation was already turned into a [`Violation`].
    seen: BTreeSet<RuleId>,
    /// `go` commands answered so far.
    answered: u64,
    step: Option<usize>,
    /// The last command sent other than `isready`.
    last_sent: Option<&'a Cmd>,
    /// The last `go` sent.
    last_go: Option<&'a Cmd>,
    /// The engine's last line on either stream, for the report of an exit.
    last_message: Option<String>,
    timeouts: &'a Timeouts,
    /// The user's options for the handshake (`--option`).
    options: &'a [(String, Option<String>)],
    /// The profile and claims findings are graded under.
    grading: (Profile, &'a Claims),
    /// See [`Driving::judge_clock`].
    judge_clock: bool,
    /// See [`Driving::end`].
    end: Option<Instant>,
    /// The last `setoption` of the handshake, while no planned command was sent yet.
    handshake_option: Option<String>,
    /// Non-fatal violations seen so far, one per rule.
    noted: Vec<Violation>,
    /// The cores the engine holds from a command until its answer.
    cores: HeldCores,
    /// See [`Driving::known`].
    known: &'a Known,
    /// Known findings met so far.
    known_met: Vec<Violation>,
    coverage: Coverage,
    /// When the last write to the engine went out.
    last_write: Option<Instant>,
    /// Since the last `go`: `stop` sent, `ponderhit` sent.
    stop_sent: bool,
    ponderhit_sent: bool,
    /// `gameover` sent and no new game or search since.
    after_gameover: bool,
    /// `usinewgame` sent and no `isready` or search since.
    newgame_unsettled: bool,
    /// The last search is the first after a `usinewgame` not followed by `isready`.
    search_after_newgame: bool,
    /// A search was running (owing its reply or released by `gameover`) when `quit` was sent.
    searching_at_quit: bool,
    /// A line was read on stdout.
    stdout_seen: bool,
    /// A timed reply whose wait the next command races: when it is due, and the rule a
    /// missing one breaks. It is awaited once the race is over.
    raced_reply: Option<(Instant, RuleId)>,
    /// A search `gameover` released from its reply, until that reply comes or the search is
    /// known to have ended.
    released: Option<Released>,
}

/// A search released by `gameover`: when, whether a `stop` came before, and the last search
/// `info` line read since.
struct Released {
    at_micros: u64,
    stopped_before: bool,
    last_info: Option<(u64, String)>,
}

/// Why a session ends before its last command.
enum Stop {
    Violation(Violation),
    /// A known finding the session cannot go on from (the engine is gone or stuck).
    Known(Violation),
    /// The campaign's time ran out ([`Driving::end`]).
    TimeUp,
}

impl From<Violation> for Stop {
    fn from(violation: Violation) -> Stop {
        Stop::Violation(violation)
    }
}

type Step = Result<(), Stop>;

/// Why a wait ended without what it waited for.
enum Unmet {
    Deadline,
    /// The engine closed its output.
    Closed,
}

/// Whether the engine owes no reply to a search.
fn owes_nothing(observer: &Observer) -> bool {
    observer.protocol().owed_search().is_none()
}

/// How long a search `gameover` released is given to answer a `stop` sent T-STOP after it.
pub(super) const RELEASED_WATCH: Duration = Duration::from_millis(200);

impl<'a, T: Transport> Run<'a, T> {
    fn all(&mut self, cmds: &'a [Cmd]) -> Step {
        self.send_line("usi")?;
        let usiok = self.wait(
            |o| !o.protocol().awaiting_usiok(),
            self.timeouts.usiok,
            missing_reply(Owed::Usiok, &self.observer),
            "usiok",
        );
        if let Err(Stop::Violation(missing)) = usiok {
            // Only an engine that wrote nothing on stdout may hold its output back.
            let at_exit = !self.stdout_seen && self.usiok_at_exit();
            let rule = crate::blame::no_usiok(at_exit);
            return Err(match rule == missing.rule {
                true => Stop::Violation(missing),
                false => self.fatal(
                    self.violation(
                        Oracle::Hang,
                        rule,
                        "`usiok` arrived only when the engine exited after `quit`: its stdout is \
                     not flushed"
                            .into(),
                    ),
                ),
            });
        }
        usiok?;
        let prelude = PRELUDE_OPTIONS
            .iter()
            .map(|(name, value)| format!("setoption name {name} value {value}"));
        let given = self.options.iter().map(|(name, value)| match value {
            Some(value) => format!("setoption name {name} value {value}"),
            None => format!("setoption name {name}"),
        });
        for line in prelude.chain(given).collect::<Vec<_>>() {
            self.handshake_option = Some(line.clone());
            self.send_line(&line)?;
        }
        self.isready()?;
        self.send_line("usinewgame")?;
        // What the engine already wrote in answer to `usinewgame` is read before the first
        // command: a reply no `go` asked for is not taken for the first search's.
        self.pump(self.session.now())?;
        let mut i = 0;
        while i < cmds.len() {
            // Commands in the same write as the first go out together, then each is handled.
            let end = i
                + 1
                + cmds[i + 1..]
                    .iter()
                    .take_while(|c| c.when == When::SameWrite)
                    .count();
            self.step = Some(i);
            if cmds[i..end].iter().any(|c| matches!(c.kind, Kind::Go(_))) {
                self.check_released_search()?;
            }
            self.write(&cmds[i..end])?;
            for (k, cmd) in cmds.iter().enumerate().take(end).skip(i) {
                self.step = Some(k);
                if matches!(cmd.kind, Kind::Quit) {
                    // Written with the commands before it, or alone by the executor's end.
                    return self.await_exit(k > i);
                }
                self.handle(cmd, plan::raced(cmds, k))?;
            }
            i = end;
        }
        self.step = Some(cmds.len());
        if self.observer.protocol().owed_search().is_some() {
            self.send_line("stop")?;
            self.await_terminal(
                self.timeouts.stop + Duration::from_secs(2),
                missing_reply(Owed::Search, &self.observer),
            )?;
        }
        self.isready()?;
        self.note_sent("quit", false);
        self.searching_at_quit = self.observer.protocol().searching();
        self.await_exit(false)
    }

    /// After no `usiok` by its deadline: `quit`, and whether a `usiok` came as the engine
    /// exited (written, but held in a buffer it never flushed).
    fn usiok_at_exit(&mut self) -> bool {
        if self.session.send("quit").is_err() {
            return false;
        }
        let deadline = self.until_end(self.session.now() + self.timeouts.quit);
        self.reply_by(deadline, |m| matches!(m, crate::usi::Message::UsiOk))
    }

    /// Whether a stdout line `wanted` comes by `deadline`, read past the observer (the session
    /// ends after it); a line read after the deadline ends the wait ([`Wait`]).
    fn reply_by(
        &mut self,
        deadline: Instant,
        wanted: impl Fn(&crate::usi::Message) -> bool,
    ) -> bool {
        let mut wait = Wait::until(self.session, deadline);
        loop {
            match wait.next(self.session) {
                Arrival::OnTime(Event::Line(line))
                    if line.stream == Stream::Stdout
                        && wanted(&crate::usi::Message::parse(&line.text).0) =>
                {
                    return true;
                }
                Arrival::OnTime(Event::Exited { .. }) => return false,
                Arrival::OnTime(_) => {}
                Arrival::Late(_) | Arrival::Deadline | Arrival::Over => return false,
            }
        }
    }

    /// Ends the engine with `quit` (`sent` already): it must exit within T-QUIT.
    fn await_exit(&mut self, sent: bool) -> Step {
        let within = self.within_end(self.timeouts.quit);
        if let Err(how) = self.session.quit(within, sent) {
            self.check_time()?;
            let v = self.violation(
                Oracle::Hang,
                crate::blame::ignored_quit(self.searching_at_quit),
                format!("did not exit after `quit` ({how})"),
            );
            return Err(self.fatal(v));
        }
        Ok(())
    }

    /// A violation that ends the session: reported, or counted when known.
    fn fatal(&self, v: Violation) -> Stop {
        if self.known.contains(&v) {
            Stop::Known(v)
        } else {
            Stop::Violation(v)
        }
    }

    /// `deadline`, or the campaign's end if that comes first.
    fn until_end(&self, deadline: Instant) -> Instant {
        self.end.map_or(deadline, |end| deadline.min(end))
    }

    /// `within` from now, or until the campaign's end if that comes first.
    fn within_end(&self, within: Duration) -> Duration {
        self.end.map_or(within, |end| {
            within.min(end.saturating_duration_since(self.session.now()))
        })
    }

    /// [`Stop::TimeUp`] once the campaign's end has passed.
    fn check_time(&self) -> Step {
        match self.end {
            Some(end) if self.session.now() >= end => Err(Stop::TimeUp),
            _ => Ok(()),
        }
    }

    /// Sends `cmds` in one write (pauses are waited out instead).
    fn write(&mut self, cmds: &'a [Cmd]) -> Step {
        if let [cmd] = cmds {
            if let Kind::Sleep(d) = cmd.kind {
                return self.pump(self.session.now() + d);
            }
            // `quit` is written by the executor's end of the engine.
            if matches!(cmd.kind, Kind::Quit) {
                self.last_sent = Some(cmd);
                self.note_sent(&cmd.text, false);
                self.follow_sent(&cmd.text);
                return Ok(());
            }
        }
        let mut bytes = Vec::new();
        for (k, cmd) in cmds.iter().enumerate() {
            // `isready` is what shows that an earlier command killed the engine: blame the
            // earlier.
            if !matches!(cmd.kind, Kind::IsReady) {
                self.last_sent = Some(cmd);
            }
            let same_write = k > 0;
            if cmd.raw {
                for line in complete_lines(&cmd.text) {
                    self.note_sent(line, same_write);
                    self.follow_sent(line);
                }
                bytes.extend_from_slice(cmd.text.as_bytes());
            } else {
                self.note_sent(&cmd.text, same_write);
                self.follow_sent(&cmd.text);
                bytes.extend_from_slice(cmd.text.as_bytes());
                bytes.push(b'\n');
            }
        }
        let sent = self.session.send_raw(&bytes);
        self.sent(sent.is_ok())
    }

    /// Waits for what `cmd`, just sent, owes; a reply the next command races (`raced`) is
    /// awaited only after it.
    fn handle(&mut self, cmd: &'a Cmd, raced: bool) -> Step {
        match &cmd.kind {
            Kind::Go(search) => {
                self.last_go = Some(cmd);
                match *search {
                    Search::Timed(d) | Search::Mate(Some(d)) => {
                        let rule = missing_reply(Owed::Search, &self.observer);
                        self.raced_reply = Some((self.session.now() + d, rule));
                    }
                    Search::Infinite | Search::Ponder(_) | Search::Mate(None) => {}
                }
            }
            Kind::Stop => {
                if self.observer.protocol().owed_search().is_some() {
                    self.raced_reply = None;
                    self.await_terminal(
                        self.timeouts.stop + Duration::from_secs(2),
                        missing_reply(Owed::Search, &self.observer),
                    )?;
                }
            }
            Kind::PonderHit => {
                if self.observer.protocol().owed_search() == Some(GoKind::Ponder)
                    && let Some(Kind::Go(Search::Ponder(d))) = self.last_go.map(|go| &go.kind)
                {
                    let rule = missing_reply(Owed::Search, &self.observer);
                    self.raced_reply = Some((self.session.now() + *d, rule));
                }
            }
            Kind::IsReady => self.await_readyok()?,
            Kind::GameOver => {
                self.raced_reply = None;
                let protocol = self.observer.protocol();
                if protocol.search_kind().is_some() && protocol.owed_search().is_none() {
                    self.released.get_or_insert(Released {
                        at_micros: self.session.elapsed_micros(),
                        stopped_before: self.stop_sent,
                        last_info: None,
                    });
                    self.stop_known_released()?;
                }
            }
            Kind::Position(_)
            | Kind::NewGame
            | Kind::SetOption
            | Kind::Other
            | Kind::Sleep(_)
            | Kind::Quit => {}
        }
        if raced {
            return Ok(());
        }
        match self.raced_reply.take() {
            Some((due, rule)) if self.observer.protocol().owed_search().is_some() => {
                self.await_terminal(due.saturating_duration_since(self.session.now()), rule)
            }
            _ => Ok(()),
        }
    }

    /// Counts the line about to be sent in its coverage cell: the engine's state before it,
    /// what it is, and how long after the previous write (`same_write`: in the same one).
    fn note_sent(&mut self, line: &str, same_write: bool) {
        let now = self.session.now();
        let gap = match self.last_write {
            _ if same_write => Gap::SameWrite,
            Some(last) => Gap::after(now - last),
            None => Gap::Longer,
        };
        let sent = Sent::of(line);
        self.coverage.note(self.state(), sent, gap);
        if !same_write {
            self.last_write = Some(now);
        }
        match sent {
            Sent::Go => {
                self.stop_sent = false;
                self.ponderhit_sent = false;
                self.after_gameover = false;
                self.search_after_newgame = std::mem::take(&mut self.newgame_unsettled);
            }
            Sent::IsReady => self.newgame_unsettled = false,
            Sent::Stop => self.stop_sent = true,
            Sent::PonderHit => self.ponderhit_sent = true,
            Sent::GameOver => self.after_gameover = true,
            Sent::NewGame => {
                self.after_gameover = false;
                self.newgame_unsettled = true;
            }
            _ => {}
        }
    }

    /// The engine's protocol state as the GUI sees it now.
    fn state(&self) -> State {
        let protocol = self.observer.protocol();
        if protocol.awaiting_readyok() {
            return State::BeforeReadyok;
        }
        match protocol.owed_search() {
            Some(GoKind::Mate) => State::MateSearch,
            Some(_) if self.stop_sent => State::AfterStop,
            Some(GoKind::Ponder) if self.ponderhit_sent => State::AfterPonderhit,
            Some(GoKind::Ponder) => State::Pondering,
            Some(_) => State::Searching,
            None if self.after_gameover => State::AfterGameover,
            None => State::Idle,
        }
    }

    fn send_line(&mut self, line: &str) -> Step {
        self.note_sent(line, false);
        self.follow_sent(line);
        let sent = self.session.send(line);
        self.sent(sent.is_ok())
    }

    /// The observer follows every line sent, at the session clock's time.
    fn follow_sent(&mut self, line: &str) {
        let command = Command::parse(line);
        if command == Command::Quit {
            self.searching_at_quit = self.observer.protocol().searching();
        }
        self.cores.before_sending(&command);
        let now = self.session.elapsed_micros();
        self.observer.on_send(line, now);
        self.cores.update(self.observer.protocol().computing());
    }

    /// A failed send means the engine is gone (or not reading): find out which. Its exit is
    /// awaited as long as after `quit`: on a loaded machine a death can take long to be reaped,
    /// and a dead engine must not be charged with not reading.
    fn sent(&mut self, ok: bool) -> Step {
        if ok {
            return Ok(());
        }
        self.observer.on_unsent();
        self.pump(self.session.now() + self.timeouts.quit)?;
        let v = self.violation(
            Oracle::Hang,
            crate::blame::unread(),
            "stopped reading its input".into(),
        );
        Err(self.fatal(v))
    }

    fn isready(&mut self) -> Step {
        self.send_line("isready")?;
        self.await_readyok()
    }

    fn await_readyok(&mut self) -> Step {
        let readyok = |o: &Observer| !o.protocol().awaiting_readyok();
        if self.observer.protocol().search_kind().is_none() {
            let owed = match self.after_gameover {
                true => Owed::ReadyokAfterGameover,
                false => Owed::Readyok,
            };
            return self.wait(
                readyok,
                self.timeouts.ready_idle,
                missing_reply(owed, &self.observer),
                "readyok",
            );
        }
        // During a search `isready` is a ping, answered at once (USI-READY-006, optional and
        // not judged here); after a `gameover` that ended one, it is answered once the search
        // has stopped. A hung engine is not waited out for T-READY.
        let ping = self.timeouts.stop + Duration::from_secs(1);
        if self
            .read_until(readyok, self.until_end(self.session.now() + ping))?
            .is_none()
        {
            return Ok(());
        }
        self.check_time()?;
        if self.observer.protocol().owed_search().is_none() {
            return self.readyok_after_gameover(ping);
        }
        // The engine answers `isready` only after its search, or hangs: the search is ended as
        // its command says, and a missing reply is charged to it.
        match self.raced_reply.take() {
            Some((due, rule)) => {
                self.await_terminal(due.saturating_duration_since(self.session.now()), rule)?;
            }
            None => {
                if !self.stop_sent {
                    self.send_line("stop")?;
                }
                self.await_terminal(
                    self.timeouts.stop + Duration::from_secs(2),
                    missing_reply(Owed::Search, &self.observer),
                )?;
            }
        }
        self.wait(
            readyok,
            self.timeouts.stop,
            missing_reply(Owed::Readyok, &self.observer),
            "readyok, nor after the search ended",
        )
    }

    /// No `readyok` within `waited` of `isready` after a `gameover` released a search: the
    /// search still runs, or the engine ignores `isready`. `stop` (unless one went before the
    /// `gameover`) and T-STOP more, then a plain search, tell which: the rule is
    /// [`crate::blame::after_release`]'s.
    fn readyok_after_gameover(&mut self, waited: Duration) -> Step {
        let stopped_before = self.released.as_ref().is_some_and(|r| r.stopped_before);
        if !self.stop_sent {
            self.send_line("stop")?;
        }
        let after_stop = self.session.now() + self.timeouts.stop + Duration::from_secs(1);
        let answered = |o: &Observer| !o.protocol().awaiting_readyok();
        self.read_until(answered, self.until_end(after_stop))?;
        self.check_time()?;
        let readyok_came = !self.observer.protocol().awaiting_readyok();
        let what = if !readyok_came {
            "nor later"
        } else if self.observer.protocol().search_kind().is_none() {
            "its search answered `stop` only later"
        } else {
            "it came only later"
        };
        let answers_search = !readyok_came && self.answers_a_search();
        let rule = crate::blame::after_release(crate::blame::AfterRelease {
            stopped_before,
            readyok_came,
            answers_search,
        });
        // A search that runs on after `gameover` is protocol, as everywhere (one finding
        // group); a late answer to `stop`, or none to `isready`, is a hang, as when awaited.
        let oracle = if rule == crate::blame::runs_on_after_gameover() {
            Oracle::Protocol
        } else {
            Oracle::Hang
        };
        let v = self.violation(
            oracle,
            rule,
            format!(
                "no `readyok` within {} ms of `isready` after `stop` or `gameover` ended a \
                 search ({what})",
                waited.as_millis()
            ),
        );
        Err(self.fatal(v))
    }

    /// Whether the engine answers a plain search now, sent past the observer (the session
    /// ends after it): an engine deaf to `isready` alone from one that reads nothing.
    fn answers_a_search(&mut self) -> bool {
        for line in ["position startpos", "go btime 0 wtime 0 byoyomi 100"] {
            if self.session.send(line).is_err() {
                return false;
            }
        }
        let within = self.timeouts.stop + Duration::from_secs(1);
        let deadline = self.until_end(self.session.now() + within);
        self.reply_by(deadline, |m| matches!(m, crate::usi::Message::BestMove(_)))
    }

    /// A search `gameover` released, from an engine known to run such searches on
    /// (USI-GAMEOVER-004): `stop` at once ends it, a reply to it counted as the finding met
    /// again, instead of T-STOP waited out before the next `go`, and before the engine is sent
    /// what it may block on behind that search (Fairy-Stockfish's `usinewgame`).
    fn stop_known_released(&mut self) -> Step {
        let v = self.violation(
            Oracle::Protocol,
            crate::blame::runs_on_after_gameover(),
            "the search `gameover` ended answered a `stop` sent at once".into(),
        );
        if !self.known.contains(&v) || self.stop_sent {
            return Ok(());
        }
        // A reply already written ended the search by itself.
        self.pump(self.session.now())?;
        if self.released.is_none() {
            return Ok(());
        }
        self.send_line("stop")?;
        let ended = |o: &Observer| o.protocol().search_kind().is_none();
        self.read_until(ended, self.until_end(self.session.now() + RELEASED_WATCH))?;
        self.check_time()?;
        if self.released.is_none() {
            self.known_met.push(v);
        }
        Ok(())
    }

    /// Before a new `go`, a search `gameover` released without its reply must be idle by
    /// T-STOP after the `gameover` (USI-GAMEOVER-004's check): no search line in
    /// [`RELEASED_WATCH`] from then on, and no reply to a `stop` sent then (the reproducer's
    /// two silences). An engine that ignores `gameover` (Fairy-Stockfish:
    /// "Unknown command") would otherwise block on the new `go` behind that search, and its
    /// silence be charged to the new search. A known finding is recovered from with `stop`.
    fn check_released_search(&mut self) -> Step {
        let Some(released) = &self.released else {
            return Ok(());
        };
        let idle_by = released.at_micros + self.timeouts.stop.as_micros() as u64;
        let to_idle = idle_by.saturating_sub(self.session.elapsed_micros());
        self.pump(self.session.now() + Duration::from_micros(to_idle))?;
        if self.released.is_none() {
            // Its reply came: it ended.
            return Ok(());
        }
        // Then silence for a while, as the reproducer checks it: a line read before (the reply
        // to a command, say an `info` with `readyok`) is no search running on.
        let watch_from = self.session.elapsed_micros();
        self.pump(self.session.now() + RELEASED_WATCH)?;
        let mut deaf = false;
        let ran_on = match self.released.as_ref().map(|r| r.last_info.clone()) {
            Some(Some((at, text))) if at > watch_from => Some(format!("`{text}`")),
            // Its reply came then.
            None => Some(format!(
                "`{}`",
                self.last_message.clone().unwrap_or_default()
            )),
            Some(_) => {
                self.send_line("stop")?;
                self.pump(self.session.now() + RELEASED_WATCH)?;
                match (&self.released, self.last_message.clone()) {
                    (None, reply) => Some(format!(
                        "`{}` to a `stop` sent then",
                        reply.unwrap_or_default()
                    )),
                    // Silent: idle, or deaf behind that search (Fairy-Stockfish's `usinewgame`
                    // waits for it): `isready` tells.
                    (Some(_), _) => {
                        self.send_line("isready")?;
                        let answered = |o: &Observer| !o.protocol().awaiting_readyok();
                        let by = self.until_end(self.session.now() + self.timeouts.stop);
                        deaf = self.read_until(answered, by)?.is_some();
                        self.check_time()?;
                        deaf.then(|| {
                            "no reply to a `stop` sent then, nor `readyok` to an `isready`".into()
                        })
                    }
                }
            }
        };
        let Some(evidence) = ran_on else {
            self.released = None;
            return Ok(());
        };
        let v = self.violation(
            Oracle::Protocol,
            crate::blame::runs_on_after_gameover(),
            format!(
                "the search `gameover` ended ran on past T-STOP ({} ms): {evidence}",
                self.timeouts.stop.as_millis()
            ),
        );
        if !self.known.contains(&v) {
            return Err(v.into());
        }
        if deaf {
            return Err(Stop::Known(v));
        }
        self.known_met.push(v);
        if self.released.is_some() {
            if !self.stop_sent {
                self.send_line("stop")?;
            }
            let after_stop = self.session.now() + self.timeouts.stop + Duration::from_secs(1);
            self.read_until(
                |o| o.protocol().search_kind().is_none(),
                self.until_end(after_stop),
            )?;
            self.check_time()?;
        }
        self.released = None;
        Ok(())
    }

    fn await_terminal(&mut self, within: Duration, rule: RuleId) -> Step {
        if self.observer.protocol().abandoned_search() {
            self.await_behind_abandoned(within, rule)?;
        } else {
            self.wait(owes_nothing, within, rule, "terminal reply")?;
        }
        // A second reply written together with the first is already read: judge it now, before
        // the next `go` could take it for its own.
        self.pump(self.session.now())
    }

    /// A reply owed behind a search `gameover` released without its reply: that search may
    /// still run (USI-GAMEOVER-004) or have ended silently as it should, and silence does not
    /// tell which. When the reply does not come in time, `stop` does: the abandoned search's
    /// reply, if it comes, is that rule's (the observer charges it); otherwise the reply
    /// missing is the current search's.
    fn await_behind_abandoned(&mut self, within: Duration, rule: RuleId) -> Step {
        let deadline = self.until_end(self.session.now() + within);
        if self.read_until(owes_nothing, deadline)?.is_none() {
            return Ok(());
        }
        self.check_time()?;
        self.raced_reply = None;
        self.send_line("stop")?;
        let after_stop = self.session.now() + self.timeouts.stop + Duration::from_secs(1);
        let unmet = self.read_until(owes_nothing, self.until_end(after_stop))?;
        self.check_time()?;
        if unmet.is_some() && !self.observer.protocol().abandoned_search() {
            // The abandoned search answered `stop` (a known finding, counted): it was what the
            // engine was busy with.
            let v = self.violation(
                Oracle::Protocol,
                crate::blame::runs_on_after_gameover(),
                "the search `gameover` should have ended answered `stop`".into(),
            );
            return Err(self.fatal(v));
        }
        let how = match unmet {
            None => "it came only after `stop`",
            Some(_) => "nor after `stop`",
        };
        let v = self.violation(
            Oracle::Hang,
            rule,
            format!("no terminal reply within {} ms ({how})", within.as_millis()),
        );
        Err(self.fatal(v))
    }

    /// Reads lines until `done` holds for the observer, a violation shows, or `within`
    /// passes (a hang).
    fn wait(
        &mut self,
        done: impl Fn(&Observer) -> bool,
        within: Duration,
        rule: RuleId,
        what: &str,
    ) -> Step {
        let deadline = self.until_end(self.session.now() + within);
        let missed = |run: &Self| {
            run.violation(
                Oracle::Hang,
                rule,
                format!("no {what} within {} ms", within.as_millis()),
            )
        };
        match self.read_until(done, deadline)? {
            None => Ok(()),
            Some(Unmet::Deadline) => {
                self.check_time()?;
                self.missed_reply(missed(self))
            }
            Some(Unmet::Closed) => {
                let v = self.violation(
                    Oracle::Hang,
                    rule,
                    format!("closed its output without {what}"),
                );
                Err(self.fatal(v))
            }
        }
    }

    /// Reads and judges lines until `done` holds for the observer (`None`), or says why it
    /// did not by `deadline`; the engine's death or a violation ends it. A line read after
    /// the deadline is judged and ends the wait unanswered ([`Wait`]).
    fn read_until(
        &mut self,
        done: impl Fn(&Observer) -> bool,
        deadline: Instant,
    ) -> Result<Option<Unmet>, Stop> {
        let mut wait = Wait::until(self.session, deadline);
        loop {
            if done(&self.observer) {
                return Ok(None);
            }
            let (event, late) = match wait.next(self.session) {
                Arrival::OnTime(event) => (event, false),
                Arrival::Late(event) => (event, true),
                Arrival::Deadline => return Ok(Some(Unmet::Deadline)),
                Arrival::Over => {
                    if let Some(t) = self.session.termination() {
                        return Err(self.fatal(self.exited(t)));
                    }
                    return Ok(Some(Unmet::Closed));
                }
            };
            match event {
                Event::Line(line) => self.judge(line)?,
                Event::Exited { termination, .. } => {
                    return Err(self.fatal(self.exited(termination)));
                }
                Event::Eof { .. } => {}
            }
            if late {
                return Ok(Some(Unmet::Deadline));
            }
        }
    }

    /// A wait that ran out: a finding, unless it is known. A known missing reply to a search
    /// is asked for once with `stop` (the session goes on if it comes); anything else known
    /// ends the session quietly (the engine is stuck).
    fn missed_reply(&mut self, v: Violation) -> Step {
        if !self.known.contains(&v) {
            return Err(v.into());
        }
        if self.observer.protocol().owed_search().is_none() || self.stop_sent {
            return Err(Stop::Known(v));
        }
        self.known_met.push(v);
        self.raced_reply = None;
        self.send_line("stop")?;
        self.await_terminal(
            self.timeouts.stop,
            missing_reply(Owed::Search, &self.observer),
        )
    }

    /// Reads and judges everything until `until`: what was read by then, and the line read
    /// after it, if one was ([`Wait`]).
    fn pump(&mut self, until: Instant) -> Step {
        let mut wait = Wait::until(self.session, self.until_end(until));
        while let Arrival::OnTime(event) | Arrival::Late(event) = wait.next(self.session) {
            match event {
                Event::Line(line) => self.judge(line)?,
                Event::Exited { termination, .. } => {
                    return Err(self.fatal(self.exited(termination)));
                }
                Event::Eof { .. } => {}
            }
        }
        self.check_time()
    }

    /// Feeds a line to the observer and turns what it newly charged into violations.
    fn judge(&mut self, line: Line) -> Step {
        let step = if line.stream == Stream::Stdout {
            self.stdout_seen = true;
            if let Some(released) = &mut self.released
                && line.text.starts_with("info ")
                && !line.text.starts_with("info string")
            {
                released.last_info = Some((line.at_micros, line.text.clone()));
            }
            let owed_kind = self.observer.protocol().owed_search();
            let owed = owed_kind.is_some();
            let checkmate = line.text.split_whitespace().next() == Some("checkmate");
            let terminal = checkmate || line.text.split_whitespace().next() == Some("bestmove");
            let wrong_kind =
                terminal && owed_kind.is_some_and(|kind| checkmate != (kind == GoKind::Mate));
            self.observer.on_line(&line, None);
            if self.observer.protocol().search_kind().is_none() {
                self.released = None;
            }
            self.cores.update(self.observer.protocol().computing());
            if owed && self.observer.protocol().owed_search().is_none() {
                self.answered += 1;
            }
            self.collect(wrong_kind)
        } else {
            Ok(())
        };
        self.last_message = Some(line.text);
        step
    }

    /// The observer's violations not seen before (a WARN or FAIL under the profile): those
    /// that leave the protocol in step are noted and the session goes on; the first of the
    /// others, the most certain oracle first, ends it, and the rest are noted. `wrong_kind`:
    /// the line was a terminal reply of the wrong kind for the search it answered
    /// ([`crate::blame::one_line`]).
    fn collect(&mut self, wrong_kind: bool) -> Step {
        let judge = self.observer.judge();
        let mut fresh: Vec<(Oracle, RuleId, String, Outcome)> = judge
            .violated_rules()
            .into_iter()
            .filter_map(|rule| judge.verdict(rule))
            .filter(|v| matches!(v.outcome, Outcome::Fail | Outcome::Warn))
            .filter(|v| !self.seen.contains(&v.rule))
            .filter(|v| self.judge_clock || !CLOCK_RULES.contains(&v.rule))
            .map(|v| (Oracle::of(v.rule), v.rule, v.reason.clone(), v.outcome))
            .collect();
        fresh.sort_by_key(|(oracle, ..)| *oracle);
        let mut fatal = None;
        for (oracle, rule, detail, outcome) in fresh {
            self.seen.insert(rule);
            if !crate::blame::one_line(rule, wrong_kind) {
                continue;
            }
            let violation = Violation {
                outcome: Some(outcome),
                ..self.violation(oracle, rule, detail)
            };
            if oracle == Oracle::Output {
                self.noted.push(violation);
            } else if self.known.contains(&violation) && Known::recoverable(&violation) {
                // The reply came (wrong, late or doubled): the exchange is still readable.
                self.known_met.push(violation);
            } else if fatal.is_none() {
                fatal = Some(violation);
            } else {
                // Another rule the same line broke (an illegal move that is no move at all
                // breaks USI-BESTMOVE-002 and USI-BESTMOVE-007): charged as the runner and
                // `play` charge it, though the session ends with the first.
                self.noted.push(violation);
            }
        }
        fatal.map_or(Ok(()), |v| Err(self.fatal(v)))
    }

    /// The engine ended before `quit`: a crash on a signal, otherwise a controlled exit.
    fn exited(&self, termination: Termination) -> Violation {
        let rule = crate::blame::death(&self.observer).rule;
        let said = self
            .last_message
            .as_deref()
            .map(|m| format!(", last line `{}`", sanitise(m)))
            .unwrap_or_default();
        let last_text = match (self.last_sent, &self.handshake_option) {
            (Some(cmd), _) => cmd.text.as_str(),
            (None, Some(line)) => line.as_str(),
            (None, None) => "",
        };
        let after = format!("after `{}`", sanitise(last_text.trim_end()));
        match termination {
            Termination::Signalled { .. } => {
                self.violation(Oracle::Crash, rule, format!("{termination} {after}{said}"))
            }
            Termination::Exited(_) => {
                self.violation(Oracle::Exit, rule, format!("{termination} {after}{said}"))
            }
        }
    }

    fn violation(&self, oracle: Oracle, rule: RuleId, detail: String) -> Violation {
        Violation::graded_under(self.grading, oracle, rule, detail, self.step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Reading, SendError, Source};
    use crate::rules::Claims;

    /// An engine that answers nothing and always has one more line ready, a millisecond of
    /// its clock after the last: a flood, whose queue never empties.
    #[derive(Default)]
    struct Flood {
        clock_micros: u64,
        lines_read: u64,
    }

    /// Lines after which the flood stops, so that a wait that overran it still ends.
    const FLOOD_LINES: u64 = 100_000;

    impl Source for Flood {
        fn next_event(&mut self, _: Instant, _: Reading) -> Option<Event> {
            if self.lines_read == FLOOD_LINES {
                return None;
            }
            self.lines_read += 1;
            self.clock_micros += 1_000;
            Some(Event::Line(Line::stdout("x", self.clock_micros)))
        }
        fn termination(&self) -> Option<Termination> {
            None
        }
        fn is_over(&self) -> bool {
            false
        }
        fn stdout_closed(&self) -> bool {
            false
        }
        fn exit_grace(&self) -> Duration {
            Duration::from_millis(100)
        }
        fn now(&self) -> Instant {
            Instant::now()
        }
        /// The flood's clock runs a millisecond per line, so an instant is placed relative to
        /// now.
        fn micros_at(&self, instant: Instant) -> u64 {
            self.clock_micros
                + instant
                    .saturating_duration_since(Instant::now())
                    .as_micros() as u64
        }
    }

    impl Transport for Flood {
        fn send(&mut self, _: &str) -> Result<(), SendError> {
            Ok(())
        }
        fn send_raw(&mut self, _: &[u8]) -> Result<(), SendError> {
            Ok(())
        }
        fn elapsed_micros(&self) -> u64 {
            self.clock_micros
        }
        fn quit(&mut self, _: Duration, _: bool) -> Result<(), String> {
            Ok(())
        }
        fn transcript(&self) -> String {
            String::new()
        }
    }

    #[test]
    fn a_flood_ends_the_wait_at_its_deadline() {
        let timeouts = Timeouts {
            usiok: Duration::from_millis(100),
            ..Timeouts::default()
        };
        let claims = Claims::default();
        let driving = Driving {
            timeouts: &timeouts,
            options: &[],
            profile: super::super::DEFAULT_PROFILE,
            claims: &claims,
            judge_clock: false,
            end: None,
            known: &Known::default(),
        };
        let profile = driving.profile;
        let observer = Observer::new(profile, claims.clone(), profile.timeouts());
        let mut flood = Flood::default();
        let result = drive(
            &mut flood,
            observer,
            &driving,
            HeldCores::starting(None),
            &[],
        );
        let violation = result.violation.expect("no usiok came");
        assert_eq!(
            violation.key(),
            (Oracle::Hang, crate::rule!("USI-HANDSHAKE-004"))
        );
        // 100 ms of the engine's clock are about 100 lines, and the first late one ends the
        // wait (the quit's wait reads a few more).
        assert!(flood.lines_read < 300, "read {} lines", flood.lines_read);
    }
}
