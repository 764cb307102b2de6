//! The checks every engine line goes through, whatever step is running: the parser's grammar
//! diagnostics, encoding, and move legality in the position the engine was given, an illegal
//! move diagnosed as a misread position when a misread board explains it.

use super::judge::Judge;
use super::misread::{Diagnosis, MisreadBoards, Shown};
use crate::engine::Line;
use crate::rules::RuleId;
use crate::shogi::mate::{self, Limits, MateResult};
use crate::shogi::{Move, Position, declaration};
use crate::usi::{
    BestMove, Checkmate, Diagnostic, Info, Message, MoveToken, ScoreValue, SpecialMove,
};
use std::time::Duration;

/// The budget of one mate check (verifying a line, or looking for a mate that refutes
/// `nomate`): bounded in nodes and time so a hard position cannot slow a run down.
pub const MATE_CHECK_NODES: u64 = 2_000_000;
pub const MATE_CHECK_TIME: Duration = Duration::from_secs(1);

/// The rules the always-on checks judge on every session, whatever its steps: a scenario may
/// list them without a step naming them (it provides the traffic they judge).
pub const ALWAYS_ON_RULES: &[RuleId] = &[
    crate::rule!("USI-HANDSHAKE-002"),
    crate::rule!("USI-HANDSHAKE-003"),
    crate::rule!("USI-HANDSHAKE-004"),
    crate::rule!("USI-HANDSHAKE-008"),
    crate::rule!("USI-EXT-020"),
    crate::rule!("USI-OPTION-001"),
    crate::rule!("USI-OPTION-002"),
    crate::rule!("USI-OPTION-003"),
    crate::rule!("USI-OPTION-004"),
    crate::rule!("USI-OPTION-005"),
    crate::rule!("USI-OPTION-006"),
    crate::rule!("USI-OPTION-013"),
    crate::rule!("USI-READY-001"),
    crate::rule!("USI-READY-003"),
    crate::rule!("USI-POSITION-006"),
    crate::rule!("USI-GO-001"),
    crate::rule!("USI-GO-002"),
    crate::rule!("USI-GO-004"),
    crate::rule!("USI-GO-005"),
    crate::rule!("USI-GO-007"),
    crate::rule!("USI-GO-008"),
    crate::rule!("USI-GO-009"),
    crate::rule!("USI-GO-010"),
    crate::rule!("USI-PONDER-001"),
    crate::rule!("USI-PONDER-002"),
    crate::rule!("USI-PONDER-004"),
    crate::rule!("USI-PONDER-005"),
    crate::rule!("USI-STOP-001"),
    crate::rule!("USI-STOP-003"),
    crate::rule!("USI-GAMEOVER-004"),
    crate::rule!("USI-BESTMOVE-001"),
    crate::rule!("USI-BESTMOVE-002"),
    crate::rule!("USI-BESTMOVE-003"),
    crate::rule!("USI-BESTMOVE-004"),
    crate::rule!("USI-BESTMOVE-005"),
    crate::rule!("USI-BESTMOVE-007"),
    crate::rule!("USI-INFO-001"),
    crate::rule!("USI-PONDER-007"),
    crate::rule!("USI-POSITION-010"),
    crate::rule!("USI-INFO-002"),
    crate::rule!("USI-INFO-003"),
    crate::rule!("USI-INFO-004"),
    crate::rule!("USI-INFO-005"),
    crate::rule!("USI-INFO-006"),
    crate::rule!("USI-INFO-007"),
    crate::rule!("USI-INFO-008"),
    crate::rule!("USI-INFO-009"),
    crate::rule!("USI-INFO-010"),
    crate::rule!("USI-INFO-011"),
    crate::rule!("USI-INFO-012"),
    crate::rule!("USI-INFO-013"),
    crate::rule!("USI-MATE-002"),
    crate::rule!("USI-MATE-003"),
    crate::rule!("USI-MATE-004"),
    crate::rule!("USI-MATE-005"),
    crate::rule!("USI-MATE-010"),
    crate::rule!("USI-QUIT-001"),
    crate::rule!("USI-QUIT-002"),
    crate::rule!("USI-QUIT-004"),
    crate::rule!("USI-ROBUST-005"),
    crate::rule!("USI-ROBUST-006"),
    crate::rule!("USI-ROBUST-009"),
    crate::rule!("USI-ROBUST-010"),
    crate::rule!("USI-ENCODING-001"),
    crate::rule!("USI-ENCODING-002"),
    crate::rule!("USI-ENCODING-003"),
    crate::rule!("USI-RULES-001"),
    crate::rule!("USI-EXT-001"),
    crate::rule!("USI-EXT-007"),
    crate::rule!("USI-EXT-017"),
    crate::rule!("USI-EXT-018"),
];

/// Rules the parser judges on every line of a kind, passed when no diagnostic names them.
fn grammar_rules(message: &Message) -> &'static [RuleId] {
    match message {
        Message::UsiOk => &[crate::rule!("USI-HANDSHAKE-004")],
        Message::IdName(_) | Message::IdAuthor(_) => &[crate::rule!("USI-HANDSHAKE-002")],
        Message::Option(_) => &[
            crate::rule!("USI-OPTION-001"),
            crate::rule!("USI-OPTION-002"),
            crate::rule!("USI-OPTION-003"),
            crate::rule!("USI-OPTION-004"),
            crate::rule!("USI-OPTION-005"),
            crate::rule!("USI-OPTION-006"),
            crate::rule!("USI-OPTION-013"),
        ],
        Message::BestMove(_) => &[
            crate::rule!("USI-BESTMOVE-001"),
            crate::rule!("USI-BESTMOVE-005"),
            crate::rule!("USI-BESTMOVE-007"),
        ],
        Message::Checkmate(_) => &[crate::rule!("USI-MATE-010")],
        Message::Info(_) => &[
            crate::rule!("USI-INFO-002"),
            crate::rule!("USI-INFO-003"),
            crate::rule!("USI-INFO-004"),
            crate::rule!("USI-INFO-006"),
            crate::rule!("USI-INFO-007"),
            crate::rule!("USI-INFO-009"),
            crate::rule!("USI-INFO-012"),
        ],
        _ => &[],
    }
}

/// Whether `info` carries what `rule` is about: an `info` line passes only the rules it
/// shows holding (an `info string` says nothing about `time` going with `pv`).
fn info_shows(info: &Info, rule: RuleId) -> bool {
    let score = info.score.as_ref();
    match rule {
        r if r == crate::rule!("USI-INFO-002") => info.depth.is_some() || info.seldepth.is_some(),
        r if r == crate::rule!("USI-INFO-003") => info.pv.is_some(),
        r if r == crate::rule!("USI-INFO-004") => {
            info.nodes.is_some() || info.nps.is_some() || info.hashfull.is_some()
        }
        r if r == crate::rule!("USI-INFO-006") => {
            score.is_some_and(|s| matches!(s.value, ScoreValue::Cp(_)))
        }
        r if r == crate::rule!("USI-INFO-007") => {
            score.is_some_and(|s| matches!(s.value, ScoreValue::Mate(_)))
        }
        r if r == crate::rule!("USI-INFO-009") => score.is_some_and(|s| s.bound.is_some()),
        r if r == crate::rule!("USI-INFO-012") => info.string.is_some(),
        _ => true,
    }
}

/// The text of a line as a lenient GUI reads it: without a leading byte-order mark.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Judges everything that can be judged from one parsed stdout line (`message` with the
/// parser's `diagnostics`) and `position`, the position of the search it belongs to; `pv`
/// legality only while that search runs. An illegal move is charged as [`Charges`] decides:
/// to the legality rules (always-on), unless a board the engine may have misread explains it.
pub fn check_line(
    line: &Line,
    message: &Message,
    diagnostics: &[Diagnostic],
    position: Option<&Position>,
    searching: bool,
    charges: &mut Charges,
) {
    let judge = &mut *charges.observed;
    let mut diagnostics = diagnostics.to_vec();
    if line.invalid_utf8 {
        let reason = "line is not valid UTF-8 (Shift_JIS?)";
        judge.violation(crate::rule!("USI-ENCODING-002"), None, reason);
        judge.violation(crate::rule!("USI-EXT-001"), None, reason);
    } else {
        judge.pass(crate::rule!("USI-ENCODING-002"), None);
    }
    hygiene(message, without_bom(&line.text), &mut diagnostics);
    let flagged = |rule: RuleId| diagnostics.iter().any(|d| d.rule == rule);
    let shown = |rule: RuleId| match message {
        Message::Info(info) => info_shows(info, rule),
        _ => true,
    };
    for rule in grammar_rules(message).iter().filter(|r| shown(**r)).chain(
        [
            crate::rule!("USI-ROBUST-005"),
            crate::rule!("USI-ENCODING-001"),
            crate::rule!("USI-ENCODING-003"),
        ]
        .iter(),
    ) {
        if !flagged(*rule) {
            judge.pass(*rule, None);
        }
    }
    // USI-ROBUST-005 is DE-FACTO, noted FAIL only for `usiok` and `readyok`.
    let noted_line = matches!(message, Message::UsiOk | Message::ReadyOk);
    for diagnostic in &diagnostics {
        let reason = format!("{}: `{}`", diagnostic.message, line.quoted());
        if diagnostic.rule == crate::usi::rule::ROBUST_005 && !noted_line {
            judge.violation_outside_note(diagnostic.rule, None, reason);
        } else {
            judge.violation(diagnostic.rule, None, reason);
        }
    }
    if let Message::Info(info) = message {
        note_unknown_mate_distance(info, &line.quoted(), judge);
    }
    if let Some(position) = position {
        match message {
            Message::BestMove(best) => check_bestmove(best, position, &line.quoted(), charges),
            Message::Checkmate(reply) => check_checkmate(reply, position, &line.quoted(), charges),
            Message::Info(info) if searching => {
                check_info_moves(info, position, &line.quoted(), charges)
            }
            _ => {}
        }
    }
}

/// `score mate +` / `score mate -`, a mate of unknown length (USI-INFO-008): allowed, so only
/// noted (INFO, a MAY rule); a mate score with its length passes.
fn note_unknown_mate_distance(info: &Info, quoted_line: &str, judge: &mut Judge) {
    let rule = crate::rule!("USI-INFO-008");
    match info.score.map(|score| score.value) {
        Some(ScoreValue::EngineMates | ScoreValue::EngineMated) => judge.violation(
            rule,
            None,
            format!("a mate of unknown length (allowed, noted): `{quoted_line}`"),
        ),
        Some(ScoreValue::Mate(_)) => judge.pass(rule, None),
        Some(ScoreValue::Cp(_)) | None => {}
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
        Message::UsiOk | Message::ReadyOk => crate::rule!("USI-ROBUST-005"),
        Message::BestMove(_) => crate::rule!("USI-BESTMOVE-001"),
        _ => return,
    };
    if !diagnostics.iter().any(|d| d.rule == rule) {
        diagnostics.push(Diagnostic {
            rule,
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

/// Where the checks of one line record their verdicts: the always-on observer's judge, and,
/// while the running step says the position may have been misread, the rule (and strength
/// part) a misread position is charged to instead, in the scenario's own judge; with the
/// boards the engine may have misread and the misreadings this session already showed.
pub struct Charges<'a> {
    pub observed: &'a mut Judge,
    pub misread: Option<(RuleId, Option<&'a str>, &'a mut Judge)>,
    /// The boards the engine may have read instead of the one it was given.
    pub boards: MisreadBoards<'a>,
    /// The misreadings already charged to a position rule this session.
    pub shown: &'a mut Shown,
}

impl Charges<'_> {
    /// Records an illegal move, explained by `diagnosis` when it is legal on a misread board:
    ///
    /// - without a diagnosis, against `rule` (and `part`), the legality rule, even while a
    ///   step names the rule for reading the position: a move-generation bug is not a misread
    ///   position;
    /// - with one, against the observer's rule for the misreading (see
    ///   [`super::Diagnosis::named_rule`]), or the step's rule for reading the position when
    ///   the misreading has none (a stale position) or a rival reading fits too; once per
    ///   session;
    /// - a stale position without a step's rule stays with `rule`, the reason saying so: the
    ///   observer cannot tell which form of `position` the engine rejected.
    ///
    /// Returns whether the move was charged to the legality rules.
    fn illegal(
        &mut self,
        rule: RuleId,
        part: Option<&str>,
        reason: String,
        diagnosis: Option<&Diagnosis>,
    ) -> bool {
        let Some(diagnosis) = diagnosis else {
            self.observed.violation(rule, part, reason);
            return true;
        };
        let named = diagnosis.named_rule();
        if let Some((misread, misread_part, scenario)) = &mut self.misread
            && named.is_none_or(|own| own == *misread)
        {
            if self.shown.first(diagnosis.misreading) {
                scenario.violation(*misread, *misread_part, reason);
            }
            return false;
        }
        match diagnosis.rule() {
            Some(own) => {
                if self.shown.first(diagnosis.misreading) {
                    self.observed.violation(own, None, reason);
                }
                false
            }
            None => {
                self.observed.violation(rule, part, reason);
                true
            }
        }
    }
}

/// The reason of an illegal reply: `what` is illegal `here`, and where it is legal when a
/// diagnosis explains it; the line quoted last.
fn illegal_reason(what: &str, here: &str, diagnosis: Option<&Diagnosis>, text: &str) -> String {
    match diagnosis {
        Some(d) => format!(
            "{what} is illegal {here} but legal {}: `{text}`",
            d.explained()
        ),
        None => format!("{what} is illegal {here}: `{text}`"),
    }
}

/// The always-on check of a move where no move is legal (`resign` is the only reply).
pub const NO_LEGAL_MOVE_RULE: RuleId = crate::rule!("USI-BESTMOVE-003");

/// The always-on check of a `checkmate nomate` against the mate solver.
pub const NOMATE_RULE: RuleId = crate::rule!("USI-MATE-004");

/// The rules an illegal move breaks, unless a misread board explains it (see [`Charges`]).
pub const LEGALITY_RULES: [RuleId; 5] = [
    crate::rule!("USI-BESTMOVE-002"),
    crate::rule!("USI-BESTMOVE-007"),
    crate::rule!("USI-PONDER-001"),
    crate::rule!("USI-INFO-011"),
    crate::rule!("USI-INFO-005"),
];

fn check_bestmove(best: &BestMove, position: &Position, text: &str, charges: &mut Charges) {
    match &best.best {
        MoveToken::Move(mv) => {
            if !position.has_legal_moves() {
                // Every move is illegal here: the rule broken is the one for this case.
                charges.observed.violation(
                    NO_LEGAL_MOVE_RULE,
                    None,
                    format!("a move instead of `resign` with no legal move: `{text}`"),
                );
            } else if position.is_legal(*mv) {
                charges
                    .observed
                    .pass(crate::rule!("USI-BESTMOVE-002"), None);
                check_ponder(best, *mv, &position.after(*mv), text, charges);
            } else {
                let diagnosis = charges.boards.of_move(*mv);
                let here = format!("in {}", position.to_sfen());
                let reason = illegal_reason(&format!("`{mv}`"), &here, diagnosis.as_ref(), text);
                let legality = charges.illegal(
                    crate::rule!("USI-BESTMOVE-002"),
                    None,
                    reason.clone(),
                    diagnosis.as_ref(),
                );
                if legality && !is_pseudo_move(position, *mv) {
                    charges
                        .observed
                        .violation(crate::rule!("USI-BESTMOVE-007"), None, reason);
                }
            }
        }
        MoveToken::Special(SpecialMove::Win) => {
            // An invalid declaration breaks both the reply rule and the 27-point rule it
            // is judged by.
            for rule in [
                crate::rule!("USI-BESTMOVE-004"),
                crate::rule!("USI-RULES-001"),
            ] {
                if declaration(position).is_valid() {
                    charges.observed.pass(rule, None);
                } else {
                    charges.observed.violation(
                        rule,
                        None,
                        // The whole line quoted: a scenario's own check of it takes it over.
                        format!(
                            "`{text}`: a declaration, but it is invalid in {}",
                            position.to_sfen()
                        ),
                    );
                }
            }
        }
        MoveToken::Invalid(token) if token == "pass" => charges.observed.violation(
            crate::rule!("USI-EXT-018"),
            None,
            format!("`bestmove pass` (a vendor null move): `{text}`"),
        ),
        _ => {}
    }
    if !matches!(&best.best, MoveToken::Invalid(token) if token == "pass") {
        charges.observed.pass(crate::rule!("USI-EXT-018"), None);
    }
    // Where a declaration is in reach (the king in the enemy camp) and none was made, the
    // 27-point rule held.
    if !matches!(best.best, MoveToken::Special(SpecialMove::Win))
        && declaration(position).king_in_camp
    {
        charges.observed.pass(crate::rule!("USI-RULES-001"), None);
    }
}

/// Judges the ponder move of `best` (whose move `mv` is legal) in `after`, the position after
/// `mv`.
fn check_ponder(best: &BestMove, mv: Move, after: &Position, text: &str, charges: &mut Charges) {
    let Some(MoveToken::Move(ponder)) = &best.ponder else {
        return;
    };
    if after.is_legal(*ponder) {
        charges.observed.pass(crate::rule!("USI-PONDER-001"), None);
    } else {
        let diagnosis = charges.boards.of_ponder(mv, *ponder);
        let what = format!("ponder move `{ponder}`");
        let reason = illegal_reason(&what, "after the best move", diagnosis.as_ref(), text);
        charges.illegal(
            crate::rule!("USI-PONDER-001"),
            None,
            reason,
            diagnosis.as_ref(),
        );
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

fn check_info_moves(info: &Info, position: &Position, text: &str, charges: &mut Charges) {
    if let Some(pv) = &info.pv {
        match illegal_in_sequence(position, pv) {
            None => charges
                .observed
                .pass(crate::rule!("USI-INFO-011"), Some("legal")),
            Some(what) => {
                let diagnosis = charges.boards.of_sequence(position, pv);
                let reason = match &diagnosis {
                    Some(d) => format!("{what} but the pv is legal {}: `{text}`", d.explained()),
                    None => format!("{what}: `{text}`"),
                };
                charges.illegal(
                    crate::rule!("USI-INFO-011"),
                    Some("legal"),
                    reason,
                    diagnosis.as_ref(),
                );
            }
        }
    }
    if let Some(MoveToken::Move(mv)) = &info.currmove {
        if position.is_legal(*mv) {
            charges.observed.pass(crate::rule!("USI-INFO-005"), None);
        } else {
            let diagnosis = charges.boards.of_move(*mv);
            let what = format!("`currmove {mv}`");
            let reason = illegal_reason(&what, "at the root", diagnosis.as_ref(), text);
            charges.illegal(
                crate::rule!("USI-INFO-005"),
                None,
                reason,
                diagnosis.as_ref(),
            );
        }
    }
}

/// Verifies a `checkmate` reply: a mating line must mate (USI-MATE-003); `nomate` is refuted
/// only by a mate the solver finds within the budget (USI-MATE-004), and stands, noted, when
/// it cannot decide. A malformed line is the grammar check's.
fn check_checkmate(reply: &Checkmate, position: &Position, text: &str, charges: &mut Charges) {
    let limits = Limits::new()
        .with_nodes(MATE_CHECK_NODES)
        .with_time(MATE_CHECK_TIME);
    match reply {
        Checkmate::Mate(moves) => {
            // An empty or malformed line is the grammar check's (USI-MATE-010).
            let Some(line) = moves
                .iter()
                .map(MoveToken::as_move)
                .collect::<Option<Vec<_>>>()
                .filter(|line| !line.is_empty())
            else {
                return;
            };
            match mate::verify(position, &line, &limits) {
                Ok(()) => charges.observed.pass(crate::rule!("USI-MATE-003"), None),
                Err(why) => {
                    let diagnosis = charges.boards.of_mate(&line, &why, &limits);
                    let reason = match &diagnosis {
                        Some(d) => format!("{why}, but the line mates {}: `{text}`", d.explained()),
                        None => format!("{why}: `{text}`"),
                    };
                    charges.illegal(
                        crate::rule!("USI-MATE-003"),
                        None,
                        reason,
                        diagnosis.as_ref(),
                    );
                }
            }
        }
        Checkmate::NoMate => match mate::solve(position, &limits) {
            // A `nomate` says nothing of which position it answers (most have no mate): a
            // refuted one is USI-MATE-004's, misread board or not.
            MateResult::Mate(line) => {
                let line: Vec<String> = line.iter().map(ToString::to_string).collect();
                charges.observed.violation(
                    NOMATE_RULE,
                    None,
                    format!("`{text}`, but `{}` mates", line.join(" ")),
                );
            }
            MateResult::Unknown => charges.observed.pass_noted(
                NOMATE_RULE,
                None,
                format!(
                    "`{text}` accepted: the mate solver could not decide within {} nodes and {} ms",
                    MATE_CHECK_NODES,
                    MATE_CHECK_TIME.as_millis()
                ),
            ),
            MateResult::NoMate => charges.observed.pass(NOMATE_RULE, None),
        },
        Checkmate::Timeout | Checkmate::NotImplemented => {}
    }
}
