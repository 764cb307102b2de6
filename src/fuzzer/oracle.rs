//! The fuzzer's view of the observer's verdicts: which kind of check a violated rule is (the
//! key that groups findings, and whether the session can go on), and the misread-SFEN test
//! that re-charges an illegal reply to `position`.
//!
//! Every engine line is judged by the same [`Observer`] as in `usicheck run`, so a finding
//! replays with `run` to the same rule and severity.

use crate::engine::Line;
use crate::observer::{CLOCK_RULES, LEGALITY_RULES, Observer};
use crate::rules::{Claims, Outcome, Profile, RuleId, Verdict};
use crate::shogi::{Position, Square};
use crate::usi::{Command, Message, MoveToken, StartPosition};
use std::fmt;

/// Which oracle a violation comes from; with the rule it is the key that groups findings.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Oracle {
    /// A move in `bestmove`, `ponder`, `pv` or `checkmate` that the rules reject, or a
    /// `bestmove win`, `checkmate` or `nomate` the position refutes.
    Legality,
    /// A reply missing, doubled or out of place for the protocol state.
    Protocol,
    /// A line the observer flags that leaves the protocol in step (grammar, encoding, free
    /// text, `info` out of place): noted once, the session goes on.
    Output,
    /// Killed by a signal.
    Crash,
    /// Exited by itself (with status and last message), not after `quit`.
    Exit,
    /// A deadline passed without the reply, or the reply came after it.
    Hang,
}

impl Oracle {
    pub const fn name(self) -> &'static str {
        match self {
            Oracle::Legality => "legality",
            Oracle::Protocol => "protocol",
            Oracle::Output => "output",
            Oracle::Crash => "crash",
            Oracle::Exit => "exit",
            Oracle::Hang => "hang",
        }
    }

    /// The oracle of an observer verdict on `rule`. Only [`Oracle::Output`] lets a session
    /// go on: the others put the exchange out of step or are what a finding reproduces.
    ///
    /// ```
    /// use usicheck::fuzzer::oracle::Oracle;
    /// assert_eq!(Oracle::of(usicheck::rule!("USI-BESTMOVE-002")), Oracle::Legality);
    /// assert_eq!(Oracle::of(usicheck::rule!("USI-GO-004")), Oracle::Hang);
    /// assert_eq!(Oracle::of(usicheck::rule!("USI-ROBUST-009")), Oracle::Output);
    /// ```
    pub fn of(rule: RuleId) -> Oracle {
        let rule = rule.as_str();
        if LEGALITY_RULES.contains(&rule) || REFUTED_REPLY_RULES.contains(&rule) {
            Oracle::Legality
        } else if CLOCK_RULES.contains(&rule) {
            Oracle::Hang
        } else if OUT_OF_STEP_RULES.contains(&rule) {
            Oracle::Protocol
        } else {
            Oracle::Output
        }
    }
}

const _: () = assert!(crate::rules::all_catalogued(REFUTED_REPLY_RULES));
const _: () = assert!(crate::rules::all_catalogued(OUT_OF_STEP_RULES));

/// A reply the reference rules refute: a move where none is legal, an invalid declaration, a
/// `checkmate` line that is no mate, a `nomate` where a mate exists, a vendor `pass`.
const REFUTED_REPLY_RULES: &[&str] = &[
    "USI-BESTMOVE-003",
    "USI-BESTMOVE-004",
    "USI-RULES-001",
    "USI-MATE-003",
    "USI-MATE-004",
    "USI-EXT-018",
];

/// Replies missing, doubled or of the wrong kind, and searches that ignore their limit.
const OUT_OF_STEP_RULES: &[&str] = &[
    "USI-GO-001",
    "USI-GO-002",
    "USI-GO-008",
    "USI-GO-010",
    "USI-PONDER-002",
    "USI-READY-001",
    "USI-MATE-002",
    "USI-STOP-003",
    "USI-GAMEOVER-004",
];

impl fmt::Display for Oracle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One failed check: the oracle, the rule it breaks, what was seen, and after which command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub oracle: Oracle,
    pub rule: &'static str,
    pub detail: String,
    /// Index of the last command sent when it was seen (`None`: before any, i.e. the handshake;
    /// the command count: the closing `isready` or `quit`).
    pub step: Option<usize>,
    /// How `usicheck run` grades it under the fuzzer's profile (`None`:
    /// the profile does not judge the rule).
    pub outcome: Option<Outcome>,
}

impl Violation {
    /// A violation graded as a scenario step naming `rule` is, under the default profile.
    pub fn graded(
        oracle: Oracle,
        rule: &'static str,
        detail: String,
        step: Option<usize>,
    ) -> Violation {
        let grading = (super::DEFAULT_PROFILE, &Claims::default());
        Violation::graded_under(grading, oracle, rule, detail, step)
    }

    /// A violation graded as a scenario step naming `rule` is, under `profile` and `claims`.
    pub fn graded_under(
        (profile, claims): (Profile, &Claims),
        oracle: Oracle,
        rule: &'static str,
        detail: String,
        step: Option<usize>,
    ) -> Violation {
        let outcome = rule
            .parse()
            .ok()
            .and_then(|rule| Verdict::violation(profile, rule, None, claims, String::new()));
        Violation {
            oracle,
            rule,
            detail: crate::quote::bound_reason(detail),
            step,
            outcome: outcome.map(|v| v.outcome),
        }
    }

    /// The grouping key of findings.
    pub fn key(&self) -> (Oracle, &'static str) {
        (self.oracle, self.rule)
    }
}

/// Whether `reply` (an engine line answering the search `go_line` started) is legal in the
/// board an engine that reads SFEN files mirrored (9 as 1) would have set up from
/// `position_line`, as the observer judges it. Such a reply, illegal in the real position,
/// shows a misread `position sfen` (USI-POSITION-001), not a broken move generator. `None`
/// when the line is not an SFEN form the misreading changes.
pub fn legal_when_sfen_mirrored(position_line: &str, go_line: &str, reply: &str) -> Option<bool> {
    let Command::Position(cmd) = Command::parse(position_line) else {
        return None;
    };
    let StartPosition::Sfen(text) = &cmd.start else {
        return None;
    };
    // A drop's square does not move with the mirror while the pieces that made it illegal
    // (a nifu pawn, a king a pawn drop mates) do: a drop alone is no evidence.
    if let (Message::BestMove(best), _) = Message::parse(reply)
        && matches!(best.best, MoveToken::Move(crate::shogi::Move::Drop { .. }))
    {
        return None;
    }
    let base = Position::from_sfen(text).ok()?;
    let misread = mirrored(&base);
    if misread == base {
        return None;
    }
    let mut played = misread.clone();
    let moves = cmd.moves.iter().flatten();
    for &m in moves.clone() {
        if !played.is_legal(m) {
            // The misreading engine would reject the line, not search a position.
            return None;
        }
        played.play_unchecked(m);
    }
    let mut line = format!("position sfen {}", misread.to_sfen());
    let moves: Vec<String> = moves.map(ToString::to_string).collect();
    if !moves.is_empty() {
        line = format!("{line} moves {}", moves.join(" "));
    }
    let profile = Profile::Shogidokoro;
    let mut probe = Observer::new(profile, Claims::default(), profile.timeouts());
    probe.on_send(&line, 0);
    probe.on_send(go_line, 0);
    probe.board().searched()?;
    probe.on_line(&Line::stdout(reply, 0), None);
    let judge = probe.judge();
    Some(
        !judge
            .violated_rules()
            .into_iter()
            .any(|rule| Oracle::of(rule) == Oracle::Legality),
    )
}

/// `pos` with its board's files read right to left (hands and side unchanged).
fn mirrored(pos: &Position) -> Position {
    let mut m = pos.clone();
    for sq in Square::all() {
        let file = 10 - sq.file();
        m.set_piece(
            sq,
            pos.piece_at(Square::new(file, sq.rank()).expect("on the board")),
        );
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_legal_only_on_the_mirrored_board_show_a_misread_sfen() {
        let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
        let sfen = format!("position sfen {start}");
        let legal =
            |line: &str, reply: &str| legal_when_sfen_mirrored(line, "go byoyomi 1000", reply);
        // Mirrored, the rook stands on 8h, where the bishop really is.
        assert_eq!(legal(&sfen, "bestmove 8h7h"), Some(true));
        assert_eq!(legal(&sfen, "info depth 1 pv 7g7f 8c8d 8h7h"), Some(true));
        assert_eq!(legal(&sfen, "bestmove 7g7e"), Some(false));
        assert_eq!(legal(&format!("{sfen} moves 2h3h"), "bestmove 8h7h"), None);
        assert_eq!(legal("position startpos", "bestmove 8h7h"), None);
        let symmetric = "position sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1";
        assert_eq!(legal(symmetric, "bestmove 5i5h"), None);
        // Nifu: a pawn on 2g, so P*2e is illegal; mirrored, the pawn stands on 8g and the
        // drop looks legal. A drop is no evidence of a misread board.
        let nifu = "position sfen 4k4/9/9/9/9/9/7P1/9/4K4 b P 1";
        assert_eq!(legal(nifu, "bestmove P*2e"), None);
    }

    /// Every rule the fuzzer ends a session on is one the observer charges.
    #[test]
    fn the_fatal_rules_are_observer_rules() {
        let always_on = crate::observer::ALWAYS_ON_RULES;
        for rule in REFUTED_REPLY_RULES
            .iter()
            .chain(&CLOCK_RULES)
            .chain(OUT_OF_STEP_RULES)
        {
            assert!(always_on.contains(rule), "{rule} is not an always-on rule");
        }
    }
}
