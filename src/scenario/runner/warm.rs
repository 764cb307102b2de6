//! Engine processes kept warm between scenarios, as a GUI keeps one for many games: a
//! scenario that left its engine idle leaves its process to the next one that fits, after a
//! control exchange shows it settled; on any doubt the process is ended and the next scenario
//! starts its own.

use super::settings::RunSettings;
use crate::engine::{Arrival, EngineCommand, Session, StartError, Wait};
use crate::observer::{Cores, Heard, ObservedEngine, SessionState};
use crate::scenario::{OptionSettings, Scenario};
use crate::usi::Message;
use std::time::Duration;

/// How the transcript of a scenario run in a warm process opens, before the process's pid and
/// the names of the scenarios it served, in order (as a JSON array).
pub const WARM_NOTE: &str = "the warm engine process";

/// The process a worker keeps warm for its next scenario, if any. Dropping it ends the
/// process.
#[derive(Default)]
pub struct WarmProcess {
    parked: Option<Parked>,
    /// A process of this worker did not settle: none is kept warm any more.
    unsettled: bool,
}

/// A process a scenario left idle, settled, with what its handshake established.
struct Parked {
    session: Session,
    state: SessionState,
    /// Which engine, with which options sent in its handshake (the command line's, then the
    /// scenario's): a scenario that would set others needs another process.
    command: EngineCommand,
    options: OptionSettings,
    handshake_options: OptionSettings,
    served: Served,
    /// How long `quit` may take when the process is ended.
    quit: Duration,
}

/// A warm process taken up by a scenario: the engine, what the observer followed of it
/// before, and what its handshake established.
pub(super) struct Resumed {
    pub(super) session: Session,
    pub(super) state: SessionState,
    pub(super) served: Served,
}

/// What a process's handshake established, and the scenarios it served.
pub(super) struct Served {
    pub(super) names: (Option<String>, Option<String>),
    /// The scenarios, the one it was started for first.
    pub(super) scenarios: Vec<String>,
}

impl WarmProcess {
    /// The warm process, if `scenario` may run in one and this one fits it: the same engine,
    /// the same options. It goes on in the scenario's transcript.
    pub(super) fn take_for(
        &mut self,
        scenario: &Scenario,
        settings: &RunSettings,
    ) -> Result<Option<Resumed>, StartError> {
        let fits = |parked: &Parked| {
            settings.may_share(scenario)
                && parked.command == settings.engine
                && parked.options == settings.options
                && Some(&parked.handshake_options) == scenario.opening_options()
        };
        if !self.parked.as_ref().is_some_and(fits) {
            // Kept idle beside the process started instead, it would only hold memory (and a
            // simulated one the world of every session the worker starts meanwhile).
            self.end();
            return Ok(None);
        }
        let Some(mut parked) = self.parked.take() else {
            return Ok(None);
        };
        let note = format!(
            "{WARM_NOTE} (pid {}), which served before: {:?}",
            parked.session.pid(),
            parked.served.scenarios
        );
        parked
            .session
            .continue_transcript(settings.transcript_path.as_deref(), note)?;
        parked.served.scenarios.push(scenario.name.clone());
        Ok(Some(Resumed {
            session: parked.session,
            state: parked.state,
            served: parked.served,
        }))
    }

    /// Keeps `engine`, which served `served`, warm for the next scenario once [`settle`]
    /// shows it ready; else ends it. The process kept before is ended either way.
    pub(super) fn keep(
        &mut self,
        mut engine: ObservedEngine<Session>,
        scenario: &Scenario,
        settings: &RunSettings,
        served: Served,
    ) {
        self.end();
        let timeouts = &settings.timeouts;
        let ready = timeouts.ready_silence.min(timeouts.ready_cap);
        let settled = !self.unsettled && settle(&mut engine, ready, timeouts.silent);
        // An engine that did not settle once is not asked again: each try may wait T-READY.
        self.unsettled |= !settled;
        let (mut session, mut observer, _) = engine.into_parts();
        let quit = settings.timeouts.quit;
        let Some(handshake_options) = scenario.opening_options().filter(|_| settled) else {
            session.note("not settled: the process is ended, not kept warm");
            let _ = session.quit(quit);
            return;
        };
        // The scenario's transcript goes on until the next scenario takes the process, or
        // records how it ended.
        session.note("settled: the process is kept warm for the next scenario that fits");
        self.parked = Some(Parked {
            session,
            state: observer.swap_session(SessionState::default()),
            command: settings.engine.clone(),
            options: settings.options.clone(),
            handshake_options: handshake_options.clone(),
            served,
            quit,
        });
    }

    /// The options the opening handshake of the process kept warm now sent (beside the
    /// command line's), if one is kept: a scenario that opens with others needs another.
    pub fn kept_options(&self) -> Option<&OptionSettings> {
        self.parked.as_ref().map(|parked| &parked.handshake_options)
    }

    /// Ends the process kept warm, if any: `quit`, then signals as for any session. Nothing
    /// is judged: the scenarios it served judged it.
    pub fn end(&mut self) {
        if let Some(mut parked) = self.parked.take() {
            let _ = parked.session.quit(parked.quit);
        }
    }
}

impl Drop for WarmProcess {
    fn drop(&mut self) {
        self.end();
    }
}

/// Settles a process after its scenario: sends `isready`, whose `readyok` must come within
/// `ready`, and then no line for `silent`: whatever the engine said before `readyok` answered
/// what came before it, and a line after it would be on its way into the next scenario. The
/// engine must stay alive. Whether it settled. What the observer charges meanwhile belongs to
/// no scenario. A game left on is not ended with `gameover`: a fresh process would not have
/// had one, and the next scenario's `usinewgame` starts its own game.
fn settle(engine: &mut ObservedEngine<Session>, ready: Duration, silent: Duration) -> bool {
    if engine.send("isready", Cores::AsHeld).is_err() {
        return false;
    }
    let mut wait = Wait::until(engine.session(), engine.session().now() + ready);
    let mut ready = false;
    loop {
        match engine.next(&mut wait, None) {
            Arrival::OnTime(Heard::Line {
                message: Message::ReadyOk,
                ..
            }) if !ready => {
                ready = true;
                wait = Wait::until(engine.session(), engine.session().now() + silent);
            }
            Arrival::OnTime(_) if !ready => continue,
            Arrival::OnTime(Heard::Other(_)) => continue,
            Arrival::Deadline => break,
            _ => return false,
        }
    }
    ready && engine.session().termination().is_none() && !engine.session().stdout_closed()
}
