//! Where an engine process does its start-up work (USI-READY-003): heavy initialisation
//! (evaluation files, tables) belongs to `isready`, whose `readyok` GUIs wait long for, not to
//! the launch, which delays `usiok`. Judged once per process, on its first `usi` → `usiok`
//! and the first `isready` → `readyok` after it, in a session run with no other engine beside
//! it (a scenario's `alone`): a `usiok` that took [`LAUNCH_WORK`] or more, and longer than that
//! `readyok`, shows the greater part of the work done before `usiok`.
//!
//! How long `usiok` may take at all is USI-HANDSHAKE-001's (the GUI's budget); this compares
//! where the time goes, so an engine that loads for 2.5 s at launch breaks both.

use super::judge::Judge;
use super::timing::{HeldUp, load_excuse};
use crate::engine::CpuWait;
use crate::usi::Command;
use std::time::Duration;

/// The rule the start-up latencies judge.
pub const STARTUP_RULES: [crate::rules::RuleId; 1] = [crate::rule!("USI-READY-003")];

/// A `usiok` this late is work done at launch rather than a reply: half the 2 s Shogidokoro
/// allowed for it (RULES.md USI-HANDSHAKE-001). Answering `usi` takes milliseconds.
pub const LAUNCH_WORK: Duration = Duration::from_secs(1);

/// The first handshake of one engine process, as far as it went.
#[derive(Clone, Debug, Default)]
pub struct Startup {
    /// When the first `usi` was sent (session clock, µs), and the engine's CPU wait then.
    usi_sent: Option<(u64, CpuWait)>,
    /// How long its `usiok` took (µs), and how much the machine's load held things up
    /// meanwhile.
    launch: Option<(u64, HeldUp)>,
    /// When the first `isready` after that `usiok` was sent.
    isready_sent: Option<u64>,
    judged: bool,
}

impl Startup {
    /// Follows a command sent at `at_micros`; `cpu_wait` samples the engine's CPU wait.
    pub fn on_send(
        &mut self,
        command: &Command,
        at_micros: u64,
        cpu_wait: impl FnOnce() -> CpuWait,
    ) {
        match command {
            Command::Usi if self.usi_sent.is_none() => {
                self.usi_sent = Some((at_micros, cpu_wait()));
            }
            Command::IsReady if self.launch.is_some() && self.isready_sent.is_none() => {
                self.isready_sent = Some(at_micros);
            }
            _ => {}
        }
    }

    /// A `usiok` read at `at_micros`; `held_up` says how much the load held things up since
    /// `usi` was sent (given when, and the engine's CPU wait then).
    pub fn on_usiok(&mut self, at_micros: u64, held_up: impl FnOnce(u64, &CpuWait) -> HeldUp) {
        if let (Some((sent, cpu_wait)), None) = (&self.usi_sent, self.launch) {
            self.launch = Some((at_micros.saturating_sub(*sent), held_up(*sent, cpu_wait)));
        }
    }

    /// A `readyok` read at `at_micros`: the first one after the first `usiok` judges
    /// USI-READY-003.
    pub fn on_readyok(&mut self, at_micros: u64, judge: &mut Judge) {
        let (Some((launch, held_up)), Some(isready_sent)) = (self.launch, self.isready_sent) else {
            return;
        };
        if std::mem::replace(&mut self.judged, true) {
            return;
        }
        let [rule] = STARTUP_RULES;
        let ready = at_micros.saturating_sub(isready_sent);
        let work = LAUNCH_WORK.as_micros() as u64;
        if launch < work || launch <= ready {
            judge.pass(rule, None);
            return;
        }
        let launch_ms = LAUNCH_WORK.as_millis();
        let excuse = load_excuse(
            "usiok",
            launch - work,
            &format!("the {launch_ms} ms that count as work at launch"),
            held_up,
        );
        match excuse {
            Some(why) => judge.not_judged(rule, why),
            None => judge.violation(
                rule,
                None,
                format!(
                    "`usiok` came {} ms after `usi`, `readyok` {} ms after `isready`: the \
                     heavy initialisation runs at launch, not at `isready`",
                    launch / 1000,
                    ready / 1000
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Claims, Outcome, Profile};

    /// The verdict on a process whose `usiok` took `launch_ms` and `readyok` `ready_ms`,
    /// with the load holding things up `held_up_ms`.
    fn verdict(launch_ms: u64, ready_ms: u64, held_up_ms: u64) -> (Outcome, String) {
        let mut startup = Startup::default();
        let mut judge = Judge::always_on(Profile::Shogidokoro, Claims::default());
        startup.on_send(&Command::Usi, 1_000, CpuWait::default);
        let held_up = HeldUp {
            usicheck: 0,
            engine: held_up_ms * 1000,
        };
        startup.on_usiok(1_000 + launch_ms * 1000, |_, _| held_up);
        let isready_at = 5_000_000;
        startup.on_send(&Command::IsReady, isready_at, CpuWait::default);
        startup.on_readyok(isready_at + ready_ms * 1000, &mut judge);
        // Only the first handshake counts.
        startup.on_readyok(isready_at + 1, &mut judge);
        let v = judge.verdict(crate::rule!("USI-READY-003")).unwrap();
        (v.outcome, v.reason.clone())
    }

    #[test]
    fn a_slow_usiok_with_a_quick_readyok_is_work_done_at_launch() {
        let (outcome, reason) = verdict(1500, 3, 0);
        assert_eq!(outcome, Outcome::Warn);
        assert_eq!(
            reason,
            "`usiok` came 1500 ms after `usi`, `readyok` 3 ms after `isready`: the heavy \
             initialisation runs at launch, not at `isready`"
        );
    }

    #[test]
    fn a_quick_usiok_or_a_slower_readyok_is_initialisation_at_isready() {
        assert_eq!(verdict(5, 3, 0).0, Outcome::Pass);
        assert_eq!(verdict(1500, 2000, 0).0, Outcome::Pass);
    }

    #[test]
    fn a_usiok_late_by_less_than_the_load_held_it_up_is_not_judged() {
        let (outcome, reason) = verdict(1200, 3, 300);
        assert_eq!(outcome, Outcome::Info);
        assert!(reason.starts_with("not judged: load."), "{reason}");
    }
}
