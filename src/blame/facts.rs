//! The session facts: what the pre-flight established about the engine once, before the
//! scenarios, that later checks depend on. A fact that failed was charged there, once, to the
//! rule that describes it; a check that needs it is then SKIP "not reached", in the same words
//! everywhere, instead of failing its own rule for the same cause (and instead of waiting out
//! a deadline for a reply that is known not to come).

use crate::rules::RuleId;
use crate::usi::{Go, OptionDecl};

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
    /// A control search was late against its clock (that clock's rule, charged in the
    /// pre-flight): a check that times a search in one circumstance (right after `usinewgame`,
    /// say) against the control is not reached, in a fresh session as in the one that saw it.
    pub late_search: Option<RuleId>,
    /// The options the engine advertised in the pre-flight's handshake, once its `usiok`
    /// completed them (`None`: not known): a scenario whose requirements they do not meet, or
    /// that goes through the options of a type none has, is skipped without a process
    /// started for it.
    pub advertised_options: Option<Vec<OptionDecl>>,
}

/// A form of search the pre-flight's control searches showed the engine does not answer
/// with `bestmove`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnansweredSearch {
    /// Only searches that carry `byoyomi` (one with an increment was answered).
    pub byoyomi_only: bool,
    /// What the control search got, in words (`checkmate nomate`, no reply, a death).
    pub got: String,
}

impl UnansweredSearch {
    /// Whether the reply to `go` is one the control searches showed does not come: a search
    /// other than `go mate` (of the form the engine ignores).
    ///
    /// ```
    /// use usicheck::blame::UnansweredSearch;
    /// use usicheck::usi::{Command, Go};
    /// let go = |line| match Command::parse(line) { Command::Go(go) => go, _ => unreachable!() };
    /// let byoyomi = UnansweredSearch { byoyomi_only: true, got: String::new() };
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

    /// The broken fact: every search of the form, or only those under `byoyomi`.
    pub fn fact(&self) -> Fact {
        match self.byoyomi_only {
            true => Fact::UnansweredByoyomi,
            false => Fact::UnansweredSearch,
        }
    }

    /// The SKIP reason of a check that needs such a reply.
    pub fn not_reached(&self) -> String {
        self.fact().not_reached(Some(&self.got))
    }
}

/// A basic the pre-flight showed broken: charged there, once, to [`Fact::rule`], and named in
/// the same words ([`Fact::not_reached`]) by every check that needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fact {
    /// [`Facts::no_usiok`].
    NoUsiok,
    /// [`Facts::no_readyok`].
    NoReadyok,
    /// [`Facts::unanswered_search`], every form.
    UnansweredSearch,
    /// [`Facts::unanswered_search`], only under `byoyomi`.
    UnansweredByoyomi,
    /// [`Facts::unanswered_stop`].
    UnansweredStop,
    /// [`Facts::slow_newgame`].
    SlowNewgame,
    /// [`Facts::stray_replies`].
    StrayReplies,
    /// [`Facts::deaf_while_searching`].
    DeafWhileSearching,
    /// [`Facts::deaf_after_gameover`].
    DeafAfterGameover,
    /// [`Facts::stuck_after_gameover`].
    StuckAfterGameover,
    /// [`Facts::ignores_quit`].
    IgnoresQuit,
    /// [`Facts::quit_needs_isready`].
    QuitNeedsIsready,
}

impl Fact {
    /// The rule the fact, broken, is charged to: that of the pre-flight's check that showed it.
    ///
    /// ```
    /// use usicheck::blame::Fact;
    /// assert_eq!(Fact::NoReadyok.rule(), usicheck::rule!("USI-READY-001"));
    /// assert_eq!(Fact::UnansweredByoyomi.rule(), usicheck::rule!("USI-GO-004"));
    /// ```
    pub const fn rule(self) -> RuleId {
        match self {
            Fact::NoUsiok => crate::rule!("USI-HANDSHAKE-004"),
            Fact::NoReadyok => crate::rule!("USI-READY-001"),
            Fact::UnansweredSearch => crate::rule!("USI-GO-002"),
            Fact::UnansweredByoyomi => crate::rule!("USI-GO-004"),
            Fact::UnansweredStop => crate::rule!("USI-STOP-001"),
            Fact::SlowNewgame => crate::rule!("USI-READY-007"),
            Fact::StrayReplies => crate::rule!("USI-GO-001"),
            Fact::DeafWhileSearching => crate::rule!("USI-GO-012"),
            Fact::DeafAfterGameover => crate::rule!("USI-READY-005"),
            Fact::StuckAfterGameover => crate::rule!("USI-GAMEOVER-002"),
            Fact::IgnoresQuit => crate::rule!("USI-QUIT-001"),
            Fact::QuitNeedsIsready => crate::rule!("USI-HANDSHAKE-006"),
        }
    }

    /// Whether a check of `rule` has the fact itself for its subject, and so still runs
    /// where it is broken: the check of [`Fact::rule`], and for an engine that reads no
    /// command while it searches, the stricter `isready` answered at once (USI-READY-006),
    /// which it breaks as well (the same `isready` in both, judged against 1 s).
    ///
    /// ```
    /// use usicheck::blame::Fact;
    /// assert!(Fact::DeafWhileSearching.is_checked_by(usicheck::rule!("USI-READY-006")));
    /// assert!(!Fact::NoReadyok.is_checked_by(usicheck::rule!("USI-READY-006")));
    /// ```
    pub fn is_checked_by(self, rule: RuleId) -> bool {
        rule == self.rule()
            || (self == Fact::DeafWhileSearching && rule == crate::rule!("USI-READY-006"))
    }

    /// The fact in words.
    fn words(self) -> &'static str {
        match self {
            Fact::NoUsiok => "the engine never completed `usi` → `usiok`",
            Fact::NoReadyok => "the engine never answers `isready`",
            Fact::UnansweredSearch => "no `go` gets a `bestmove`",
            Fact::UnansweredByoyomi => "no `go` with `byoyomi` gets a `bestmove`",
            Fact::UnansweredStop => "the engine does not answer `stop` within T-STOP",
            Fact::SlowNewgame => "the search right after `usinewgame` is late",
            Fact::StrayReplies => "the engine sends a terminal reply no `go` asked for",
            Fact::DeafWhileSearching => "the engine reads no command while it searches",
            Fact::DeafAfterGameover => "the engine does not answer `isready` after `gameover`",
            Fact::StuckAfterGameover => "the engine plays no game after `gameover`",
            Fact::IgnoresQuit => "the engine ignores `quit`",
            Fact::QuitNeedsIsready => "the engine ignores `quit` before `isready`",
        }
    }

    /// The SKIP reason of a check that needs the fact, with what showed it broken (`got`).
    ///
    /// ```
    /// use usicheck::blame::Fact;
    /// assert_eq!(
    ///     Fact::NoReadyok.not_reached(None),
    ///     "not reached: the engine never answers `isready` (USI-READY-001, charged in the pre-flight)"
    /// );
    /// assert_eq!(
    ///     Fact::IgnoresQuit.not_reached(Some("still running")),
    ///     "not reached: the engine ignores `quit` (still running) (USI-QUIT-001, charged in the pre-flight)"
    /// );
    /// ```
    pub fn not_reached(self, got: Option<&str>) -> String {
        let words = self.words();
        let fact = match got {
            Some(got) => format!("{words} ({got})"),
            None => words.to_owned(),
        };
        format!(
            "not reached: {fact} ({}, charged in the pre-flight)",
            self.rule()
        )
    }
}
