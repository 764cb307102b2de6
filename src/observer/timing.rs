//! The deadline of a search's reply and the rule a late reply breaks: the limit that set it.
//!
//! Every timed search is judged against its clock by the always-on observer, whatever step
//! waits for the reply: a reply that comes, but late, broke the time limit it was given
//! (`byoyomi`, sudden death, `stop`…), not the scenario's other rules. A step that names a
//! rule and waits no longer than the clock allows owns that timing itself (see
//! [`ReplyClock::claim`]), so one late reply is charged once.

use crate::rules::RuleId;
use crate::rules::Timeouts;
use crate::shogi::Color;
use crate::usi::{Clock, Command, Go, MateLimit};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The rules a late reply is charged to: the limits a [`ReplyClock`] sets deadlines from.
pub const CLOCK_RULES: [RuleId; 6] = [
    crate::rule!("USI-GO-004"),
    crate::rule!("USI-GO-005"),
    crate::rule!("USI-GO-007"),
    crate::rule!("USI-GO-009"),
    crate::rule!("USI-MATE-005"),
    crate::rule!("USI-STOP-001"),
];

/// How much later than the clock's deadline a step's own deadline may fall and still count as
/// the same limit.
pub const CLAIM_SLACK_MICROS: u64 = 50_000;

/// How long after its deadline a reply is still waited for, to tell a late reply from none:
/// only a reply missing this long past its deadline counts as never sent.
pub const REPLY_PATIENCE: std::time::Duration = std::time::Duration::from_secs(3);

/// How much the machine's load held things up while a reply was awaited (µs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeldUp {
    /// usicheck's own threads ran this late ([`crate::engine::stall`]).
    pub usicheck: u64,
    /// One of the engine's threads waited this long for a CPU ([`crate::engine::CpuWait`]).
    pub engine: u64,
}

impl HeldUp {
    /// The larger of the two delays.
    pub fn most(self) -> u64 {
        self.usicheck.max(self.engine)
    }
}

/// Why a reply `late_micros` after `deadline` (its description) is not judged, when the
/// machine's load held usicheck or the engine up meanwhile: a margin smaller than that delay
/// says nothing of the engine. `None` when the reply was later than the delay.
///
/// ```
/// use usicheck::observer::{HeldUp, load_excuse};
/// let usicheck = HeldUp { usicheck: 300_000, engine: 0 };
/// let why = load_excuse("bestmove 7g7f", 200_000, "the deadline (byoyomi 1000 ms + G)", usicheck);
/// assert!(why.unwrap().starts_with("not judged: load. `bestmove 7g7f` came 200 ms after"));
/// assert_eq!(load_excuse("bestmove 7g7f", 400_000, "the deadline", usicheck), None);
/// let engine = HeldUp { usicheck: 0, engine: 500_000 };
/// let why = load_excuse("bestmove 7g7f", 400_000, "the deadline", engine).unwrap();
/// assert!(why.ends_with("the engine waited 500 ms for a CPU meanwhile (the machine's load)"));
/// ```
pub fn load_excuse(
    quoted_line: &str,
    late_micros: u64,
    deadline: &str,
    held_up: HeldUp,
) -> Option<String> {
    (late_micros <= held_up.most()).then(|| {
        let who = if held_up.usicheck >= held_up.engine {
            format!(
                "usicheck itself was held up {} ms by the machine's load meanwhile",
                held_up.usicheck / 1000
            )
        } else {
            format!(
                "the engine waited {} ms for a CPU meanwhile (the machine's load)",
                held_up.engine / 1000
            )
        };
        format!(
            "not judged: load. `{quoted_line}` came {} ms after {deadline}, but {who}",
            late_micros / 1000
        )
    })
}

/// The kind of limit a reply's deadline comes from: the time controls of the time-use chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClockKind {
    /// `byoyomi`.
    Byoyomi,
    /// `binc`/`winc`.
    Increment,
    /// `btime`/`wtime` alone.
    SuddenDeath,
    /// `movetime`.
    Movetime,
    /// `go mate <ms>`.
    Mate,
    /// The latency allowed after `stop`.
    Stop,
    /// The clock a `go ponder` carried, started by `ponderhit`.
    Ponderhit,
}

impl ClockKind {
    /// The name report.json gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            ClockKind::Byoyomi => "byoyomi",
            ClockKind::Increment => "increment",
            ClockKind::SuddenDeath => "sudden_death",
            ClockKind::Movetime => "movetime",
            ClockKind::Mate => "mate",
            ClockKind::Stop => "stop",
            ClockKind::Ponderhit => "ponderhit",
        }
    }
}

/// When the reply to the current search is due, and the rule a later reply breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplyDeadline {
    /// Session clock, µs.
    pub at_micros: u64,
    /// When the limit started (the `go`, `stop` or `ponderhit` sent), session clock, µs.
    pub since_micros: u64,
    pub rule: RuleId,
    pub kind: ClockKind,
    /// The limit in words, e.g. "byoyomi 1000 ms + G".
    pub limit: String,
    /// The grace G included in the deadline, µs.
    pub grace_micros: u64,
}

impl ReplyDeadline {
    /// The rule a reply that never comes breaks: the clocks of a search only time a reply
    /// that comes, so a missing one is USI-GO-002's (one terminal reply per `go`); after
    /// `stop` it is USI-STOP-001's, after `go mate <ms>` USI-MATE-005's, whose checks are
    /// that the reply comes at all, and after `ponderhit` USI-PONDER-004's (the ponder search
    /// never became a timed one).
    ///
    /// ```
    /// use usicheck::observer::{ClockKind, ReplyDeadline};
    /// let due = |kind| ReplyDeadline {
    ///     at_micros: 0,
    ///     since_micros: 0,
    ///     rule: usicheck::rule!("USI-GO-004"),
    ///     kind,
    ///     limit: String::new(),
    ///     grace_micros: 0,
    /// };
    /// assert_eq!(due(ClockKind::Byoyomi).missing_rule(), usicheck::rule!("USI-GO-002"));
    /// assert_eq!(due(ClockKind::Stop).missing_rule(), usicheck::rule!("USI-GO-004"));
    /// assert_eq!(due(ClockKind::Ponderhit).missing_rule(), usicheck::rule!("USI-PONDER-004"));
    /// ```
    pub fn missing_rule(&self) -> RuleId {
        match self.kind {
            ClockKind::Stop | ClockKind::Mate => self.rule,
            ClockKind::Ponderhit => crate::rule!("USI-PONDER-004"),
            ClockKind::Byoyomi
            | ClockKind::Increment
            | ClockKind::SuddenDeath
            | ClockKind::Movetime => crate::rule!("USI-GO-002"),
        }
    }

    /// Where the late window opens, in which the engine's CPU wait can excuse a late reply
    /// (session clock, µs; see [`crate::engine::CpuWaitWatch`]). Under a time control, at the
    /// limit itself (the deadline less G): an engine that keeps its time by the wall clock
    /// loses to a wait from there on, not to one in mid-search. After `stop` the whole
    /// latency counts.
    ///
    /// ```
    /// use usicheck::observer::{ClockKind, ReplyDeadline};
    /// let mut due = ReplyDeadline {
    ///     at_micros: 1_100_000,
    ///     since_micros: 0,
    ///     rule: "USI-GO-004".parse().unwrap(),
    ///     kind: ClockKind::Byoyomi,
    ///     limit: "byoyomi 1000 ms + G".into(),
    ///     grace_micros: 100_000,
    /// };
    /// assert_eq!(due.late_window_start_micros(), 1_000_000);
    /// due.kind = ClockKind::Stop;
    /// assert_eq!(due.late_window_start_micros(), 0);
    /// ```
    pub fn late_window_start_micros(&self) -> u64 {
        match self.kind {
            ClockKind::Stop => self.since_micros,
            _ => self
                .at_micros
                .saturating_sub(self.grace_micros)
                .max(self.since_micros),
        }
    }
}

/// How a timed search's reply met its deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReplyTiming {
    /// Within the deadline.
    InTime,
    /// Past the deadline.
    Late,
    /// Late by less than usicheck itself was held up by the machine's load.
    NotJudgedLoad,
    /// The session ended past the deadline without a reply.
    NoReply,
}

impl ReplyTiming {
    /// The name report.json gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            ReplyTiming::InTime => "in_time",
            ReplyTiming::Late => "late",
            ReplyTiming::NotJudgedLoad => "not_judged_load",
            ReplyTiming::NoReply => "no_reply",
        }
    }
}

/// One search with a clock and its reply: a point of the time-use chart. Times in ms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TimedSearch {
    /// The time control that set the deadline.
    pub kind: ClockKind,
    /// The rule a late reply breaks.
    pub rule: RuleId,
    /// The limit in words, e.g. "btime 0 + byoyomi 1000 ms + G".
    pub limit: String,
    /// When the limit started: the `go`, `stop` or `ponderhit` sent (session clock).
    pub at_ms: f64,
    /// From the start of the limit to the deadline, the grace G included.
    pub allowed_ms: f64,
    /// The grace G (RULES.md §0.3) in `allowed_ms`.
    pub grace_ms: f64,
    /// From the start of the limit to the reply; null when none came.
    pub used_ms: Option<f64>,
    /// `allowed_ms - used_ms`: negative for an overrun; null without a reply.
    pub margin_ms: Option<f64>,
    /// How the reply met the deadline.
    pub timing: ReplyTiming,
    /// A scenario step with a rule of its own judged this reply's timing (the always-on clock
    /// check did not).
    pub claimed: bool,
}

impl TimedSearch {
    /// The search `due` set, answered at `reply_micros` (session clock) or never.
    pub fn new(
        due: &ReplyDeadline,
        reply_micros: Option<u64>,
        timing: ReplyTiming,
        claimed: bool,
    ) -> TimedSearch {
        let ms = |micros: u64| micros as f64 / 1000.0;
        let allowed = due.at_micros.saturating_sub(due.since_micros);
        let used = reply_micros.map(|at| at.saturating_sub(due.since_micros));
        TimedSearch {
            kind: due.kind,
            rule: due.rule,
            limit: due.limit.clone(),
            at_ms: ms(due.since_micros),
            allowed_ms: ms(allowed),
            grace_ms: ms(due.grace_micros),
            used_ms: used.map(ms),
            margin_ms: used.map(|used| (allowed as f64 - used as f64) / 1000.0),
            timing,
            claimed,
        }
    }
}

/// A limit a `go` (or its `ponderhit`) sets: the time it allows in ms, the rule a late reply
/// breaks, its kind and its words.
struct Limit {
    ms: u64,
    rule: RuleId,
    kind: ClockKind,
    words: String,
}

/// Follows `go`, `stop` and `ponderhit` to know when the current search's reply is due.
#[derive(Clone, Debug, Default)]
pub struct ReplyClock {
    go: Option<Go>,
    /// The side to move in the searched position, when known.
    side: Option<Color>,
    deadline: Option<ReplyDeadline>,
    /// A `stop` sent before `deadline` whose T-STOP ends after it: a reply that misses both is
    /// charged to `stop` (only a broken `stop` misses both; a clock overrun alone does not).
    stop: Option<ReplyDeadline>,
    /// A step that names its own rule judges this search's timing.
    claimed: bool,
}

impl ReplyClock {
    /// Follows a command sent at `at_micros`; `side` is the side to move of the position the
    /// engine was given.
    ///
    /// ```
    /// use usicheck::rules::Profile;
    /// use usicheck::observer::ReplyClock;
    /// use usicheck::shogi::Color;
    /// use usicheck::usi::Command;
    /// let mut clock = ReplyClock::default();
    /// let t = Profile::Shogidokoro.timeouts();
    /// clock.on_send(&Command::parse("go btime 0 wtime 0 byoyomi 1000"), 0, Some(Color::Black), &t);
    /// let due = clock.deadline().unwrap();
    /// assert_eq!((due.rule.as_str(), due.at_micros), ("USI-GO-004", 1_100_000));
    /// clock.on_send(&Command::parse("go infinite"), 2_000_000, Some(Color::Black), &t);
    /// assert!(clock.deadline().is_none());
    /// clock.on_send(&Command::parse("stop"), 3_000_000, Some(Color::Black), &t);
    /// assert_eq!(clock.deadline().unwrap().rule.as_str(), "USI-STOP-001");
    /// ```
    pub fn on_send(
        &mut self,
        command: &Command,
        at_micros: u64,
        side: Option<Color>,
        timeouts: &Timeouts,
    ) {
        let grace = timeouts.grace.as_micros() as u64;
        match command {
            Command::Go(go) => {
                self.go = Some(go.clone());
                self.side = side;
                self.claimed = false;
                self.stop = None;
                self.deadline = first_deadline(go, side).map(|limit| ReplyDeadline {
                    at_micros: at_micros + limit.ms * 1000 + grace,
                    since_micros: at_micros,
                    rule: limit.rule,
                    kind: limit.kind,
                    limit: format!("{} + G", limit.words),
                    grace_micros: grace,
                });
            }
            Command::Stop if self.go.is_some() => {
                let due = at_micros + timeouts.stop.as_micros() as u64 + grace;
                let stop = ReplyDeadline {
                    at_micros: due,
                    since_micros: at_micros,
                    rule: crate::rule!("USI-STOP-001"),
                    kind: ClockKind::Stop,
                    limit: format!("T-STOP {} ms + G after `stop`", timeouts.stop.as_millis()),
                    grace_micros: grace,
                };
                match &self.deadline {
                    Some(d) if due >= d.at_micros => {
                        if at_micros < d.at_micros && self.stop.is_none() {
                            self.stop = Some(stop);
                        }
                    }
                    _ => self.deadline = Some(stop),
                }
            }
            Command::PonderHit(given) => {
                // The clock the `go ponder` carried starts now; one the `ponderhit` carries
                // itself (USI-EXT-015's early ponder, after a `go ponder` without one) is that
                // search's clock.
                if let Some(go) = self.go.as_ref().filter(|go| go.ponder)
                    && let Some(limit) = clock_deadline(&go.clock, self.side)
                        .or_else(|| clock_deadline(given, self.side))
                {
                    self.stop = None;
                    self.deadline = Some(ReplyDeadline {
                        at_micros: at_micros + limit.ms * 1000 + grace,
                        since_micros: at_micros,
                        rule: limit.rule,
                        kind: ClockKind::Ponderhit,
                        limit: format!("{} + G after `ponderhit`", limit.words),
                        grace_micros: grace,
                    });
                }
            }
            _ => {}
        }
    }

    /// The reply to the current search has come (or the search was abandoned).
    pub fn on_reply(&mut self) {
        *self = ReplyClock::default();
    }

    /// When the current search's reply is due, unless a step claimed its timing.
    pub fn deadline(&self) -> Option<&ReplyDeadline> {
        self.deadline.as_ref().filter(|_| !self.claimed)
    }

    /// The rule a late reply to the current search breaks, claimed or not.
    pub fn late_rule(&self) -> Option<RuleId> {
        self.deadline.as_ref().map(|d| d.rule)
    }

    /// When the current search's reply is due, claimed or not, and whether a step claimed it.
    pub fn due(&self) -> Option<(&ReplyDeadline, bool)> {
        self.deadline.as_ref().map(|d| (d, self.claimed))
    }

    /// As [`ReplyClock::due`], for a reply at `at_micros` (or none by then): past the T-STOP of
    /// a `stop` sent before the deadline too, it is that `stop`'s.
    ///
    /// ```
    /// use usicheck::rules::Profile;
    /// use usicheck::observer::ReplyClock;
    /// use usicheck::shogi::Color;
    /// use usicheck::usi::Command;
    /// let mut clock = ReplyClock::default();
    /// let t = Profile::Shogidokoro.timeouts();
    /// let black = Some(Color::Black);
    /// clock.on_send(&Command::parse("go btime 0 wtime 0 byoyomi 100"), 0, black, &t);
    /// clock.on_send(&Command::parse("stop"), 10_000, black, &t);
    /// let rule = |at| clock.due_at(at).unwrap().0.rule.as_str();
    /// assert_eq!((rule(500_000), rule(5_000_000)), ("USI-GO-004", "USI-STOP-001"));
    /// ```
    pub fn due_at(&self, at_micros: u64) -> Option<(&ReplyDeadline, bool)> {
        let stop = self.stop.as_ref().filter(|stop| at_micros > stop.at_micros);
        stop.or(self.deadline.as_ref()).map(|d| (d, self.claimed))
    }

    /// A step that names its own rule and waits for the reply no later than `until_micros`
    /// takes over the judgement of its timing when that is no later than the clock's
    /// deadline (give or take [`CLAIM_SLACK_MICROS`]: the step starts a moment after the
    /// `go`): a late reply is then charged to the step's rule only. `u64::MAX` claims the
    /// reply whatever its deadline (a check that failed for want of it).
    pub fn claim(&mut self, until_micros: u64) {
        if until_micros == u64::MAX
            || self
                .deadline
                .as_ref()
                .is_some_and(|d| until_micros <= d.at_micros + CLAIM_SLACK_MICROS)
        {
            self.claimed = true;
        }
    }
}

/// The rule a late (or missing) reply to `go` breaks, from the limit that sets its deadline:
/// `None` for searches only `stop` or `ponderhit` end, and for depth or node limits.
///
/// ```
/// use usicheck::observer::reply_rule;
/// use usicheck::shogi::Color;
/// use usicheck::usi::Command;
/// let Command::Go(go) = Command::parse("go mate 500") else { unreachable!() };
/// assert_eq!(reply_rule(&go, Some(Color::Black)).unwrap().as_str(), "USI-MATE-005");
/// ```
pub fn reply_rule(go: &Go, side: Option<Color>) -> Option<RuleId> {
    first_deadline(go, side).map(|limit| limit.rule)
}

/// The limit a new `go` sets; `None` for searches that only `stop` or `ponderhit` end, and
/// for depth or node limits.
fn first_deadline(go: &Go, side: Option<Color>) -> Option<Limit> {
    if go.infinite || go.ponder {
        return None;
    }
    match go.mate {
        Some(MateLimit::Millis(ms)) => {
            return Some(Limit {
                ms,
                rule: crate::rule!("USI-MATE-005"),
                kind: ClockKind::Mate,
                words: format!("go mate {ms} ms"),
            });
        }
        Some(MateLimit::Infinite) => return None,
        None => {}
    }
    if let Some(ms) = go.movetime.filter(|ms| *ms > 0) {
        return Some(Limit {
            ms: ms as u64,
            rule: crate::rule!("USI-GO-009"),
            kind: ClockKind::Movetime,
            words: format!("movetime {ms} ms"),
        });
    }
    clock_deadline(&go.clock, side)
}

/// The time a clock gives the side to move: its main time plus its byoyomi (USI-GO-004), or
/// plus its increment (USI-GO-005), or its main time alone (sudden death, USI-GO-007).
/// Where both byoyomi and an increment are given (RULES.md leaves it undefined) the larger
/// allowance counts.
fn clock_deadline(clock: &Clock, side: Option<Color>) -> Option<Limit> {
    let side = side?;
    let (main, byoyomi, inc) = match side {
        Color::Black => (clock.btime, clock.bbyoyomi.or(clock.byoyomi), clock.binc),
        Color::White => (clock.wtime, clock.wbyoyomi.or(clock.byoyomi), clock.winc),
    };
    let main = main?.max(0) as u64;
    let byoyomi = byoyomi.unwrap_or(0).max(0) as u64;
    let inc = inc.unwrap_or(0).max(0) as u64;
    let colour = if side == Color::Black { "b" } else { "w" };
    Some(if byoyomi > 0 && byoyomi >= inc {
        Limit {
            ms: main + byoyomi,
            rule: crate::rule!("USI-GO-004"),
            kind: ClockKind::Byoyomi,
            words: format!("{colour}time {main} + byoyomi {byoyomi} ms"),
        }
    } else if inc > 0 {
        Limit {
            ms: main + inc,
            rule: crate::rule!("USI-GO-005"),
            kind: ClockKind::Increment,
            words: format!("{colour}time {main} + {colour}inc {inc} ms"),
        }
    } else {
        Limit {
            ms: main,
            rule: crate::rule!("USI-GO-007"),
            kind: ClockKind::SuddenDeath,
            words: format!("{colour}time {main} ms"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Profile;

    /// Every limit the clock sets a deadline from names one of [`CLOCK_RULES`].
    #[test]
    fn every_deadline_names_a_clock_rule() {
        let timeouts = Profile::Shogidokoro.timeouts();
        let searches = [
            ("go btime 0 wtime 0 byoyomi 1000", "stop"),
            ("go btime 1000 wtime 1000 binc 100 winc 100", "stop"),
            ("go btime 1000 wtime 1000", "stop"),
            ("go movetime 500", "stop"),
            ("go mate 500", "stop"),
            ("go infinite", "stop"),
            ("go ponder btime 0 wtime 0 byoyomi 1000", "ponderhit"),
        ];
        for (go, then) in searches {
            let mut clock = ReplyClock::default();
            for (at, line) in [(0, go), (1_000, then)] {
                clock.on_send(&Command::parse(line), at, Some(Color::Black), &timeouts);
                if let Some(due) = clock.deadline() {
                    assert!(CLOCK_RULES.contains(&due.rule), "{go}, {line}");
                }
            }
            assert!(clock.deadline().is_some(), "{go}, then {then}: no deadline");
        }
    }
}
