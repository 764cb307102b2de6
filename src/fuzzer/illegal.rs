//! Illegal positions by category, malformed `position` lines and garbage input lines.
//!
//! None of these asks for a particular move: the engine must only survive and keep answering.

use super::Rng;
use super::positions::{self, Kind};
use crate::shogi::{Color, Piece, PieceKind, Position, Square, Strictness, validate};
use rand::RngExt;
use rand::seq::IndexedRandom;

/// One line to send: its text and whether it goes out exactly as is (no newline added).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawLine {
    pub text: String,
    pub raw: bool,
}

impl RawLine {
    fn line(text: String) -> RawLine {
        RawLine { text, raw: false }
    }
}

/// A `position sfen` line with a position that breaks one rule of a legal setup.
pub fn illegal_position(rng: &mut Rng) -> String {
    for _ in 0..50 {
        let mut pos = positions::legal_of(Kind::Playout, rng).position;
        let category = rng.random_range(0..6);
        match category {
            0 => nifu(&mut pos, rng),
            1 => dead_piece(&mut pos, rng),
            2 => extra_king(&mut pos, rng),
            3 => {
                let color = *Color::ALL.choose(rng).expect("colours");
                if let Some(k) = pos.king_square(color) {
                    pos.set_piece(k, None);
                }
            }
            4 => {
                let in_check = positions::legal_of(Kind::InCheck, rng).position;
                pos = in_check;
                pos.set_side_to_move(!pos.side_to_move());
            }
            _ => {
                let kind = *[PieceKind::Pawn, PieceKind::Rook, PieceKind::Gold]
                    .choose(rng)
                    .expect("kinds");
                pos.set_hand_count(pos.side_to_move(), kind, 19);
            }
        }
        if validate(&pos, Strictness::Strict).is_err() {
            return format!("position sfen {}", pos.to_sfen());
        }
    }
    "position sfen 9/9/9/9/9/9/9/9/9 b - 1".to_string()
}

/// An empty square on `ranks`, or failing that (a full rank) any square there without a king.
fn empty_square(pos: &Position, rng: &mut Rng, ranks: std::ops::RangeInclusive<u8>) -> Square {
    let random = |rng: &mut Rng| {
        Square::new(rng.random_range(1..=9), rng.random_range(ranks.clone())).expect("square")
    };
    for _ in 0..200 {
        let s = random(rng);
        if pos.piece_at(s).is_none() {
            return s;
        }
    }
    loop {
        let s = random(rng);
        if pos.piece_at(s).is_none_or(|p| p.kind != PieceKind::King) {
            return s;
        }
    }
}

fn nifu(pos: &mut Position, rng: &mut Rng) {
    let color = pos.side_to_move();
    let pawns = pos.pieces_of(color, PieceKind::Pawn);
    if let Some(p) = pawns.into_iter().next() {
        let file = p.file();
        for rank in (2..=8).rev() {
            let s = Square::new(file, rank).expect("square");
            if pos.piece_at(s).is_none() {
                pos.set_piece(s, Some(Piece::new(color, PieceKind::Pawn)));
                return;
            }
        }
    }
    let s = empty_square(pos, rng, 4..=6);
    pos.set_piece(s, Some(Piece::new(color, PieceKind::Pawn)));
    let twin = Square::new(s.file(), s.rank() + 1).expect("square");
    pos.set_piece(twin, Some(Piece::new(color, PieceKind::Pawn)));
}

fn dead_piece(pos: &mut Position, rng: &mut Rng) {
    let kind = *[PieceKind::Pawn, PieceKind::Lance, PieceKind::Knight]
        .choose(rng)
        .expect("kinds");
    let s = empty_square(pos, rng, 1..=1);
    pos.set_piece(s, Some(Piece::new(Color::Black, kind)));
}

fn extra_king(pos: &mut Position, rng: &mut Rng) {
    let s = empty_square(pos, rng, 4..=6);
    let color = *Color::ALL.choose(rng).expect("colours");
    pos.set_piece(s, Some(Piece::new(color, PieceKind::King)));
}

/// A mangled `position` line: token mutations, truncation, huge numbers, non-ASCII text, CRLF,
/// extra whitespace or an illegal move inside `moves`.
pub fn malformed_position(rng: &mut Rng) -> RawLine {
    let legal = positions::legal_of(Kind::Playout, rng);
    let line = legal.line;
    let tokens: Vec<&str> = line.split(' ').collect();
    match rng.random_range(0..8) {
        0 => {
            let mut t = tokens.clone();
            let i = rng.random_range(1..t.len());
            t.remove(i);
            RawLine::line(t.join(" "))
        }
        1 => {
            let mut t = tokens.clone();
            let i = rng.random_range(1..t.len());
            let j = rng.random_range(1..t.len());
            t.swap(i, j);
            t.insert(j, tokens[i]);
            RawLine::line(t.join(" "))
        }
        2 => {
            let cut = rng.random_range(9..line.len());
            RawLine::line(line[..cut].to_string())
        }
        3 => {
            let huge = [
                "99999999999999999999999",
                "-1",
                "4294967296",
                "18446744073709551616",
            ];
            let h = huge.choose(rng).expect("numbers");
            if line.starts_with("position sfen") && rng.random_bool(0.5) {
                let pos = legal.position.to_sfen();
                let mut fields: Vec<&str> = pos.split(' ').collect();
                fields[3] = h;
                RawLine::line(format!("position sfen {}", fields.join(" ")))
            } else {
                RawLine::line(format!("position sfen 9/9/9/9/4k4/9/9/9/4K4 b {h}p 1"))
            }
        }
        4 => {
            let odd = ["ｌｎｓｇｋ", "歩", "\u{feff}", "é", "\u{1b}[31m"];
            let mut t = tokens.clone();
            let i = rng.random_range(1..=t.len());
            t.insert(i, odd.choose(rng).expect("texts"));
            RawLine::line(t.join(" "))
        }
        5 => RawLine {
            text: format!("{line}\r\n"),
            raw: true,
        },
        6 => {
            let spaced = tokens.join(if rng.random_bool(0.5) { "  " } else { " \t " });
            RawLine::line(format!("  {spaced}  "))
        }
        _ => {
            let mut text = line.clone();
            if !text.contains(" moves") {
                text.push_str(" moves");
            }
            let bad = ["1a1b", "5e5d+", "P*1a", "9i9a", "0a0a", "7g7f7f"];
            text.push(' ');
            text.push_str(bad.choose(rng).expect("moves"));
            RawLine::line(text)
        }
    }
}

/// A line that is not a command the engine must act on: unknown words, rare commands, blank and
/// odd lines, a very long line, stray bytes.
pub fn garbage(rng: &mut Rng) -> RawLine {
    let fixed = [
        "debug",
        "debug on",
        "xyzzy",
        "",
        "   ",
        "\t",
        "usi2 hello",
        "setoption",
        "setoption name",
        "info string hello",
        "ｉｓｒｅａｄｙ",
        "\u{7f}\u{1}\u{2}",
    ];
    match rng.random_range(0..10) {
        0 => RawLine::line("x".repeat(rng.random_range(1000..20000))),
        1 => RawLine {
            text: format!("{}\r\n", fixed.choose(rng).expect("lines")),
            raw: true,
        },
        _ => RawLine::line(fixed.choose(rng).expect("lines").to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn illegal_positions_parse_but_fail_validation() {
        let mut rng = Rng::seed_from_u64(11);
        for _ in 0..100 {
            let line = illegal_position(&mut rng);
            let sfen = line.trim_start_matches("position sfen ");
            let pos = Position::from_sfen(sfen).expect("SFEN parses");
            assert!(validate(&pos, Strictness::Strict).is_err(), "{line}");
        }
    }

    #[test]
    fn malformed_lines_are_not_the_legal_line() {
        let mut rng = Rng::seed_from_u64(12);
        for _ in 0..200 {
            let m = malformed_position(&mut rng);
            assert!(m.text.starts_with("position") || m.text.starts_with("  position"));
        }
    }
}
