//! Which rule a failed step is charged to: one pure function of the symptom and the step's
//! role (a check names its `rule`; a step without one is setup), so blame needs no routing
//! elsewhere. What the engine owes whatever the scenario (`usiok`, `readyok`, legal moves, a
//! reply within its clock) is the always-on observer's, never a step's.

use super::Death;
use crate::rules::RuleId;

/// What went wrong in a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symptom {
    /// The awaited line did not come: the engine `died` (or closed its output), or the
    /// deadline passed; `before_usiok` when the engine had not finished its handshake and
    /// either died or missed the default T-USIOK (the observer's USI-HANDSHAKE-004).
    /// `cause`: the rule the absence breaks whatever the step checks, when the session shows
    /// it: a death after a `position` the rules reject is USI-POSITION-011's, and a search
    /// reply that never came at all where the step times it is USI-GO-002's (a clock is for
    /// a reply that comes late).
    NoReply {
        died: bool,
        before_usiok: bool,
        cause: Option<RuleId>,
    },
    /// The engine died (or closed its output) after finishing its handshake, while a step
    /// waited: a check's own stimulus killed it unless an earlier cause outranks it; in setup
    /// the death is charged by what was sent ([`super::death`]), as the fuzzer and `play` do,
    /// when that is certain (else nothing is reached).
    Died(Death),
    /// The reply came, and the always-on checks already charged it (a `checkmate` line
    /// answering a normal `go`: USI-GO-002): the step's own check is not reached.
    AlreadyCharged,
    /// The awaited line came after the step's own limit, shorter than the reply's default
    /// timeout (a `usiok` past USI-HANDSHAKE-001's 2 s): the step's own rule.
    Late,
    /// A line the step forbids.
    Forbidden,
    /// A reply of the awaited kind with the wrong content; `content_rule` when the content
    /// itself breaks a rule of its own (moving where only `resign` is legal: USI-BESTMOVE-003).
    WrongReply { content_rule: Option<RuleId> },
    /// An illegal move where a legal one was awaited: the observer's legality rules
    /// (USI-BESTMOVE-002, USI-PONDER-001), unless the step names the rule for reading the
    /// position (`misread`, its `legality_rule`) and the engine's moves were legal so far.
    IllegalMove { misread: Option<RuleId> },
    /// A move token that is no move at all (the line checks' USI-BESTMOVE-007).
    MalformedMove,
    /// A line broke an expected silence.
    SilenceBroken,
    /// The engine did not exit, or exited with the wrong status.
    BadExit,
    /// A line could not be written to the engine, alive but not reading its input: whatever
    /// the step checks, [`super::unread`]'s.
    SendFailed,
}

/// The charge of a failed step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charge {
    /// A violation of this rule; `own_part` when it is the step's own rule (so the step's
    /// `part` applies).
    Rule { rule: RuleId, own_part: bool },
    /// Nothing is charged: what the step was needed for is not reached.
    NotReached,
}

/// The notation rules, the only ones a malformed token is a step's business for.
const NOTATION: [RuleId; 2] = [
    crate::rule!("USI-BESTMOVE-007"),
    crate::rule!("USI-POSITION-006"),
];

/// Decides the charge of `symptom` in a step whose own rule is `step_rule` (`None`: setup).
///
/// ```
/// use usicheck::blame::{Charge, Symptom, charge};
/// let rule = usicheck::rule!("USI-ROBUST-003");
/// let missing = Symptom::NoReply { died: false, before_usiok: false, cause: None };
/// assert_eq!(charge(missing, Some(rule)), Charge::Rule { rule, own_part: true });
/// assert_eq!(charge(missing, None), Charge::NotReached);
/// let handshake = usicheck::rule!("USI-HANDSHAKE-001");
/// assert_eq!(charge(Symptom::Late, Some(handshake)), Charge::Rule { rule: handshake, own_part: true });
/// ```
pub fn charge(symptom: Symptom, step_rule: Option<RuleId>) -> Charge {
    let own = |rule: Option<RuleId>| match rule {
        Some(rule) => Charge::Rule {
            rule,
            own_part: true,
        },
        None => Charge::NotReached,
    };
    match symptom {
        // An unfinished handshake is the observer's USI-HANDSHAKE-004; the step's own
        // check (say, `usiok` within 2 s) was not what failed.
        Symptom::NoReply {
            before_usiok: true, ..
        }
        | Symptom::AlreadyCharged => Charge::NotReached,
        Symptom::NoReply {
            cause: Some(rule), ..
        } => Charge::Rule {
            rule,
            own_part: Some(rule) == step_rule,
        },
        Symptom::Died(death)
            if (step_rule.is_none() && death.certain) || death.of_rejected_board =>
        {
            Charge::Rule {
                rule: death.rule,
                own_part: Some(death.rule) == step_rule,
            }
        }
        Symptom::WrongReply {
            content_rule: Some(rule),
        } if Some(rule) != step_rule => Charge::Rule {
            rule,
            own_part: false,
        },
        Symptom::MalformedMove => own(step_rule.filter(|r| NOTATION.contains(r))),
        Symptom::IllegalMove {
            misread: Some(rule),
        } => Charge::Rule {
            rule,
            own_part: Some(rule) == step_rule,
        },
        Symptom::IllegalMove { misread: None } => Charge::NotReached,
        Symptom::SendFailed => Charge::Rule {
            rule: super::unread(),
            own_part: Some(super::unread()) == step_rule,
        },
        Symptom::NoReply { .. }
        | Symptom::Died(_)
        | Symptom::Late
        | Symptom::Forbidden
        | Symptom::WrongReply { .. }
        | Symptom::SilenceBroken
        | Symptom::BadExit => own(step_rule),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_symptom_is_charged_by_the_table() {
        let check = Some(crate::rule!("USI-GAMEOVER-004"));
        let own = Charge::Rule {
            rule: crate::rule!("USI-GAMEOVER-004"),
            own_part: true,
        };
        let resign = crate::rule!("USI-BESTMOVE-003");
        let misread = crate::rule!("USI-POSITION-002");
        let notation = Some(crate::rule!("USI-POSITION-006"));
        let gameover_death = Death {
            rule: crate::rule!("USI-GAMEOVER-001"),
            certain: true,
            of_rejected_board: false,
        };
        let uncertain_death = Death {
            certain: false,
            ..gameover_death
        };
        let board_death = Death {
            rule: crate::rule!("USI-POSITION-011"),
            certain: true,
            of_rejected_board: true,
        };
        let rows: &[(&str, Symptom, Option<RuleId>, Charge)] = &[
            (
                "silence after the stimulus, check step",
                Symptom::NoReply {
                    died: false,
                    before_usiok: false,
                    cause: None,
                },
                check,
                own,
            ),
            (
                "death after the stimulus, check step",
                Symptom::Died(gameover_death),
                check,
                own,
            ),
            (
                "death in a setup step, charged by what was sent",
                Symptom::Died(gameover_death),
                None,
                Charge::Rule {
                    rule: crate::rule!("USI-GAMEOVER-001"),
                    own_part: false,
                },
            ),
            (
                "death in a setup step after several commands it may have died of",
                Symptom::Died(uncertain_death),
                None,
                Charge::NotReached,
            ),
            (
                "late or missing reply in a setup step (the clock is the observer's)",
                Symptom::NoReply {
                    died: false,
                    before_usiok: false,
                    cause: None,
                },
                None,
                Charge::NotReached,
            ),
            (
                "handshake death, whatever the step checks",
                Symptom::NoReply {
                    died: true,
                    before_usiok: true,
                    cause: None,
                },
                check,
                Charge::NotReached,
            ),
            (
                "a search reply that never came where the step times it",
                Symptom::NoReply {
                    died: false,
                    before_usiok: false,
                    cause: Some(crate::rule!("USI-GO-002")),
                },
                Some(crate::rule!("USI-GO-004")),
                Charge::Rule {
                    rule: crate::rule!("USI-GO-002"),
                    own_part: false,
                },
            ),
            (
                "a death after a rejected position, in a check of the next `go`",
                Symptom::Died(board_death),
                Some(crate::rule!("USI-GO-002")),
                Charge::Rule {
                    rule: crate::rule!("USI-POSITION-011"),
                    own_part: false,
                },
            ),
            (
                "a death after a rejected position, in a setup step",
                Symptom::Died(board_death),
                None,
                Charge::Rule {
                    rule: crate::rule!("USI-POSITION-011"),
                    own_part: false,
                },
            ),
            (
                "a death after a rejected position where the step checks surviving it",
                Symptom::Died(board_death),
                Some(crate::rule!("USI-POSITION-011")),
                Charge::Rule {
                    rule: crate::rule!("USI-POSITION-011"),
                    own_part: true,
                },
            ),
            (
                "a reply the always-on checks already charged (`checkmate` for a normal `go`)",
                Symptom::AlreadyCharged,
                check,
                Charge::NotReached,
            ),
            ("forbidden line, check step", Symptom::Forbidden, check, own),
            (
                "forbidden line, setup step",
                Symptom::Forbidden,
                None,
                Charge::NotReached,
            ),
            (
                "a move where only resign is legal",
                Symptom::WrongReply {
                    content_rule: Some(resign),
                },
                check,
                Charge::Rule {
                    rule: resign,
                    own_part: false,
                },
            ),
            (
                "misread position, charged to the step's legality_rule",
                Symptom::IllegalMove {
                    misread: Some(misread),
                },
                check,
                Charge::Rule {
                    rule: misread,
                    own_part: false,
                },
            ),
            (
                "misread position where the step checks reading it",
                Symptom::IllegalMove {
                    misread: Some(misread),
                },
                Some(misread),
                Charge::Rule {
                    rule: misread,
                    own_part: true,
                },
            ),
            (
                "illegal move in a setup step (the observer's legality)",
                Symptom::IllegalMove { misread: None },
                None,
                Charge::NotReached,
            ),
            (
                "illegal move in a check of something else, e.g. the clock (the observer's)",
                Symptom::IllegalMove { misread: None },
                check,
                Charge::NotReached,
            ),
            (
                "wrong reply kind, check step",
                Symptom::WrongReply { content_rule: None },
                check,
                own,
            ),
            (
                "malformed token where a declaration is checked",
                Symptom::MalformedMove,
                Some(crate::rule!("USI-BESTMOVE-004")),
                Charge::NotReached,
            ),
            (
                "malformed token where notation is checked",
                Symptom::MalformedMove,
                notation,
                Charge::Rule {
                    rule: crate::rule!("USI-POSITION-006"),
                    own_part: true,
                },
            ),
            (
                "silence broken, check step",
                Symptom::SilenceBroken,
                check,
                own,
            ),
            ("no exit, check step", Symptom::BadExit, check, own),
            (
                "a live engine not reading its input, setup",
                Symptom::SendFailed,
                None,
                Charge::Rule {
                    rule: crate::rule!("USI-GO-012"),
                    own_part: false,
                },
            ),
            (
                "a live engine not reading its input, another check",
                Symptom::SendFailed,
                check,
                Charge::Rule {
                    rule: crate::rule!("USI-GO-012"),
                    own_part: false,
                },
            ),
        ];
        for (case, symptom, step_rule, expected) in rows {
            assert_eq!(charge(*symptom, *step_rule), *expected, "{case}");
        }
    }
}
