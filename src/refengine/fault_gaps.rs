//! Where the bundled suite and a fault's own rule list disagree, and why.
//!
//! Each fault of the catalogue names the rules it breaks. The fault table
//! (tests/fault_table.rs) runs the whole bundled suite against each fault: a named rule that
//! the suite does not flag is `missed`, and a flagged rule outside the list is `extra`. A
//! fault not listed here fails exactly its named rules. `usicheck rules` counts a rule as
//! proven by a fault only when the fault names it and does not miss it.

use super::faults::Fault;

/// A fault whose verdicts differ from its rule list.
#[derive(Debug)]
pub struct FaultGap {
    pub fault: &'static str,
    /// Rules the fault names that the suite does not flag.
    pub missed: &'static [&'static str],
    /// Rules the suite flags beyond the fault's list.
    pub extra: &'static [&'static str],
    /// Why the suite differs from the fault's list.
    pub why: &'static str,
}

/// The rules the bundled suite is known to flag for `fault`: its named rules minus the
/// missed ones.
///
/// ```
/// use usicheck::refengine::faults::Fault;
/// use usicheck::refengine::fault_gaps::proven_rules;
/// assert_eq!(proven_rules(Fault::NoIdName), ["USI-HANDSHAKE-002"]);
/// ```
pub fn proven_rules(fault: Fault) -> Vec<&'static str> {
    let missed = FAULT_GAPS
        .iter()
        .find(|gap| gap.fault == fault.name())
        .map_or(&[][..], |gap| gap.missed);
    fault
        .rules()
        .iter()
        .copied()
        .filter(|rule| !missed.contains(rule))
        .collect()
}

pub const FAULT_GAPS: &[FaultGap] = &[
    FaultGap {
        fault: "slow-usiok",
        missed: &["USI-READY-003"],
        extra: &[],
        why: "USI-READY-003 (heavy initialisation at `isready`) has no scenario that tells slow `usi` from slow `isready` yet",
    },
    FaultGap {
        fault: "quit-needs-isready",
        missed: &[],
        extra: &["USI-HANDSHAKE-007"],
        why: "the button probe also quits without `isready` (USI-HANDSHAKE-007), like the info-only probe",
    },
    FaultGap {
        fault: "silent-slow-init",
        missed: &["USI-EXT-003"],
        extra: &[],
        why: "no bundled scenario observes USI-EXT-003 (the 30 s `isready` budget with keep-alive) apart from USI-READY-004",
    },
    FaultGap {
        fault: "mirrored-sfen",
        missed: &[],
        extra: &["USI-POSITION-005"],
        why: "the handicap start of the side-to-move scenario is not mirror-symmetric, so the misread board also shows there (USI-POSITION-005)",
    },
    FaultGap {
        fault: "ignore-side-to-move",
        missed: &[],
        extra: &["USI-POSITION-004"],
        why: "the hands scenario has a White-to-move step, where the wrong side to move shows too (USI-POSITION-004)",
    },
    FaultGap {
        fault: "at-sign-drops",
        missed: &[],
        extra: &["USI-PONDER-001"],
        why: "every drop the engine writes is malformed, so the scenarios whose replies contain drops fail on them (ponder moves, declaration positions)",
    },
    FaultGap {
        fault: "lowercase-drops",
        missed: &[],
        extra: &["USI-PONDER-001"],
        why: "the drop in a ponder move is malformed too (USI-PONDER-001)",
    },
    FaultGap {
        fault: "skip-non-promotions",
        missed: &[],
        extra: &["USI-ROBUST-008"],
        why: "the 400-ply game of USI-ROBUST-008 contains non-promotions",
    },
    FaultGap {
        fault: "assume-continuity",
        missed: &[],
        extra: &["USI-BESTMOVE-002", "USI-BESTMOVE-007", "USI-INFO-011"],
        why: "scenarios outside §4 also send positions that share their base with the previous one, so the stale board shows there as illegal moves (charged to the legality rules: their steps have no `legality_rule`)",
    },
    FaultGap {
        fault: "ignore-history",
        missed: &["USI-POSITION-009"],
        extra: &[],
        why: "no scenario detects it: with its material-only evaluation the reference engine picks the same move with or without the history in every repetition position tried",
    },
    FaultGap {
        fault: "unprompted-bestmove",
        missed: &[],
        extra: &[
            "USI-BESTMOVE-004",
            "USI-BESTMOVE-006",
            "USI-BESTMOVE-007",
            "USI-ENCODING-001",
            "USI-ENCODING-002",
            "USI-ENCODING-003",
            "USI-EXT-001",
            "USI-EXT-009",
            "USI-EXT-010",
            "USI-EXT-013",
            "USI-EXT-018",
            "USI-GAMEOVER-001",
            "USI-GAMEOVER-002",
            "USI-GAMEOVER-003",
            "USI-GAMEOVER-004",
            "USI-GAMEOVER-006",
            "USI-GO-002",
            "USI-GO-003",
            "USI-GO-004",
            "USI-GO-005",
            "USI-GO-006",
            "USI-GO-007",
            "USI-GO-008",
            "USI-GO-009",
            "USI-GO-010",
            "USI-GO-011",
            "USI-INFO-001",
            "USI-INFO-011",
            "USI-MATE-002",
            "USI-MATE-006",
            "USI-MATE-008",
            "USI-OPTION-010",
            "USI-OPTION-012",
            "USI-PONDER-001",
            "USI-PONDER-002",
            "USI-PONDER-006",
            "USI-PONDER-007",
            "USI-PONDER-008",
            "USI-POSITION-001",
            "USI-POSITION-002",
            "USI-POSITION-003",
            "USI-POSITION-004",
            "USI-POSITION-005",
            "USI-POSITION-006",
            "USI-POSITION-007",
            "USI-POSITION-008",
            "USI-POSITION-010",
            "USI-QUIT-004",
            "USI-READY-002",
            "USI-READY-005",
            "USI-READY-007",
            "USI-ROBUST-001",
            "USI-ROBUST-002",
            "USI-ROBUST-003",
            "USI-ROBUST-004",
            "USI-ROBUST-008",
            "USI-ROBUST-009",
            "USI-ROBUST-011",
            "USI-STOP-002",
            "USI-STOP-003",
            "USI-STOP-004",
            "USI-STOP-005",
        ],
        why: "the `bestmove` sent on `usinewgame` arrives after the next `go` was sent and is taken as its reply, so every game after it is out of step",
    },
    FaultGap {
        fault: "double-bestmove",
        missed: &[],
        extra: &["USI-GO-001", "USI-STOP-003"],
        why: "the second `bestmove` arrives with no search outstanding: besides USI-GO-002 it is also USI-GO-001, and after a `stop` USI-STOP-003",
    },
    FaultGap {
        fault: "occasional-double-bestmove",
        missed: &[],
        extra: &["USI-GO-001", "USI-STOP-003"],
        why: "the second `bestmove` arrives with no search outstanding: besides USI-GO-002 it is also USI-GO-001, and after a `stop` USI-STOP-003",
    },
    FaultGap {
        fault: "ignore-byoyomi",
        missed: &["USI-GO-004"],
        extra: &[],
        why: "a quality fault: moving at once breaks no time limit, and no scenario requires an engine to use its byoyomi",
    },
    FaultGap {
        fault: "mated-infinite-resigns",
        missed: &[],
        extra: &["USI-PONDER-002", "USI-PONDER-006"],
        why: "the ponder scenarios on a mated position also see the early `resign` (USI-PONDER-002, and USI-PONDER-006 for the missing reply to `stop`)",
    },
    FaultGap {
        fault: "deaf-while-searching",
        missed: &[],
        extra: &["USI-GO-002", "USI-QUIT-002"],
        why: "an engine that does not read during a search also misses `quit` (USI-QUIT-002) and leaves the searches it was told to stop unanswered (USI-GO-002)",
    },
    FaultGap {
        fault: "early-ponder-bestmove",
        missed: &[],
        extra: &["USI-PONDER-006"],
        why: "the early `bestmove` during `go ponder` also leaves the ponder-miss `stop` without its own reply (USI-PONDER-006)",
    },
    FaultGap {
        fault: "ponder-clock-ignored",
        missed: &["USI-PONDER-003"],
        extra: &[],
        why: "no scenario yet tells whether the clock of `go ponder` is used after `ponderhit` (the reference engine's searches end within every deadline either way)",
    },
    FaultGap {
        fault: "ponderhit-clock-ignored",
        missed: &["USI-EXT-015"],
        extra: &[],
        why: "no scenario yet tells whether the clock sent with `ponderhit` is used (the searches end within every deadline either way)",
    },
    FaultGap {
        fault: "ponder-stop-silent",
        missed: &[],
        extra: &["USI-GO-002"],
        why: "the `go ponder` never answered is also USI-GO-002 (one terminal reply per `go`)",
    },
    FaultGap {
        fault: "self-ponder",
        missed: &[],
        extra: &["USI-GAMEOVER-003"],
        why: "the self-ponder lines arrive in the silence after an idle `gameover` too (USI-GAMEOVER-003: any output)",
    },
    FaultGap {
        fault: "none-token",
        missed: &[],
        extra: &["USI-BESTMOVE-003"],
        why: "`bestmove (none)` where `resign` is due is both a wrong reply (USI-BESTMOVE-003) and a malformed move token (USI-BESTMOVE-007)",
    },
    FaultGap {
        fault: "info-while-idle",
        missed: &[],
        extra: &["USI-POSITION-010", "USI-ROBUST-004", "USI-STOP-002"],
        why: "the idle `info` line arrives in the silences of the stop-while-idle, empty-line and bad-position scenarios too",
    },
    FaultGap {
        fault: "bound-before-score",
        missed: &[],
        extra: &["USI-INFO-006", "USI-INFO-013"],
        why: "the parser reads `score lowerbound cp 0` as a score without its value (USI-INFO-006) followed by an unknown field `cp` (USI-INFO-013), besides the bound's place (USI-INFO-009)",
    },
    FaultGap {
        fault: "pv-not-last",
        missed: &["USI-EXT-008"],
        extra: &[],
        why: "the parser reads the field after `pv` as a malformed pv (USI-INFO-011), not as USI-EXT-008's field order",
    },
    FaultGap {
        fault: "string-with-pv",
        missed: &["USI-INFO-011"],
        extra: &[],
        why: "the parser reads the `string` after `pv` as USI-INFO-012 only, not as a malformed pv (USI-INFO-011)",
    },
    FaultGap {
        fault: "mate-limit-as-distance",
        missed: &["USI-MATE-001"],
        extra: &[],
        why: "no scenario checks USI-MATE-001 (the argument of `go mate` is a time limit) apart from the time limit itself, which is USI-MATE-005's",
    },
    FaultGap {
        fault: "nomate-on-mate",
        missed: &[],
        extra: &["USI-MATE-007", "USI-MATE-009"],
        why: "the false `nomate` also fails the verified-line scenarios of USI-MATE-007 and USI-MATE-009, which ask for a mate on a mating position",
    },
    FaultGap {
        fault: "empty-checkmate",
        missed: &[],
        extra: &["USI-MATE-003", "USI-ROBUST-005"],
        why: "the bare `checkmate ` is also a wrong mating line for the content check (USI-MATE-003) and has a trailing blank (USI-ROBUST-005)",
    },
    FaultGap {
        fault: "mate-nodes-ignored",
        missed: &["USI-EXT-010"],
        extra: &[],
        why: "the reference solver settles the node-limited position before the limit matters, so ignoring `nodes` changes nothing visible",
    },
    FaultGap {
        fault: "deaf-after-gameover",
        missed: &["USI-GAMEOVER-002"],
        extra: &[],
        why: "the engine that stops reading after `gameover` is caught at the next `isready`, charged to USI-READY-001 (the step that sees it), not to USI-GAMEOVER-002",
    },
    FaultGap {
        fault: "gameover-keeps-searching",
        missed: &[],
        extra: &["USI-PONDER-008"],
        why: "the ponder scenario's `gameover` sees the search go on too (USI-PONDER-008)",
    },
    FaultGap {
        fault: "ignore-quit",
        missed: &[],
        extra: &[
            "USI-GO-002",
            "USI-HANDSHAKE-001",
            "USI-HANDSHAKE-002",
            "USI-HANDSHAKE-006",
            "USI-HANDSHAKE-007",
            "USI-OPTION-001",
            "USI-OPTION-002",
            "USI-OPTION-003",
            "USI-OPTION-004",
            "USI-OPTION-005",
            "USI-OPTION-006",
            "USI-OPTION-013",
            "USI-OPTION-014",
            "USI-POSITION-001",
            "USI-QUIT-002",
            "USI-QUIT-004",
            "USI-ROBUST-005",
        ],
        why: "the info-only probe ends with `quit` too (USI-HANDSHAKE-006)",
    },
    FaultGap {
        fault: "hang-on-eof",
        missed: &[],
        extra: &["USI-PONDER-006", "USI-READY-002"],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "nonzero-exit",
        missed: &[],
        extra: &["USI-HANDSHAKE-007"],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "crash-on-unknown-command",
        missed: &[],
        extra: &["USI-ROBUST-009"],
        why: "the unknown-command scenario watches one silence for both USI-ROBUST-001 and USI-ROBUST-009; the exit ends it for both",
    },
    FaultGap {
        fault: "strict-whitespace",
        missed: &[],
        extra: &[
            "USI-INFO-002",
            "USI-INFO-003",
            "USI-INFO-004",
            "USI-INFO-005",
            "USI-INFO-006",
            "USI-INFO-009",
            "USI-INFO-011",
            "USI-INFO-012",
            "USI-INFO-013",
        ],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "carriage-return-kept",
        missed: &[],
        extra: &["USI-INFO-010", "USI-QUIT-004", "USI-ROBUST-002"],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "echo-blank-lines",
        missed: &[],
        extra: &["USI-GAMEOVER-002", "USI-GO-004"],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "double-spaced-output",
        missed: &[],
        extra: &[
            "USI-BESTMOVE-004",
            "USI-GAMEOVER-002",
            "USI-GAMEOVER-004",
            "USI-GO-010",
            "USI-INFO-002",
            "USI-INFO-003",
            "USI-INFO-004",
            "USI-INFO-005",
            "USI-INFO-006",
            "USI-INFO-009",
            "USI-INFO-011",
            "USI-INFO-012",
            "USI-INFO-013",
            "USI-RULES-001",
        ],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "buffered-output",
        missed: &[],
        extra: &[
            "USI-ENCODING-003",
            "USI-EXT-011",
            "USI-EXT-012",
            "USI-HANDSHAKE-002",
            "USI-HANDSHAKE-004",
            "USI-OPTION-014",
            "USI-ROBUST-005",
        ],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "long-game-rejected",
        missed: &[],
        extra: &[
            "USI-BESTMOVE-004",
            "USI-BESTMOVE-007",
            "USI-EXT-018",
            "USI-GO-005",
            "USI-PONDER-001",
            "USI-POSITION-005",
            "USI-POSITION-007",
            "USI-READY-007",
            "USI-READY-008",
            "USI-RULES-001",
        ],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "non-ascii-option-name",
        missed: &[],
        extra: &["USI-GO-002", "USI-PONDER-007", "USI-STOP-005"],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "shift-jis-author",
        missed: &[],
        extra: &[
            "USI-BESTMOVE-002",
            "USI-GO-002",
            "USI-GO-007",
            "USI-GO-011",
            "USI-PONDER-006",
            "USI-PONDER-008",
        ],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "byte-order-mark",
        missed: &[],
        extra: &["USI-GO-002", "USI-READY-001", "USI-RULES-001"],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "special-token-mid-pv",
        missed: &["USI-INFO-011"],
        extra: &["USI-BESTMOVE-001", "USI-BESTMOVE-006", "USI-GO-006"],
        why: "the symptom is charged to the rule of the step that sees it; collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
    FaultGap {
        fault: "pass-bestmove",
        missed: &[],
        extra: &[
            "USI-GO-011",
            "USI-OPTION-010",
            "USI-POSITION-002",
            "USI-POSITION-007",
            "USI-RULES-001",
        ],
        why: "collateral: the same misbehaviour also breaks the extra rules in the scenarios that exercise it",
    },
];
