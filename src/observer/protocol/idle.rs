//! Search output while no search runs, charged to the rule of its cause: what the engine was
//! last given, told from the stamps of the commands sent and the lines read.

use super::Judge;
use crate::engine::Line;

/// What the engine was last given while no search runs: a search `info` line then is
/// charged to the rule of its cause, the same in every driver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum IdleCause {
    /// A command that asks for other output (`usi`, `isready`), its answer, or nothing yet:
    /// search output no command asks for (USI-INFO-001). An `isready` after a `position`
    /// still waiting for its `go` keeps that [`IdleCause::Position`], and so does its `readyok`
    /// once the engine was seen searching on the `position`.
    #[default]
    Command,
    /// Nothing that asks for output since its own terminal reply (`stop`, `gameover` and the
    /// like ask for none): it searches on by itself (USI-PONDER-007).
    OwnReply,
    /// `position`, with no `go` after it: a search on `position` (USI-POSITION-010).
    Position,
}

/// The latest [`IdleCause`]s, oldest first, each with when it came (session clock, µs) and
/// whether the engine's own line set it (else a command sent).
#[derive(Clone, Debug, Default)]
pub(super) struct IdleCauses {
    causes: std::collections::VecDeque<(IdleCause, u64, bool)>,
    /// The engine was seen searching on its own since its last terminal reply, and no `go` or
    /// `usi` came since: its later idle search output is the same search, whatever it was
    /// given or answered meanwhile (a `position`, a `readyok`).
    searching_on: bool,
    /// A `position` was sent since the last `go` or `usi`.
    position_since_go: bool,
    /// The engine was seen searching on that `position` (a search line charged to it): its
    /// later idle search output is the same search, after a `readyok` too.
    searching_on_position: bool,
}

/// The cause of search output after a synchronisation: the `position` waiting for its `go`,
/// or the command itself.
fn position_or_command(position: bool) -> IdleCause {
    match position {
        true => IdleCause::Position,
        false => IdleCause::Command,
    }
}

/// How many causes are kept: more than a burst of commands sent before a line is read.
const IDLE_CAUSES_KEPT: usize = 16;

/// How much longer than a `position` has been out a search on it may say it has run: an
/// engine's `time` is whole milliseconds from its own clock reading.
const ENGINE_CLOCK_SLACK_MS: u64 = 5;

impl IdleCauses {
    /// A command sent that asks for output; `new_search`: it starts a search or a session
    /// (`go`, `usi`), after which search output is no longer the old one's.
    pub(super) fn sent(&mut self, cause: IdleCause, at_micros: u64, new_search: bool) {
        self.searching_on &= !new_search;
        if new_search {
            self.position_since_go = false;
            self.searching_on_position = false;
        }
        self.position_since_go |= cause == IdleCause::Position;
        self.push((cause, at_micros, false));
    }

    /// The engine's terminal reply, which ended a search.
    pub(super) fn replied(&mut self, at_micros: u64) {
        self.searching_on = false;
        self.push((IdleCause::OwnReply, at_micros, true));
    }

    /// `isready` sent: it asks for no search output and changes no position. A search line
    /// after an `isready` that followed a `position` with no `go` is the `position`'s (an
    /// engine searching on it answers `isready` meanwhile).
    pub(super) fn isready_sent(&mut self, at_micros: u64) {
        let cause = position_or_command(self.position_since_go);
        self.push((cause, at_micros, false));
    }

    /// Its `readyok` read: a search line after it is the `readyok`'s, unless the engine was
    /// already seen searching on a `position` with no `go` (see [`Self::isready_sent`]).
    pub(super) fn readyok_read(&mut self, at_micros: u64) {
        let cause = position_or_command(self.position_since_go && self.searching_on_position);
        self.push((cause, at_micros, true));
    }

    /// Whether a `position` was sent since the last `go` (or `usi`).
    pub(super) fn position_awaits_go(&self) -> bool {
        self.position_since_go
    }

    /// An idle search line charged to `cause`.
    pub(super) fn charged(&mut self, cause: IdleCause) {
        self.searching_on |= cause == IdleCause::OwnReply;
        self.searching_on_position |= cause == IdleCause::Position;
    }

    fn push(&mut self, cause: (IdleCause, u64, bool)) {
        if self.causes.len() == IDLE_CAUSES_KEPT {
            self.causes.pop_front();
        }
        self.causes.push_back(cause);
    }

    /// The cause of `line`, a search line that says it has searched `searched_ms` (its
    /// `time`): the engine's own search while it is seen searching on, or when the latest
    /// cause is a `position` sent after the engine's own terminal reply and the search the line
    /// reports began before that `position` was sent (a search on the `position` cannot have
    /// run longer than it has been out); else the latest cause that came before the line.
    pub(super) fn of(&self, line: &Line, searched_ms: Option<u64>) -> IdleCause {
        match self.latest_before(line) {
            IdleCause::Command | IdleCause::Position if self.searching_on => IdleCause::OwnReply,
            IdleCause::Position if self.began_before_the_position(line, searched_ms) => {
                IdleCause::OwnReply
            }
            cause => cause,
        }
    }

    /// Whether the search `line` reports, `searched_ms` long, began before the latest
    /// `position` sent before the line, which followed the engine's own terminal reply.
    fn began_before_the_position(&self, line: &Line, searched_ms: Option<u64>) -> bool {
        let Some(searched_ms) = searched_ms else {
            return false;
        };
        let mut before = self
            .causes
            .iter()
            .rev()
            .filter(|(_, when, _)| *when <= line.at_micros);
        let Some(&(_, position_at, _)) = before.find(|(cause, ..)| *cause == IdleCause::Position)
        else {
            return false;
        };
        let after_own_reply = before
            .find(|(cause, ..)| *cause != IdleCause::Position)
            .is_some_and(|(cause, ..)| *cause == IdleCause::OwnReply);
        let out_for_ms = (line.at_micros - position_at) / 1000;
        after_own_reply && searched_ms > out_for_ms + ENGINE_CLOCK_SLACK_MS
    }

    /// The latest cause that came before `line`. A line read before commands were sent came
    /// of what was before them (simulated lines wait in the queue while commands go out). Of
    /// commands sent in the microsecond the line was read, which the engine had read is
    /// unknown: the first of them after the engine's own last line is taken, as the engine
    /// reads them in order.
    ///
    /// ```text
    /// readyok@18 (engine)   position@19   isready@19   info@19  →  position
    /// ```
    fn latest_before(&self, line: &Line) -> IdleCause {
        let at = line.at_micros;
        let mut before = self.causes.iter().filter(|(_, when, _)| *when <= at);
        let Some(&(latest, when, _)) = before.clone().next_back() else {
            return IdleCause::Command;
        };
        if when < at {
            return latest;
        }
        // Ties: after the engine's last line of this microsecond, the first command.
        let tied: Vec<_> = before.by_ref().filter(|(_, when, _)| *when == at).collect();
        let after_engine = tied
            .iter()
            .rposition(|(.., engine)| *engine)
            .map_or(0, |i| i + 1);
        tied.get(after_engine)
            .or(tied.last())
            .map_or(latest, |(cause, ..)| *cause)
    }
}

impl IdleCause {
    /// Charges the search `info` line `line`, read while no search runs.
    pub(super) fn charge(self, line: &Line, judge: &mut Judge) {
        let text = line.quoted();
        let (rule, reason) = match self {
            IdleCause::Command => (
                crate::rule!("USI-INFO-001"),
                format!("search `info` line while no search runs: `{text}`"),
            ),
            IdleCause::OwnReply => (
                crate::rule!("USI-PONDER-007"),
                format!(
                    "search `info` line after the engine's terminal reply, with no `go` since (it searches on by itself): `{text}`"
                ),
            ),
            IdleCause::Position => (
                crate::rule!("USI-POSITION-010"),
                format!("search `info` line after `position`, with no `go` since: `{text}`"),
            ),
        };
        judge.violation(rule, None, reason);
    }
}
