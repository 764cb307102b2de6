//! Reads a CSA file as openings, one per game (games are separated by a line `/`): each
//! game's start (`PI` with the pieces a handicap removes, the ranks `P1`…`P9`, pieces placed
//! by `P+`/`P-` with `00` for the hand and `00AL` for the rest, then `+` or `-` to move) and
//! its moves up to the end (`%TORYO`, …), every move checked by the reference rules.

use super::moves::Line;
use super::notation::{csa_sign, kind_of_csa};
use super::read::ReadError;
use crate::play::Opening;
use crate::shogi::{Color, Move, Piece, PieceKind, Position, Square};

/// One game of the file as it is read.
#[derive(Default)]
struct Game {
    /// The board and hands set up so far (`None` until a `PI`, `P1`… or `P+`/`P-` line).
    setup: Option<Position>,
    line: Option<Line>,
    /// A `%` line ended the moves.
    ended: bool,
}

/// The openings of a CSA file's `text`, one per game; an error names the line (from 1).
///
/// ```
/// use usicheck::play::record::read_csa;
/// let csa = "V2.2\nPI82HI\n-\n-5142OU\n+7776FU\n%TORYO\n/\nPI\n+\n+2726FU\nT3\n";
/// let openings = read_csa(csa).unwrap();
/// assert!(openings[0].base.starts_with("sfen lnsgkgsnl/7b1/"));
/// assert_eq!(openings[0].moves, ["5a4b", "7g7f"]);
/// assert_eq!((openings[1].base.as_str(), openings[1].moves.len()), ("startpos", 1));
/// assert_eq!(read_csa("PI\n+\n+7775FU\n").unwrap_err().to_string(), "line 3: `+7775FU` (7g7e) is illegal in lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
/// ```
pub fn read_csa(text: &str) -> Result<Vec<Opening>, ReadError> {
    let mut openings = Vec::new();
    let mut game = Game::default();
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let at = |message: String| ReadError::at(number, message);
        if raw.starts_with('\'') {
            continue;
        }
        // A line may hold several statements separated by commas (V2.2, 2.1); a player's
        // name or game information is one statement, commas and all.
        let statements: Vec<&str> = if raw.starts_with(['N', '$']) {
            vec![raw]
        } else {
            raw.split(',').collect()
        };
        for statement in statements {
            if statement.trim_end() == "/" {
                openings.extend(std::mem::take(&mut game).finish().map_err(at)?);
                continue;
            }
            game.statement(statement).map_err(at)?;
        }
    }
    openings.extend(
        game.finish()
            .map_err(|e| ReadError::at(text.lines().count().max(1), e))?,
    );
    if openings.is_empty() {
        return Err(ReadError::at(
            1,
            "no game in it (no `+` or `-` to move)".into(),
        ));
    }
    Ok(openings)
}

impl Game {
    fn statement(&mut self, statement: &str) -> Result<(), String> {
        let Some(first) = statement
            .chars()
            .next()
            .filter(|_| !statement.trim().is_empty())
        else {
            return Ok(());
        };
        // A rank's last empty square ends in a blank; the other statements may have blanks
        // after them.
        if first == 'P' {
            return self.position_line(statement);
        }
        let statement = statement.trim_end();
        match first {
            // Version, players, game information, time used.
            'V' | 'N' | '$' | 'T' => Ok(()),
            '%' => {
                self.ended = true;
                Ok(())
            }
            '+' | '-' if statement.len() == 1 => self.side_to_move(first),
            '+' | '-' if self.ended => Ok(()),
            '+' | '-' => self.play(statement),
            _ => Err(format!("`{statement}` is no CSA statement")),
        }
    }

    fn board(&mut self) -> Result<&mut Position, String> {
        if self.line.is_some() {
            return Err("the position is set up after the side to move".into());
        }
        Ok(self.setup.get_or_insert_with(Position::empty))
    }

    /// `PI…`, `P1`…`P9` or `P+…`/`P-…` (`raw`: a rank's blanks kept).
    fn position_line(&mut self, raw: &str) -> Result<(), String> {
        let statement = raw.trim_end();
        let bad = || format!("`{statement}` is no CSA position line");
        let rest = &statement[1..];
        if let Some(removed) = rest.strip_prefix('I') {
            let board = self.board()?;
            *board = Position::startpos();
            for chunk in chunks(removed, 4).ok_or_else(bad)? {
                let (square, kind) = square_and_kind(chunk).ok_or_else(bad)?;
                let square = square.ok_or_else(bad)?;
                if board.piece_at(square).map(|p| p.kind) != Some(kind) {
                    return Err(format!("`{statement}`: no {chunk} to remove"));
                }
                board.set_piece(square, None);
            }
            return Ok(());
        }
        if let Some(rank) = rest.chars().next().and_then(|c| c.to_digit(10)) {
            // The blank a writer may have trimmed off the last square.
            let row = format!("{:<27}", &raw[2..]);
            let cells = chunks(&row, 3).filter(|c| c.len() == 9).ok_or_else(bad)?;
            let board = self.board()?;
            for (column, cell) in cells.into_iter().enumerate() {
                let square = Square::new(9 - column as u8, rank as u8).ok_or_else(bad)?;
                let piece = match cell {
                    " * " => None,
                    _ => Some(piece(cell).ok_or_else(bad)?),
                };
                board.set_piece(square, piece);
            }
            return Ok(());
        }
        let color = sign(rest.chars().next().ok_or_else(bad)?).ok_or_else(bad)?;
        for chunk in chunks(&rest[1..], 4).ok_or_else(bad)? {
            if chunk == "00AL" {
                self.rest_to_hand(color)?;
                continue;
            }
            let (square, kind) = square_and_kind(chunk).ok_or_else(bad)?;
            let board = self.board()?;
            match square {
                Some(square) => board.set_piece(square, Some(Piece::new(color, kind))),
                None if kind.is_hand_kind() => {
                    let count = board.hand(color).count(kind);
                    board.set_hand_count(color, kind, count + 1);
                }
                None => return Err(format!("`{statement}`: a {kind:?} in hand")),
            }
        }
        Ok(())
    }

    /// `00AL`: every piece of the standard set not on the board nor in a hand goes to `color`'s
    /// hand.
    fn rest_to_hand(&mut self, color: Color) -> Result<(), String> {
        let board = self.board()?;
        for (kind, total) in [
            (PieceKind::Rook, 2),
            (PieceKind::Bishop, 2),
            (PieceKind::Gold, 4),
            (PieceKind::Silver, 4),
            (PieceKind::Knight, 4),
            (PieceKind::Lance, 4),
            (PieceKind::Pawn, 18),
        ] {
            let on_board = Square::all()
                .filter_map(|sq| board.piece_at(sq))
                .filter(|p| p.kind.unpromoted() == kind)
                .count();
            let held = Color::ALL
                .iter()
                .map(|&c| usize::from(board.hand(c).count(kind)))
                .sum::<usize>();
            let rest = total - (on_board + held).min(total);
            let count = board.hand(color).count(kind);
            board.set_hand_count(color, kind, count + rest as u8);
        }
        Ok(())
    }

    /// `+` or `-` alone: the side to move, which ends the start position.
    fn side_to_move(&mut self, sign_char: char) -> Result<(), String> {
        if self.line.is_some() {
            return Err(format!("`{sign_char}` a second time"));
        }
        let mut start = self
            .setup
            .take()
            .ok_or("the side to move before any position line")?;
        start.set_side_to_move(sign(sign_char).expect("a sign"));
        self.line = Some(Line::new(start)?);
        Ok(())
    }

    /// A move, `+7776FU`: side, origin (`00` for a drop), destination, the piece after it.
    fn play(&mut self, statement: &str) -> Result<(), String> {
        let line = self
            .line
            .as_mut()
            .ok_or(format!("`{statement}` before the side to move"))?;
        let bad = || format!("`{statement}` is no CSA move");
        let side = sign(statement.chars().next().expect("a sign")).expect("a sign");
        let body = &statement[1..];
        if body.len() != 6 || !body.is_ascii() {
            return Err(bad());
        }
        let (from, to) = (square(&body[..2]).ok_or_else(bad)?, square(&body[2..4]));
        let to = to.flatten().ok_or_else(bad)?;
        let after = kind_of_csa(&body[4..]).ok_or_else(bad)?;
        let position = line.position();
        if side != position.side_to_move() {
            return Err(format!(
                "`{statement}`: it is {}'s move",
                csa_sign(position.side_to_move())
            ));
        }
        let (mv, named) = match from {
            None => (Move::Drop { kind: after, to }, None),
            Some(from) => {
                let before = position.piece_at(from).map(|p| p.kind);
                let promote = before.is_some_and(|b| b != after && b.promoted() == Some(after));
                let named = if promote { before } else { Some(after) };
                (Move::Normal { from, to, promote }, named)
            }
        };
        line.play(mv, named, statement)
    }

    /// The game's opening, if it set up a position.
    fn finish(self) -> Result<Option<Opening>, String> {
        match (self.line, self.setup) {
            (Some(line), _) => Ok(Some(line.into_opening())),
            (None, Some(_)) => Err("a position without `+` or `-` to move".into()),
            (None, None) => Ok(None),
        }
    }
}

/// `text` cut into pieces of `size` bytes, if it is ASCII and cuts evenly.
fn chunks(text: &str, size: usize) -> Option<Vec<&str>> {
    if !text.is_ascii() || !text.len().is_multiple_of(size) {
        return None;
    }
    Some(
        (0..text.len())
            .step_by(size)
            .map(|i| &text[i..i + size])
            .collect(),
    )
}

fn sign(c: char) -> Option<Color> {
    match c {
        '+' => Some(Color::Black),
        '-' => Some(Color::White),
        _ => None,
    }
}

/// A square, `77`; `Some(None)` for `00` (the hand).
fn square(text: &str) -> Option<Option<Square>> {
    let digits: Vec<u8> = text.bytes().map(|b| b.wrapping_sub(b'0')).collect();
    match digits[..] {
        [0, 0] => Some(None),
        [file, rank] => Square::new(file, rank).map(Some),
        _ => None,
    }
}

/// `82HI`: a square (or the hand) and a kind.
fn square_and_kind(chunk: &str) -> Option<(Option<Square>, PieceKind)> {
    Some((square(&chunk[..2])?, kind_of_csa(&chunk[2..])?))
}

/// `+FU`: a side and a kind.
fn piece(cell: &str) -> Option<Piece> {
    let color = sign(cell.chars().next()?)?;
    Some(Piece::new(color, kind_of_csa(&cell[1..])?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::record::csa;
    use crate::play::record::moves::game;

    /// Captures, promotions and a drop, from the start and from a position with hands.
    #[test]
    fn a_written_csa_reads_back_as_its_game() {
        let moves = [
            "7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "8c8d", "4e3d", "8d8e", "3d2c+", "2b2c",
        ];
        let base = "sfen 4k4/9/4P4/9/9/9/9/9/4K4 w 2Gr17p 1";
        for (base, moves) in [("startpos", &moves[..]), (base, &["5a4b", "G*4c"][..])] {
            let bytes = csa(&game(base, 1, moves), "engine, v1", "opponent");
            let text = String::from_utf8(bytes).expect("ASCII");
            let openings = read_csa(&text).unwrap();
            assert_eq!(openings.len(), 1);
            assert_eq!(openings[0].base, base);
            assert_eq!(openings[0].moves, moves);
        }
    }

    #[test]
    fn each_game_of_a_file_is_an_opening() {
        let first = String::from_utf8(csa(&game("startpos", 0, &["2g2f"]), "a", "b")).unwrap();
        let handicap = "sfen lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
        let second = String::from_utf8(csa(&game(handicap, 0, &["5a4b"]), "c", "d")).unwrap();
        // The second game set up as `PI` minus the bishop, several statements on one line.
        let file = format!("{first}/\nN+c\n \nPI22KA\n-\n-5142OU,T1\n%TORYO\n/\n{second}");
        let openings = read_csa(&file).unwrap();
        let read: Vec<(&str, Vec<String>)> = openings
            .iter()
            .map(|o| (o.base.as_str(), o.moves.clone()))
            .collect();
        assert_eq!(
            read,
            [
                ("startpos", vec!["2g2f".to_owned()]),
                (handicap, vec!["5a4b".to_owned()]),
                (handicap, vec!["5a4b".to_owned()]),
            ]
        );
    }

    #[test]
    fn pieces_placed_one_by_one_and_the_rest_in_hand() {
        let openings = read_csa("P-51OU\nP+59OU53KI\nP+00KI\nP-00AL\n+\n+0052KI\n").unwrap();
        assert_eq!(
            openings[0].base,
            "sfen 4k4/9/4G4/9/9/9/9/9/4K4 b G2r2b2g4s4n4l18p 1"
        );
        assert_eq!(openings[0].moves, ["G*5b"]);
    }

    #[test]
    fn malformed_files_name_the_line() {
        let error = |csa: &str| read_csa(csa).unwrap_err().to_string();
        assert_eq!(
            error("V2.2\nPI\n+\n+7776KE\n"),
            "line 4: `+7776KE`: the piece on 7g is a Pawn, not a Knight"
        );
        assert_eq!(
            error("PI\n+\n-3334FU\n"),
            "line 3: `-3334FU`: it is +'s move"
        );
        assert_eq!(error("PI\n+\n+77\n"), "line 3: `+77` is no CSA move");
        assert_eq!(
            error("PI\n+7776FU\n"),
            "line 2: `+7776FU` before the side to move"
        );
        assert_eq!(error("PI55KA\n+\n"), "line 1: `PI55KA`: no 55KA to remove");
        assert_eq!(
            error("P1 *  * \n"),
            "line 1: `P1 *  *` is no CSA position line"
        );
        assert_eq!(error("PI\nX\n"), "line 2: `X` is no CSA statement");
        assert_eq!(
            error("P-51OU\nP+59OU\n+\n/\nPI\n"),
            "line 5: a position without `+` or `-` to move"
        );
        assert_eq!(
            error("P-51OU\n+\n"),
            "line 2: the start position is not legal: black has no king"
        );
        assert_eq!(
            error("V2.2\n"),
            "line 1: no game in it (no `+` or `-` to move)"
        );
    }
}
