//! How a game ended, as the records write it: CSA's `%` word, KIF's end word, and the comment
//! of an adjudicated game, which neither format has a word for.

use crate::play::{GameRecord, Reason, Winner};

/// The end of a game as CSA and KIF write it.
pub(super) fn end_terms(reason: Reason, winner: Winner) -> (&'static str, &'static str) {
    match reason {
        Reason::Mate => ("%TSUMI", "詰み"),
        Reason::Resign => ("%TORYO", "投了"),
        Reason::Declaration => ("%KACHI", "入玉勝ち"),
        Reason::Repetition => ("%SENNICHITE", "千日手"),
        Reason::PerpetualCheck => ("%OUTE_SENNICHITE", "反則負け"),
        Reason::MoveLimit => ("%MAX_MOVES", "持将棋"),
        Reason::Time => ("%TIME_UP", "切れ負け"),
        Reason::InvalidDeclaration | Reason::IllegalMove => ("%ILLEGAL_MOVE", "反則負け"),
        // Neither format has adjudication: an adjudicated draw is a declared one; a loss is a
        // game stopped (%TORYO would make the winner resign: its loser has just moved), its
        // result said by a comment (CSA) and the result line (KIF).
        Reason::Adjudication if winner == Winner::Draw => ("%HIKIWAKE", "中断"),
        Reason::Crash | Reason::Hang | Reason::CutShort | Reason::Adjudication => {
            ("%CHUDAN", "中断")
        }
    }
}

/// The comment line of an adjudicated game: who won and why, in ASCII (the referee's words).
pub(super) fn adjudication_note(record: &GameRecord) -> Option<String> {
    (record.reason == Reason::Adjudication).then(|| {
        let result = match record.winner {
            Winner::Black => "Black wins",
            Winner::White => "White wins",
            _ => "draw",
        };
        format!("adjudicated by usicheck: {result}: {}", record.detail)
    })
}
