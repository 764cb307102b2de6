//! The GUI's own rules, applied to what usicheck sends: `usi` once and first
//! (USI-HANDSHAKE-005), `setoption` only while the engine waits and before the `isready` that
//! precedes a game (USI-OPTION-011, USI-EXT-005), one `stop` or `ponderhit` per outstanding
//! search, and no new `position` or `go` before its reply unless `gameover` abandoned it
//! (USI-STOP-006).
//!
//! An engine cannot break these rules, so no certificate counts them; a scenario may break one
//! on purpose, to see the engine survive what a GUI must not send, and says so in its
//! `gui_deviations`. The tests hold every bundled scenario to that.
//!
//! ```
//! use usicheck::engine::Direction::{FromEngine, ToEngine};
//! use usicheck::scenario::gui_breaches;
//! let sent = [(ToEngine, "usi"), (FromEngine, "usiok"), (ToEngine, "isready"),
//!     (FromEngine, "readyok"), (ToEngine, "usinewgame"), (ToEngine, "position startpos"),
//!     (ToEngine, "go btime 0 wtime 0 byoyomi 100"), (ToEngine, "stop"), (ToEngine, "stop")];
//! let breaches = gui_breaches(sent);
//! assert_eq!(breaches.len(), 1);
//! assert_eq!((breaches[0].rule.as_str(), breaches[0].entry), ("USI-STOP-006", 8));
//! ```

use crate::engine::Direction;
use crate::rules::RuleId;
use crate::usi::Command;

/// The GUI's rules [`gui_breaches`] checks.
pub const GUI_CONDUCT_RULES: &[RuleId] = &[
    crate::rule!("USI-HANDSHAKE-005"),
    crate::rule!("USI-OPTION-011"),
    crate::rule!("USI-EXT-005"),
    crate::rule!("USI-STOP-006"),
];

/// A GUI rule broken by a line usicheck sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuiBreach {
    pub rule: RuleId,
    /// The index of the line in the exchange.
    pub entry: usize,
    pub reason: String,
}

/// The last `go` the GUI sent, as `stop` and `ponderhit` may end it.
#[derive(Clone, Copy, Debug)]
struct Stoppable {
    ponder: bool,
    /// `stop` or `ponderhit` was sent for it.
    ended_by_gui: bool,
}

/// Every GUI rule broken by the lines sent in `exchange` (both directions, in order: the
/// engine's replies end its searches).
pub fn gui_breaches<'a>(
    exchange: impl IntoIterator<Item = (Direction, &'a str)>,
) -> Vec<GuiBreach> {
    let mut breaches = Vec::new();
    let mut sent_any = false;
    // The search awaiting its reply, for a new `position` or `go`; and the last `go` the
    // GUI has not yet ended, for `stop` and `ponderhit`: a reply already on its way does not
    // make a `stop` sent meanwhile the GUI's fault.
    let mut owed = false;
    let mut stoppable: Option<Stoppable> = None;
    // Whether a game is on (`usinewgame` sent, no `gameover` since), and whether a
    // `setoption` still waits for the `isready` that must follow it before a game starts.
    let mut in_game = false;
    let mut setting_unconfirmed = false;
    for (entry, (direction, text)) in exchange.into_iter().enumerate() {
        let mut breach = |rule: RuleId, reason: &str| {
            breaches.push(GuiBreach {
                rule,
                entry,
                reason: reason.to_owned(),
            })
        };
        match direction {
            Direction::FromEngine => {
                let reply = text.split_whitespace().next();
                if matches!(reply, Some("bestmove" | "checkmate")) {
                    owed = false;
                }
                continue;
            }
            Direction::ToEngine => {}
            Direction::Stderr | Direction::Note => continue,
        }
        let command = Command::parse(text);
        let first = !std::mem::replace(&mut sent_any, true);
        match (&command, first) {
            (Command::Usi, false) => breach(crate::rule!("USI-HANDSHAKE-005"), "`usi` sent again"),
            (Command::Usi, true) => {}
            (_, true) => breach(
                crate::rule!("USI-HANDSHAKE-005"),
                "the first command sent is not `usi`",
            ),
            (_, false) => {}
        }
        // USI-EXT-005 restates USI-OPTION-011's second half for USI 2.0: both are broken.
        let mut settings_late = |reason: &str| {
            breach(crate::rule!("USI-OPTION-011"), reason);
            breach(crate::rule!("USI-EXT-005"), reason);
        };
        match &command {
            Command::SetOption { .. } => {
                if owed {
                    breach(
                        crate::rule!("USI-OPTION-011"),
                        "`setoption` during a search",
                    );
                } else if in_game {
                    settings_late("`setoption` after `usinewgame`, during the game");
                }
                setting_unconfirmed = true;
            }
            Command::IsReady => setting_unconfirmed = false,
            Command::UsiNewGame | Command::Position(_) | Command::Go(_) => {
                if std::mem::take(&mut setting_unconfirmed) {
                    settings_late("a game command after `setoption` with no `isready` between");
                }
                if matches!(command, Command::UsiNewGame) {
                    in_game = true;
                } else if owed {
                    breach(
                        crate::rule!("USI-STOP-006"),
                        "a new `position` or `go` before the search's reply",
                    );
                }
                if let Command::Go(go) = &command {
                    owed = true;
                    stoppable = Some(Stoppable {
                        ponder: go.ponder,
                        ended_by_gui: false,
                    });
                }
            }
            Command::Stop | Command::PonderHit(_) => {
                let ponderhit = matches!(command, Command::PonderHit(_));
                match &mut stoppable {
                    None => breach(crate::rule!("USI-STOP-006"), "no `go` to end"),
                    Some(search) if search.ended_by_gui => breach(
                        crate::rule!("USI-STOP-006"),
                        "a second `stop` or `ponderhit` for one search",
                    ),
                    Some(search) if ponderhit && !search.ponder => breach(
                        crate::rule!("USI-STOP-006"),
                        "`ponderhit` for a search that is not a ponder search",
                    ),
                    Some(search) => {
                        search.ended_by_gui = true;
                        // After `ponderhit` the search goes on, on the GUI's clock: a `stop`
                        // may still end it.
                        if ponderhit {
                            *search = Stoppable {
                                ponder: false,
                                ended_by_gui: false,
                            };
                        }
                    }
                }
            }
            // The game is over: its search is abandoned, a `bestmove` no longer awaited
            // (USI-GAMEOVER-004).
            Command::GameOver(_) => {
                in_game = false;
                owed = false;
                stoppable = None;
            }
            _ => {}
        }
    }
    breaches
}

#[cfg(test)]
mod tests {
    use super::*;
    use Direction::{FromEngine, ToEngine};

    fn rules(exchange: &[(Direction, &str)]) -> Vec<RuleId> {
        gui_breaches(exchange.iter().copied())
            .into_iter()
            .map(|b| b.rule)
            .collect()
    }

    const GAME: [(Direction, &str); 6] = [
        (ToEngine, "usi"),
        (FromEngine, "usiok"),
        (ToEngine, "setoption name USI_Hash value 16"),
        (ToEngine, "isready"),
        (FromEngine, "readyok"),
        (ToEngine, "usinewgame"),
    ];

    fn game_then(rest: &[(Direction, &'static str)]) -> Vec<RuleId> {
        rules(&[&GAME[..], rest].concat())
    }

    #[test]
    fn a_gui_that_follows_the_rules_breaks_none() {
        let ponder_game = [
            (ToEngine, "position startpos"),
            (ToEngine, "go ponder btime 0 wtime 0 byoyomi 100"),
            (ToEngine, "ponderhit"),
            (ToEngine, "stop"),
            (FromEngine, "bestmove 7g7f"),
            (ToEngine, "position startpos moves 7g7f"),
            (ToEngine, "go btime 0 wtime 0 byoyomi 100"),
            (ToEngine, "isready"),
            (FromEngine, "readyok"),
            (FromEngine, "bestmove 3c3d"),
            (ToEngine, "gameover win"),
            (ToEngine, "setoption name USI_Hash value 32"),
            (ToEngine, "isready"),
            (ToEngine, "usinewgame"),
            (ToEngine, "quit"),
        ];
        assert_eq!(game_then(&ponder_game), Vec::<RuleId>::new());
    }

    #[test]
    fn usi_must_come_first_and_once() {
        assert_eq!(
            rules(&[(ToEngine, "isready")]),
            [crate::rule!("USI-HANDSHAKE-005")]
        );
        assert_eq!(
            game_then(&[(ToEngine, "usi")]),
            [crate::rule!("USI-HANDSHAKE-005")]
        );
    }

    #[test]
    fn settings_come_before_the_games_isready_and_never_during_a_search() {
        assert_eq!(
            game_then(&[(ToEngine, "setoption name A value 1")]),
            [crate::rule!("USI-OPTION-011"), crate::rule!("USI-EXT-005")]
        );
        let during_search = [
            (ToEngine, "gameover draw"),
            (ToEngine, "go infinite"),
            (ToEngine, "setoption name A value 1"),
        ];
        assert_eq!(game_then(&during_search), [crate::rule!("USI-OPTION-011")]);
        let unconfirmed = [
            (ToEngine, "gameover draw"),
            (ToEngine, "setoption name A value 1"),
            (ToEngine, "usinewgame"),
        ];
        assert_eq!(
            game_then(&unconfirmed),
            [crate::rule!("USI-OPTION-011"), crate::rule!("USI-EXT-005")]
        );
    }

    #[test]
    fn stop_and_ponderhit_end_one_outstanding_search_once() {
        assert_eq!(
            game_then(&[(ToEngine, "stop")]),
            [crate::rule!("USI-STOP-006")]
        );
        let twice = [
            (ToEngine, "go infinite"),
            (ToEngine, "stop"),
            (ToEngine, "stop"),
        ];
        assert_eq!(game_then(&twice), [crate::rule!("USI-STOP-006")]);
        let not_pondering = [(ToEngine, "go infinite"), (ToEngine, "ponderhit")];
        assert_eq!(game_then(&not_pondering), [crate::rule!("USI-STOP-006")]);
        let overtaken = [(ToEngine, "go infinite"), (ToEngine, "position startpos")];
        assert_eq!(game_then(&overtaken), [crate::rule!("USI-STOP-006")]);
        let abandoned = [
            (ToEngine, "go infinite"),
            (ToEngine, "gameover lose"),
            (ToEngine, "position startpos"),
        ];
        assert_eq!(game_then(&abandoned), Vec::<RuleId>::new());
    }
}
