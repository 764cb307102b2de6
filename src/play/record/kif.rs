//! The KIF record of a game, as Kifu for Windows writes it: header, the start (handicap name
//! or BOD board diagram), numbered moves with the time of each and in total, the end and the
//! result.

use super::encoding::Encoding;
use super::ending::{adjudication_note, end_terms};
use super::moves::{mover, replay};
use super::notation::{KIF_FILES, KIF_RANKS, bod_kind, handicap_name, kif_count, kif_kind};
use crate::play::{GameRecord, Winner};
use crate::shogi::{Color, Move, PieceKind, Position, Square};

fn kif_hand(position: &Position, color: Color) -> String {
    let hand = position.hand(color);
    if hand.is_empty() {
        return "なし".into();
    }
    PieceKind::HAND_ORDER
        .iter()
        .filter(|&&kind| hand.count(kind) > 0)
        .map(|&kind| format!("{}{}　", kif_kind(kind), kif_count(hand.count(kind))))
        .collect()
}

/// The start position as a BOD board diagram (for a game not from a standard start).
fn bod(position: &Position) -> String {
    let mut out = format!("後手の持駒：{}\n", kif_hand(position, Color::White));
    out.push_str("  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n");
    for rank in 1..=9u8 {
        out.push('|');
        for file in (1..=9u8).rev() {
            match Square::new(file, rank).and_then(|sq| position.piece_at(sq)) {
                Some(piece) => {
                    out.push(if piece.color == Color::White {
                        'v'
                    } else {
                        ' '
                    });
                    out.push_str(bod_kind(piece.kind));
                }
                None => out.push_str(" ・"),
            }
        }
        out.push_str(&format!("|{}\n", KIF_RANKS[usize::from(rank)]));
    }
    out.push_str("+---------------------------+\n");
    out.push_str(&format!(
        "先手の持駒：{}\n",
        kif_hand(position, Color::Black)
    ));
    if position.side_to_move() == Color::White {
        out.push_str("後手番\n");
    }
    out
}

fn kif_clock(ms: f64) -> String {
    let seconds = (ms / 1000.0).floor() as u64;
    format!("{:2}:{:02}", seconds / 60, seconds % 60)
}

fn kif_total(ms: f64) -> String {
    let seconds = (ms / 1000.0).floor() as u64;
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// The KIF file of a game between `black` and `white`, in `encoding` (its first line says
/// which; a character Shift_JIS lacks becomes `?`).
pub fn kif(record: &GameRecord, black: &str, white: &str, encoding: Encoding) -> Vec<u8> {
    let (start, moves) = replay(record);
    let mut out = format!(
        "#KIF version=2.0 encoding={}\n# KIF形式棋譜ファイル\n",
        encoding.label()
    );
    let handicap = handicap_name(&start.to_sfen());
    match handicap {
        Some(name) => out.push_str(&format!("手合割：{name}\n")),
        None => out.push_str(&bod(&start)),
    }
    // In a handicap game the giver (上手) is White, the receiver (下手) Black.
    let (sente, gote) = match handicap {
        Some(name) if name != "平手" => ("下手", "上手"),
        _ => ("先手", "後手"),
    };
    out.push_str(&format!("{sente}：{black}\n{gote}：{white}\n"));
    out.push_str("手数----指手---------消費時間--\n");
    let mut totals = [0.0f64; 2];
    let mut previous_to: Option<Square> = None;
    for (number, (before, mv, used)) in moves.iter().enumerate() {
        let side = before.side_to_move();
        let used = used.unwrap_or(0.0);
        totals[side.index()] += used;
        let to = mv.to();
        let target = if previous_to == Some(to) {
            "同　".to_owned()
        } else {
            format!(
                "{}{}",
                KIF_FILES[usize::from(to.file())],
                KIF_RANKS[usize::from(to.rank())]
            )
        };
        let kind = kif_kind(mover(before, *mv));
        let text = match *mv {
            Move::Drop { .. } => format!("{target}{kind}打"),
            Move::Normal { from, promote, .. } => {
                let promotes = if promote { "成" } else { "" };
                format!("{target}{kind}{promotes}({}{})", from.file(), from.rank())
            }
        };
        out.push_str(&format!(
            "{:4} {text}   ({}/{})\n",
            number + 1,
            kif_clock(used),
            kif_total(totals[side.index()])
        ));
        previous_to = Some(to);
    }
    out.push_str(&format!(
        "{:4} {}\n",
        moves.len() + 1,
        end_terms(record.reason, record.winner).1
    ));
    if let Some(note) = adjudication_note(record) {
        out.push_str(&format!("#{note}\n"));
    }
    let winner = match record.winner {
        Winner::Black => format!("{sente}の勝ち"),
        Winner::White => format!("{gote}の勝ち"),
        Winner::Draw => "引き分け".to_owned(),
        Winner::Unfinished => "中断".to_owned(),
    };
    out.push_str(&format!("まで{}手で{winner}\n", moves.len()));
    encoding.encode(&out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::record::decode;
    use crate::play::record::moves::game;

    #[test]
    fn shift_jis_with_its_encoding_line_and_a_question_mark_for_what_it_lacks() {
        // Eleven pawns in hand: `歩十一`.
        let record = game("sfen 4k4/9/9/9/9/9/9/9/4K4 b 11P 1", 0, &["P*5e"]);
        let bytes = kif(&record, "engine 🐟", "opponent", Encoding::ShiftJis);
        assert!(std::str::from_utf8(&bytes).is_err(), "Shift_JIS, not UTF-8");
        let text = decode(&bytes, Encoding::ShiftJis).unwrap();
        assert!(
            text.starts_with("#KIF version=2.0 encoding=Shift_JIS\n"),
            "{text}"
        );
        assert!(text.contains("先手：engine ?\n"), "{text}");
        assert!(text.contains("先手の持駒：歩十一　\n"), "{text}");
        assert!(
            text.contains("   1 ５五歩打   ( 0:01/00:00:01)\n"),
            "{text}"
        );
        let utf8 = kif(&record, "engine 🐟", "opponent", Encoding::Utf8);
        let utf8 = String::from_utf8(utf8).unwrap();
        assert_eq!(utf8, text.replace("Shift_JIS", "UTF-8").replace('?', "🐟"));
    }
}
