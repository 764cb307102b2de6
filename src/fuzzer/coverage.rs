//! Protocol-state coverage: which (engine state × command × timing) cells a campaign's
//! sessions exercised. The generator steers toward cells not yet exercised (state-aware
//! protocol fuzzing, as AFLNet does for network servers); the table is the campaign's measure
//! of how much of the protocol it has tried.
//!
//! ```
//! use usicheck::fuzzer::coverage::{Coverage, Gap, Sent, State};
//! let mut coverage = Coverage::default();
//! coverage.note(State::Searching, Sent::Stop, Gap::SameWrite);
//! coverage.note(State::Searching, Sent::Stop, Gap::SameWrite);
//! assert_eq!(coverage.count(State::Searching, Sent::Stop, Gap::SameWrite), 2);
//! assert_eq!(coverage.exercised(), 1);
//! assert!(Coverage::reachable(State::Searching, Sent::Stop, Gap::SameWrite));
//! // A GUI sends no `position` while the engine searches.
//! assert!(!Coverage::reachable(State::Searching, Sent::Position, Gap::Under1));
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

/// The state a command is sent in: the one its session's
/// [`Conversation`](crate::observer::Conversation) is in, as the executor reads it from its
/// observer and the plan predicts it.
pub use crate::observer::State;

/// What kind of command was sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sent {
    Position,
    Go,
    Stop,
    PonderHit,
    IsReady,
    NewGame,
    GameOver,
    SetOption,
    Quit,
    /// Garbage, `usi`, rare commands.
    Other,
}

impl Sent {
    pub const ALL: [Sent; 10] = [
        Sent::Position,
        Sent::Go,
        Sent::Stop,
        Sent::PonderHit,
        Sent::IsReady,
        Sent::NewGame,
        Sent::GameOver,
        Sent::SetOption,
        Sent::Quit,
        Sent::Other,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Sent::Position => "position",
            Sent::Go => "go",
            Sent::Stop => "stop",
            Sent::PonderHit => "ponderhit",
            Sent::IsReady => "isready",
            Sent::NewGame => "usinewgame",
            Sent::GameOver => "gameover",
            Sent::SetOption => "setoption",
            Sent::Quit => "quit",
            Sent::Other => "other",
        }
    }

    /// The kind of a line sent, by its first word.
    ///
    /// ```
    /// use usicheck::fuzzer::coverage::Sent;
    /// assert_eq!(Sent::of("go btime 0 wtime 0 byoyomi 100"), Sent::Go);
    /// assert_eq!(Sent::of("isready\r\n"), Sent::IsReady);
    /// assert_eq!(Sent::of("position\tstartpos"), Sent::Position);
    /// assert_eq!(Sent::of("gibberish"), Sent::Other);
    /// ```
    pub fn of(line: &str) -> Sent {
        match line.split_whitespace().next().unwrap_or("") {
            "position" => Sent::Position,
            "go" => Sent::Go,
            "stop" => Sent::Stop,
            "ponderhit" => Sent::PonderHit,
            "isready" => Sent::IsReady,
            "usinewgame" => Sent::NewGame,
            "gameover" => Sent::GameOver,
            "setoption" => Sent::SetOption,
            "quit" => Sent::Quit,
            _ => Sent::Other,
        }
    }
}

/// How long after the previous command a command was sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Gap {
    /// In the same write as the previous command.
    SameWrite,
    /// A separate write, under 1 ms later.
    Under1,
    /// 1–10 ms.
    To10,
    /// 10–100 ms.
    To100,
    /// 100–1000 ms.
    To1000,
    /// A second or more.
    Longer,
}

impl Gap {
    pub const ALL: [Gap; 6] = [
        Gap::SameWrite,
        Gap::Under1,
        Gap::To10,
        Gap::To100,
        Gap::To1000,
        Gap::Longer,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Gap::SameWrite => "same write",
            Gap::Under1 => "<1 ms",
            Gap::To10 => "1-10 ms",
            Gap::To100 => "10-100 ms",
            Gap::To1000 => "0.1-1 s",
            Gap::Longer => ">=1 s",
        }
    }

    /// The bucket of a separate write `after` the previous one.
    ///
    /// ```
    /// use std::time::Duration;
    /// use usicheck::fuzzer::coverage::Gap;
    /// assert_eq!(Gap::after(Duration::from_micros(300)), Gap::Under1);
    /// assert_eq!(Gap::after(Duration::from_millis(10)), Gap::To100);
    /// assert_eq!(Gap::after(Duration::from_secs(3)), Gap::Longer);
    /// ```
    pub fn after(gap: Duration) -> Gap {
        match gap.as_micros() {
            0..1_000 => Gap::Under1,
            1_000..10_000 => Gap::To10,
            10_000..100_000 => Gap::To100,
            100_000..1_000_000 => Gap::To1000,
            _ => Gap::Longer,
        }
    }
}

/// One cell of the table.
pub type Cell = (State, Sent, Gap);

/// How often each cell was exercised.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    counts: BTreeMap<Cell, u64>,
}

impl Coverage {
    /// Whether the fuzzer, as a GUI, can send `sent` in `state` after `gap`. During a search
    /// a GUI sends only what ends or probes it (`stop`, `ponderhit`, `isready`, `gameover`,
    /// `quit`; the fuzzer also garbage); it awaits `readyok` before anything else, so a
    /// command reaches an engine before its `readyok` only in the same write as `isready`;
    /// and a prompt engine leaves the state after `stop` within a millisecond.
    pub fn reachable(state: State, sent: Sent, gap: Gap) -> bool {
        match state {
            // An engine answers `stop` within a millisecond or two: only a command in the
            // same write or right after it finds it still owing the reply.
            State::AfterStop if !matches!(gap, Gap::SameWrite | Gap::Under1) => false,
            _ if state.in_search() => matches!(
                sent,
                Sent::Stop
                    | Sent::PonderHit
                    | Sent::IsReady
                    | Sent::GameOver
                    | Sent::Quit
                    | Sent::Other
            ),
            State::BeforeReadyok => gap == Gap::SameWrite,
            _ => true,
        }
    }

    /// Every reachable cell.
    pub fn reachable_cells() -> impl Iterator<Item = Cell> {
        State::ALL.into_iter().flat_map(|state| {
            Sent::ALL.into_iter().flat_map(move |sent| {
                Gap::ALL
                    .into_iter()
                    .filter(move |&gap| Coverage::reachable(state, sent, gap))
                    .map(move |gap| (state, sent, gap))
            })
        })
    }

    pub fn note(&mut self, state: State, sent: Sent, gap: Gap) {
        *self.counts.entry((state, sent, gap)).or_default() += 1;
    }

    pub fn count(&self, state: State, sent: Sent, gap: Gap) -> u64 {
        self.counts.get(&(state, sent, gap)).copied().unwrap_or(0)
    }

    /// Adds `other`'s counts to these.
    pub fn merge(&mut self, other: &Coverage) {
        for (&cell, &n) in &other.counts {
            *self.counts.entry(cell).or_default() += n;
        }
    }

    /// Cells exercised at least once.
    pub fn exercised(&self) -> usize {
        self.counts.values().filter(|&&n| n > 0).count()
    }

    /// Reachable cells exercised, and reachable cells in all.
    pub fn reached(&self) -> (usize, usize) {
        let all: Vec<Cell> = Coverage::reachable_cells().collect();
        let hit = all
            .iter()
            .filter(|cell| self.counts.contains_key(cell))
            .count();
        (hit, all.len())
    }

    /// Like [`Coverage::reached`], over the reachable cells `counted` keeps.
    pub fn reached_among(&self, counted: impl Fn(State, Sent) -> bool) -> (usize, usize) {
        let all: Vec<Cell> = Coverage::reachable_cells()
            .filter(|&(state, sent, _)| counted(state, sent))
            .collect();
        let hit = all
            .iter()
            .filter(|cell| self.counts.contains_key(cell))
            .count();
        (hit, all.len())
    }

    /// The cells exercised with their counts, in table order.
    pub fn cells(&self) -> impl Iterator<Item = (Cell, u64)> + '_ {
        self.counts.iter().map(|(&cell, &n)| (cell, n))
    }

    /// The table as text: one row per state and command, one column per gap; `.` marks a
    /// reachable cell not exercised, a blank an unreachable one.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let (hit, all) = self.reached();
        let _ = writeln!(
            out,
            "protocol-state coverage: {hit}/{all} reachable cells ({:.0} %)",
            100.0 * hit as f64 / all.max(1) as f64
        );
        let _ = write!(out, "{:<16} {:<11}", "state", "command");
        for gap in Gap::ALL {
            let _ = write!(out, " {:>10}", gap.name());
        }
        out.push('\n');
        for state in State::ALL {
            for sent in Sent::ALL {
                if !Gap::ALL
                    .iter()
                    .any(|&gap| Coverage::reachable(state, sent, gap))
                {
                    continue;
                }
                let _ = write!(out, "{:<16} {:<11}", state.name(), sent.name());
                for gap in Gap::ALL {
                    let cell = match self.count(state, sent, gap) {
                        0 if Coverage::reachable(state, sent, gap) => ".".to_string(),
                        0 => String::new(),
                        n => n.to_string(),
                    };
                    let _ = write!(out, " {cell:>10}");
                }
                out.push('\n');
            }
        }
        out
    }
}

/// What `usicheck fuzz --coverage` prints: what the table counts and how it steers.
pub const EXPLANATION: &str = "\
Protocol-state coverage counts, for every command the fuzzer sends, the cell
(engine state x command x timing) it was sent in:

  state    the engine's protocol state as the GUI sees it: idle; searching (a `go`
           owes its reply); pondering; after ponderhit; after stop (the reply still
           owed); mate search; after gameover (no new game yet); before readyok
  command  position, go, stop, ponderhit, isready, usinewgame, gameover, setoption,
           quit, other (garbage, rare commands)
  timing   sent in the same write as the previous command, or <1 ms, 1-10 ms,
           10-100 ms, 0.1-1 s, >=1 s after it

Reachable cells are those a GUI can produce: during a search only stop, ponderhit,
isready, gameover, quit (and the fuzzer's garbage); before readyok only what shares
the write of `isready`. The generator steers by the cells its sessions are
predicted to exercise: some episodes probe a reachable cell no session has
exercised yet (its state set up, the command sent after a pause in its timing),
every session ends in a `quit` cell while one is left, and other episodes are
chosen among a few candidates for the cells and positions they add against the
time they take, so a campaign spreads over the table instead of repeating the
commonest exchanges. Findings already known in the run (or waived by --baseline)
are counted, not re-reported; a costly one (a hang, a crash, an exit) steers the
generator away from its trigger, and the summary gives the coverage apart from the
cells it left out.
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_marks_unexercised_reachable_cells() {
        let mut coverage = Coverage::default();
        coverage.note(State::Idle, Sent::Go, Gap::To10);
        let table = coverage.table();
        let (hit, all) = coverage.reached();
        assert_eq!(hit, 1);
        assert!(all > 100, "{all}");
        assert!(table.starts_with(&format!("protocol-state coverage: 1/{all}")));
        let idle_go = table
            .lines()
            .find(|l| l.starts_with("idle") && l.contains(" go "))
            .expect("a row for idle go");
        assert_eq!(idle_go.split_whitespace().filter(|c| *c == ".").count(), 5);
        // Rows of commands a GUI never sends during a search are left out.
        assert!(
            !table
                .lines()
                .any(|l| l.starts_with("searching") && l.contains("position"))
        );
    }
}
