//! Session-level checks: what the engine may say given what it was sent (one terminal reply per
//! `go`, no `bestmove` without `go`, `readyok` only for an `isready`, options before `usiok`, search
//! `info` only during a search).

mod idle;
mod replies;

use super::conversation::{Conversation, GoKind, Reply};
use super::judge::Judge;
use super::timing::{HeldUp, ReplyClock, ReplyTiming, TimedSearch};
use crate::engine::{CpuWait, CpuWaitWatch, Line};
use crate::rules::RuleId;
use crate::rules::Timeouts;
use crate::shogi::Color;
use crate::usi::{Command, Info, Message, ScoreValue};
use idle::{IdleCause, IdleCauses};

/// What the judging of the outstanding search needs beyond the [`Conversation`] (its kind,
/// when it was sent, whether `stop` came or `gameover` released it): set at each `go`, read
/// only while the search is outstanding.
#[derive(Clone, Copy, Debug, Default)]
struct Search {
    /// `go nodes N`: the node limit.
    nodes: Option<u64>,
    /// A `go ponder` released by `ponderhit`: when that was sent (session clock, µs).
    ponderhit_at: Option<u64>,
    /// A search `info` line came after `ponderhit`: the engine searched on.
    searched_after_ponderhit: bool,
    /// The grace G (µs): a reply within it of `ponderhit` had no time to search.
    grace: u64,
    /// The position searched has no legal move: its answer needs no search.
    nothing_to_search: bool,
    /// A `score cp` came since the `go`: the engine weighs moves as a normal search does.
    scored_cp: bool,
}

/// How far past a `go nodes N` limit a search may report before it counts as ignoring it:
/// engines check the limit between batches of nodes.
fn node_limit_tolerance(limit: u64) -> u64 {
    limit.saturating_mul(2).saturating_add(10_000)
}

/// The protocol state as the GUI sees it, and the checks of what the engine says against it.
#[derive(Clone, Debug, Default)]
pub struct Protocol {
    /// What is outstanding: `usiok`, `readyok`s, the search.
    conversation: Conversation,
    after_usiok: bool,
    /// A `usiok` answered a `usi` of this session.
    usi_answered: bool,
    id_name: bool,
    id_author: bool,
    /// The `id name` of a vendor dialect usicheck knows (Fairy-Stockfish, USI-EXT-020).
    dialect: Option<String>,
    /// The outstanding search's judging, when [`Conversation::searching`].
    search: Search,
    /// The kind of the last answered `go`.
    answered: Option<GoKind>,
    /// The last answered `go infinite` or `go ponder` was answered before the `stop` or
    /// `ponderhit` that releases it (charged: USI-GO-008, USI-PONDER-002).
    answered_before_release: bool,
    /// When a `stop`, a `ponderhit` and a `usinewgame` were sent since the last terminal reply
    /// with no search outstanding: a terminal reply after one of them answers it (or the new
    /// game), one stamped before it is a second reply to the last `go`.
    stop_since_reply: Option<u64>,
    ponderhit_since_reply: Option<u64>,
    newgame_since_reply: Option<u64>,
    /// What the engine was last given while idle, to charge a search `info` line that no
    /// search explains to the rule of its cause.
    idle_cause: IdleCauses,
    /// Option names advertised before `usiok`, each capped like a quote.
    options: Vec<String>,
    /// Their `type`s, in the same order.
    option_types: Vec<String>,
    /// The advertised options' types with their fields, parallel to `options`.
    option_kinds: Vec<crate::usi::OptionKind>,
    /// `readyok` lines that answered no `isready` (each already charged to USI-READY-001).
    unsolicited_readyoks: u32,
    /// See [`Protocol::spoke_unprompted`].
    spoke_unprompted: bool,
    /// When the outstanding search's reply is due.
    clock: ReplyClock,
    /// See [`Protocol::abandoned_search`].
    abandoned_search: bool,
    /// When the latest abandoned search's `go` was sent (session clock, µs).
    abandoned_sent_at: u64,
    /// See [`Protocol::solves_mate`].
    solves_mate: bool,
    /// When the session clock started, for asking how late usicheck itself ran
    /// ([`crate::engine::stall`]); `None` judges every reply time as measured.
    origin: Option<std::time::Instant>,
    /// The engine process, whose CPU wait excuses a late reply; `None` judges as measured.
    engine_pid: Option<i32>,
    /// The engine's CPU wait that can excuse a late reply to the outstanding search: until its
    /// first line after the command, and from
    /// [`super::ReplyDeadline::late_window_start_micros`] on; `None` without a deadline.
    late_wait: Option<CpuWaitWatch>,
    /// The last timed search answered, until [`Protocol::take_timed_search`].
    answered_timed: Option<TimedSearch>,
}

impl Protocol {
    /// What the commands sent and the replies read leave outstanding.
    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// Whether `usi` was sent and its `usiok` has not come yet.
    pub fn awaiting_usiok(&self) -> bool {
        self.conversation.awaiting_usiok()
    }

    /// Whether a `usiok` answered a `usi` of this session.
    pub fn usi_answered(&self) -> bool {
        self.usi_answered
    }

    /// Whether an `isready` is still unanswered.
    pub fn awaiting_readyok(&self) -> bool {
        self.conversation.awaiting_readyok()
    }

    /// How many `readyok` lines answered no `isready` so far.
    pub fn unsolicited_readyoks(&self) -> u32 {
        self.unsolicited_readyoks
    }

    /// The reply clock of the outstanding search.
    pub fn clock(&self) -> &ReplyClock {
        &self.clock
    }

    /// The session clock started at `origin`, with the engine process `engine_pid`: late
    /// replies are weighed against the delays usicheck itself suffered
    /// ([`crate::engine::stall`]) and the time the engine waited for a CPU
    /// ([`crate::engine::CpuWait`]).
    pub fn set_origin(&mut self, origin: std::time::Instant, engine_pid: i32) {
        self.origin = Some(origin);
        self.engine_pid = Some(engine_pid);
    }

    /// How long one of the engine's threads waited for a CPU in the windows that can excuse a
    /// late reply to the outstanding search (µs): see [`crate::engine::CpuWaitWatch`].
    pub fn engine_late_cpu_wait_micros(&self) -> u64 {
        self.late_wait
            .as_ref()
            .map_or(0, |watch| watch.longest().as_micros() as u64)
    }

    /// A watch of the engine's CPU wait for the outstanding deadline, from now; `None` without
    /// a deadline or an engine process.
    fn watch_late_wait(&self) -> Option<CpuWaitWatch> {
        let (origin, pid) = (self.origin?, self.engine_pid?);
        let (due, _) = self.clock.due()?;
        let from = origin + std::time::Duration::from_micros(due.late_window_start_micros());
        Some(CpuWaitWatch::start(pid, from))
    }

    /// How long usicheck's own threads were held up between two session times (µs).
    fn host_delay_micros(&self, from_micros: u64, to_micros: u64) -> u64 {
        let Some(origin) = self.origin else {
            return 0;
        };
        let at = |micros| origin + std::time::Duration::from_micros(micros);
        crate::engine::stall::worst_between(at(from_micros), at(to_micros)).as_micros() as u64
    }

    /// The engine's CPU wait so far, to measure a later reply's from (empty without a process).
    pub fn engine_cpu_wait(&self) -> CpuWait {
        self.engine_pid.map_or_else(CpuWait::default, CpuWait::of)
    }

    /// How much the machine's load held things up between two session times (µs): usicheck's
    /// own stall, and the longest any engine thread waited for a CPU since `engine_since` (a
    /// sample of [`Protocol::engine_cpu_wait`] taken at `from_micros`).
    pub fn held_up_between(
        &self,
        from_micros: u64,
        to_micros: u64,
        engine_since: &CpuWait,
    ) -> HeldUp {
        HeldUp {
            usicheck: self.host_delay_micros(from_micros, to_micros),
            engine: self
                .engine_cpu_wait()
                .longest_since(engine_since)
                .as_micros() as u64,
        }
    }

    /// A step naming its own rule times the outstanding search's reply (until
    /// `until_micros`): see [`ReplyClock::claim`].
    pub fn claim_reply_timing(&mut self, until_micros: u64) {
        self.clock.claim(until_micros);
    }

    /// Follows a command sent to the engine at `at_micros` (session clock); `side` is the
    /// side to move of the position the engine was given.
    pub fn on_send(
        &mut self,
        command: &Command,
        at_micros: u64,
        side: Option<Color>,
        timeouts: &Timeouts,
    ) {
        if self.searching() || matches!(command, Command::Go(_)) {
            self.clock.on_send(command, at_micros, side, timeouts);
            if matches!(
                command,
                Command::Go(_) | Command::Stop | Command::PonderHit(_)
            ) {
                self.late_wait = self.watch_late_wait();
            }
        }
        // Only a command that asks for output, or sets up a search, explains idle output.
        match command {
            Command::Position(_) => self.idle_cause.sent(IdleCause::Position, at_micros, false),
            Command::Usi | Command::Go(_) => {
                self.idle_cause.sent(IdleCause::Command, at_micros, true)
            }
            Command::IsReady => self.idle_cause.isready_sent(at_micros),
            _ => {}
        }
        match command {
            Command::Usi => {
                self.after_usiok = false;
                self.id_name = false;
                self.id_author = false;
                self.options.clear();
                self.option_types.clear();
                self.option_kinds.clear();
                self.dialect = None;
            }
            Command::UsiNewGame => self.newgame_since_reply = Some(at_micros),
            Command::Go(go) => {
                // A search `gameover` ended without its reply may still be running: its lines
                // cannot be told from the new search's until a terminal reply settles it.
                if let Some(sent_at) = self.conversation.released_search_sent_at() {
                    self.abandoned_search = true;
                    self.abandoned_sent_at = sent_at;
                }
                self.search = Search {
                    nodes: go.nodes,
                    ponderhit_at: None,
                    searched_after_ponderhit: false,
                    grace: timeouts.grace.as_micros() as u64,
                    nothing_to_search: false,
                    scored_cp: false,
                };
                self.stop_since_reply = None;
                self.ponderhit_since_reply = None;
            }
            Command::Stop if !self.searching() => self.stop_since_reply = Some(at_micros),
            Command::PonderHit(_) => match self.search_kind() {
                Some(GoKind::Ponder) => self.search.ponderhit_at = Some(at_micros),
                _ => self.ponderhit_since_reply = Some(at_micros),
            },
            _ => {}
        }
        self.conversation.on_send(command, at_micros);
    }

    /// The engine closed its input: a running search may end with one reply.
    pub fn on_close_stdin(&mut self) {
        self.conversation.on_close_stdin();
    }

    /// Whether `message`, read as `line`, is search output of the engine's own: a search
    /// `info` line after its terminal reply with nothing since that asks for output
    /// (USI-PONDER-007). It answers no command, so no check of a command's answer owns it.
    pub fn searches_on_its_own(&self, line: &Line, message: &Message) -> bool {
        matches!(message, Message::Info(info) if is_search_info(info))
            && matches!(message, Message::Info(info)
                if self.idle_cause.of(line, info.time) == IdleCause::OwnReply)
    }

    /// Option names advertised during the last handshake.
    pub fn options(&self) -> &[String] {
        &self.options
    }

    /// The options advertised so far, each with its type and fields.
    pub fn option_decls(&self) -> Vec<crate::usi::OptionDecl> {
        let decls = self.options.iter().zip(&self.option_kinds);
        decls
            .map(|(name, kind)| crate::usi::OptionDecl {
                name: name.clone(),
                kind: kind.clone(),
            })
            .collect()
    }

    /// The advertised option named `name` (case-insensitive): its name as advertised and its
    /// type with its fields.
    pub fn option(&self, name: &str) -> Option<(&str, &crate::usi::OptionKind)> {
        let i = self
            .options
            .iter()
            .position(|o| o.eq_ignore_ascii_case(name))?;
        Some((self.options[i].as_str(), &self.option_kinds[i]))
    }

    /// Names of the advertised options of type `type_name`, in the order advertised.
    pub fn options_of_type(&self, type_name: &str) -> Vec<String> {
        self.options
            .iter()
            .zip(&self.option_types)
            .filter(|(_, t)| t.as_str() == type_name)
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Whether the engine has answered a `go mate` with `checkmate` in this session: it
    /// implements `go mate`, so a later `bestmove` for one breaks the rule of its case.
    pub fn solves_mate(&self) -> bool {
        self.solves_mate
    }

    /// Whether the engine said what no command asked for: search output while no search ran,
    /// or a terminal reply to no search. What it does next is in doubt.
    pub fn spoke_unprompted(&self) -> bool {
        self.spoke_unprompted
    }

    /// Whether a `position` was sent since the last `go` (or `usi`): the engine may be
    /// searching on it, silently for a while.
    pub fn position_awaits_go(&self) -> bool {
        self.idle_cause.position_awaits_go()
    }

    /// Whether the engine owes an answer it computes: `usiok`, `readyok` or a search's reply.
    pub fn computing(&self) -> bool {
        self.searching() || self.awaiting_usiok() || self.awaiting_readyok()
    }

    /// Whether a search is outstanding (its reply not yet seen).
    pub fn searching(&self) -> bool {
        self.conversation.searching()
    }

    /// Whether the last search, no longer outstanding, answered before the `stop` or
    /// `ponderhit` that releases it (a `go infinite` or `go ponder`; charged: USI-GO-008,
    /// USI-PONDER-002): a wait after the release for that reply waits for one that came.
    pub fn answered_before_release(&self) -> bool {
        !self.searching() && self.answered_before_release
    }

    /// The kind of the outstanding search, owing its reply or released from it.
    pub fn search_kind(&self) -> Option<GoKind> {
        self.conversation.search_kind()
    }

    /// The kind of the outstanding search that still owes its reply (`gameover` or `quit`
    /// released it from that).
    pub fn owed_search(&self) -> Option<GoKind> {
        self.conversation.owed_search()
    }

    /// Whether a search abandoned by `gameover` may still be sending lines that would be
    /// taken for the current search's (their moves are not judged meanwhile).
    pub fn abandoned_search(&self) -> bool {
        self.abandoned_search
    }

    /// The abandoned search's reply has come: lines are the current search's again.
    pub fn settle_abandoned(&mut self) {
        self.abandoned_search = false;
    }

    /// Whether `info`, read at `at_micros` while a search `gameover` abandoned may still be
    /// running, reports a search younger than that one: its `time` fits the outstanding
    /// search (within the grace G of the time since its `go`) and is G or more short of the
    /// time since the abandoned `go`. The search that speaks is then the current one, and
    /// the abandoned one has stopped.
    ///
    /// ```
    /// use usicheck::observer::Observer;
    /// use usicheck::rules::{Claims, Profile};
    /// use usicheck::usi::Message;
    /// let profile = Profile::Shogidokoro;
    /// let mut observer = Observer::new(profile, Claims::default(), profile.timeouts());
    /// observer.on_send("position startpos", 0);
    /// observer.on_send("go ponder btime 60000 wtime 60000 byoyomi 1000", 0);
    /// observer.on_send("gameover win", 300_000);
    /// observer.on_send("position startpos", 2_300_000);
    /// observer.on_send("go btime 0 wtime 0 byoyomi 100", 2_300_000);
    /// let info = |time: u64| match Message::parse(&format!("info depth 1 time {time} pv 7g7f")) {
    ///     (Message::Info(info), _) => info,
    ///     _ => unreachable!(),
    /// };
    /// let protocol = observer.protocol();
    /// assert!(protocol.reports_a_younger_search(&info(0), 2_300_500));
    /// assert!(!protocol.reports_a_younger_search(&info(2300), 2_300_500), "the abandoned one");
    /// ```
    pub fn reports_a_younger_search(&self, info: &Info, at_micros: u64) -> bool {
        let sent_at = self.conversation.search_sent_at();
        let (Some(sent_at), Some(time)) = (sent_at.filter(|_| self.abandoned_search), info.time)
        else {
            return false;
        };
        let reported = time.saturating_mul(1000);
        let since = |sent_at: u64| at_micros.saturating_sub(sent_at);
        let grace = self.search.grace;
        reported <= since(sent_at) + grace && reported + grace < since(self.abandoned_sent_at)
    }

    /// Whether a reply read at `at_micros` answers a command before the outstanding one: a
    /// terminal reply read before the outstanding `go` was sent, or a `readyok` read before
    /// the oldest unanswered `isready` was sent (or with none unanswered). Neither can be the
    /// reply a step waits for.
    pub fn answers_previous(&self, message: &Message, at_micros: u64) -> bool {
        self.conversation.answers_previous(message, at_micros)
    }

    /// A search whose reply was due [`REPLY_PATIENCE`](super::timing::REPLY_PATIENCE) or more
    /// before `now_micros` (a wait that ends at the patience's end, as simulated waits do
    /// exactly, waited it all) and never came (the session is over): the rule a missing reply
    /// breaks ([`ReplyDeadline::missing_rule`](super::ReplyDeadline::missing_rule)) with the
    /// evidence. A search ended by `gameover` or
    /// `quit` owes no reply.
    pub fn overdue(&self, now_micros: u64) -> Option<(RuleId, String)> {
        let kind = self.owed_search()?;
        let patience = super::timing::REPLY_PATIENCE.as_micros() as u64;
        let overdue = now_micros >= self.clock.deadline()?.at_micros + patience;
        let due = self.clock.due_at(now_micros)?.0;
        let rule = self.missing_reply_rule(due);
        overdue.then(|| {
            let word = if kind == GoKind::Mate {
                "checkmate"
            } else {
                "bestmove"
            };
            (
                rule,
                format!(
                    "no `{word}` at all ({}; waited {} ms past it)",
                    due.limit,
                    (now_micros - due.at_micros) / 1000
                ),
            )
        })
    }

    /// The rule the outstanding search's reply breaks if it never comes, whichever driver
    /// waited for it: its clock's ([`ReplyDeadline::missing_rule`](super::ReplyDeadline::missing_rule)),
    /// except that a `go mate` searched as a normal search (a `score cp`: the engine weighs
    /// moves instead of looking for a mate, as Fairy-Stockfish reads `go mate 1000` as "mate
    /// in 1000 moves") is USI-MATE-006's: an engine without a mate search answers `checkmate
    /// notimplemented` instead of searching. `None` without a clock.
    pub fn missing_search_reply_rule(&self) -> Option<RuleId> {
        let (due, _) = self.clock.due_at(u64::MAX)?;
        Some(self.missing_reply_rule(due))
    }

    fn missing_reply_rule(&self, due: &super::ReplyDeadline) -> RuleId {
        match due.kind {
            super::ClockKind::Mate if self.search.scored_cp => crate::rule!("USI-MATE-006"),
            _ => due.missing_rule(),
        }
    }

    /// The timed search the last message answered, if it did (each is given once).
    pub fn take_timed_search(&mut self) -> Option<TimedSearch> {
        self.answered_timed.take()
    }

    /// The outstanding timed search, when its deadline passed before `now_micros` without
    /// a reply it still owes.
    pub fn unanswered_timed_search(&self, now_micros: u64) -> Option<TimedSearch> {
        self.owed_search()?;
        let (due, claimed) = self.clock.due_at(now_micros)?;
        (now_micros > due.at_micros)
            .then(|| TimedSearch::new(due, None, ReplyTiming::NoReply, claimed))
    }

    /// Judges one engine message (read as `line`) against the state and updates it;
    /// `previous` as decided by [`Protocol::answers_previous`].
    pub fn on_message(
        &mut self,
        line: &Line,
        message: &Message,
        previous: bool,
        judge: &mut Judge,
    ) {
        if let Some(watch) = &self.late_wait {
            watch.engine_wrote();
        }
        let free_text = matches!(message, Message::Unknown(text) if !text.trim().is_empty());
        if self.after_usiok && !free_text {
            judge.pass(crate::rule!("USI-ROBUST-009"), None);
        }
        match message {
            Message::IdName(_) | Message::IdAuthor(_) => {
                if let Message::IdName(name) = message {
                    self.id_name = true;
                    if self.awaiting_usiok() && super::dialect::is_fairy_stockfish(name) {
                        self.dialect = Some(crate::quote::quote(name).into_owned());
                    }
                } else {
                    self.id_author = true;
                }
            }
            Message::Option(option) => {
                let rule = crate::rule!("USI-HANDSHAKE-003");
                if self.after_usiok {
                    judge.violation(
                        rule,
                        None,
                        format!("`option name {}` arrived after `usiok`", option.name),
                    );
                } else {
                    judge.pass(rule, None);
                    // Kept for the whole session and quoted in reasons: capped like a quote.
                    self.options
                        .push(crate::quote::quote(&option.name).into_owned());
                    self.option_types.push(option.kind.type_name().to_owned());
                    self.option_kinds.push(option.kind.clone());
                }
            }
            Message::UsiOk => {
                if self.awaiting_usiok() {
                    match self.dialect.take() {
                        Some(name) => {
                            let variant = ["USI_Variant", "UCI_Variant"]
                                .into_iter()
                                .find_map(|n| self.option(n));
                            judge.violation(
                                super::dialect::RULE,
                                None,
                                super::dialect::fairy_stockfish_note(&name, variant),
                            );
                        }
                        None if self.id_name => judge.pass(super::dialect::RULE, None),
                        None => {}
                    }
                    self.usi_answered = true;
                    judge.pass(crate::rule!("USI-HANDSHAKE-008"), Some("engine"));
                    let rule = crate::rule!("USI-HANDSHAKE-002");
                    match (self.id_name, self.id_author) {
                        (true, true) => judge.pass(rule, None),
                        (name, _) => judge.violation(
                            rule,
                            None,
                            format!(
                                "`usiok` without `id {}` before it",
                                if name { "author" } else { "name" }
                            ),
                        ),
                    }
                }
                self.conversation.on_reply(Reply::UsiOk);
                self.after_usiok = true;
            }
            Message::ReadyOk => {
                let rule = crate::rule!("USI-READY-001");
                if previous {
                    self.unsolicited_readyoks += 1;
                    judge.violation(rule, None, "`readyok` without an unanswered `isready`");
                } else {
                    self.conversation.on_reply(Reply::ReadyOk);
                    self.idle_cause.readyok_read(line.at_micros);
                    judge.pass(rule, None);
                }
            }
            Message::BestMove(_) | Message::Checkmate(_) => {
                let checkmate = matches!(message, Message::Checkmate(_));
                if !previous && self.owed_search().is_some() {
                    self.judge_reply_time(line, judge);
                    if !checkmate {
                        self.note_answer_at_once(line, judge);
                    }
                }
                self.terminal_reply(checkmate, previous, line, judge);
            }
            Message::Info(info) if is_search_info(info) => {
                // A line read before the outstanding `go` was sent is no part of its search.
                let before_go = (self.conversation.search_sent_at())
                    .is_some_and(|sent_at| line.at_micros < sent_at);
                if !self.searching() || before_go {
                    self.spoke_unprompted = true;
                    let cause = self.idle_cause.of(line, info.time);
                    self.idle_cause.charged(cause);
                    cause.charge(line, judge);
                } else {
                    let search = &mut self.search;
                    search.searched_after_ponderhit |= search.ponderhit_at.is_some();
                    search.scored_cp |= info
                        .score
                        .as_ref()
                        .is_some_and(|score| matches!(score.value, ScoreValue::Cp(_)));
                    judge.pass(crate::rule!("USI-INFO-001"), None);
                    if let (Some(limit), Some(nodes)) = (search.nodes, info.nodes)
                        && nodes > node_limit_tolerance(limit)
                    {
                        judge.violation(
                            crate::rule!("USI-GO-010"),
                            None,
                            format!("`go nodes {limit}` searched {nodes} nodes: `{}`", line.text),
                        );
                    }
                }
            }
            // Free text on stdout once the handshake is over (RULES.md: WARN per line after
            // `usiok`); before it, a banner is allowed and only noted (INFO).
            Message::Unknown(_) if free_text && self.after_usiok => {
                judge.violation(
                    crate::rule!("USI-ROBUST-009"),
                    None,
                    format!(
                        "non-protocol text on stdout after `usiok`: `{}`",
                        line.quoted()
                    ),
                );
            }
            Message::Unknown(_) if free_text => {
                judge.violation(
                    crate::rule!("USI-HANDSHAKE-008"),
                    Some("engine"),
                    format!(
                        "non-protocol line before `usiok` (tolerated): `{}`",
                        line.quoted()
                    ),
                );
            }
            _ => {}
        }
    }
}

/// A search report rather than a bare `info string`.
fn is_search_info(info: &Info) -> bool {
    info.depth.is_some()
        || info.seldepth.is_some()
        || info.time.is_some()
        || info.nodes.is_some()
        || info.nps.is_some()
        || info.hashfull.is_some()
        || info.score.is_some()
        || info.currmove.is_some()
        || info.pv.is_some()
        || info.multipv.is_some()
}
