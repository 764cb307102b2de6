//! Reads a KIF record as an opening: its start (手合割 or a BOD board diagram with hands and
//! side to move) and its main line up to the end (`投了`, `中断`, … or the first `変化`), every
//! move checked by the reference rules.

use super::moves::Line;
use super::notation::{KIF_FILES, KIF_RANKS, count_of_kif, handicap_sfen, kind_of_kif};
use super::read::ReadError;
use crate::play::Opening;
use crate::shogi::{Color, Move, Piece, PieceKind, Position, Square};
use regex::Regex;
use std::sync::LazyLock;

/// A move line: number, move, optional time (`( 0:01/00:00:01)`), optional `+` (the move has
/// variations).
static MOVE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(\d+)\s+(.*?)\s*(?:\(\s*\d+:\d+(?:\s*/\s*[\d:]+)?\s*\))?\s*\+?\s*$")
        .expect("the move line pattern")
});

/// A move: destination (`７六` or `同`), piece, `打`/`成`/`不成`/`生`, origin `(77)`.
static MOVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:([１２３４５６７８９1-9])([一二三四五六七八九])|同\s*)(成香|成桂|成銀|[歩香桂銀金角飛玉王と杏圭全馬龍竜])(打|不成|生|成)?(?:\(([1-9])([1-9])\))?$",
    )
    .expect("the move pattern")
});

/// The words that end a KIF game's moves.
const TERMINALS: [&str; 12] = [
    "投了",
    "中断",
    "持将棋",
    "千日手",
    "詰み",
    "切れ負け",
    "反則勝ち",
    "反則負け",
    "入玉勝ち",
    "不戦勝",
    "不戦敗",
    "不詰",
];

/// What the header and the diagram say of the start.
#[derive(Default)]
struct Start {
    handicap: Option<String>,
    /// The diagram's ranks (nine once it is closed).
    board: Vec<[Option<Piece>; 9]>,
    board_open: bool,
    /// The line that set up the start (手合割, or the diagram's closing border).
    set_at: Option<usize>,
    hands: [Vec<(PieceKind, u8)>; 2],
    white_to_move: bool,
}

impl Start {
    /// The start position: the diagram's, else the handicap's, else the even game.
    fn position(&self) -> Result<Position, String> {
        if !self.board.is_empty() {
            let mut position = Position::empty();
            for (rank, row) in self.board.iter().enumerate() {
                for (column, piece) in row.iter().enumerate() {
                    let square = Square::new(9 - column as u8, rank as u8 + 1).expect("on board");
                    position.set_piece(square, *piece);
                }
            }
            for color in Color::ALL {
                for &(kind, count) in &self.hands[color.index()] {
                    position.set_hand_count(color, kind, count);
                }
            }
            if self.white_to_move {
                position.set_side_to_move(Color::White);
            }
            return Ok(position);
        }
        if self.hands.iter().any(|hand| !hand.is_empty()) {
            return Err("pieces in hand without a board diagram".into());
        }
        let sfen = match &self.handicap {
            Some(name) => handicap_sfen(name).ok_or(format!("unknown 手合割 `{name}`"))?,
            None => Position::startpos().to_sfen(),
        };
        Position::from_sfen(&sfen).map_err(|e| e.to_string())
    }
}

/// The opening a KIF record's `text` makes; an error names the line (from 1).
///
/// ```
/// use usicheck::play::record::read_kif;
/// let kif = "手合割：角落ち\n手数----指手--\n   1 ３四歩(33)\n   2 ７六歩(77)\n   3 ３五歩(34)\n   4 投了\n";
/// let opening = read_kif(kif).unwrap();
/// assert!(opening.base.starts_with("sfen lnsgkgsnl/1r7/"));
/// assert_eq!(opening.moves, ["3c3d", "7g7f", "3d3e"]);
/// assert_eq!(read_kif("   1 ７五歩(77)\n").unwrap_err().to_string(), "line 1: `７五歩(77)` (7g7e) is illegal in lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
/// ```
pub fn read_kif(text: &str) -> Result<Opening, ReadError> {
    let mut start = Start::default();
    let mut line: Option<Line> = None;
    let mut last_to: Option<Square> = None;
    let mut lines = 0;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        lines = number;
        let at = |message: String| ReadError::at(number, message);
        let text = raw.trim_end();
        if text.is_empty() || text.starts_with(['#', '*', '&']) {
            continue;
        }
        if text.starts_with("変化") {
            break;
        }
        if text.starts_with('+') && text.contains("---") {
            if start.board_open {
                if start.board.len() != 9 {
                    return Err(at(format!(
                        "{} ranks in the diagram, not 9",
                        start.board.len()
                    )));
                }
                start.board_open = false;
                start.set_at = Some(number);
            } else {
                start.board_open = true;
            }
            continue;
        }
        if start.board_open {
            start.board.push(board_rank(text).map_err(at)?);
            continue;
        }
        if line.is_none() {
            if let Some((key, value)) = text.split_once('：') {
                let value = value.trim_matches([' ', '　']);
                match key.trim() {
                    "手合割" => {
                        start.handicap = Some(value.to_owned());
                        start.set_at = start.set_at.or(Some(number));
                    }
                    "先手の持駒" | "下手の持駒" => {
                        start.hands[0] = hand(value).map_err(at)?
                    }
                    "後手の持駒" | "上手の持駒" => {
                        start.hands[1] = hand(value).map_err(at)?
                    }
                    _ => {}
                }
                continue;
            }
            match text {
                "後手番" | "上手番" => start.white_to_move = true,
                "先手番" | "下手番" => start.white_to_move = false,
                _ => {}
            }
        }
        // Any other line that does not start with a move number is a header or a note.
        if !text.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let found = MOVE_LINE
            .captures(text)
            .ok_or_else(|| at(format!("`{text}` is not a KIF move line")))?;
        let record = match &mut line {
            Some(record) => record,
            None => line.insert(
                start
                    .position()
                    .and_then(Line::new)
                    .map_err(|e| ReadError::at(start.set_at.unwrap_or(number), e))?,
            ),
        };
        let written = &found[2];
        if TERMINALS.contains(&written) {
            break;
        }
        let ply: usize = found[1]
            .parse()
            .map_err(|_| at("a bad move number".into()))?;
        let expected = record.played() + 1;
        if ply != expected {
            return Err(at(format!("move number {ply}, expected {expected}")));
        }
        let (mv, named) = kif_move(written, last_to).map_err(at)?;
        record.play(mv, named, written).map_err(at)?;
        last_to = Some(mv.to());
    }
    if start.board_open {
        return Err(ReadError::at(
            lines,
            "the board diagram is not closed".into(),
        ));
    }
    match line {
        Some(line) => Ok(line.into_opening()),
        None => start
            .position()
            .and_then(Line::new)
            .map(Line::into_opening)
            .map_err(|e| ReadError::at(start.set_at.unwrap_or(lines.max(1)), e)),
    }
}

/// One rank of a BOD diagram: `|v香v桂 ・…|一`, each square a side mark (` ` or `v`) and a
/// piece or `・`.
fn board_rank(text: &str) -> Result<[Option<Piece>; 9], String> {
    let inner = text
        .strip_prefix('|')
        .and_then(|rest| rest.rsplit_once('|'))
        .map(|(inner, _)| inner)
        .ok_or(format!("`{text}` is not a rank of the board diagram"))?;
    let cells: Vec<char> = inner.chars().collect();
    if cells.len() != 18 {
        return Err(format!("`{text}`: not nine squares"));
    }
    let mut rank = [None; 9];
    for (square, cell) in rank.iter_mut().zip(cells.chunks(2)) {
        if cell[1] == '・' {
            continue;
        }
        let color = match cell[0] {
            'v' | 'V' => Color::White,
            ' ' | '^' => Color::Black,
            other => return Err(format!("`{text}`: `{other}` marks no side")),
        };
        let kind = kind_of_kif(&cell[1].to_string())
            .ok_or(format!("`{text}`: `{}` is no piece", cell[1]))?;
        *square = Some(Piece::new(color, kind));
    }
    Ok(rank)
}

/// A hand: `なし`, or pieces with their counts, `飛　角　歩十八`.
fn hand(value: &str) -> Result<Vec<(PieceKind, u8)>, String> {
    if value == "なし" {
        return Ok(Vec::new());
    }
    value
        .split([' ', '　'])
        .filter(|item| !item.is_empty())
        .map(|item| {
            let mut chars = item.chars();
            let name = chars.next().map(String::from).unwrap_or_default();
            let kind = kind_of_kif(&name)
                .filter(|kind| kind.is_hand_kind())
                .ok_or(format!("`{item}` is no piece in hand"))?;
            let count = count_of_kif(chars.as_str()).ok_or(format!("`{item}`: a bad count"))?;
            Ok((kind, count))
        })
        .collect()
}

/// The move `written` (after the number), with the kind it names for a board move; `同` is
/// `last_to`.
fn kif_move(written: &str, last_to: Option<Square>) -> Result<(Move, Option<PieceKind>), String> {
    let found = MOVE
        .captures(written)
        .ok_or(format!("`{written}` is not a KIF move"))?;
    let to = match (found.get(1), found.get(2)) {
        (Some(file), Some(rank)) => {
            let file = KIF_FILES
                .iter()
                .position(|&f| f == file.as_str())
                .or_else(|| file.as_str().parse().ok())
                .unwrap_or(0) as u8;
            let rank = KIF_RANKS
                .iter()
                .position(|&r| r == rank.as_str())
                .unwrap_or(0) as u8;
            Square::new(file, rank).ok_or(format!("`{written}`: no such square"))?
        }
        _ => last_to.ok_or(format!("`{written}`: `同` with no move before"))?,
    };
    let kind = kind_of_kif(&found[3]).ok_or(format!("`{written}`: no such piece"))?;
    let modifier = found.get(4).map(|m| m.as_str());
    match (found.get(5), found.get(6)) {
        (Some(file), Some(rank)) if modifier != Some("打") => {
            let from = Square::new(
                file.as_str().parse().unwrap_or(0),
                rank.as_str().parse().unwrap_or(0),
            )
            .ok_or(format!("`{written}`: no such square"))?;
            let promote = modifier == Some("成");
            Ok((Move::Normal { from, to, promote }, Some(kind)))
        }
        (None, _) if modifier.is_none() || modifier == Some("打") => {
            if !kind.is_hand_kind() {
                return Err(format!("`{written}`: a {kind:?} cannot be dropped"));
            }
            Ok((Move::Drop { kind, to }, None))
        }
        _ => Err(format!("`{written}` is not a KIF move")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::record::moves::game;
    use crate::play::record::{Encoding, kif};

    /// Captures, a recapture (`同`), promotions, a drop: written and read back, in both
    /// encodings.
    #[test]
    fn a_written_kif_reads_back_as_its_game() {
        let moves = [
            "7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "8c8d", "4e3d", "8d8e", "3d2c+", "2b2c",
        ];
        let record = game("startpos", 2, &moves);
        for encoding in [Encoding::ShiftJis, Encoding::Utf8] {
            let bytes = kif(&record, "engine ☃", "opponent", encoding);
            let text = super::super::decode(&bytes, encoding).unwrap();
            assert!(
                text.contains("同　銀(31)") && text.contains("角成(88)"),
                "{text}"
            );
            assert!(
                text.contains("４五角打") && text.contains("同　銀(22)"),
                "{text}"
            );
            let opening = read_kif(&text).unwrap();
            assert_eq!(opening.base, "startpos");
            assert_eq!(opening.moves, moves);
        }
    }

    #[test]
    fn a_diagram_with_hands_and_white_to_move_reads_back() {
        let base = "sfen 4k4/9/4P4/9/9/9/9/9/4K4 w 2Gr17p 1";
        let record = game(base, 0, &["5a4b", "G*4c"]);
        let text = String::from_utf8(kif(&record, "a", "b", Encoding::Utf8)).unwrap();
        assert!(text.contains("+---") && text.contains("後手番"), "{text}");
        let opening = read_kif(&text).unwrap();
        assert_eq!(opening.base, base);
        assert_eq!(opening.moves, ["5a4b", "G*4c"]);
    }

    #[test]
    fn a_handicap_names_its_start() {
        let kif = "手合割：飛香落ち\n上手：x\n下手：y\n   1 ５二玉(51)   ( 0:01/00:00:01)\n   2 ７六歩(77)\n   3 中断\n";
        let opening = read_kif(kif).unwrap();
        assert_eq!(
            opening.base,
            "sfen lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
        );
        assert_eq!(opening.moves, ["5a5b", "7g7f"]);
    }

    #[test]
    fn malformed_records_name_the_line() {
        let error = |kif: &str| read_kif(kif).unwrap_err().to_string();
        assert_eq!(
            error("手合割：平手\n   1 ７六歩(77)\n   2 ３四飛(33)\n"),
            "line 3: `３四飛(33)`: the piece on 3c is a Pawn, not a Rook"
        );
        assert_eq!(
            error("   1 ７六歩(77)\n   3 ３四歩(33)\n"),
            "line 2: move number 3, expected 2"
        );
        // Without an origin, a move is a drop: Black has no pawn in hand.
        assert_eq!(
            error("   1 ７六歩\n"),
            "line 1: `７六歩` (P*7f) is illegal in lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
        );
        assert_eq!(
            error("   1 ７Ｘ歩(77)\n"),
            "line 1: `７Ｘ歩(77)` is not a KIF move"
        );
        assert_eq!(
            error("   1 同　歩(77)\n"),
            "line 1: `同　歩(77)`: `同` with no move before"
        );
        assert_eq!(
            error("手合割：九枚落ち\n先手：a\n   1 ７六歩(77)\n"),
            "line 1: unknown 手合割 `九枚落ち`"
        );
        assert_eq!(
            error("+---------------------------+\n| ・ ・|一\n"),
            "line 2: `| ・ ・|一`: not nine squares"
        );
    }
}
