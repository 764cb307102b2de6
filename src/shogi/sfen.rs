//! SFEN parsing and canonical formatting.

use super::{Color, Piece, PieceKind, Position, Square};
use std::fmt::{self, Write as _};

/// What is wrong with an SFEN string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SfenErrorKind {
    /// Nothing to parse.
    Empty,
    /// A required field (`board`, `side`, `hand`) is missing.
    MissingField(&'static str),
    /// A rank does not describe exactly nine squares.
    BadRankLength { rank: u8, squares: u32 },
    /// The board does not have exactly nine ranks.
    BadRankCount(usize),
    /// A board character that is not a piece letter, digit, `+` or `/`.
    UnknownPiece(char),
    /// `+` before a piece that cannot promote (K, G) or before nothing.
    BadPromotion(char),
    /// The side to move is not `b` or `w`.
    BadSide(String),
    /// A hand token that is not `[count]letter` with a droppable piece letter.
    BadHandToken(String),
    /// A king listed among the pieces in hand.
    KingInHand,
    /// The move number is not a positive integer.
    BadMoveNumber(String),
    /// Text after the move number.
    TrailingJunk(String),
}

/// An SFEN parse error: the kind and the 1-based byte column where it was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad SFEN at column {column}: {kind}")]
pub struct SfenError {
    pub kind: SfenErrorKind,
    pub column: usize,
}

impl fmt::Display for SfenErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SfenErrorKind::Empty => write!(f, "empty SFEN"),
            SfenErrorKind::MissingField(name) => write!(f, "missing {name} field"),
            SfenErrorKind::BadRankLength { rank, squares } => {
                write!(f, "rank {rank} describes {squares} squares, expected 9")
            }
            SfenErrorKind::BadRankCount(n) => write!(f, "board has {n} ranks, expected 9"),
            SfenErrorKind::UnknownPiece(c) => write!(f, "unknown piece letter {c:?}"),
            SfenErrorKind::BadPromotion(c) => write!(f, "'+' before {c:?}, which cannot promote"),
            SfenErrorKind::BadSide(s) => write!(f, "side to move {s:?}, expected 'b' or 'w'"),
            SfenErrorKind::BadHandToken(s) => {
                write!(f, "bad hand token {s:?}, expected e.g. 2P or r")
            }
            SfenErrorKind::KingInHand => write!(f, "a king cannot be held in hand"),
            SfenErrorKind::BadMoveNumber(s) => write!(f, "bad move number {s:?}"),
            SfenErrorKind::TrailingJunk(s) => {
                write!(f, "unexpected text {s:?} after the move number")
            }
        }
    }
}

/// Largest count accepted per hand kind; well above the 18 pawns of a real game so that
/// stress positions parse, small enough that captures cannot overflow a `u8`.
const MAX_HAND_COUNT: u32 = 100;

fn err(kind: SfenErrorKind, offset: usize) -> SfenError {
    SfenError {
        kind,
        column: offset + 1,
    }
}

/// Whitespace-separated fields with their byte offsets.
fn fields(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if c.is_ascii_whitespace() {
            if let Some(st) = start.take() {
                out.push((st, &s[st..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        out.push((st, &s[st..]));
    }
    out
}

impl Position {
    /// Parses `startpos`, `sfen <board> <side> <hand> [movenumber]`, or the bare fields.
    ///
    /// ```
    /// use usicheck::shogi::{Position, SfenErrorKind};
    /// let pos = Position::from_sfen("sfen 4k4/9/9/9/9/9/9/9/4K4 b 18p2R 1").unwrap();
    /// assert_eq!(pos.to_sfen(), "4k4/9/9/9/9/9/9/9/4K4 b 2R18p 1");
    /// let e = Position::from_sfen("4k4/9/9/9/9/9/9/9/4+G4 b - 1").unwrap_err();
    /// assert_eq!(e.kind, SfenErrorKind::BadPromotion('G'));
    /// assert_eq!(e.column, 21);
    /// ```
    pub fn from_sfen(s: &str) -> Result<Position, SfenError> {
        let mut fs = fields(s);
        if fs.is_empty() {
            return Err(err(SfenErrorKind::Empty, 0));
        }
        if fs[0].1 == "startpos" {
            if let Some(&(off, extra)) = fs.get(1) {
                return Err(err(SfenErrorKind::TrailingJunk(extra.to_string()), off));
            }
            return Ok(Position::startpos());
        }
        if fs[0].1 == "sfen" {
            fs.remove(0);
        }
        let end = s.len();
        let (board_off, board) = *fs
            .first()
            .ok_or(err(SfenErrorKind::MissingField("board"), end))?;
        let mut pos = Position::empty();
        parse_board(&mut pos, board, board_off)?;
        let (side_off, side) = *fs
            .get(1)
            .ok_or(err(SfenErrorKind::MissingField("side to move"), end))?;
        let color = match side {
            "b" => Color::Black,
            "w" => Color::White,
            _ => return Err(err(SfenErrorKind::BadSide(side.to_string()), side_off)),
        };
        pos.set_side_to_move(color);
        let (hand_off, hand) = *fs
            .get(2)
            .ok_or(err(SfenErrorKind::MissingField("hand"), end))?;
        parse_hand(&mut pos, hand, hand_off)?;
        if let Some(&(off, n)) = fs.get(3) {
            match n.parse::<u32>() {
                Ok(v) if v >= 1 && n.bytes().all(|b| b.is_ascii_digit()) => pos.set_move_number(v),
                _ => return Err(err(SfenErrorKind::BadMoveNumber(n.to_string()), off)),
            }
        }
        if let Some(&(off, extra)) = fs.get(4) {
            return Err(err(SfenErrorKind::TrailingJunk(extra.to_string()), off));
        }
        Ok(pos)
    }

    /// The canonical SFEN (without the `sfen ` prefix): hands in order R B G S N L P, Black first.
    ///
    /// ```
    /// use usicheck::shogi::Position;
    /// assert_eq!(
    ///     Position::startpos().to_sfen(),
    ///     "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    /// );
    /// ```
    pub fn to_sfen(&self) -> String {
        let mut s = String::with_capacity(96);
        for rank in 1..=9u8 {
            let mut empty = 0;
            for file in (1..=9u8).rev() {
                let sq = Square::new(file, rank).expect("on board");
                match self.piece_at(sq) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        // In place: this runs for every position the fuzzer checks.
                        let _ = write!(s, "{p}");
                    }
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank < 9 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(self.side_to_move().to_sfen());
        s.push(' ');
        let mut any = false;
        for color in Color::ALL {
            for (kind, n) in self.hand(color).iter() {
                if n > 1 {
                    let _ = write!(s, "{n}");
                }
                let c = kind.usi_letter();
                s.push(if color == Color::Black {
                    c
                } else {
                    c.to_ascii_lowercase()
                });
                any = true;
            }
        }
        if !any {
            s.push('-');
        }
        s.push(' ');
        let _ = write!(s, "{}", self.move_number());
        s
    }
}

fn parse_board(pos: &mut Position, board: &str, base: usize) -> Result<(), SfenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 9 {
        return Err(err(SfenErrorKind::BadRankCount(ranks.len()), base));
    }
    let mut off = base;
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = i as u8 + 1;
        let mut squares: u32 = 0;
        let mut plus_at: Option<usize> = None;
        for (j, c) in rank_text.char_indices() {
            let at = off + j;
            if plus_at.is_some() && !c.is_ascii_alphabetic() {
                return Err(err(SfenErrorKind::BadPromotion('+'), plus_at.unwrap_or(at)));
            }
            match c {
                '1'..='9' => squares += c as u32 - '0' as u32,
                '+' => plus_at = Some(at),
                _ => {
                    let kind = PieceKind::from_usi_letter(c.to_ascii_uppercase())
                        .filter(|_| c.is_ascii_alphabetic())
                        .ok_or(err(SfenErrorKind::UnknownPiece(c), at))?;
                    let kind = match plus_at.take() {
                        Some(_) => kind
                            .promoted()
                            .ok_or(err(SfenErrorKind::BadPromotion(c), at))?,
                        None => kind,
                    };
                    if squares < 9 {
                        let color = if c.is_ascii_uppercase() {
                            Color::Black
                        } else {
                            Color::White
                        };
                        let sq =
                            Square::new(9 - squares as u8, rank).expect("file and rank in range");
                        pos.set_piece(sq, Some(Piece::new(color, kind)));
                    }
                    squares += 1;
                }
            }
        }
        if let Some(at) = plus_at {
            return Err(err(SfenErrorKind::BadPromotion('+'), at));
        }
        if squares != 9 {
            return Err(err(SfenErrorKind::BadRankLength { rank, squares }, off));
        }
        off += rank_text.len() + 1;
    }
    Ok(())
}

fn parse_hand(pos: &mut Position, hand: &str, base: usize) -> Result<(), SfenError> {
    if hand == "-" {
        return Ok(());
    }
    let bytes = hand.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let token_end = (i + 1).min(bytes.len());
        let token = || String::from_utf8_lossy(&bytes[start..token_end]).into_owned();
        let bad = || err(SfenErrorKind::BadHandToken(token()), base + start);
        let count: u32 = if i == start {
            1
        } else {
            hand[start..i].parse().map_err(|_| bad())?
        };
        if i >= bytes.len() || count == 0 || count > MAX_HAND_COUNT {
            return Err(bad());
        }
        let c = bytes[i];
        if c.eq_ignore_ascii_case(&b'k') {
            return Err(err(SfenErrorKind::KingInHand, base + i));
        }
        let kind = PieceKind::from_usi_letter(c.to_ascii_uppercase() as char)
            .filter(|k| k.is_hand_kind() && c.is_ascii_alphabetic())
            .ok_or_else(bad)?;
        let color = if c.is_ascii_uppercase() {
            Color::Black
        } else {
            Color::White
        };
        let total = pos.hand(color).count(kind) as u32 + count;
        if total > MAX_HAND_COUNT {
            return Err(bad());
        }
        pos.set_hand_count(color, kind, total as u8);
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(s: &str) -> (SfenErrorKind, usize) {
        let e = Position::from_sfen(s).unwrap_err();
        (e.kind, e.column)
    }

    #[test]
    fn errors_name_kind_and_column() {
        use SfenErrorKind::*;
        assert_eq!(kind_of(""), (Empty, 1));
        assert_eq!(
            kind_of("4k4/9/9/9/9/9/9/9/4K4"),
            (MissingField("side to move"), 22)
        );
        assert_eq!(
            kind_of("4k4/9/9/9/9/9/9/9/4K4 b"),
            (MissingField("hand"), 24)
        );
        assert_eq!(
            kind_of("4k3/9/9/9/9/9/9/9/4K4 b - 1").0,
            BadRankLength {
                rank: 1,
                squares: 8
            }
        );
        assert_eq!(
            kind_of("4k5/9/9/9/9/9/9/9/4K4 b - 1").0,
            BadRankLength {
                rank: 1,
                squares: 10
            }
        );
        assert_eq!(kind_of("4k4/9/9/9/9/9/9/4K4 b - 1"), (BadRankCount(8), 1));
        assert_eq!(kind_of("4k4/9/9/9/9/9/9/9/4K4/9 b - 1").0, BadRankCount(10));
        assert_eq!(
            kind_of("4x4/9/9/9/9/9/9/9/4K4 b - 1"),
            (UnknownPiece('x'), 2)
        );
        assert_eq!(
            kind_of("4+k4/9/9/9/9/9/9/9/4K4 b - 1"),
            (BadPromotion('k'), 3)
        );
        assert_eq!(
            kind_of("4k4/9/9/9/9/9/9/9/4K4 x - 1"),
            (BadSide("x".into()), 23)
        );
        assert_eq!(
            kind_of("4k4/9/9/9/9/9/9/9/4K4 b 2 1"),
            (BadHandToken("2".into()), 25)
        );
        assert_eq!(kind_of("4k4/9/9/9/9/9/9/9/4K4 b K 1"), (KingInHand, 25));
        assert_eq!(
            kind_of("4k4/9/9/9/9/9/9/9/4K4 b P0p 1"),
            (BadHandToken("0p".into()), 26)
        );
        assert_eq!(
            kind_of("4k4/9/9/9/9/9/9/9/4K4 b - x"),
            (BadMoveNumber("x".into()), 27)
        );
        assert_eq!(
            kind_of("4k4/9/9/9/9/9/9/9/4K4 b - 1 junk"),
            (TrailingJunk("junk".into()), 29)
        );
        assert_eq!(kind_of("4k4/9/9/9/9/9/9/9/4K4+ b - 1").0, BadPromotion('+'));
        assert_eq!(kind_of("4k4/9/9/9/9/9/9/9/4Ké3 b - 1").0, UnknownPiece('é'));
    }

    #[test]
    fn hands_in_any_order_with_multi_digit_counts() {
        let p = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b p2r10P 1").unwrap();
        assert_eq!(p.hand(Color::Black).count(PieceKind::Pawn), 10);
        assert_eq!(p.hand(Color::White).count(PieceKind::Rook), 2);
        assert_eq!(p.to_sfen(), "4k4/9/9/9/9/9/9/9/4K4 b 10P2rp 1");
        let no_number = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 w -").unwrap();
        assert_eq!(no_number.move_number(), 1);
    }
}
