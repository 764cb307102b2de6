//! The session facts: what the pre-flight established about the engine once, before the
//! scenarios, that later checks depend on. A fact that failed was charged there, once, to the
//! rule that describes it; a check that needs it is then SKIP "not reached", in the same words
//! everywhere, instead of failing its own rule for the same cause (and instead of waiting out
//! a deadline for a reply that is known not to come).

use crate::rules::RuleId;
use crate::usi::Go;

/// What the pre-flight showed; the default is an engine whose basics work.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// The engine never completed `usi` → `usiok` (it died, or stayed silent for T-USIOK):
    /// no scenario runs (USI-HANDSHAKE-004, charged in the pre-flight).
    pub no_usiok: bool,
    /// The engine answers `usi` but never `isready` (USI-READY-001, charged in the
    /// pre-flight): setup steps stop waiting for `readyok`, and a check that needs one is not
    /// reached. Only a missing `readyok` counts: an extra one leaves setup waiting as usual.
    pub no_readyok: bool,
    /// The engine's `usiok` came in time: it flushes its output, so a `usiok` that comes only
    /// as the engine exits later was late (USI-HANDSHAKE-004), not held in a buffer
    /// (USI-ROBUST-006).
    pub flushes_usiok: bool,
    /// The control search got no `bestmove`: the searches of that form get none either.
    pub unanswered_search: Option<UnansweredSearch>,
    /// The control `go infinite` got no `bestmove` within T-STOP of its `stop` (USI-STOP-001,
    /// charged in the pre-flight; what it got instead, in words): a check of what `stop`
    /// ends in another search is not reached.
    pub unanswered_stop: Option<String>,
    /// A search sent right after `usinewgame` was late where the control search before it
    /// was not (USI-READY-007, charged in the pre-flight): the handshakes wait for a
    /// `readyok` after `usinewgame`, so that work delays no scenario's first search.
    pub slow_newgame: bool,
    /// The engine sent a terminal reply no `go` asked for (USI-GO-001, charged in the
    /// pre-flight; a `bestmove` on `usinewgame`, say): a `usinewgame` is followed by
    /// `isready`/`readyok`, so that such a reply comes before the next search instead of
    /// being taken for its answer and putting every later search out of step.
    pub stray_replies: bool,
    /// Neither `stop` nor `isready` sent during a `go infinite` was answered (USI-GO-012,
    /// charged in the pre-flight; what the `isready` got, in words): the engine reads no
    /// command while it searches, so a wait on a command sent during a search is not reached.
    pub deaf_while_searching: Option<String>,
    /// The `isready` after `gameover` got no `readyok` (USI-READY-005, charged in the
    /// pre-flight; what it got, in words): a wait for a `readyok` after a `gameover` is not
    /// reached.
    pub deaf_after_gameover: Option<String>,
    /// The game after `gameover` got no legal move (USI-GAMEOVER-002, charged in the
    /// pre-flight; what it got, in words): a wait for a search's reply after a `gameover` is
    /// not reached.
    pub stuck_after_gameover: Option<String>,
    /// The engine, idle, stayed running after the pre-flight's `quit` until usicheck's signals
    /// ended it (USI-QUIT-001, charged there; what it showed, in words): a wait for the exit
    /// after a `quit` is not reached, and a session ends with the signals at once.
    pub ignores_quit: Option<String>,
    /// `quit` right after `usiok` was ignored, where the pre-flight's `quit` after `isready`
    /// was obeyed (USI-HANDSHAKE-006, charged there; what it showed, in words): in a session
    /// that sent no `isready`, a wait for the exit after `quit` is not reached, and the session
    /// ends with the signals at once.
    pub quit_needs_isready: Option<String>,
}

/// A form of search the pre-flight's control searches showed the engine does not answer
/// with `bestmove`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnansweredSearch {
    /// Only searches that carry `byoyomi` (one with an increment was answered).
    pub byoyomi_only: bool,
    /// The rule charged in the pre-flight.
    pub rule: RuleId,
    /// What the control search got, in words (`checkmate nomate`, no reply, a death).
    pub got: String,
}

impl UnansweredSearch {
    /// Whether the reply to `go` is one the control searches showed does not come: a search
    /// other than `go mate` (of the form the engine ignores).
    ///
    /// ```
    /// use usicheck::observer::UnansweredSearch;
    /// use usicheck::usi::{Command, Go};
    /// let go = |line| match Command::parse(line) { Command::Go(go) => go, _ => unreachable!() };
    /// let byoyomi = UnansweredSearch { byoyomi_only: true, rule: usicheck::rule!("USI-GO-004"), got: String::new() };
    /// assert!(byoyomi.covers(&go("go btime 0 wtime 0 byoyomi 100")));
    /// assert!(!byoyomi.covers(&go("go btime 1000 wtime 1000 binc 100 winc 100")));
    /// assert!(!byoyomi.covers(&go("go mate 1000")));
    /// ```
    pub fn covers(&self, go: &Go) -> bool {
        let clock = &go.clock;
        let byoyomi = clock
            .byoyomi
            .or(clock.bbyoyomi)
            .or(clock.wbyoyomi)
            .is_some();
        go.mate.is_none() && (byoyomi || !self.byoyomi_only)
    }

    /// The SKIP reason of a check that needs such a reply.
    pub fn not_reached(&self) -> String {
        let searches = if self.byoyomi_only {
            "no `go` with `byoyomi` gets a `bestmove`"
        } else {
            "no `go` gets a `bestmove`"
        };
        not_reached(&format!("{searches} ({})", self.got), self.rule)
    }
}

/// The one wording of a check whose precondition the pre-flight showed broken.
///
/// ```
/// let reason = usicheck::observer::not_reached("no `readyok`", usicheck::rule!("USI-READY-001"));
/// assert_eq!(reason, "not reached: no `readyok` (USI-READY-001, charged in the pre-flight)");
/// ```
pub fn not_reached(fact: &str, rule: RuleId) -> String {
    format!("not reached: {fact} ({rule}, charged in the pre-flight)")
}
