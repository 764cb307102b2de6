//! The GUI's side of a USI conversation: what the commands sent and the replies that answer
//! them leave outstanding (a `usiok`, `readyok`s, a search and what was sent since its `go`),
//! and the protocol [`State`] a command is sent in, which the fuzzer's coverage counts. The
//! observer keeps one per engine process and judges against it; the fuzzer's executor reads
//! its observer's; the fuzzer's plan runs one over the commands it means to send, and its
//! reproducer writer one over a finding's commands, each awaited reply assumed to come.

use crate::usi::{Command, Go, Message};
use std::collections::VecDeque;

/// What the outstanding `go` asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoKind {
    Timed,
    Infinite,
    Ponder,
    Mate,
}

impl GoKind {
    /// The kind of search `go` starts: `go mate` before `ponder` before `infinite`.
    pub fn of(go: &Go) -> GoKind {
        if go.mate.is_some() {
            GoKind::Mate
        } else if go.ponder {
            GoKind::Ponder
        } else if go.infinite {
            GoKind::Infinite
        } else {
            GoKind::Timed
        }
    }
}

/// The engine's protocol state when a command is sent, as the GUI sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum State {
    /// No search, no `readyok` owed, in a game.
    Idle,
    /// A `go` (timed or `infinite`) owes its reply.
    Searching,
    /// A `go ponder` not yet released.
    Pondering,
    /// A `go ponder` released by `ponderhit`: a timed search now.
    AfterPonderhit,
    /// `stop` was sent; the reply is owed.
    AfterStop,
    /// A `go mate` owes its `checkmate`.
    MateSearch,
    /// `gameover` was sent and no new game began.
    AfterGameover,
    /// An `isready` is not answered yet.
    BeforeReadyok,
}

impl State {
    pub const ALL: [State; 8] = [
        State::Idle,
        State::Searching,
        State::Pondering,
        State::AfterPonderhit,
        State::AfterStop,
        State::MateSearch,
        State::AfterGameover,
        State::BeforeReadyok,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            State::Idle => "idle",
            State::Searching => "searching",
            State::Pondering => "pondering",
            State::AfterPonderhit => "after ponderhit",
            State::AfterStop => "after stop",
            State::MateSearch => "mate search",
            State::AfterGameover => "after gameover",
            State::BeforeReadyok => "before readyok",
        }
    }

    /// A search runs: a GUI sends only `stop`, `ponderhit`, `isready`, `gameover`, `quit`
    /// (and the fuzzer its garbage) then.
    pub const fn in_search(self) -> bool {
        matches!(
            self,
            State::Searching
                | State::Pondering
                | State::AfterPonderhit
                | State::AfterStop
                | State::MateSearch
        )
    }
}

/// An engine reply that answers a command: what moves the conversation on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    UsiOk,
    ReadyOk,
    /// `bestmove` or `checkmate`: the search's one terminal reply.
    Terminal,
}

impl Reply {
    /// The reply `message` is, if it is one.
    pub fn of(message: &Message) -> Option<Reply> {
        match message {
            Message::UsiOk => Some(Reply::UsiOk),
            Message::ReadyOk => Some(Reply::ReadyOk),
            Message::BestMove(_) | Message::Checkmate(_) => Some(Reply::Terminal),
            _ => None,
        }
    }
}

/// The outstanding search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Search {
    kind: GoKind,
    /// When its `go` was sent (session clock, µs): lines read earlier cannot answer it.
    sent_at: u64,
    /// `gameover` or `quit` was sent, or the engine's input closed: it owes no reply any
    /// more (one may still come).
    released: bool,
}

/// The GUI's protocol state: moved by each command sent ([`Conversation::on_send`]) and each
/// reply that answers one ([`Conversation::on_reply`]), pure transitions with no judging.
///
/// ```
/// use usicheck::observer::{Conversation, GoKind, Reply, State};
/// use usicheck::usi::Command;
/// let mut conversation = Conversation::default();
/// let mut send = |line: &str, at| conversation.on_send(&Command::parse(line), at);
/// send("go ponder btime 0 wtime 0 byoyomi 100", 10);
/// send("ponderhit", 20);
/// assert_eq!(conversation.state(), State::AfterPonderhit);
/// conversation.on_send(&Command::parse("gameover win"), 30);
/// // Released by `gameover`: the search owes nothing now, though it is not answered yet.
/// assert_eq!((conversation.search_kind(), conversation.owed_search()), (Some(GoKind::Ponder), None));
/// assert_eq!(conversation.state(), State::AfterGameover);
/// conversation.on_send(&Command::parse("isready"), 40);
/// assert_eq!(conversation.state(), State::BeforeReadyok);
/// conversation.on_reply(Reply::ReadyOk);
/// conversation.on_reply(Reply::Terminal);
/// assert_eq!((conversation.searching(), conversation.state()), (false, State::AfterGameover));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conversation {
    /// `usi` was sent and its `usiok` has not come.
    usiok_owed: bool,
    /// When each unanswered `isready` was sent (session clock, µs), oldest first.
    isready_sent: VecDeque<u64>,
    search: Option<Search>,
    /// Since the last `go`: `stop` sent, `ponderhit` sent.
    stop_since_go: bool,
    ponderhit_since_go: bool,
    /// `gameover` sent and no `usinewgame` or `go` since.
    after_gameover: bool,
    /// `usinewgame` sent and no `isready` or `go` since.
    newgame_unsettled: bool,
    /// The last `go` was the first after a `usinewgame` not followed by `isready`.
    search_after_newgame: bool,
}

impl Conversation {
    /// Follows `command`, sent at `at_micros` (session clock; the times only tell which
    /// replies answer an earlier command, [`Conversation::answers_previous`]).
    pub fn on_send(&mut self, command: &Command, at_micros: u64) {
        match command {
            Command::Usi => self.usiok_owed = true,
            Command::IsReady => {
                self.isready_sent.push_back(at_micros);
                self.newgame_unsettled = false;
            }
            Command::UsiNewGame => {
                self.after_gameover = false;
                self.newgame_unsettled = true;
            }
            Command::Go(go) => {
                self.search = Some(Search {
                    kind: GoKind::of(go),
                    sent_at: at_micros,
                    released: false,
                });
                self.stop_since_go = false;
                self.ponderhit_since_go = false;
                self.after_gameover = false;
                self.search_after_newgame = std::mem::take(&mut self.newgame_unsettled);
            }
            Command::Stop => self.stop_since_go = true,
            Command::PonderHit(_) => self.ponderhit_since_go = true,
            Command::GameOver(_) => {
                self.after_gameover = true;
                self.release();
            }
            Command::Quit => self.release(),
            _ => {}
        }
    }

    /// The engine's input was closed: a running search owes no reply any more.
    pub fn on_close_stdin(&mut self) {
        self.release();
    }

    fn release(&mut self) {
        if let Some(search) = &mut self.search {
            search.released = true;
        }
    }

    /// Follows a reply that answers what is outstanding (one read before the command it
    /// could answer was sent answers an earlier one: see [`Conversation::answers_previous`]).
    pub fn on_reply(&mut self, reply: Reply) {
        match reply {
            Reply::UsiOk => self.usiok_owed = false,
            Reply::ReadyOk => {
                self.isready_sent.pop_front();
            }
            Reply::Terminal => self.search = None,
        }
    }

    /// Whether `usi` was sent and its `usiok` has not come yet.
    pub fn awaiting_usiok(&self) -> bool {
        self.usiok_owed
    }

    /// Whether an `isready` is still unanswered.
    pub fn awaiting_readyok(&self) -> bool {
        !self.isready_sent.is_empty()
    }

    /// Whether a search is outstanding (its reply not yet seen), owing its reply or released
    /// from it.
    pub fn searching(&self) -> bool {
        self.search.is_some()
    }

    /// The kind of the outstanding search, owing its reply or released from it.
    pub fn search_kind(&self) -> Option<GoKind> {
        self.search.map(|s| s.kind)
    }

    /// The kind of the outstanding search that still owes its reply (`gameover`, `quit` or
    /// the input's end released it from that).
    pub fn owed_search(&self) -> Option<GoKind> {
        self.search.filter(|s| !s.released).map(|s| s.kind)
    }

    /// When the outstanding search's `go` was sent (session clock, µs).
    pub fn search_sent_at(&self) -> Option<u64> {
        self.search.map(|s| s.sent_at)
    }

    /// When the outstanding search released from its reply had its `go` sent, if it was.
    pub fn released_search_sent_at(&self) -> Option<u64> {
        self.search.filter(|s| s.released).map(|s| s.sent_at)
    }

    /// Whether `stop` was sent since the last `go`.
    pub fn stop_sent(&self) -> bool {
        self.stop_since_go
    }

    /// Whether `gameover` was sent and no `usinewgame` or `go` since.
    pub fn after_gameover(&self) -> bool {
        self.after_gameover
    }

    /// Whether the last `go` was the first after a `usinewgame` that no `isready` followed.
    pub fn search_after_newgame(&self) -> bool {
        self.search_after_newgame
    }

    /// Whether a reply read at `at_micros` answers a command before the outstanding one: a
    /// terminal reply read before the outstanding `go` was sent, or a `readyok` read before
    /// the oldest unanswered `isready` was sent (or with none unanswered).
    pub fn answers_previous(&self, message: &Message, at_micros: u64) -> bool {
        match message {
            Message::BestMove(_) | Message::Checkmate(_) => {
                self.search.is_some_and(|s| at_micros < s.sent_at)
            }
            Message::ReadyOk => self
                .isready_sent
                .front()
                .is_none_or(|&sent_at| at_micros < sent_at),
            _ => false,
        }
    }

    /// The protocol state a command sent now is sent in.
    pub fn state(&self) -> State {
        match self.search_state() {
            _ if self.awaiting_readyok() => State::BeforeReadyok,
            Some(state) => state,
            None if self.after_gameover => State::AfterGameover,
            None => State::Idle,
        }
    }

    /// The state of the search that owes its reply, `readyok` owed or not; `None` without one.
    pub fn search_state(&self) -> Option<State> {
        Some(match self.owed_search()? {
            GoKind::Mate => State::MateSearch,
            _ if self.stop_since_go => State::AfterStop,
            GoKind::Ponder if self.ponderhit_since_go => State::AfterPonderhit,
            GoKind::Ponder => State::Pondering,
            _ => State::Searching,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(lines: &[&str]) -> Conversation {
        let mut conversation = Conversation::default();
        for (at, line) in lines.iter().enumerate() {
            conversation.on_send(&Command::parse(line), at as u64);
        }
        conversation
    }

    #[test]
    fn each_state_from_the_commands_that_make_it() {
        let go = "go btime 0 wtime 0 byoyomi 100";
        let ponder = "go ponder btime 0 wtime 0 byoyomi 100";
        let cases: [(&[&str], State); 10] = [
            (&[], State::Idle),
            (&[go], State::Searching),
            (&["go infinite"], State::Searching),
            (&[ponder], State::Pondering),
            (&[ponder, "ponderhit"], State::AfterPonderhit),
            (&[ponder, "ponderhit", "stop"], State::AfterStop),
            // A `go mate` owes its `checkmate` whatever ended it.
            (&["go mate infinite", "stop"], State::MateSearch),
            (&["go infinite", "gameover draw"], State::AfterGameover),
            (&["gameover draw", "usinewgame"], State::Idle),
            (&["go infinite", "isready"], State::BeforeReadyok),
        ];
        for (lines, state) in cases {
            assert_eq!(after(lines).state(), state, "{lines:?}");
        }
    }

    #[test]
    fn stop_and_ponderhit_count_from_the_last_go() {
        let mut conversation = after(&["stop", "ponderhit", "go ponder"]);
        assert_eq!(conversation.state(), State::Pondering);
        conversation.on_send(&Command::Stop, 9);
        conversation.on_reply(Reply::Terminal);
        assert!(conversation.stop_sent(), "still, until the next `go`");
        assert_eq!(conversation.state(), State::Idle);
    }

    #[test]
    fn a_search_after_an_unsettled_new_game() {
        assert!(after(&["usinewgame", "go depth 1"]).search_after_newgame());
        assert!(!after(&["usinewgame", "isready", "go depth 1"]).search_after_newgame());
        assert!(!after(&["usinewgame", "go depth 1", "go depth 1"]).search_after_newgame());
    }

    #[test]
    fn replies_read_before_their_command_answer_an_earlier_one() {
        let conversation = after(&["isready", "go infinite"]);
        let (bestmove, _) = Message::parse("bestmove 7g7f");
        assert!(conversation.answers_previous(&bestmove, 0));
        assert!(!conversation.answers_previous(&bestmove, 1));
        assert!(!conversation.answers_previous(&Message::ReadyOk, 0));
        assert!(Conversation::default().answers_previous(&Message::ReadyOk, 5));
    }
}
