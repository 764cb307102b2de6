//! The always-on observer: what the engine owes whatever the session, judged on every line of
//! every scenario session and every fuzz session.
//!
//! Fed with what was sent ([`Observer::on_send`]), every stdout line ([`Observer::on_line`])
//! and the end of the session ([`Observer::on_end`]), it judges the line grammar and encoding,
//! the legality of every move in the position the engine was given (ponder positions
//! included), `checkmate` lines, the protocol order (one terminal reply per `go`, no
//! `bestmove` without `go`, `readyok` only for `isready`, options before `usiok`, search
//! `info` only during a search, free text after `usiok`), `info` floods, `go nodes`
//! overruns, and every reply against the clock that set its deadline. Its verdicts are marked
//! [`Verdict::always_on`](crate::rules::Verdict).
//!
//! A driver does not feed it by hand: an [`ObservedEngine`] owns it beside the engine it
//! follows, and every line written to that engine, and every stdout line read from it, passes
//! it first.

mod board;
mod conversation;
mod dialect;
mod flood;
mod judge;
mod line_check;
mod misread;
mod observed;
mod protocol;
mod sent;
mod startup;
mod stochastic;
mod timing;

pub use board::{Board, append_moves, resolve};
pub use conversation::{Conversation, GoKind, Reply, State};
pub use dialect::{fairy_stockfish_note, is_fairy_stockfish};
pub use flood::{FloodMeter, MAX_INFO_PER_SECOND};
pub use judge::{Judge, rank, worst};
pub use line_check::{
    ALWAYS_ON_RULES, Charges, LEGALITY_RULES, MATE_CHECK_NODES, MATE_CHECK_TIME,
    NO_LEGAL_MOVE_RULE, NOMATE_RULE, check_line, illegal_in_sequence, without_bom,
};
pub use misread::{
    Diagnosis, MISREAD_RULES, MisreadBoards, Misreading, Reading, Shown, rejected_form_rule,
};
pub use observed::{Cores, Followed, Heard, ObservedEngine};
pub use protocol::Protocol;
pub use sent::Sent;
pub use startup::{LAUNCH_WORK, STARTUP_RULES, Startup};
pub use stochastic::StochasticPonder;
pub use timing::{
    CLAIM_SLACK_MICROS, CLOCK_RULES, ClockKind, HeldUp, REPLY_PATIENCE, ReplyClock, ReplyDeadline,
    ReplyTiming, TimedSearch, load_excuse, reply_rule,
};

use crate::engine::{Line, Termination};
use crate::rules::{Claims, Profile, RuleId, Timeouts};
use crate::usi::{Command, Message};

/// The complete lines of `text` written raw to the engine, each as the engine reads it (the
/// part after the last line feed is not a line yet).
///
/// ```
/// let lines: Vec<_> = usicheck::observer::complete_lines("isready\r\nusinew").collect();
/// assert_eq!(lines, ["isready\r"]);
/// ```
pub fn complete_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive('\n')
        .filter_map(|line| line.strip_suffix('\n'))
}

/// What the observer follows of one engine process: the position it was given, the protocol
/// state, its first handshake's latencies, whether it ponders stochastically, the `info` rate,
/// the misread positions it showed.
#[derive(Clone, Debug, Default)]
pub struct SessionState {
    board: Board,
    protocol: Protocol,
    sent: Sent,
    startup: Startup,
    stochastic: StochasticPonder,
    flood: FloodMeter,
    shown: Shown,
}

/// The always-on checks of one run of sessions (a scenario, a fuzz session).
///
/// ```
/// use usicheck::engine::Line;
/// use usicheck::observer::Observer;
/// use usicheck::rules::{Claims, Outcome, Profile};
/// let profile = Profile::Shogidokoro;
/// let mut observer = Observer::new(profile, Claims::default(), profile.timeouts());
/// observer.on_send("position startpos", 0);
/// observer.on_send("go btime 0 wtime 0 byoyomi 1000", 10);
/// observer.on_line(&Line::stdout("bestmove 7g7e", 500_000), None);
/// let illegal = usicheck::rule!("USI-BESTMOVE-002");
/// assert!(observer.judge().violated(illegal));
/// ```
#[derive(Debug)]
pub struct Observer {
    judge: Judge,
    session: SessionState,
    timeouts: Timeouts,
    timed_searches: TimedSearches,
    /// Whether start-up latencies are judged ([`Observer::judging_startup`]).
    judges_startup: bool,
}

/// How many timed searches a run of sessions keeps for its report.
pub const MAX_TIMED_SEARCHES: usize = 500;

/// The timed searches of a run of sessions, the first [`MAX_TIMED_SEARCHES`] kept.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TimedSearches {
    pub kept: Vec<TimedSearch>,
    /// Searches past the cap, counted.
    pub omitted: u64,
}

impl TimedSearches {
    fn push(&mut self, search: TimedSearch) {
        if self.kept.len() < MAX_TIMED_SEARCHES {
            self.kept.push(search);
        } else {
            self.omitted += 1;
        }
    }
}

impl Observer {
    pub fn new(profile: Profile, claims: Claims, timeouts: Timeouts) -> Observer {
        Observer {
            judge: Judge::always_on(profile, claims),
            session: SessionState::default(),
            timeouts,
            timed_searches: TimedSearches::default(),
            judges_startup: false,
        }
    }

    /// Judges the start-up latencies (USI-READY-003) too: only for a session that runs with
    /// no other engine beside it (a scenario's `alone`), where they are the engine's own.
    pub fn judging_startup(mut self) -> Observer {
        self.judges_startup = true;
        self
    }

    /// The searches with a clock and how their replies met it, so far.
    pub fn timed_searches(&self) -> &TimedSearches {
        &self.timed_searches
    }

    /// The always-on verdicts so far.
    pub fn judge(&self) -> &Judge {
        &self.judge
    }

    /// For what the session's owner knows and the observer cannot see (a reply owed when a
    /// wait ran out, an unclean exit after `quit`).
    pub fn judge_mut(&mut self) -> &mut Judge {
        &mut self.judge
    }

    pub fn board(&self) -> &Board {
        &self.session.board
    }

    pub fn protocol(&self) -> &Protocol {
        &self.session.protocol
    }

    /// What was sent to the engine process followed now.
    pub fn sent(&self) -> &Sent {
        &self.session.sent
    }

    /// The session clock started at `origin`, with the engine process `engine_pid` (see
    /// [`Protocol::set_origin`]).
    pub fn set_origin(&mut self, origin: std::time::Instant, engine_pid: i32) {
        self.session.protocol.set_origin(origin, engine_pid);
    }

    /// A step that names its own rule times the outstanding reply: see [`ReplyClock::claim`].
    pub fn claim_reply_timing(&mut self, until_micros: u64) {
        self.session.protocol.claim_reply_timing(until_micros);
    }

    /// Follows a line sent to the engine at `at_micros` (session clock); returns it parsed.
    pub fn on_send(&mut self, line: &str, at_micros: u64) -> Command {
        let command = Command::parse(line);
        self.session.sent.on_send(&command);
        self.session.board.on_send(&command, line);
        let side = self.session.board.side_to_move();
        self.session
            .protocol
            .on_send(&command, at_micros, side, &self.timeouts);
        let no_legal_move = || {
            let board = &self.session.board;
            board.searched().is_some_and(|p| p.legal_moves().is_empty())
        };
        if matches!(command, Command::Go(_)) {
            self.session.flood.on_search();
            if no_legal_move() {
                self.session.protocol.mark_nothing_to_search();
            }
        }
        let protocol = &self.session.protocol;
        if self.judges_startup {
            self.session
                .startup
                .on_send(&command, at_micros, || protocol.engine_cpu_wait());
        }
        self.session.stochastic.on_send(&command);
        command
    }

    /// The line followed last did not reach the engine (it had ended).
    pub fn on_unsent(&mut self) {
        self.session.sent.on_unsent();
    }

    /// The engine's stdin was closed: a running search may end with one reply.
    pub fn on_close_stdin(&mut self) {
        self.session.protocol.on_close_stdin();
    }

    /// Judges one stdout line; `misread` charges a misread position (an illegal move that is
    /// legal on a board the engine may have read instead, see [`Misreading`]) to the rule (and
    /// part) a scenario step names for reading the position, in that scenario's judge. Returns
    /// the message and whether it is a stale reply to an earlier `go`.
    pub fn on_line(
        &mut self,
        line: &Line,
        misread: Option<(RuleId, Option<&str>, &mut Judge)>,
    ) -> (Message, bool) {
        let (message, diagnostics) = Message::parse(&line.text);
        self.judge.judging_line(line.entry);
        if line.stream == crate::engine::Stream::Stdout {
            self.session.sent.on_engine_line();
        }
        let state = &mut self.session;
        if let Message::Info(info) = &message
            && state
                .protocol
                .reports_a_younger_search(info, line.at_micros)
        {
            state.protocol.settle_abandoned();
        }
        // The board of the search `gameover` abandoned that the reply answers, if it does.
        let abandoned_board = match &message {
            Message::BestMove(best) if state.protocol.abandoned_search() => {
                state.board.abandoned_board(best).cloned()
            }
            _ => None,
        };
        let abandoned_reply = abandoned_board.is_some();
        let stale = abandoned_reply || state.protocol.answers_previous(&message, line.at_micros);
        let searching = state.protocol.searching() && !state.protocol.abandoned_search();
        let reading_step = misread.is_some();
        // A `checkmate` line that answers no `go mate` (USI-GO-002 or USI-GO-001, judged
        // below) is not a mate claim to verify.
        let checkmate_for_search = matches!(message, Message::Checkmate(_))
            && state.protocol.search_kind() != Some(GoKind::Mate);
        let searched = abandoned_board
            .as_ref()
            .or(state.board.searched_by(stale))
            .filter(|_| !checkmate_for_search);
        // A `Stochastic_Ponder` search reports on the position before the predicted move.
        let earlier = match (&message, searched) {
            (Message::Info(info), Some(given)) if searching => {
                state.stochastic.earlier_position(info, given)
            }
            _ => None,
        };
        if earlier.is_some() {
            self.judge.pass_noted(
                crate::rule!("USI-EXT-016"),
                None,
                format!(
                    "`{}` is of the position before the predicted move (Stochastic_Ponder), \
                     judged there",
                    line.quoted()
                ),
            );
        }
        let mut charges = Charges {
            observed: &mut self.judge,
            misread,
            boards: state.board.misread_by(stale).in_reading_step(reading_step),
            shown: &mut state.shown,
        };
        check_line(
            line,
            &message,
            &diagnostics,
            earlier.or(searched),
            searching,
            &mut charges,
        );
        if matches!(message, Message::BestMove(_) | Message::Checkmate(_)) && !stale {
            state.stochastic.on_reply();
        }
        if abandoned_reply {
            // The reply of the search `gameover` abandoned, after the next `go`: that search
            // went on (USI-GAMEOVER-004); the current one still owes its reply.
            state.protocol.settle_abandoned();
            self.judge.violation(
                crate::rule!("USI-GAMEOVER-004"),
                None,
                format!(
                    "`{}` answers the search `gameover` should have ended",
                    line.text
                ),
            );
        } else {
            state
                .protocol
                .on_message(line, &message, stale, &mut self.judge);
            if let Some(search) = state.protocol.take_timed_search() {
                self.timed_searches.push(search);
            }
        }
        if self.judges_startup {
            match message {
                Message::UsiOk => state.startup.on_usiok(line.at_micros, |since, cpu_wait| {
                    state
                        .protocol
                        .held_up_between(since, line.at_micros, cpu_wait)
                }),
                Message::ReadyOk => state.startup.on_readyok(line.at_micros, &mut self.judge),
                _ => {}
            }
        }
        if matches!(message, Message::Info(_)) {
            let flood = crate::rule!("USI-INFO-013");
            if state.flood.record(line.at_micros) {
                self.judge.violation(
                    flood,
                    None,
                    format!("more than {MAX_INFO_PER_SECOND} `info` lines within one second"),
                );
            } else {
                self.judge.pass(flood, None);
            }
        }
        self.judge.judging_line(None);
        (message, stale)
    }

    /// The session is over at `now_micros`: a reply still owed past its deadline is judged.
    pub fn on_end(&mut self, now_micros: u64) {
        if let Some((rule, evidence)) = self.session.protocol.overdue(now_micros) {
            self.judge.violation(rule, None, evidence);
        }
        if let Some(search) = self.session.protocol.unanswered_timed_search(now_micros) {
            self.timed_searches.push(search);
        }
    }

    /// The engine exited by itself once asked to (by `quit`, or by its stdin closing: `when`
    /// says which): the exit must be clean (USI-QUIT-004), whichever driver asked.
    ///
    /// ```
    /// use usicheck::engine::Termination;
    /// use usicheck::observer::Observer;
    /// use usicheck::rules::{Claims, Profile};
    /// let profile = Profile::Shogidokoro;
    /// let mut observer = Observer::new(profile, Claims::default(), profile.timeouts());
    /// observer.on_asked_exit(&Termination::Exited(3), "after `quit`");
    /// assert!(observer.judge().violated(usicheck::rule!("USI-QUIT-004")));
    /// ```
    pub fn on_asked_exit(&mut self, termination: &Termination, when: &str) {
        let rule = crate::rule!("USI-QUIT-004");
        match termination.is_success() {
            true => self.judge.pass(rule, None),
            false => {
                let reason = format!("the engine {termination} {when}");
                self.judge.violation(rule, None, reason);
            }
        }
    }

    /// Starts following a fresh engine process, returning the state of the one followed so
    /// far (verdicts are kept).
    pub fn swap_session(&mut self, state: SessionState) -> SessionState {
        std::mem::replace(&mut self.session, state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observer() -> Observer {
        let profile = Profile::Shogidokoro;
        Observer::new(profile, Claims::default(), profile.timeouts())
    }

    /// A launch that takes 1.5 s against a `readyok` at once is judged only in a session run
    /// alone: beside other engines' start-ups, the latency is not the engine's own.
    #[test]
    fn start_up_is_judged_only_alone() {
        let startup = crate::rule!("USI-READY-003");
        let outcome = |observer: Observer| {
            let mut observer = observer;
            observer.on_send("usi", 0);
            observer.on_line(&Line::stdout("usiok", 1_500_000), None);
            observer.on_send("isready", 1_500_100);
            observer.on_line(&Line::stdout("readyok", 1_500_200), None);
            observer.judge().verdict(startup).map(|v| v.outcome)
        };
        assert_eq!(outcome(observer()), None);
        assert_eq!(
            outcome(observer().judging_startup()),
            Some(crate::rules::Outcome::Warn)
        );
    }

    /// An `info` line passes only the info rules it shows holding, and fails those it breaks:
    /// `time` goes with `pv` (USI-INFO-003) is not judged by an `info string`.
    #[test]
    fn an_info_line_judges_only_what_it_carries() {
        let with_pv = crate::rule!("USI-INFO-003");
        let outcome = |line: &str| {
            let mut observer = observer();
            observer.on_send("position startpos", 0);
            observer.on_send("go btime 0 wtime 0 byoyomi 1000", 0);
            observer.on_line(&Line::stdout(line, 1_000), None);
            observer.judge().verdict(with_pv).map(|v| v.outcome)
        };
        use crate::rules::Outcome::{Pass, Warn};
        assert_eq!(outcome("info string thinking"), None);
        assert_eq!(outcome("info depth 1 time 3 pv 7g7f"), Some(Pass));
        assert_eq!(outcome("info depth 1 pv 7g7f"), Some(Warn));
    }

    /// A reply late by less than usicheck itself was held up is not judged (INFO); the same
    /// reply with no delay recorded is charged to the clock's rule.
    #[test]
    fn a_late_reply_within_the_host_delay_is_not_judged() {
        let byoyomi = crate::rule!("USI-GO-004");
        let late_reply = |origin: std::time::Instant| {
            let mut observer = observer();
            observer.set_origin(origin, i32::MAX);
            observer.on_send("position startpos", 0);
            observer.on_send("go btime 0 wtime 0 byoyomi 1000", 0);
            // Due at 1100 ms (byoyomi + G); read at 1300 ms.
            observer.on_line(&Line::stdout("bestmove 7g7f", 1_300_000), None);
            observer.judge().verdict(byoyomi).cloned().expect("judged")
        };
        // Far in the future: the real watcher's records cannot fall into these windows.
        let loaded_at = std::time::Instant::now() + std::time::Duration::from_secs(7200);
        crate::engine::stall::record(
            loaded_at + std::time::Duration::from_millis(1200),
            std::time::Duration::from_millis(300),
        );
        let loaded = late_reply(loaded_at);
        let quiet = late_reply(loaded_at + std::time::Duration::from_secs(3600));
        use crate::rules::Outcome::{Fail, Info};
        assert_eq!(
            (loaded.outcome, quiet.outcome),
            (Info, Fail),
            "{loaded:?} {quiet:?}"
        );
        assert!(
            loaded.reason.starts_with("not judged: load.")
                && loaded.reason.contains("held up 300 ms"),
            "{}",
            loaded.reason
        );
        for verdict in [&loaded, &quiet] {
            assert!(
                verdict.reason.contains("200 ms after the deadline"),
                "{}",
                verdict.reason
            );
        }
    }

    /// Every search with a clock is kept with its time used, whoever judges it: the late
    /// reply, the claimed one, the `stop` latency, and the search never answered.
    #[test]
    fn timed_searches_record_time_used_against_time_allowed() {
        let mut observer = observer();
        observer.on_send("position startpos", 0);
        observer.on_send("go btime 0 wtime 0 byoyomi 1000", 0);
        observer.on_line(&Line::stdout("bestmove 7g7f", 1_300_000), None);
        observer.on_send("position startpos moves 7g7f", 2_000_000);
        observer.on_send("go movetime 500", 2_000_000);
        observer.claim_reply_timing(2_600_000);
        observer.on_line(&Line::stdout("bestmove 3c3d", 2_400_000), None);
        observer.on_send("position startpos", 3_000_000);
        observer.on_send("go infinite", 3_000_000);
        observer.on_send("stop", 4_000_000);
        observer.on_line(&Line::stdout("bestmove 7g7f", 4_000_500), None);
        observer.on_send("go btime 1000 wtime 1000 binc 100 winc 100", 5_000_000);
        observer.on_end(9_000_000);
        let searches = &observer.timed_searches().kept;
        let seen: Vec<_> = searches
            .iter()
            .map(|s| (s.kind, s.allowed_ms, s.used_ms, s.timing, s.claimed))
            .collect();
        use ClockKind::*;
        use ReplyTiming::*;
        assert_eq!(
            seen,
            [
                (Byoyomi, 1100.0, Some(1300.0), Late, false),
                (Movetime, 600.0, Some(400.0), InTime, true),
                (Stop, 1100.0, Some(0.5), InTime, false),
                (Increment, 1200.0, None, NoReply, false),
            ]
        );
        assert_eq!(searches[0].margin_ms, Some(-200.0));
        assert_eq!(searches[0].rule, crate::rule!("USI-GO-004"));
    }

    /// An observer that sent `position` `sfen` (or startpos) and `go` (`go_line`).
    fn searching(sfen: &str, go_line: &str) -> Observer {
        let mut observer = observer();
        let position = if sfen == "startpos" {
            "position startpos".to_owned()
        } else {
            format!("position sfen {sfen}")
        };
        observer.on_send(&position, 0);
        observer.on_send(go_line, 0);
        observer
    }

    /// The rules `lines` (read in turn) make the observer charge.
    fn charged(mut observer: Observer, lines: &[&str]) -> Vec<RuleId> {
        for text in lines {
            observer.on_line(&Line::stdout(text, 1), None);
        }
        observer.judge().violated_rules()
    }

    #[test]
    fn a_legal_bestmove_and_ponder_close_the_search_and_a_second_is_one_too_many() {
        let observer = searching("startpos", "go depth 1");
        let info = "info depth 1 time 1 score cp 0 pv 7g7f 3c3d";
        assert_eq!(
            charged(observer, &[info, "bestmove 7g7f ponder 3c3d"]),
            Vec::<RuleId>::new()
        );
        let observer = searching("startpos", "go depth 1");
        let twice = charged(observer, &["bestmove 7g7f", "bestmove 7g7f"]);
        assert_eq!(twice, [crate::rule!("USI-GO-002")]);
    }

    #[test]
    fn illegal_moves_are_charged_to_their_rule() {
        let rules = |text: &str| charged(searching("startpos", "go depth 1"), &[text]);
        assert_eq!(rules("bestmove 7g7e"), [crate::rule!("USI-BESTMOVE-002")]);
        assert_eq!(
            rules("bestmove 7g7f ponder 7g7f"),
            [crate::rule!("USI-PONDER-001")]
        );
        assert_eq!(
            rules("info depth 1 time 1 pv 7g7f 7g7f"),
            [crate::rule!("USI-INFO-011")]
        );
        assert_eq!(
            rules("bestmove win"),
            [
                crate::rule!("USI-BESTMOVE-004"),
                crate::rule!("USI-RULES-001")
            ]
        );
        assert!(rules("bestmove resign").is_empty());
    }

    #[test]
    fn unprompted_replies_and_readyok_are_protocol_violations() {
        assert_eq!(
            charged(observer(), &["bestmove 7g7f"]),
            [crate::rule!("USI-GO-001")]
        );
        assert_eq!(
            charged(observer(), &["readyok"]),
            [crate::rule!("USI-READY-001")]
        );
        let mut asked = observer();
        asked.on_send("isready", 0);
        assert!(charged(asked, &["readyok"]).is_empty());
    }

    /// A `readyok` read before an `isready` was sent (a second reply to an earlier one, still
    /// in the pipe) answers an earlier one: it is charged, is stale, and leaves the new
    /// `isready` unanswered, so no step takes it for the reply it waits for.
    #[test]
    fn a_readyok_read_before_its_isready_was_sent_answers_an_earlier_one() {
        let mut observer = observer();
        observer.on_send("isready", 2);
        let (_, stale) = observer.on_line(&Line::stdout("readyok", 1), None);
        assert!(stale);
        assert!(observer.protocol().awaiting_readyok());
        assert_eq!(
            observer.judge().violated_rules(),
            [crate::rule!("USI-READY-001")]
        );
        let (_, stale) = observer.on_line(&Line::stdout("readyok", 2), None);
        assert!(!stale, "the same microsecond can answer it");
        assert!(!observer.protocol().awaiting_readyok());
    }

    /// A search `info` line while no search runs is charged to the rule of what the engine was
    /// last given: nothing since its own `bestmove` (USI-PONDER-007), `position`
    /// (USI-POSITION-010), or a command that asks for other output (USI-INFO-001); a command
    /// that asks for no output changes nothing, and a line read before a command was sent came
    /// of what was before it.
    #[test]
    fn idle_search_info_is_charged_to_the_rule_of_its_cause() {
        let info = "info depth 1 score cp 0";
        let idle_line_after = |sent: &[(&str, u64)], line: &str, at: u64| {
            let mut observer = observer();
            observer.on_send("usi", 0);
            observer.on_line(&Line::stdout("id name e", 1), None);
            observer.on_line(&Line::stdout("id author a", 1), None);
            observer.on_line(&Line::stdout("usiok", 1), None);
            observer.on_send("isready", 2);
            observer.on_line(&Line::stdout("readyok", 3), None);
            observer.on_send("position startpos", 4);
            observer.on_send("go btime 0 wtime 0 byoyomi 100", 4);
            observer.on_line(&Line::stdout("bestmove 7g7f", 10), None);
            for (command, at) in sent {
                observer.on_send(command, *at);
            }
            observer.on_line(&Line::stdout(line, at), None);
            observer.judge().violated_rules()
        };
        let idle_info_after = |sent: &[(&str, u64)], at: u64| idle_line_after(sent, info, at);
        let (ponder, position, idle) = (
            [crate::rule!("USI-PONDER-007")],
            [crate::rule!("USI-POSITION-010")],
            [crate::rule!("USI-INFO-001")],
        );
        assert_eq!(idle_info_after(&[], 20), ponder);
        assert_eq!(idle_info_after(&[("stop", 15)], 20), ponder);
        assert_eq!(
            idle_info_after(&[("position startpos moves 7g7f", 15)], 20),
            position
        );
        assert_eq!(idle_info_after(&[("isready", 15)], 20), idle);
        // A line whose search began before the `position` was sent (it says it has searched
        // 200 ms; the `position` is out for 5 µs) is the engine's own search going on, which
        // a GUI that answers at once meets in every game; one that fits is the `position`'s.
        let after_position_saying = |searched: &str| {
            let line = format!("info depth 2 seldepth 2 {searched} nodes 2000 score cp 0");
            idle_line_after(&[("position startpos moves 7g7f", 15)], &line, 20)
        };
        assert_eq!(after_position_saying("time 200"), ponder);
        assert_eq!(after_position_saying("time 5"), position);
        assert_eq!(after_position_saying("time 0"), position);
        // An `isready` after a `position` with no `go` keeps the `position` the cause: the
        // engine searching on it answers `isready` meanwhile (in real time the search's first
        // line often comes after both were sent). After the `readyok`, the line is the
        // `readyok`'s, unless the engine was already seen searching on the `position`.
        let position_then_isready = [("position startpos moves 7g7f", 15), ("isready", 16)];
        assert_eq!(idle_info_after(&position_then_isready, 20), position);
        let after_readyok = |search_seen: bool| {
            let mut waiting = observer();
            waiting.on_send("usi", 0);
            for line in ["id name e", "id author a", "usiok"] {
                waiting.on_line(&Line::stdout(line, 1), None);
            }
            waiting.on_send("position startpos", 2);
            waiting.on_send("isready", 3);
            if search_seen {
                waiting.on_line(&Line::stdout(info, 4), None);
            }
            waiting.on_line(&Line::stdout("readyok", 5), None);
            waiting.on_line(&Line::stdout(info, 6), None);
            waiting.judge().violated_rules()
        };
        assert_eq!(after_readyok(false), idle);
        assert_eq!(after_readyok(true), position);
        assert_eq!(idle_info_after(&[("position startpos", 25)], 20), ponder);
        // Read only once the next search was asked for, but stamped before its `go`.
        let next_search = [
            ("position startpos", 25),
            ("go btime 0 wtime 0 byoyomi 100", 25),
        ];
        assert_eq!(idle_info_after(&next_search, 20), ponder);
        // Seen searching on by itself, it still does after answering `isready`.
        let mut observer = observer();
        for (command, at) in [("usi", 0), ("isready", 2)] {
            observer.on_send(command, at);
        }
        for (line, at) in [("usiok", 1), ("readyok", 3)] {
            observer.on_line(&Line::stdout(line, at), None);
        }
        observer.on_send("position startpos", 4);
        observer.on_send("go btime 0 wtime 0 byoyomi 100", 4);
        observer.on_line(&Line::stdout("bestmove 7g7f", 10), None);
        observer.on_line(&Line::stdout(info, 11), None);
        observer.on_send("isready", 12);
        observer.on_line(&Line::stdout("readyok", 13), None);
        let (message, _) = observer.on_line(&Line::stdout(info, 14), None);
        let line = Line::stdout(info, 14);
        assert!(observer.protocol().searches_on_its_own(&line, &message));
        // In one microsecond, the first command after the engine's own last line.
        let burst = [("position startpos", 20), ("isready", 20)];
        assert_eq!(idle_info_after(&burst, 20), position);
    }

    #[test]
    fn checkmate_lines_are_verified() {
        let sfen = "4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1";
        let mate = |text: &str| charged(searching(sfen, "go mate 1000"), &[text]);
        assert!(mate("checkmate G*5b").is_empty());
        assert_eq!(mate("checkmate G*5d"), [crate::rule!("USI-MATE-003")]);
    }

    /// The optional forms are noted (INFO, MAY rules) and charged nothing else: a mate score
    /// without its length, and a ponder search answered right after `ponderhit`.
    #[test]
    fn allowed_forms_are_noted_and_charged_nothing_else() {
        let outcome = |observer: &Observer, rule| observer.judge().verdict(rule).map(|v| v.outcome);
        use crate::rules::Outcome::{Info, Pass};
        let unknown_length = crate::rule!("USI-INFO-008");
        let sfen = "4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1";
        let mut mate = searching(sfen, "go btime 0 wtime 0 byoyomi 1000");
        mate.on_line(
            &Line::stdout("info depth 1 time 1 score mate + pv G*5b", 1),
            None,
        );
        mate.on_line(&Line::stdout("bestmove G*5b", 2), None);
        assert_eq!(mate.judge().violated_rules(), [unknown_length]);
        assert_eq!(outcome(&mate, unknown_length), Some(Info));

        // A reply `after_micros` after `ponderhit`, with a search `info` line before it or not;
        // nothing else is charged.
        let at_once = crate::rule!("USI-PONDER-005");
        let answered = |after_micros: u64, searched_on: bool| {
            let mut observer = observer();
            observer.on_send("position startpos moves 7g7f 3c3d", 0);
            observer.on_send("go ponder btime 1000 wtime 1000 byoyomi 1000", 0);
            observer.on_send("ponderhit", 500_000);
            if searched_on {
                let info = "info depth 1 time 1 pv 2g2f";
                observer.on_line(&Line::stdout(info, 500_001), None);
            }
            observer.on_line(&Line::stdout("bestmove 2g2f", 500_000 + after_micros), None);
            let charged = observer.judge().violated_rules();
            assert!(charged.iter().all(|rule| *rule == at_once), "{charged:?}");
            outcome(&observer, at_once)
        };
        assert_eq!(answered(2_000, false), Some(Info));
        assert_eq!(answered(2_000, true), Some(Pass));
        assert_eq!(answered(900_000, false), Some(Pass));
        // A mated position has nothing to search: its `resign` at once is not noted.
        let mut mated = observer();
        mated.on_send(
            "position sfen 4k4/9/9/9/9/9/4s4/4g4/4K4 b 2r2b3g3s4n4l18p 1",
            0,
        );
        mated.on_send("go ponder btime 0 wtime 0 byoyomi 500", 0);
        mated.on_send("ponderhit", 100_000);
        mated.on_line(&Line::stdout("bestmove resign", 100_100), None);
        assert_eq!(mated.judge().violated_rules(), []);
        assert_eq!(outcome(&mated, at_once), None);
    }

    /// With `Stochastic_Ponder` set, a ponder search's `pv` of the position before the
    /// predicted move is judged there (noted), not charged as illegal; without it, it is.
    #[test]
    fn a_stochastic_ponder_pv_is_judged_one_ply_earlier() {
        let ponder = |stochastic: bool| {
            let mut observer = observer();
            if stochastic {
                observer.on_send("setoption name Stochastic_Ponder value true", 0);
            }
            observer.on_send("position startpos moves 7g7f 3c3d", 0);
            observer.on_send("go ponder btime 1000 wtime 1000 byoyomi 1000", 0);
            charged(observer, &["info depth 2 time 1 pv 3c3d 2g2f"])
        };
        assert!(ponder(true).is_empty());
        assert_eq!(ponder(false), [crate::rule!("USI-INFO-011")]);
    }

    /// An engine that ignores `gameover` keeps searching the old position: its `pv`s are not
    /// charged to the next search until a terminal reply settles it.
    #[test]
    fn a_search_abandoned_by_gameover_is_not_judged_until_a_reply_settles_it() {
        let mut observer = searching("startpos", "go infinite");
        observer.on_send("gameover draw", 1);
        assert_eq!(observer.protocol().owed_search(), None);
        observer.on_send("position startpos", 2);
        observer.on_send("go infinite", 3);
        let old_pv = "info depth 9 time 1 pv 7g7e";
        observer.on_line(&Line::stdout(old_pv, 4), None);
        observer.on_send("stop", 5);
        observer.on_line(&Line::stdout("bestmove 7g7f", 6), None);
        assert!(observer.judge().violated_rules().is_empty());
        observer.on_send("go infinite", 7);
        observer.on_line(&Line::stdout("info depth 1 time 1 pv 7g7e", 8), None);
        let judged = observer.judge().violated_rules();
        assert_eq!(judged, [crate::rule!("USI-INFO-011")]);
    }

    /// A search `gameover` did not end answers after the next `go`: USI-GAMEOVER-004, not an
    /// illegal move of the next search, which still owes its reply.
    #[test]
    fn the_reply_of_a_search_gameover_did_not_end_is_not_the_next_searchs() {
        let mut observer = observer();
        let white = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2";
        observer.on_send(&format!("position sfen {white}"), 0);
        observer.on_send("go infinite", 10);
        observer.on_send("gameover draw", 20);
        observer.on_send("position startpos", 30);
        observer.on_send("go infinite", 40);
        observer.on_line(&Line::stdout("bestmove 3c3d", 50), None);
        let judge = observer.judge();
        assert!(judge.violated(crate::rule!("USI-GAMEOVER-004")));
        assert!(!judge.violated(crate::rule!("USI-BESTMOVE-002")));
        assert!(observer.protocol().searching());
        observer.on_send("stop", 60);
        observer.on_line(&Line::stdout("bestmove 7g7f", 70), None);
        assert!(!observer.judge().violated(crate::rule!("USI-GO-002")));
    }

    /// The same when only the ponder move gives the old search away: `6i7h` is legal in both
    /// positions, the bishop exchange `2b8h+` after it only where 7g7f was played.
    #[test]
    fn a_reply_whose_ponder_move_fits_only_the_search_gameover_did_not_end_is_that_searchs() {
        let mut observer = observer();
        observer.on_send("position startpos moves 7g7f 3c3d", 0);
        observer.on_send("go infinite", 10);
        observer.on_send("gameover lose", 20);
        observer.on_send("position startpos moves 2g2f 3c3d", 30);
        observer.on_send("go infinite", 40);
        observer.on_line(&Line::stdout("bestmove 6i7h ponder 2b8h+", 50), None);
        let judge = observer.judge();
        assert!(judge.violated(crate::rule!("USI-GAMEOVER-004")));
        assert!(!judge.violated(crate::rule!("USI-PONDER-001")));
        assert!(observer.protocol().searching());
    }

    /// The rules one reply is charged to, after the `position` lines `sent` (in turn) and
    /// `go`, while a step names `legality_rule` (or none): the observer's, and the step's in
    /// its scenario judge.
    fn blamed(
        sent: &[&str],
        go: &str,
        reply: &str,
        legality_rule: Option<RuleId>,
    ) -> (Vec<RuleId>, Vec<RuleId>) {
        let mut observer = observer();
        for line in sent {
            observer.on_send(line, 0);
        }
        observer.on_send(go, 0);
        let mut scenario = Judge::new(Profile::Shogidokoro, Claims::default());
        observer.on_line(
            &Line::stdout(reply, 1),
            legality_rule.map(|rule| (rule, None, &mut scenario)),
        );
        (observer.judge().violated_rules(), scenario.violated_rules())
    }

    /// One row of the misread table: the `position` lines sent, `go`, the reply, the step's
    /// `legality_rule`, and the rules charged by the observer and in the scenario's judge.
    type Case = (
        &'static [&'static str],
        &'static str,
        &'static str,
        Option<RuleId>,
        &'static [RuleId],
        &'static [RuleId],
    );

    /// Each misreading for each kind of move-bearing line: charged to the observer's rule for
    /// it, or to the step's `legality_rule` for a stale position or a reply a rival reading
    /// fits too (without one, a stale position goes to the legality rule); an illegal move no
    /// misread board explains is the legality rules' even while a step names its
    /// `legality_rule`.
    #[test]
    fn misread_positions_are_charged_only_on_evidence() {
        // Asymmetric: king 9i, lance 8i, pawn 9h; mirrored they stand on files 1 and 2.
        const MIRRORED: &str = "position sfen 8k/9/9/9/9/9/9/P8/KL7 b G 1";
        const MIRRORED_MATE: &str = "position sfen 8k/9/8P/9/9/9/9/9/4K4 b G 1";
        // White holds 10 pawns (`10p` read as its last digit: none) or 2 (read as 1): only
        // then does the lance mate.
        const HANDS_LAST_DIGIT: &str = "position sfen 7lk/7p1/9/9/9/9/9/9/4K4 b L10p 1";
        const HANDS_AS_ONE: &str = "position sfen 7lk/7p1/9/7N1/9/9/9/9/4K4 b L2p 1";
        const F_MATE1: &str = "position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1";
        const F_MATE1_ON_6: &str = "position sfen 3k5/9/3P5/9/9/9/9/9/4K4 b G 1";
        const F_MATE1_ON_5: &str = "position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1";
        const BEFORE: &str = "position startpos moves 7g7f";
        const AFTER: &str = "position startpos moves 7g7f 3c3d";
        const OTHER_GAME: &str = "position startpos moves 2g2f 8c8d";
        // Two-piece handicap, White to move: Black's moves from the start position fit it with
        // the side to move read wrong too.
        const HANDICAP: &str =
            "position sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
        const SEARCH: &str = "go btime 0 wtime 0 byoyomi 1000";
        const MATE: &str = "go mate 1000";
        let step = Some(crate::rule!("USI-POSITION-002"));
        let none: &[RuleId] = &[];
        #[rustfmt::skip]
        let table: &[Case] = &[
            // Mirrored files.
            (&[MIRRORED], SEARCH, "bestmove 2i2a+", None, &[crate::rule!("USI-POSITION-001")], none),
            (&[MIRRORED], SEARCH, "bestmove 2i2a+", step, &[crate::rule!("USI-POSITION-001")], none),
            (&[MIRRORED], SEARCH, "bestmove G*5e ponder 9a9b", None, &[crate::rule!("USI-POSITION-001")], none),
            (&[MIRRORED], SEARCH, "bestmove G*5e ponder 9a9b", step, &[crate::rule!("USI-POSITION-001")], none),
            (&[MIRRORED], SEARCH, "info depth 2 time 1 pv G*5e 9a9b", None, &[crate::rule!("USI-POSITION-001")], none),
            (&[MIRRORED], SEARCH, "info depth 1 time 1 pv 2i2a+", step, &[crate::rule!("USI-POSITION-001")], none),
            (&[MIRRORED], SEARCH, "info depth 1 currmove 2i2a+", None, &[crate::rule!("USI-POSITION-001")], none),
            (&[MIRRORED], SEARCH, "info depth 1 currmove 2i2a+", step, &[crate::rule!("USI-POSITION-001")], none),
            (&[MIRRORED_MATE], MATE, "checkmate G*9b", None, &[crate::rule!("USI-POSITION-001")], none),
            (&[MIRRORED_MATE], MATE, "checkmate G*9b", step, &[crate::rule!("USI-POSITION-001")], none),
            // Hand counts: reading fewer pieces only takes moves away, so only a mate claim
            // shows it; an illegal drop stays with the legality rules.
            (&[HANDS_LAST_DIGIT], MATE, "checkmate L*1i", None, &[crate::rule!("USI-POSITION-004")], none),
            (&[HANDS_LAST_DIGIT], MATE, "checkmate L*1i", step, &[crate::rule!("USI-POSITION-004")], none),
            (&[HANDS_AS_ONE], MATE, "checkmate L*1i P*1h 1i1h", None, &[crate::rule!("USI-POSITION-004")], none),
            (&[HANDS_AS_ONE], MATE, "checkmate L*1i P*1h 1i1h", step, &[crate::rule!("USI-POSITION-004")], none),
            (&[HANDS_AS_ONE], SEARCH, "bestmove G*5e", step, &[crate::rule!("USI-BESTMOVE-002"), crate::rule!("USI-BESTMOVE-007")], none),
            (&[HANDS_AS_ONE], SEARCH, "bestmove 2d1b+ ponder P*1c", step, &[crate::rule!("USI-PONDER-001")], none),
            (&[HANDS_AS_ONE], SEARCH, "info depth 1 time 1 pv L*1c 2b2c L*1b", step, &[crate::rule!("USI-INFO-011")], none),
            (&[HANDS_AS_ONE], SEARCH, "info depth 1 currmove G*5e", step, &[crate::rule!("USI-INFO-005")], none),
            // Stale: the previous position kept.
            (&[BEFORE, AFTER], SEARCH, "bestmove 3c3d", None, &[crate::rule!("USI-BESTMOVE-002"), crate::rule!("USI-BESTMOVE-007")], none),
            (&[BEFORE, AFTER], SEARCH, "bestmove 3c3d", step, none, &[crate::rule!("USI-POSITION-002")]),
            // The same base and no more moves: the board kept by assuming continuity.
            (&[OTHER_GAME, AFTER], SEARCH, "bestmove 6i7h ponder 8d8e", None, &[crate::rule!("USI-POSITION-008")], none),
            (&[OTHER_GAME, AFTER], SEARCH, "bestmove 6i7h ponder 8d8e", step, &[crate::rule!("USI-POSITION-008")], none),
            (&[BEFORE, AFTER], SEARCH, "info depth 1 time 1 pv 3c3d", None, &[crate::rule!("USI-INFO-011")], none),
            (&[BEFORE, AFTER], SEARCH, "info depth 1 time 1 pv 3c3d", step, none, &[crate::rule!("USI-POSITION-002")]),
            (&[BEFORE, AFTER], SEARCH, "info depth 1 currmove 3c3d", None, &[crate::rule!("USI-INFO-005")], none),
            (&[BEFORE, AFTER], SEARCH, "info depth 1 currmove 3c3d", step, none, &[crate::rule!("USI-POSITION-002")]),
            (&[F_MATE1_ON_6, F_MATE1_ON_5], MATE, "checkmate G*6b", None, &[crate::rule!("USI-MATE-003")], none),
            (&[F_MATE1_ON_6, F_MATE1_ON_5], MATE, "checkmate G*6b", step, none, &[crate::rule!("USI-POSITION-002")]),
            // 10-mate/tsume-without-attacker-king: the king-less position rejected, the
            // previous one's mate played.
            (&["position sfen 3lkl3/3p1p3/9/9/9/9/9/9/4K4 b R 1", "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"], MATE, "checkmate R*5e", Some(crate::rule!("USI-MATE-009")), none, &[crate::rule!("USI-MATE-009")]),
            // No misread board explains it: a move-generation bug, whatever the step names.
            (&[BEFORE, AFTER], SEARCH, "bestmove 2g2e", step, &[crate::rule!("USI-BESTMOVE-002")], none),
            (&[MIRRORED], SEARCH, "info depth 1 time 1 pv G*5e 1a1b 9i9h", step, &[crate::rule!("USI-INFO-011")], none),
            (&[MIRRORED_MATE], MATE, "checkmate G*2b", step, &[crate::rule!("USI-MATE-003")], none),
            // A legal mating move, then a ponder move for the mated side, which has none: no
            // board explains it (the hands misread as fewer still mate, the step before was
            // `startpos`).
            (&["position startpos", F_MATE1], SEARCH, "bestmove G*5b ponder 5a4a", Some(crate::rule!("USI-POSITION-004")), &[crate::rule!("USI-PONDER-001")], none),
            // White to move, answered for Black: legal with the side to move read wrong and in
            // the previous position; either way the engine did not take the line's White to
            // move (USI-POSITION-005).
            (&["position startpos", HANDICAP], SEARCH, "bestmove 5i4h", None, &[crate::rule!("USI-POSITION-005")], none),
            (&["position startpos", HANDICAP], SEARCH, "bestmove 5i4h", step, &[crate::rule!("USI-POSITION-005")], none),
            // Legal in the previous position, but also on the board given with the other side
            // to move: no evidence of either on its own; in a step about reading the position,
            // both are misreadings of it (an engine that drops the `moves` of an SFEN answers
            // for the side to move before them).
            (&["position startpos", "position startpos moves 7g7f 3c3d 2g2f"], SEARCH, "bestmove 5i4h", None, &[crate::rule!("USI-BESTMOVE-002"), crate::rule!("USI-BESTMOVE-007")], none),
            (&["position startpos", "position startpos moves 7g7f 3c3d 2g2f"], SEARCH, "bestmove 5i4h", step, none, &[crate::rule!("USI-POSITION-002")]),
            (&["position sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/9/LNSGKGSNL b 2R2B 1", "position sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/9/LNSGKGSNL b 2R2B moves 5g5f"], SEARCH, "info currmove B*6e", step, none, &[crate::rule!("USI-POSITION-002")]),
            // White to move read as Black: a Black king move no other board explains.
            (&["position sfen 4k4/9/9/9/9/9/9/9/K8 w - 1"], SEARCH, "bestmove 9i8h", step, &[crate::rule!("USI-POSITION-005")], none),
            // `8h2b` declined the promotion and was skipped: the bishop still on 8h.
            (&["position startpos moves 7g7f 3c3d 8h2b"], SEARCH, "bestmove 8h2b+", None, &[crate::rule!("USI-POSITION-007")], none),
            // Continuity assumed: only the third move played, on the board of the line before.
            (&[AFTER, "position startpos moves 2g2f 8c8d 6i7h"], SEARCH, "bestmove 2b8h+", step, &[crate::rule!("USI-POSITION-008")], none),
            // A mirrored board shows through a drop's square only: no evidence.
            (&["position sfen 4k4/9/9/9/9/9/7P1/9/4K4 b P 1"], SEARCH, "bestmove P*2e", None, &[crate::rule!("USI-BESTMOVE-002")], none),
        ];
        for &(sent, go, reply, legality_rule, observed, scenario) in table {
            let (o, s) = blamed(sent, go, reply, legality_rule);
            assert_eq!(
                (o.as_slice(), s.as_slice()),
                (observed, scenario),
                "{sent:?} {go} `{reply}` with {legality_rule:?}"
            );
        }
    }

    /// The reason names the misreading.
    #[test]
    fn a_misread_position_is_named_in_the_reason() {
        let reason = |sent: &[&str], reply: &str, rule: RuleId| {
            let mut observer = observer();
            for line in sent {
                observer.on_send(line, 0);
            }
            observer.on_send("go btime 0 wtime 0 byoyomi 1000", 0);
            observer.on_line(&Line::stdout(reply, 1), None);
            observer.judge().verdict(rule).unwrap().reason.clone()
        };
        let mirrored = reason(
            &["position sfen 8k/9/9/9/9/9/9/P8/KL7 b - 1"],
            "bestmove 2i2a+",
            crate::rule!("USI-POSITION-001"),
        );
        assert_eq!(
            mirrored,
            "`2i2a+` is illegal in 8k/9/9/9/9/9/9/P8/KL7 b - 1 but legal with the SFEN board's \
             files mirrored (9 read as 1): `bestmove 2i2a+`"
        );
        let stale = reason(
            &[
                "position startpos moves 7g7f",
                "position startpos moves 7g7f 3c3d",
            ],
            "info depth 1 time 1 pv 3c3d",
            crate::rule!("USI-INFO-011"),
        );
        assert_eq!(
            stale,
            "pv move 1 `3c3d` is illegal but the pv is legal in the previous position \
             (`position startpos moves 7g7f`): the engine kept it, as if it had rejected the \
             last `position`: `info depth 1 time 1 pv 3c3d`"
        );
    }

    /// A misreading is charged at the first line that shows it, not again at every line.
    #[test]
    fn each_misreading_is_charged_once_per_session() {
        let mut observer = searching("8k/9/9/9/9/9/9/P8/KL7 b - 1", "go depth 1");
        let pv = "info depth 1 time 1 pv 2i2a+";
        observer.on_line(&Line::stdout(pv, 1), None);
        observer.on_line(&Line::stdout("bestmove 2i2a+", 2), None);
        let judge = observer.judge();
        assert_eq!(judge.violated_rules(), [crate::rule!("USI-POSITION-001")]);
        let first = &judge
            .verdict(crate::rule!("USI-POSITION-001"))
            .unwrap()
            .reason;
        assert!(first.ends_with(&format!("`{pv}`")), "{first}");
    }
}
