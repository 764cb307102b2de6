//! How a line measures up to an `expect` matcher. Only the reply's kind and what the step
//! asks of it are judged here; legality, grammar and mating lines are the always-on checks'.

use super::execute::Run;
use crate::observer::illegal_in_sequence;
use crate::rules::RuleId;
use crate::scenario::{
    BestmoveCheck, CheckmateCheck, InfoCheck, Matcher, Pattern, PonderCheck, PvCheck,
};
use crate::usi::{BestMove, Checkmate, Message, MoveToken, ScoreValue, SpecialMove};
use std::time::Duration;

/// How a line measures up to an `expect` matcher.
pub(super) enum Eval {
    /// Not the line the step waits for.
    NoMatch,
    Pass,
    /// The awaited kind of line with wrong content; charged to `rule` when given.
    Wrong {
        actual: String,
        rule: Option<RuleId>,
    },
    Skip(String),
    /// A reply the always-on checks already charged (a `checkmate` line answering a normal
    /// `go`, USI-GO-002): the step's check is not reached.
    Charged(String),
    /// A move token that is no move at all where a legal move was expected (the line checks'
    /// USI-BESTMOVE-007).
    Malformed(String),
    /// An illegal move where a legal one was expected (the line checks' legality rules, or
    /// the misread position a step names).
    Illegal(String),
}

impl Run<'_> {
    pub(super) fn evaluate(&self, matcher: &Matcher, message: &Message, text: &str) -> Eval {
        let wrong = |actual: String, rule: Option<RuleId>| Eval::Wrong { actual, rule };
        match (matcher, message) {
            (Matcher::Usiok, Message::UsiOk) | (Matcher::Readyok, Message::ReadyOk) => Eval::Pass,
            (Matcher::Bestmove { bestmove, ponder }, Message::BestMove(best)) => {
                let position = self.engine.observer().board().searched();
                let legal = |mv| position.is_none_or(|p| p.is_legal(mv));
                let best_ok = match (bestmove, &best.best) {
                    (BestmoveCheck::Any, _) => true,
                    (BestmoveCheck::Legal, MoveToken::Move(mv)) if !legal(*mv) => {
                        return Eval::Illegal(format!("illegal `{text}`"));
                    }
                    (BestmoveCheck::Legal, MoveToken::Move(_)) => true,
                    // A token that is no move at all is the notation's mistake (the line
                    // checks' USI-BESTMOVE-007), where a move or `resign` was awaited (an
                    // engine that does not declare a win it has breaks that rule whatever it
                    // writes instead).
                    (BestmoveCheck::Legal | BestmoveCheck::Resign, MoveToken::Invalid(_)) => {
                        return Eval::Malformed(format!("a malformed move in `{text}`"));
                    }
                    (BestmoveCheck::Resign, MoveToken::Special(SpecialMove::Resign)) => true,
                    (BestmoveCheck::Win, MoveToken::Special(SpecialMove::Win)) => true,
                    _ => false,
                };
                if !best_ok {
                    // Moving where `resign` is the only reply is USI-BESTMOVE-003's violation.
                    let no_move = matches!(bestmove, BestmoveCheck::Resign)
                        && position.is_some_and(|p| !p.has_legal_moves());
                    return wrong(
                        format!("`{text}`"),
                        no_move.then_some(crate::observer::NO_LEGAL_MOVE_RULE),
                    );
                }
                let after = match (&best.best, position) {
                    (MoveToken::Move(mv), Some(p)) => Some(p.after(*mv)),
                    _ => None,
                };
                let ponder_legal = |mv| after.as_ref().is_none_or(|p| p.is_legal(mv));
                match (ponder, &best.ponder) {
                    (None, _) | (Some(PonderCheck::LegalIfPresent | PonderCheck::Absent), None) => {
                        Eval::Pass
                    }
                    (Some(PonderCheck::Legal | PonderCheck::LegalIfPresent), Some(token)) => {
                        match token {
                            MoveToken::Move(mv) if ponder_legal(*mv) => Eval::Pass,
                            MoveToken::Invalid(_) => {
                                Eval::Malformed(format!("a malformed ponder move in `{text}`"))
                            }
                            _ => Eval::Illegal(format!("illegal ponder move in `{text}`")),
                        }
                    }
                    (Some(PonderCheck::Legal), None) => {
                        wrong(format!("no ponder move: `{text}`"), None)
                    }
                    (Some(PonderCheck::Absent), Some(_)) => {
                        wrong(format!("a ponder move: `{text}`"), None)
                    }
                }
            }
            // `checkmate` for a normal `go` is the always-on USI-GO-002, charged there.
            (matcher, Message::Checkmate(_))
                if matcher.awaits_bestmove()
                    && !matches!(matcher, Matcher::Line(p) if p.is_match(text))
                    && self.wrong_kind_reply(message) =>
            {
                Eval::Charged(format!(
                    "`{text}`: a normal `go` answered with `checkmate` (USI-GO-002)"
                ))
            }
            // An engine that has answered a `go mate` with `checkmate` implements it: a
            // `bestmove` here breaks the step's own case (`stop` during `go mate`, say).
            (Matcher::Checkmate(_), Message::BestMove(_))
                if self.engine.observer().protocol().solves_mate() =>
            {
                wrong(format!("`{text}`"), None)
            }
            // Otherwise `bestmove` for `go mate` (the UCI meaning) is the always-on
            // USI-MATE-002: such an engine does not implement `go mate`, and the mate checks
            // are not reached.
            (Matcher::Checkmate(_), Message::BestMove(_)) => Eval::Skip(format!(
                "the engine answered `go mate` with `{text}` (USI-MATE-002): no `go mate`"
            )),
            (Matcher::Checkmate(check), Message::Checkmate(reply)) => {
                self.evaluate_checkmate(*check, reply, text)
            }
            (Matcher::Info(check), Message::Info(info)) => {
                if self.info_matches(check, info, text) {
                    Eval::Pass
                } else {
                    Eval::NoMatch
                }
            }
            (Matcher::Line(pattern), _) if pattern.is_match(text) => Eval::Pass,
            // A `bestmove` a pattern waits for that the always-on checks already charged: its
            // move malformed or illegal in the position searched (the grammar and legality
            // rules), or the line's only fault its spacing (the grammar rule).
            (Matcher::Line(pattern), Message::BestMove(best))
                if matcher.awaits_bestmove() && self.charged_bestmove(pattern, best, text) =>
            {
                Eval::Charged(format!("`{text}`, charged by the always-on checks"))
            }
            _ => Eval::NoMatch,
        }
    }

    /// Whether the always-on checks charged `best` (the line `text`, which `pattern` does not
    /// match) for a fault of its own: a malformed or illegal move, or blanks out of place in a
    /// line that `pattern` matches once they are not.
    fn charged_bestmove(&self, pattern: &Pattern, best: &BestMove, text: &str) -> bool {
        let canonical = best.to_string();
        let spaced = text.split_whitespace().collect::<Vec<_>>().join(" ");
        self.charged_move(best)
            || spaced == canonical && text != canonical && pattern.is_match(&canonical)
    }

    /// Whether the move of `best` is malformed or illegal in the position searched: the
    /// always-on grammar and legality checks charge it.
    pub(super) fn charged_move(&self, best: &BestMove) -> bool {
        let position = self.engine.observer().board().searched();
        match &best.best {
            MoveToken::Invalid(_) => true,
            MoveToken::Move(mv) => position.is_some_and(|p| !p.is_legal(*mv)),
            MoveToken::Special(_) => false,
        }
    }

    /// The kind of a `checkmate` reply; whether its line mates (or its `nomate` holds) is
    /// the always-on check's (`line_check`), judged on every `checkmate` line.
    pub(super) fn evaluate_checkmate(
        &self,
        check: CheckmateCheck,
        reply: &Checkmate,
        text: &str,
    ) -> Eval {
        let is_line = |moves: &[MoveToken]| moves.iter().all(|m| m.as_move().is_some());
        match (check, reply) {
            (CheckmateCheck::Any, _) => Eval::Pass,
            (CheckmateCheck::Notimplemented, Checkmate::NotImplemented) => Eval::Pass,
            (_, Checkmate::NotImplemented) => Eval::Skip(
                "the engine answered `checkmate notimplemented` (no mate solver)".to_owned(),
            ),
            (CheckmateCheck::Valid | CheckmateCheck::Mate, Checkmate::Mate(moves))
                if is_line(moves) =>
            {
                Eval::Pass
            }
            // A malformed line (`checkmate none`) is the grammar check's USI-MATE-010.
            (_, Checkmate::Mate(_)) => Eval::Malformed(format!("`{text}`")),
            (CheckmateCheck::Valid | CheckmateCheck::Nomate, Checkmate::NoMate) => Eval::Pass,
            // A `nomate` the mate solver refuted is the always-on USI-MATE-004's: what the
            // step checks of the mate it awaited is not reached.
            (CheckmateCheck::Mate, Checkmate::NoMate)
                if self
                    .engine
                    .observer()
                    .judge()
                    .violated(crate::observer::NOMATE_RULE) =>
            {
                Eval::Charged(format!("`{text}`, a `nomate` the mate solver refutes"))
            }
            (CheckmateCheck::Valid | CheckmateCheck::Timeout, Checkmate::Timeout) => Eval::Pass,
            _ => Eval::Wrong {
                actual: format!("`{text}`"),
                rule: None,
            },
        }
    }

    pub(super) fn info_matches(
        &self,
        check: &InfoCheck,
        info: &crate::usi::Info,
        text: &str,
    ) -> bool {
        let searching = info.pv.is_some()
            || info.depth.is_some()
            || info.score.is_some()
            || info.nodes.is_some()
            || info.multipv.is_some()
            || info.currmove.is_some()
            || info.time.is_some()
            || info.nps.is_some();
        let pv_ok = match (check.pv, &info.pv) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(PvCheck::Present), Some(_)) => true,
            (Some(PvCheck::Legal), Some(pv)) => self
                .engine
                .observer()
                .board()
                .searched()
                .is_none_or(|p| illegal_in_sequence(p, pv).is_none()),
        };
        let multipv_ok = check.multipv.is_none_or(|n| info.multipv == Some(n));
        let mate_ok = check
            .score_mate
            .is_none_or(|n| info.score.is_some_and(|s| s.value == ScoreValue::Mate(n)));
        let regex_ok = check.matches.as_ref().is_none_or(|p| p.is_match(text));
        searching && pv_ok && multipv_ok && mate_ok && regex_ok
    }
}

/// What a matcher waits for, in words.
pub(super) fn describe(matcher: &Matcher, within: Duration) -> String {
    format!("{} within {} ms", awaited(matcher), within.as_millis())
}

/// The line a step waits for, in words.
pub(super) fn awaited(matcher: &Matcher) -> String {
    match matcher {
        Matcher::Usiok => "`usiok`".to_owned(),
        Matcher::Readyok => "`readyok`".to_owned(),
        Matcher::Bestmove { bestmove, ponder } => {
            let best = match bestmove {
                BestmoveCheck::Any => "a `bestmove` line",
                BestmoveCheck::Legal => "a legal `bestmove`",
                BestmoveCheck::Resign => "`bestmove resign`",
                BestmoveCheck::Win => "`bestmove win`",
            };
            match ponder {
                Some(PonderCheck::Legal) => format!("{best} with a legal ponder move"),
                Some(PonderCheck::LegalIfPresent) => format!("{best} (ponder move legal if any)"),
                Some(PonderCheck::Absent) => format!("{best} without a ponder move"),
                None => best.to_owned(),
            }
        }
        Matcher::Checkmate(check) => match check {
            CheckmateCheck::Any => "a `checkmate` line".to_owned(),
            CheckmateCheck::Valid => {
                "a correct `checkmate` reply (verified line, `nomate` or `timeout`)".to_owned()
            }
            CheckmateCheck::Mate => "a verified mating line".to_owned(),
            CheckmateCheck::Nomate => "`checkmate nomate`".to_owned(),
            CheckmateCheck::Timeout => "`checkmate timeout`".to_owned(),
            CheckmateCheck::Notimplemented => "`checkmate notimplemented`".to_owned(),
        },
        Matcher::Info(_) => "a matching search `info` line".to_owned(),
        Matcher::Line(pattern) => format!("a line matching `{}`", pattern.as_str()),
    }
}
