//! The CSA record of a game (CSA standard record format V2.2): players, the start position,
//! every move with its time, and how the game ended.

use super::encoding::Encoding;
use super::ending::{adjudication_note, end_terms};
use super::moves::{mover, replay};
use super::notation::{csa_kind, csa_sign};
use crate::play::GameRecord;
use crate::shogi::{Color, Piece, Square};

/// The CSA file of a game between `black` and `white`. Everything but the names is ASCII;
/// the names are in Shift_JIS, what V2.2 files are by convention and what V3.0 assumes of a
/// file without an encoding line (an ASCII name stays ASCII; a character Shift_JIS lacks
/// becomes `?`).
pub fn csa(record: &GameRecord, black: &str, white: &str) -> Vec<u8> {
    let (start, moves) = replay(record);
    let mut out = format!("V2.2\nN+{black}\nN-{white}\n");
    for rank in 1..=9u8 {
        out.push_str(&format!("P{rank}"));
        for file in (1..=9u8).rev() {
            match Square::new(file, rank).and_then(|sq| start.piece_at(sq)) {
                Some(Piece { color, kind }) => {
                    out.push(csa_sign(color));
                    out.push_str(csa_kind(kind));
                }
                None => out.push_str(" * "),
            }
        }
        out.push('\n');
    }
    for color in Color::ALL {
        let hand = start.hand(color);
        if !hand.is_empty() {
            out.push('P');
            out.push(csa_sign(color));
            for (kind, count) in hand.iter() {
                for _ in 0..count {
                    out.push_str("00");
                    out.push_str(csa_kind(kind));
                }
            }
            out.push('\n');
        }
    }
    out.push(csa_sign(start.side_to_move()));
    out.push('\n');
    for (before, mv, used) in &moves {
        let from = mv
            .from()
            .map_or("00".to_owned(), |sq| format!("{}{}", sq.file(), sq.rank()));
        let to = mv.to();
        // CSA names the piece as it stands after the move.
        let kind = mover(before, *mv);
        let kind = if mv.is_promotion() {
            kind.promoted().unwrap_or(kind)
        } else {
            kind
        };
        out.push_str(&format!(
            "{}{from}{}{}{}\n",
            csa_sign(before.side_to_move()),
            to.file(),
            to.rank(),
            csa_kind(kind)
        ));
        if let Some(ms) = used {
            out.push_str(&format!("T{}\n", (ms / 1000.0).floor() as u64));
        }
    }
    if let Some(note) = adjudication_note(record) {
        out.push_str(&format!("'{note}\n"));
    }
    out.push_str(end_terms(record.reason, record.winner).0);
    out.push('\n');
    Encoding::ShiftJis.encode(&out)
}
