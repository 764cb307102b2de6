//! In-process fuzzing of an engine's own code: the harness a Rust engine's `cargo fuzz` target
//! calls, so that libFuzzer's coverage is the engine's and usicheck's oracles judge every reply.
//!
//! The engine hands over its USI loop as a function of a reader and a writer. Each fuzzer input
//! is a [`Session`] of the fuzzer's full mix ([`plan::Mix::Quick`]: legal and illegal
//! positions, malformed lines, `go`/`stop`/`ponderhit`/`isready`/`gameover` interleavings),
//! one episode per seed; the loop runs on a thread with in-memory pipes, and every line it
//! writes is judged by the observer of `usicheck run` and the oracles of `usicheck fuzz`. A
//! violation panics with the rule, the evidence and the session as a scenario that `usicheck
//! run` replays against the engine's binary; libFuzzer then saves the input.
//!
//! Searches are limited to about a millisecond (`go depth 1`, a few hundred nodes, byoyomi of
//! 1 ms) so that a session takes milliseconds, and its threads share one core
//! ([`Harness::one_core`]). A reply that never comes is a finding after a
//! bounded wait (its time limit plus 2 s; 5 s for a depth or node limit, `usiok` and
//! `readyok`), not a libFuzzer timeout.
//! A reply that comes but later than its clock plus the grace (USI-GO-004/005/007/009,
//! USI-MATE-005, USI-STOP-001) is not judged: in-process the engine shares the CPUs with the
//! fuzzer and that is no measure of its time management; certify it with `usicheck run`.
//!
//! Every session's protocol-state coverage (engine state × command × timing, as `usicheck fuzz`
//! counts it) adds to [`Harness::coverage`]. Without libFuzzer, [`Harness::campaign`] runs
//! sessions of `usicheck fuzz`'s steered generator in process: each steered toward the cells
//! the ones before it left unexercised and away from the findings already made.
//!
//! ```
//! use usicheck::harness::{self, Session};
//! use usicheck::refengine::{self, Config};
//!
//! // A fuzz target's body: `fuzz_target!(|session: Session| harness::fuzz(&session, ...))`.
//! let session = Session::from_seeds([7, 8]); // two episodes
//! harness::fuzz(&session, |input, output| {
//!     refengine::usi_loop(Config::default(), input, output)
//! });
//! ```

mod one_core;
mod pipes;
mod session;

pub use pipes::{EngineInput, EngineOutput, LoopStatus, MAX_LEFT_RUNNING, left_running};
pub use session::Session;

use crate::engine::{HeldCores, Timeouts};
use crate::fuzzer::coverage::Coverage;
use crate::fuzzer::exec::{self, Driving};
use crate::fuzzer::known::Known;
use crate::fuzzer::oracle::{Oracle, Violation};
use crate::fuzzer::plan::{self, Cmd, Mix, Steer};
use crate::fuzzer::{DEFAULT_PROFILE, Rng, finding, session_seed, shrink};
use crate::observer::Observer;
use crate::rules::{Claims, Profile};
use one_core::OneCore;
use pipes::InProcess;
use rand::SeedableRng;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Runs `session` against `engine` with the default [`Harness`] and panics with the finding if
/// the engine breaks a rule: the body of a fuzz target.
pub fn fuzz<R: LoopStatus>(
    session: &Session,
    engine: impl Fn(EngineInput, EngineOutput) -> R + Send + Sync + 'static,
) {
    Harness::default().fuzz(session, engine);
}

/// How sessions are generated, driven and judged; [`Harness::default`] suits most engines.
///
/// A harness counts the protocol-state coverage of every session it drives
/// ([`Harness::coverage`]); its clones share the count.
#[derive(Clone, Debug)]
pub struct Harness {
    profile: Profile,
    claims: Claims,
    options: Vec<(String, Option<String>)>,
    timeouts: Timeouts,
    shrink_runs: usize,
    one_core: bool,
    coverage: Arc<Mutex<Coverage>>,
}

impl Default for Harness {
    /// The profile of `usicheck fuzz`, 5 s for `usiok`/`readyok`, 60 re-runs to shrink a
    /// finding, a session's threads on one core.
    fn default() -> Harness {
        Harness {
            profile: DEFAULT_PROFILE,
            claims: Claims::default(),
            options: Vec::new(),
            timeouts: Timeouts {
                usiok: Duration::from_secs(5),
                ready_idle: Duration::from_secs(5),
                quit: Duration::from_secs(2),
                ..Timeouts::default()
            },
            shrink_runs: 60,
            one_core: true,
            coverage: Arc::default(),
        }
    }
}

/// Episodes of a [`Harness::campaign`] session: as many as a cargo-fuzz [`Session`] holds at
/// most, so a session stays within milliseconds.
const CAMPAIGN_EPISODES: usize = Session::MAX_EPISODES;

/// One session driven: its coverage, the known findings it met, and its finding with the
/// reproducer's commands.
struct Driven {
    coverage: Coverage,
    known: u64,
    found: Option<(Vec<Cmd>, Finding)>,
}

/// What a [`Harness::campaign`] found, and the protocol it exercised.
#[derive(Clone, Debug, Default)]
pub struct Campaign {
    /// Sessions driven.
    pub sessions: u64,
    /// The first finding of each (oracle, rule) group, shrunk; the sessions after it count the
    /// group as known and go on past it.
    pub findings: Vec<Finding>,
    /// Known findings met again.
    pub known: u64,
    /// The (state × command × timing) cells the sessions' commands were sent in.
    pub coverage: Coverage,
}

impl Harness {
    /// Judges under `profile` (as `--profile`), with the extensions in `claims` (as `--claim`).
    pub fn profile(mut self, profile: Profile, claims: Claims) -> Harness {
        self.profile = profile;
        self.claims = claims;
        self
    }

    /// Sends `setoption name NAME [value VALUE]` in every handshake (as `--option`).
    ///
    /// # Panics
    ///
    /// When `name` is empty or holds whitespace: a finding's reproducer could not set it (the
    /// scenario loader and `--option` take a name as one token).
    pub fn option(mut self, name: &str, value: Option<&str>) -> Harness {
        assert!(
            crate::usi::is_settable_option_name(name),
            "usicheck harness: option name `{name}` must be one token without whitespace"
        );
        self.options
            .push((name.to_owned(), value.map(str::to_owned)));
        self
    }

    /// Whether a session's threads (the harness's and every thread the engine starts) share one
    /// core, as they do by default: a session hands a line from thread to thread dozens of times
    /// in a millisecond, and a hand-off between cores costs more than the parallelism gains.
    /// Run one fuzzing worker per core instead (`-jobs=N -workers=N`, fuzz/README.md).
    ///
    /// Turn it off for an engine that searches with several threads (its `Threads` option or
    /// default): on one core its threads take turns, so races between them show far less often.
    pub fn one_core(mut self, on: bool) -> Harness {
        self.one_core = on;
        self
    }

    /// Waits for `usiok`, `readyok`, the reply after `stop` and the return after `quit`.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Harness {
        self.timeouts = timeouts;
        self
    }

    /// [`Harness::check`], panicking with the finding: libFuzzer saves the input.
    pub fn fuzz<R: LoopStatus>(
        &self,
        session: &Session,
        engine: impl Fn(EngineInput, EngineOutput) -> R + Send + Sync + 'static,
    ) {
        if let Err(finding) = self.check(session, engine) {
            panic!("{finding}");
        }
    }

    /// Runs `session` against a fresh run of `engine` and returns what the engine got wrong,
    /// shrunk (except a hang, which would cost seconds per try).
    ///
    /// Panics when [`MAX_LEFT_RUNNING`] loops of earlier sessions still run after their
    /// `quit` and end of input, or when no thread can be spawned.
    pub fn check<R: LoopStatus>(
        &self,
        session: &Session,
        engine: impl Fn(EngineInput, EngineOutput) -> R + Send + Sync + 'static,
    ) -> Result<(), Box<Finding>> {
        let engine = Arc::new(engine);
        // Each cargo-fuzz input stands alone: nothing is known across inputs, and an input
        // means the same session whenever it runs (libFuzzer replays and minimises inputs).
        match self
            .session(&engine, &session.commands(), &Known::default())
            .found
        {
            Some((_, finding)) => Err(Box::new(finding)),
            None => Ok(()),
        }
    }

    /// A campaign of `sessions` sessions seeded `seed`, generated as `usicheck fuzz` generates
    /// them ([`plan::steered_session`] on the in-process mix, [`Mix::Quick`]): each steered
    /// toward the cells the sessions before it were predicted to exercise least, away from the
    /// triggers of the findings made so far, which later sessions count as known and go on
    /// past. The same seed gives the same sessions.
    ///
    /// ```
    /// use usicheck::harness::Harness;
    /// use usicheck::refengine::{self, Config};
    ///
    /// let campaign = Harness::default().campaign(1, 3, |input, output| {
    ///     refengine::usi_loop(Config::default(), input, output)
    /// });
    /// assert!(campaign.findings.is_empty());
    /// assert!(campaign.coverage.reached().0 > 10);
    /// ```
    pub fn campaign<R: LoopStatus>(
        &self,
        seed: u64,
        sessions: u64,
        engine: impl Fn(EngineInput, EngineOutput) -> R + Send + Sync + 'static,
    ) -> Campaign {
        let engine = Arc::new(engine);
        let mut steer = Steer::default();
        let mut known = Known::default();
        let mut campaign = Campaign::default();
        for index in 0..sessions {
            let mut rng = Rng::seed_from_u64(session_seed(seed, index));
            let cmds = plan::steered_session(&mut rng, Mix::Quick, CAMPAIGN_EPISODES, &steer);
            for (state, sent, gap) in plan::predicted_cells(&cmds) {
                steer.predicted.note(state, sent, gap);
            }
            let driven = self.session(&engine, &cmds, &known);
            campaign.coverage.merge(&driven.coverage);
            campaign.known += driven.known;
            campaign.sessions += 1;
            if let Some((shrunk, finding)) = driven.found {
                known.add(&finding.violation);
                if Known::costly(&finding.violation) {
                    steer.avoid_trigger_of(&shrunk, &finding.violation);
                }
                campaign.findings.push(finding);
            }
        }
        campaign
    }

    /// The (state × command × timing) cells the sessions this harness and its clones drove
    /// were sent in (the re-runs that confirm and shrink a finding not counted).
    pub fn coverage(&self) -> Coverage {
        self.coverage
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Drives `cmds` once, counting its coverage in the harness's, and confirms and shrinks
    /// what the engine got wrong.
    fn session<R: LoopStatus>(
        &self,
        engine: &Arc<impl Fn(EngineInput, EngineOutput) -> R + Send + Sync + 'static>,
        cmds: &[Cmd],
        known: &Known,
    ) -> Driven {
        let first = self.drive(engine, cmds, known);
        self.coverage
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .merge(&first.coverage);
        let found = match first.violation {
            Some(violation) => self.confirm(engine, cmds, violation, first.transcript, known),
            // Noted violations leave the session in step: the reproducer ends after the line
            // that showed it, unshrunk (the shrinker needs a failure that ends the session).
            None => first.noted.into_iter().next().map(|violation| {
                let end = violation.step.map_or(0, |step| (step + 1).min(cmds.len()));
                let finding = self.finding(&cmds[..end], violation, cmds.len(), String::new());
                (cmds[..end].to_vec(), finding)
            }),
        };
        Driven {
            coverage: first.coverage,
            known: first.known.len() as u64,
            found,
        }
    }

    /// Re-runs a failing session with an `isready` after every search's end, as `usicheck
    /// fuzz` confirms a failure (a late second reply is then charged to the right rule), and
    /// shrinks it. A hang that the re-run does not repeat is not reported: the machine, not the
    /// engine, was slow.
    fn confirm<R: LoopStatus>(
        &self,
        engine: &Arc<impl Fn(EngineInput, EngineOutput) -> R + Send + Sync + 'static>,
        cmds: &[Cmd],
        first: Violation,
        first_transcript: String,
        known: &Known,
    ) -> Option<(Vec<Cmd>, Finding)> {
        let synced = plan::synced(cmds);
        let again = self.drive(engine, &synced, known);
        let (violation, transcript) = match again.violation {
            Some(v) if first.oracle != Oracle::Hang || v.key() == first.key() => {
                (v, again.transcript)
            }
            _ if first.oracle == Oracle::Hang => return None,
            // An engine whose threads race may not repeat it; what it wrote stands.
            _ => {
                let finding = self.finding(cmds, first, cmds.len(), first_transcript);
                return Some((cmds.to_vec(), finding));
            }
        };
        if violation.oracle == Oracle::Hang {
            let finding = self.finding(&synced, violation, synced.len(), transcript);
            return Some((synced, finding));
        }
        let budget = shrink::Budget {
            runs: self.shrink_runs,
        };
        let (shrunk, violation) = shrink::shrink(&synced, violation, budget, |candidate| {
            self.drive(engine, candidate, known).violation
        });
        let transcript = self.drive(engine, &shrunk, known).transcript;
        let finding = self.finding(&shrunk, violation, synced.len(), transcript);
        Some((shrunk, finding))
    }

    fn drive<R: LoopStatus>(
        &self,
        engine: &Arc<impl Fn(EngineInput, EngineOutput) -> R + Send + Sync + 'static>,
        cmds: &[Cmd],
        known: &Known,
    ) -> exec::SessionResult {
        let left = left_running();
        assert!(
            left < MAX_LEFT_RUNNING,
            "usicheck harness: {left} engine loops of earlier sessions still run after `quit` \
             and end of input; not starting another"
        );
        let _one_core = self.one_core.then(OneCore::enter).flatten();
        let engine = Arc::clone(engine);
        let mut pipes = InProcess::start(move |input, output| engine(input, output))
            .unwrap_or_else(|error| panic!("usicheck harness: cannot start a thread: {error}"));
        let observer = Observer::new(self.profile, self.claims.clone(), self.profile.timeouts());
        let driving = Driving {
            timeouts: &self.timeouts,
            options: &self.options,
            profile: self.profile,
            claims: &self.claims,
            judge_clock: false,
            end: None,
            known,
        };
        exec::drive(
            &mut pipes,
            observer,
            &driving,
            HeldCores::starting(None),
            cmds,
        )
    }

    fn finding(
        &self,
        cmds: &[Cmd],
        violation: Violation,
        original_len: usize,
        transcript: String,
    ) -> Finding {
        let origin = finding::Origin {
            found_by: "the in-process harness (`usicheck::harness`)".into(),
            original_len,
        };
        Finding {
            scenario_yaml: finding::scenario_yaml(cmds, &violation, &origin, &self.options),
            violation,
            transcript,
        }
    }
}

/// A rule the engine broke in-process, with the session that shows it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The rule, the oracle and what was seen (the evidence line).
    pub violation: Violation,
    /// The session (shrunk unless a hang) as a scenario: `usicheck run FILE -- ENGINE`.
    pub scenario_yaml: String,
    /// The exchange of the run that showed the violation last.
    pub transcript: String,
}

impl fmt::Display for Finding {
    /// The rule and the evidence on the first line; the rest is the reproducer scenario, with
    /// the transcript as YAML comments: save it as it is and replay it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = &self.violation;
        writeln!(f, "usicheck: {} ({}): {}", v.rule, v.oracle, v.detail)?;
        writeln!(
            f,
            "# The rest is a scenario: save it as finding.yaml and replay it with `usicheck run \
             finding.yaml -- ./your-engine`."
        )?;
        f.write_str(&self.scenario_yaml)?;
        if !self.transcript.is_empty() {
            writeln!(f, "# Transcript:")?;
            for line in self.transcript.lines() {
                writeln!(f, "#   {line}")?;
            }
        }
        Ok(())
    }
}
