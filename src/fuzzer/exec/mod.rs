//! Runs one command list against a fresh engine, every line judged by the observer as in
//! `usicheck run`, and reports the first violation that ends the session. [`run`] drives an
//! engine process; [`drive`] drives any [`Transport`] (an in-process engine, too).
//!
//! This file holds the entry points and the state of one session's run (`Run`); its jobs
//! are split by file: `send.rs` writes the commands, `wait.rs` waits for what they owe,
//! `released.rs` deals with a search `gameover` released, `judge.rs` turns the observer's
//! verdicts into violations, `end.rs` ends the engine.

mod end;
mod judge;
mod released;
mod send;
mod wait;

use super::coverage::Coverage;
use super::known::Known;
use super::oracle::{Oracle, Violation};
use super::plan::{self, Cmd, Kind, When};
use super::transport::Transport;
use crate::blame::Owed;
use crate::engine::{HeldCores, Session, SessionOptions, StartError, Timeouts};
use crate::observer::{CLOCK_RULES, Conversation, ObservedEngine, Observer};
use crate::rules::{Claims, Profile, RuleId};
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
        engine: ObservedEngine::new(engine, observer, cores),
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
        known: driving.known,
        known_met: Vec::new(),
        coverage: Coverage::default(),
        last_write: None,
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
    let late_after_newgame = run.conversation().search_after_newgame()
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
        let _ = run.engine.session_mut().quit(Duration::ZERO, false);
    }
    let transcript = match violation {
        Some(_) => run.engine.session().transcript(),
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
    /// The engine, its every line judged by the observer as in `usicheck run`, and the cores
    /// it holds from a command until its answer.
    engine: ObservedEngine<&'a mut T>,
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
    /// See [`Driving::known`].
    known: &'a Known,
    /// Known findings met so far.
    known_met: Vec<Violation>,
    coverage: Coverage,
    /// When the last write to the engine went out.
    last_write: Option<Instant>,
    /// A search was running (owing its reply or released by `gameover`) when `quit` was sent.
    searching_at_quit: bool,
    /// A line was read on stdout.
    stdout_seen: bool,
    /// A timed reply whose wait the next command races: when it is due. It is awaited once
    /// the race is over.
    raced_reply: Option<Instant>,
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

/// How long a search `gameover` released is given to answer a `stop` sent T-STOP after it.
pub(super) const RELEASED_WATCH: Duration = Duration::from_millis(200);

impl<'a, T: Transport> Run<'a, T> {
    fn all(&mut self, cmds: &'a [Cmd]) -> Step {
        self.send_line("usi")?;
        let usiok = self.wait(
            |o| !o.protocol().awaiting_usiok(),
            self.timeouts.usiok,
            Owed::Usiok,
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
        self.pump(self.now())?;
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
        if self.engine.observer().protocol().owed_search().is_some() {
            self.send_line("stop")?;
            self.await_terminal(self.timeouts.stop + Duration::from_secs(2))?;
        }
        self.isready()?;
        self.note_sent("quit", false);
        self.await_exit(false)
    }

    /// A violation that ends the session: reported, or counted when known.
    fn fatal(&self, v: Violation) -> Stop {
        if self.known.contains(&v) {
            Stop::Known(v)
        } else {
            Stop::Violation(v)
        }
    }

    /// The present on the engine's clock.
    fn now(&self) -> Instant {
        self.engine.session().now()
    }

    /// `deadline`, or the campaign's end if that comes first.
    fn until_end(&self, deadline: Instant) -> Instant {
        self.end.map_or(deadline, |end| deadline.min(end))
    }

    /// `within` from now, or until the campaign's end if that comes first.
    fn within_end(&self, within: Duration) -> Duration {
        self.end.map_or(within, |end| {
            within.min(end.saturating_duration_since(self.now()))
        })
    }

    /// [`Stop::TimeUp`] once the campaign's end has passed.
    fn check_time(&self) -> Step {
        match self.end {
            Some(end) if self.now() >= end => Err(Stop::TimeUp),
            _ => Ok(()),
        }
    }

    fn violation(&self, oracle: Oracle, rule: RuleId, detail: String) -> Violation {
        Violation::graded_under(self.grading, oracle, rule, detail, self.step)
    }

    /// The protocol state as the GUI sees it: what the commands sent so far and the replies
    /// read left outstanding (`stop` since the last `go`, `gameover` and no new game, …).
    fn conversation(&self) -> &Conversation {
        self.engine.observer().protocol().conversation()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Event, Line, Reading, SendError, Sink, Source, Termination};
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

    impl Sink for Flood {
        fn send(&mut self, _: &str) -> Result<(), SendError> {
            Ok(())
        }
        fn send_raw(&mut self, _: &[u8]) -> Result<(), SendError> {
            Ok(())
        }
        fn elapsed_micros(&self) -> u64 {
            self.clock_micros
        }
    }

    impl Transport for Flood {
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
