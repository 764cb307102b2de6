//! The rule an engine's death (a crash, or an exit nobody asked for) is charged to, from what
//! the GUI sent last: the same rule whichever driver saw it (certify's setup steps, the
//! fuzzer, `play`). A check whose own stimulus killed the engine charges its own rule instead
//! ([`super::charge`]); this is for deaths no check was watching for.

use crate::observer::Observer;
use crate::rules::RuleId;
use crate::usi::{Command, GameResult};

/// The death of an engine, charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Death {
    /// The rule it breaks: that of the last command it may have died of.
    pub rule: RuleId,
    /// Every command the engine may have died of breaks `rule` if it killed the engine (a
    /// single one, say): a driver that needs no rule for every death (a scenario's setup)
    /// charges only a certain one, and leaves the others "not reached".
    pub certain: bool,
    /// It followed a board the rules reject (USI-POSITION-011): an earlier cause than
    /// whatever a check sent after that board, so it outranks the check's own rule.
    pub of_rejected_board: bool,
}

/// The death of the engine `observer` follows, charged from what was sent to it.
///
/// ```
/// use usicheck::observer::Observer;
/// use usicheck::rules::{Claims, Profile};
/// let profile = Profile::Shogidokoro;
/// let mut observer = Observer::new(profile, Claims::default(), profile.timeouts());
/// assert_eq!(usicheck::blame::death(&observer).rule, usicheck::rule!("USI-HANDSHAKE-004"));
/// observer.on_send("usi", 0);
/// observer.on_line(&usicheck::engine::Line::stdout("usiok", 10), None);
/// observer.on_send("position startpos moves 7g7f 7g7f", 20);
/// observer.on_send("go btime 0 wtime 0 byoyomi 1000", 30);
/// assert_eq!(usicheck::blame::death(&observer).rule, usicheck::rule!("USI-POSITION-011"));
/// observer.on_send("position startpos moves 7g7f", 40);
/// observer.on_send("go btime 0 wtime 0 byoyomi 1000", 50);
/// let death = usicheck::blame::death(&observer);
/// assert_eq!(death.rule, usicheck::rule!("USI-GO-002"));
/// assert!(!death.certain, "the engine may have died of the `position`");
/// ```
pub fn death(observer: &Observer) -> Death {
    let of_rejected_board =
        observer.board().line().is_some() && observer.board().side_to_move().is_none();
    if of_rejected_board || observer.protocol().awaiting_usiok() {
        let rule = match of_rejected_board {
            true => crate::rule!("USI-POSITION-011"),
            false => crate::rule!("USI-HANDSHAKE-004"),
        };
        return Death {
            rule,
            certain: true,
            of_rejected_board,
        };
    }
    // An engine survives the regular commands all the time: where a suspect is one of the
    // irregular ones (outside what a GUI sends every game), that is what it died of.
    let suspects = observer.sent().suspects();
    let irregular: Vec<&Command> = (suspects.iter().copied())
        .filter(|command| irregular(observer, command))
        .collect();
    let suspects = match irregular.is_empty() {
        true => suspects,
        false => irregular,
    };
    let rules: Vec<RuleId> = (suspects.into_iter())
        .map(|command| rule_of(observer, command))
        .collect();
    let rule = rules
        .last()
        .copied()
        .unwrap_or(crate::rule!("USI-HANDSHAKE-004"));
    Death {
        rule,
        certain: rules.iter().all(|r| *r == rule),
        of_rejected_board,
    }
}

/// Whether `command` is one a GUI sends only at times, or an engine may not know: a game
/// command the engine survived before (the number of games is then the cause), a setting
/// of an option it did not advertise, an unknown command or `go` token, a rare command, a
/// result word or `ponderhit` with arguments from an extension.
fn irregular(observer: &Observer, command: &Command) -> bool {
    if observer.sent().repeats_a_game_command(command) {
        return true;
    }
    match command {
        Command::SetOption { name, .. } => observer.protocol().option(name).is_none(),
        Command::Go(go) => !go.extra.is_empty(),
        Command::PonderHit(clock) => !clock.is_empty(),
        Command::GameOver(result) => !matches!(
            result,
            GameResult::Win | GameResult::Lose | GameResult::Draw
        ),
        Command::Debug(_) | Command::Register(_) | Command::Raw(_) => true,
        Command::Usi
        | Command::IsReady
        | Command::UsiNewGame
        | Command::Position(_)
        | Command::Stop
        | Command::Quit => false,
    }
}

/// The rule a death of `command` breaks.
fn rule_of(observer: &Observer, command: &Command) -> RuleId {
    let protocol = observer.protocol();
    if observer.sent().repeats_a_game_command(command) {
        return crate::rule!("USI-ROBUST-011");
    }
    match command {
        Command::Usi => crate::rule!("USI-HANDSHAKE-004"),
        Command::Debug(_) | Command::Register(_) => crate::rule!("USI-ROBUST-010"),
        Command::IsReady => crate::rule!("USI-READY-001"),
        Command::SetOption { name, .. } if protocol.option(name).is_some() => {
            crate::rule!("USI-OPTION-007")
        }
        Command::SetOption { .. } => crate::rule!("USI-OPTION-010"),
        Command::UsiNewGame => crate::rule!("USI-READY-007"),
        Command::Position(_) => crate::rule!("USI-POSITION-001"),
        Command::Go(go) if !go.extra.is_empty() => crate::rule!("USI-GO-011"),
        Command::Go(go) if go.mate.is_some() => crate::rule!("USI-MATE-002"),
        Command::Go(_) => crate::rule!("USI-GO-002"),
        Command::Stop if protocol.owed_search().is_some() => crate::rule!("USI-STOP-001"),
        Command::Stop => crate::rule!("USI-STOP-002"),
        Command::PonderHit(clock) if !clock.is_empty() => crate::rule!("USI-STOP-005"),
        Command::PonderHit(_) => crate::rule!("USI-PONDER-004"),
        Command::GameOver(GameResult::Unknown | GameResult::Other(_)) => {
            crate::rule!("USI-GAMEOVER-006")
        }
        Command::GameOver(_) => crate::rule!("USI-GAMEOVER-001"),
        Command::Quit => crate::rule!("USI-QUIT-004"),
        Command::Raw(_) => crate::rule!("USI-ROBUST-001"),
    }
}
