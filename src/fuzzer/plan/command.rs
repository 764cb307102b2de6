//! The fuzzer's command model: each command with what the GUI knows about it (the kind of
//! command, the search it starts, its timing, the episode it came from), the triggers of known
//! findings, and which command lists a GUI could send.

use crate::fuzzer::coverage::{Sent, State};
use crate::fuzzer::illegal::RawLine;
use crate::shogi::Position;
use std::time::Duration;

/// One step of a session: a line to send, or a pause.
#[derive(Clone, Debug)]
pub struct Cmd {
    /// The line, without its newline unless `raw`.
    pub text: String,
    /// Sent exactly as `text` (CR LF and all), no newline added.
    pub raw: bool,
    pub kind: Kind,
    /// When it is sent relative to the command before it.
    pub when: When,
    /// The kind of episode that generated it: what a known finding's trigger is avoided by.
    pub episode: Episode,
}

/// When a command is sent relative to the previous one.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum When {
    /// Once the previous command is handled (its reply awaited, if it owes one).
    #[default]
    After,
    /// While the previous `go`'s search runs: its reply is awaited only after this command
    /// (a race with the search).
    DuringSearch,
    /// In the same write as the previous command (and so during its search, if it was a `go`).
    SameWrite,
}

/// The kinds of GUI episode a session is made of.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Episode {
    /// A legal position searched under one of the `go` forms: the bulk, never avoided.
    #[default]
    Search,
    IllegalPosition,
    MalformedPosition,
    Garbage,
    /// `stop` or `ponderhit` with no search.
    IdleStopOrPonderhit,
    /// `go infinite` ended by `stop` or `gameover`.
    Infinite,
    Ponder,
    NewGame,
    Mate,
    IsReady,
    /// One (state × command × timing) cell probed: a command in the same write as the one
    /// before, or after a pause, in a state a GUI can send it in (racing a search, too).
    Probe,
    /// `quit`, the session's last command: while idle or racing a search.
    Quit,
}

/// What triggers a known finding, as far as the generator can avoid it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Trigger {
    /// Any `go mate` (the engine answers it wrongly or not at all).
    GoMate,
    /// A `go mate` with a time limit (the engine lets it pass); `go mate infinite`, which
    /// `stop` ends, still shows the mate-search state.
    GoMateTimed,
    /// Any `go ponder`.
    GoPonder,
    /// `gameover` during a search (the engine does not end it).
    GameOverInSearch,
    /// An episode of this kind.
    Episode(Episode),
}

impl Trigger {
    /// Whether avoiding this trigger keeps sessions from sending `sent` in `state`: the cells
    /// a campaign steers away from once the trigger's finding is known.
    ///
    /// ```
    /// use usicheck::fuzzer::coverage::{Sent, State};
    /// use usicheck::fuzzer::plan::Trigger;
    /// assert!(Trigger::GoMate.steers_away(State::MateSearch, Sent::Stop));
    /// assert!(Trigger::GameOverInSearch.steers_away(State::Pondering, Sent::GameOver));
    /// assert!(!Trigger::GameOverInSearch.steers_away(State::Idle, Sent::GameOver));
    /// ```
    pub fn steers_away(self, state: State, sent: Sent) -> bool {
        match self {
            Trigger::GoMate => state == State::MateSearch,
            Trigger::GoPonder => matches!(state, State::Pondering | State::AfterPonderhit),
            Trigger::GameOverInSearch => state.in_search() && sent == Sent::GameOver,
            Trigger::GoMateTimed | Trigger::Episode(_) => false,
        }
    }

    /// What to avoid after `v`, seen after `cmds[v.step]`: the search form its rule is about
    /// (`go mate`, timed or not, `go ponder`, `gameover` ending a search), else the episode of
    /// the command, unless that is the plain search every session is made of.
    ///
    /// ```
    /// use std::time::Duration;
    /// use usicheck::fuzzer::oracle::{Oracle, Violation};
    /// use usicheck::fuzzer::plan::{Cmd, Kind, Search, Trigger};
    /// let cmds = [Cmd::line("go mate infinite", Kind::Go(Search::Mate(None)))];
    /// let v = Violation::graded(Oracle::Protocol, usicheck::rule!("USI-MATE-002"), String::new(), Some(0));
    /// assert_eq!(Trigger::of(&cmds, &v), Some(Trigger::GoMate));
    /// let timed = [Cmd::line("go mate 100", Kind::Go(Search::Mate(Some(Duration::from_millis(100)))))];
    /// assert_eq!(Trigger::of(&timed, &v), Some(Trigger::GoMateTimed));
    /// ```
    pub fn of(cmds: &[Cmd], v: &crate::fuzzer::oracle::Violation) -> Option<Trigger> {
        if v.rule == crate::blame::runs_on_after_gameover() {
            return Some(Trigger::GameOverInSearch);
        }
        match v.rule.rule().section {
            crate::rules::Section::Mate => {
                let last_go = cmds.iter().take(v.step? + 1).rev().find(|c| c.is_go());
                let timed =
                    last_go.is_some_and(|c| matches!(c.kind, Kind::Go(Search::Mate(Some(_)))));
                return Some(if timed {
                    Trigger::GoMateTimed
                } else {
                    Trigger::GoMate
                });
            }
            crate::rules::Section::Ponder => return Some(Trigger::GoPonder),
            _ => {}
        }
        let episode = cmds.get(v.step?)?.episode;
        (episode != Episode::Search).then_some(Trigger::Episode(episode))
    }
}

impl Episode {
    pub const fn name(self) -> &'static str {
        match self {
            Episode::Search => "search",
            Episode::IllegalPosition => "illegal position",
            Episode::MalformedPosition => "malformed position",
            Episode::Garbage => "garbage",
            Episode::IdleStopOrPonderhit => "stop or ponderhit while idle",
            Episode::Infinite => "go infinite",
            Episode::Ponder => "ponder",
            Episode::NewGame => "new game",
            Episode::Mate => "go mate",
            Episode::IsReady => "isready",
            Episode::Probe => "probe of a state",
            Episode::Quit => "quit",
        }
    }
}

/// What a command means to the GUI model.
#[derive(Clone, Debug)]
pub enum Kind {
    /// A `position` line; `None` when it is illegal or malformed (no move can be judged).
    Position(Option<Box<Position>>),
    Go(Search),
    Stop,
    PonderHit,
    IsReady,
    NewGame,
    GameOver,
    SetOption,
    /// Garbage, rare commands, anything the engine must survive.
    Other,
    /// Not sent: wait this long, still reading the engine.
    Sleep(Duration),
    /// `quit`: the session's last command; the engine must exit.
    Quit,
}

/// The search a `go` starts, as the GUI sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Search {
    /// Ends by itself; the answer is due within this time.
    Timed(Duration),
    /// `go infinite`: ends only on `stop`.
    Infinite,
    /// `go ponder`: ends on `stop`, or after `ponderhit` within this time.
    Ponder(Duration),
    /// `go mate`: due within the time, or only on `stop` (`go mate infinite`).
    Mate(Option<Duration>),
}

impl Cmd {
    /// A line sent once the previous command is handled, from a search episode.
    pub fn line(text: impl Into<String>, kind: Kind) -> Cmd {
        Cmd {
            text: text.into(),
            raw: false,
            kind,
            when: When::After,
            episode: Episode::Search,
        }
    }

    pub(super) fn from_raw(raw: RawLine, kind: Kind) -> Cmd {
        Cmd {
            raw: raw.raw,
            ..Cmd::line(raw.text, kind)
        }
    }

    pub(super) fn when(self, when: When) -> Cmd {
        Cmd { when, ..self }
    }

    pub(super) fn sleep(ms: u64) -> Cmd {
        Cmd::line(String::new(), Kind::Sleep(Duration::from_millis(ms)))
    }

    /// Whether the command starts a search.
    pub fn is_go(&self) -> bool {
        matches!(self.kind, Kind::Go(_))
    }
}

/// Whether a GUI could send `cmds` in this order: nothing but `stop`, `ponderhit`, `isready`,
/// `gameover`, pauses and garbage while an open search (`go infinite`, `go ponder`, `go mate
/// infinite`) runs, and nothing after `quit`. The shrinker only tries such lists.
pub fn well_formed(cmds: &[Cmd]) -> bool {
    let mut open = false;
    for (i, cmd) in cmds.iter().enumerate() {
        match &cmd.kind {
            Kind::Quit if i + 1 < cmds.len() => return false,
            Kind::Go(_) | Kind::Position(_) | Kind::NewGame | Kind::SetOption if open => {
                return false;
            }
            Kind::Go(Search::Infinite | Search::Ponder(_) | Search::Mate(None)) => open = true,
            Kind::Stop | Kind::PonderHit | Kind::GameOver => open = false,
            _ => {}
        }
    }
    true
}

/// Whether the next command sent after `cmds[i]` (pauses skipped) races the search `cmds[i]`
/// started or released, rather than waiting for its reply.
pub fn raced(cmds: &[Cmd], i: usize) -> bool {
    cmds[i + 1..]
        .iter()
        .find(|c| !matches!(c.kind, Kind::Sleep(_)))
        .is_some_and(|c| c.when != When::After)
}

/// `cmds` with an `isready` after every command that ends a search (a timed `go`, `stop`,
/// `ponderhit`, `gameover`) or starts a game (`usinewgame`, the session's own before the first
/// command too) and is not raced by the next: the engine must answer `readyok` after all its
/// output for that search, so an extra terminal reply shows as one, before the next `go`
/// could take it for its own, and the work of a new game is done before its first search (as
/// the GUIs that follow `usinewgame` with `isready` wait for it). Failures are confirmed this
/// way: a late double `bestmove` is then charged to the one-reply rule, not to the next
/// position's legality; a `bestmove` sent on `usinewgame` to USI-GO-001, not to the search.
pub fn synced(cmds: &[Cmd]) -> Vec<Cmd> {
    let mut out = Vec::with_capacity(cmds.len() * 2 + 1);
    // The session's own `usinewgame` comes right before the first command.
    if cmds
        .first()
        .is_some_and(|c| !matches!(c.kind, Kind::IsReady) && c.when != When::SameWrite)
    {
        out.push(Cmd {
            episode: cmds[0].episode,
            ..Cmd::line("isready", Kind::IsReady)
        });
    }
    for (i, cmd) in cmds.iter().enumerate() {
        out.push(cmd.clone());
        let ends_search = matches!(
            cmd.kind,
            Kind::Go(Search::Timed(_) | Search::Mate(Some(_)))
                | Kind::Stop
                | Kind::PonderHit
                | Kind::GameOver
                | Kind::NewGame
        );
        if ends_search && !raced(cmds, i) {
            out.push(Cmd {
                episode: cmd.episode,
                ..Cmd::line("isready", Kind::IsReady)
            });
        }
    }
    out
}
