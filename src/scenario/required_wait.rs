//! The time a scenario takes whatever the engine: the yardstick of a run's speed, and how
//! certify orders its scenarios (longest first, so that the last to finish is not a long one
//! started late).

use super::{Scenario, Step};
use crate::rules::Timeouts;
use crate::usi::Command;
use std::time::Duration;

/// The option of the reference engine that makes `isready` take that many milliseconds: a
/// scenario that sets it waits that long for its `readyok` (03-ready/keep-alive-during-slow-init).
const SLOW_INIT_OPTION: &str = "SlowInitMs";

impl Scenario {
    /// What the scenario waits whatever the engine's speed: its sleeps, its silence windows,
    /// the time limits of its searches (`movetime`, `byoyomi`) and the initialisation it asks
    /// for (`SlowInitMs`); a `for_each_option` counts its steps once.
    ///
    /// ```
    /// use usicheck::scenario::load_str;
    /// use usicheck::rules::Profile;
    /// let scenario = load_str("x.yaml", "
    /// name: n
    /// rules: [USI-GO-005]
    /// steps:
    ///   - handshake: {}
    ///   - repeat: {count: 2, steps: [send: go btime 0 wtime 0 byoyomi 300, expect: {bestmove: legal, within: 1s}]}
    ///   - sleep: 1s
    ///   - expect_silence: {for: T-SILENT}
    /// ").unwrap();
    /// let timeouts = Profile::Shogidokoro.timeouts();
    /// assert_eq!(scenario.required_wait(&timeouts), std::time::Duration::from_millis(2100));
    /// ```
    pub fn required_wait(&self, timeouts: &Timeouts) -> Duration {
        steps_wait(&self.steps, timeouts)
    }
}

fn steps_wait(steps: &[Step], timeouts: &Timeouts) -> Duration {
    steps.iter().map(|step| step_wait(step, timeouts)).sum()
}

fn step_wait(step: &Step, timeouts: &Timeouts) -> Duration {
    match step {
        Step::Sleep(duration) => duration.resolve(timeouts),
        Step::ExpectSilence(silence) => silence.duration.resolve(timeouts),
        Step::Send(line) => search_limit(&line.to_string()),
        Step::SendRaw(text) => text.lines().map(search_limit).sum(),
        Step::Handshake(handshake) => handshake
            .options
            .0
            .iter()
            .filter(|(name, _)| name == SLOW_INIT_OPTION)
            .filter_map(|(_, value)| value.as_deref()?.trim().parse().ok())
            .map(Duration::from_millis)
            .sum(),
        Step::Repeat(repeat) => steps_wait(&repeat.steps, timeouts) * repeat.count,
        Step::ForEachOption(each) => steps_wait(&each.steps, timeouts),
        Step::Expect(_) | Step::CloseStdin | Step::ExpectExit(_) => Duration::ZERO,
    }
}

/// The time a `go` line allows its search when it fixes one: `movetime`, else `byoyomi`.
fn search_limit(line: &str) -> Duration {
    let Command::Go(go) = Command::parse(line) else {
        return Duration::ZERO;
    };
    go.movetime
        .or(go.clock.byoyomi)
        .and_then(|ms| u64::try_from(ms).ok())
        .map_or(Duration::ZERO, Duration::from_millis)
}
