//! Which rule a late reply breaks: the limit that set its deadline.
//!
//! A scenario about, say, ponder hits also times its `bestmove`. When the reply comes, but
//! late, the engine broke the time limit it was given (`byoyomi`, sudden death, `stop`…),
//! not the scenario's other rules; charging the limit's rule keeps one timing fault from
//! failing every timed scenario under its own name.

use crate::rules::RuleId;
use crate::usi::{Command, Go};

/// What governs the deadline of the reply to the current search.
#[derive(Clone, Debug, Default)]
pub struct ReplyClock {
    go: Option<Go>,
    released_by_stop: bool,
}

impl ReplyClock {
    /// Follows a command sent to the engine.
    pub fn on_send(&mut self, command: &Command) {
        match command {
            Command::Go(go) => {
                self.go = Some(go.clone());
                self.released_by_stop = false;
            }
            Command::Stop if self.go.is_some() => self.released_by_stop = true,
            _ => {}
        }
    }

    /// The rule a late reply to the current search breaks, when one limit clearly set the
    /// deadline.
    ///
    /// ```
    /// use usicheck::scenario::runner::ReplyClock;
    /// use usicheck::usi::Command;
    /// let mut clock = ReplyClock::default();
    /// clock.on_send(&Command::parse("go btime 0 wtime 0 byoyomi 1000"));
    /// assert_eq!(clock.late_rule().unwrap().as_str(), "USI-GO-004");
    /// clock.on_send(&Command::parse("stop"));
    /// assert_eq!(clock.late_rule().unwrap().as_str(), "USI-STOP-001");
    /// ```
    pub fn late_rule(&self) -> Option<RuleId> {
        let go = self.go.as_ref()?;
        let rule = if self.released_by_stop {
            "USI-STOP-001"
        } else if go.mate.is_some() {
            "USI-MATE-005"
        } else if go.infinite || go.ponder {
            // Only `stop` or `ponderhit` ends these; a late answer to `ponderhit` is judged
            // by the clock the `go ponder` carried.
            return clock_rule(go);
        } else if go.movetime.is_some() {
            "USI-GO-009"
        } else {
            return clock_rule(go);
        };
        rule.parse().ok()
    }
}

/// The clock rule of a timed `go`: byoyomi, increment, or sudden death.
fn clock_rule(go: &Go) -> Option<RuleId> {
    let clock = &go.clock;
    let positive = |ms: Option<i64>| ms.is_some_and(|ms| ms > 0);
    let rule = if positive(clock.byoyomi) || positive(clock.bbyoyomi) || positive(clock.wbyoyomi) {
        "USI-GO-004"
    } else if positive(clock.binc) || positive(clock.winc) {
        "USI-GO-005"
    } else if clock.btime.is_some() || clock.wtime.is_some() {
        "USI-GO-007"
    } else {
        return None;
    };
    rule.parse().ok()
}
