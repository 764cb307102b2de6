//! The checks every engine line goes through, whatever step is running: the parser's grammar
//! diagnostics, encoding, and move legality in the position the engine was given.

use super::judge::Judge;
use crate::engine::Line;
use crate::rules::RuleId;
use crate::shogi::{Move, Position, declaration};
use crate::usi::{BestMove, Diagnostic, Info, Message, MoveToken, SpecialMove};

fn id(text: &str) -> RuleId {
    text.parse()
        .expect("rule IDs used by the runner are in the catalogue")
}

/// Rules the parser judges on every line of a kind, passed when no diagnostic names them.
fn grammar_rules(message: &Message) -> &'static [&'static str] {
    match message {
        Message::UsiOk => &["USI-HANDSHAKE-004"],
        Message::IdName(_) | Message::IdAuthor(_) => &["USI-HANDSHAKE-002"],
        Message::Option(_) => &[
            "USI-OPTION-001",
            "USI-OPTION-002",
            "USI-OPTION-003",
            "USI-OPTION-004",
            "USI-OPTION-005",
            "USI-OPTION-006",
            "USI-OPTION-013",
        ],
        Message::BestMove(_) => &["USI-BESTMOVE-001", "USI-BESTMOVE-005", "USI-BESTMOVE-007"],
        Message::Checkmate(_) => &["USI-MATE-010"],
        Message::Info(_) => &[
            "USI-INFO-002",
            "USI-INFO-003",
            "USI-INFO-004",
            "USI-INFO-006",
            "USI-INFO-007",
            "USI-INFO-009",
            "USI-INFO-012",
        ],
        _ => &[],
    }
}

/// The text of a line as a lenient GUI reads it: without a leading byte-order mark.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Judges everything that can be judged from one parsed stdout line (`message` with the
/// parser's `diagnostics`) and `position`, the position of the search it belongs to; `pv`
/// legality only while that search runs. An illegal move is charged to `misread` when given
/// (the running step names the rule for reading the position), else to the legality rules.
pub fn check_line(
    line: &Line,
    message: &Message,
    diagnostics: &[Diagnostic],
    position: Option<&Position>,
    searching: bool,
    misread: Misread,
    judge: &mut Judge,
) {
    let mut diagnostics = diagnostics.to_vec();
    if line.invalid_utf8 {
        let reason = "line is not valid UTF-8 (Shift_JIS?)";
        judge.violation(id("USI-ENCODING-002"), None, reason);
        judge.violation(id("USI-EXT-001"), None, reason);
    }
    hygiene(message, without_bom(&line.text), &mut diagnostics);
    let flagged = |rule: &str| diagnostics.iter().any(|d| d.rule == rule);
    for rule in grammar_rules(message)
        .iter()
        .chain(["USI-ROBUST-005", "USI-ENCODING-001", "USI-ENCODING-003"].iter())
    {
        if !flagged(rule) {
            judge.pass(id(rule), None);
        }
    }
    // USI-ROBUST-005 is DE-FACTO, noted FAIL only for `usiok` and `readyok`.
    let noted_line = matches!(message, Message::UsiOk | Message::ReadyOk);
    for diagnostic in &diagnostics {
        let reason = format!("{}: `{}`", diagnostic.message, line.text);
        if diagnostic.rule == crate::usi::rule::ROBUST_005 && !noted_line {
            judge.violation_outside_note(id(diagnostic.rule), None, reason);
        } else {
            judge.violation(id(diagnostic.rule), None, reason);
        }
    }
    if let Some(position) = position {
        match message {
            Message::BestMove(best) => check_bestmove(best, position, &line.text, misread, judge),
            Message::Info(info) if searching => {
                check_info_moves(info, position, &line.text, misread, judge)
            }
            _ => {}
        }
    }
}

/// Spacing the parser leaves to the checker: `usiok`/`readyok` with blanks around them are
/// also untidy lines (USI-ROBUST-005), and a `bestmove` with irregular spacing breaks its
/// exact grammar (USI-BESTMOVE-001).
fn hygiene(message: &Message, text: &str, diagnostics: &mut Vec<Diagnostic>) {
    let tidy = text
        .split(' ')
        .all(|token| !token.is_empty() && !token.contains(['\t', '\r']));
    if tidy {
        return;
    }
    let rule = match message {
        Message::UsiOk | Message::ReadyOk => "USI-ROBUST-005",
        Message::BestMove(_) => "USI-BESTMOVE-001",
        _ => return,
    };
    if !diagnostics.iter().any(|d| d.rule == rule) {
        diagnostics.push(Diagnostic {
            rule: if rule == "USI-ROBUST-005" {
                crate::usi::rule::ROBUST_005
            } else {
                crate::usi::rule::BESTMOVE_001
            },
            message: "tokens not separated by single spaces".to_owned(),
        });
    }
}

/// Whether `mv` at least moves a piece of the side to move (or drops one it holds) onto a
/// square not held by its own pieces: the difference between a wrong token (USI-BESTMOVE-007)
/// and a move that breaks a finer rule (USI-BESTMOVE-002 only).
fn is_pseudo_move(position: &Position, mv: Move) -> bool {
    let us = position.side_to_move();
    let own_target = position.piece_at(mv.to()).is_some_and(|p| p.color == us);
    let source_ok = match mv {
        Move::Normal { from, .. } => position.piece_at(from).is_some_and(|p| p.color == us),
        Move::Drop { kind, to } => {
            position.hand(us).count(kind) > 0 && position.piece_at(to).is_none()
        }
    };
    source_ok && !own_target
}

/// The rule (and strength part) an illegal move is charged to instead of the legality rules,
/// when the running step says the position may have been misread.
pub type Misread<'a> = Option<(RuleId, Option<&'a str>)>;

/// The rules an illegal move breaks, unless a step charges it to a misread position.
pub const LEGALITY_RULES: [&str; 5] = [
    "USI-BESTMOVE-002",
    "USI-BESTMOVE-007",
    "USI-PONDER-001",
    "USI-INFO-011",
    "USI-INFO-005",
];

/// Records an illegal move: against `misread` when given, else against `rule` (and `part`).
fn illegal(judge: &mut Judge, misread: Misread, rule: &str, part: Option<&str>, reason: String) {
    match misread {
        Some((misread, misread_part)) => judge.violation(misread, misread_part, reason),
        None => judge.violation(id(rule), part, reason),
    }
}

fn check_bestmove(
    best: &BestMove,
    position: &Position,
    text: &str,
    misread: Misread,
    judge: &mut Judge,
) {
    match &best.best {
        MoveToken::Move(mv) => {
            let mated = !position.has_legal_moves();
            if mated {
                judge.violation(
                    id("USI-BESTMOVE-003"),
                    None,
                    format!("a move instead of `resign` with no legal move: `{text}`"),
                );
            }
            if position.is_legal(*mv) {
                judge.pass(id("USI-BESTMOVE-002"), None);
                check_ponder(best, &position.after(*mv), text, misread, judge);
            } else {
                let reason = format!("`{mv}` is illegal in {}: `{text}`", position.to_sfen());
                illegal(judge, misread, "USI-BESTMOVE-002", None, reason.clone());
                if !is_pseudo_move(position, *mv) {
                    illegal(judge, misread, "USI-BESTMOVE-007", None, reason);
                }
            }
        }
        MoveToken::Special(SpecialMove::Win) => {
            // An invalid declaration breaks both the reply rule and the 27-point rule it
            // is judged by.
            for rule in [id("USI-BESTMOVE-004"), id("USI-RULES-001")] {
                if declaration(position).is_valid() {
                    judge.pass(rule, None);
                } else {
                    judge.violation(
                        rule,
                        None,
                        format!(
                            "`bestmove win` but the declaration is invalid in {}",
                            position.to_sfen()
                        ),
                    );
                }
            }
        }
        MoveToken::Invalid(token) if token == "pass" => judge.violation(
            id("USI-EXT-018"),
            None,
            format!("`bestmove pass` (a vendor null move): `{text}`"),
        ),
        _ => {}
    }
}

fn check_ponder(
    best: &BestMove,
    after: &Position,
    text: &str,
    misread: Misread,
    judge: &mut Judge,
) {
    let Some(MoveToken::Move(ponder)) = &best.ponder else {
        return;
    };
    if after.is_legal(*ponder) {
        judge.pass(id("USI-PONDER-001"), None);
    } else {
        let reason = format!("ponder move `{ponder}` is illegal after the best move: `{text}`");
        illegal(judge, misread, "USI-PONDER-001", None, reason);
    }
}

/// Whether `moves` is a legal sequence from `position` up to its first special token.
pub fn illegal_in_sequence(position: &Position, moves: &[MoveToken]) -> Option<String> {
    let mut pos = position.clone();
    for (index, token) in moves.iter().enumerate() {
        let MoveToken::Move(mv) = token else {
            return None;
        };
        if !pos.is_legal(*mv) {
            return Some(format!("pv move {} `{mv}` is illegal", index + 1));
        }
        pos.play_unchecked(*mv);
    }
    None
}

fn check_info_moves(
    info: &Info,
    position: &Position,
    text: &str,
    misread: Misread,
    judge: &mut Judge,
) {
    if let Some(pv) = &info.pv {
        match illegal_in_sequence(position, pv) {
            None => judge.pass(id("USI-INFO-011"), Some("legal")),
            Some(reason) => illegal(
                judge,
                misread,
                "USI-INFO-011",
                Some("legal"),
                format!("{reason}: `{text}`"),
            ),
        }
    }
    if let Some(MoveToken::Move(mv)) = &info.currmove {
        if position.is_legal(*mv) {
            judge.pass(id("USI-INFO-005"), None);
        } else {
            let reason = format!("`currmove {mv}` is illegal: `{text}`");
            illegal(judge, misread, "USI-INFO-005", None, reason);
        }
    }
}
