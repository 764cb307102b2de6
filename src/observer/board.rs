//! The position the engine was given, tracked from every `position` line sent.

use super::misread::{MisreadBoards, Reading, rejected_form_rule};
use crate::shogi::{InvalidReason, Position, Strictness, position_after, validate};
use crate::usi::{BestMove, Command, MoveToken, PositionCommand, StartPosition};

/// The current position (from the last `position` line) and the position of the outstanding
/// `go`, so that "legal" always means legal where the engine was asked to search, ponder
/// positions included.
#[derive(Clone, Debug, Default)]
pub struct Board {
    /// The last `position` line as sent.
    line: Option<String>,
    /// Its position; `None` when the line was malformed or illegal on purpose.
    current: Option<Position>,
    /// The position of the last `go`.
    searched: Option<Position>,
    /// The position of the `go` before it, for replies read before the last `go` was sent.
    previous: Option<Position>,
    /// The positions of the `go`s before `previous`, latest first (a few): a search `gameover`
    /// did not end may answer after several later `go`s it kept the engine from reading.
    earlier: Vec<Position>,
    /// What the engine may have read from the last `position` line instead of `current`.
    reading: Reading,
    /// The same for the last `go`'s position, `searched`.
    searched_reading: Reading,
    /// The last `position` line in no optional form an engine may reject
    /// ([`rejected_form_rule`]), with its position: what an engine that rejects such forms
    /// still holds after several of them.
    last_plain: Option<(String, Position)>,
}

/// How many searches before the previous one [`Board::abandoned_board`] looks back over.
const EARLIER_KEPT: usize = 4;

/// What an engine holds before its first `position`, as a stale reply's reason names it.
const STARTPOS_HELD: &str = "position startpos (no `position` sent before)";

impl Board {
    /// Follows a command sent to the engine.
    pub fn on_send(&mut self, command: &Command, line: &str) {
        match command {
            Command::Position(position) => {
                // Before the first `position`, an engine holds the start position; one that
                // rejects a form still holds the last position not in that form.
                let first = || (STARTPOS_HELD.to_owned(), Position::startpos());
                let optional_form = rejected_form_rule(position).is_some();
                let held = match self.line.take() {
                    _ if optional_form => Some(self.last_plain.clone().unwrap_or_else(first)),
                    Some(line) => self.current.take().map(|current| (line, current)),
                    None => Some(first()),
                };
                self.line = Some(line.trim().to_owned());
                self.current = resolve(position);
                if !optional_form && let Some(current) = &self.current {
                    self.last_plain = Some((line.trim().to_owned(), current.clone()));
                }
                // A line the reference rules reject leaves nothing to misread.
                self.reading = match self.current {
                    Some(_) => Reading::new(position, held),
                    None => Reading::default(),
                };
            }
            Command::Go(_) => {
                let previous = std::mem::replace(&mut self.searched, self.current.clone());
                if let Some(older) = std::mem::replace(&mut self.previous, previous) {
                    self.earlier.insert(0, older);
                    self.earlier.truncate(EARLIER_KEPT);
                }
                self.searched_reading = self.reading.clone();
            }
            _ => {}
        }
    }

    /// The side to move in the position the engine was last given, when it is legal.
    pub fn side_to_move(&self) -> Option<crate::shogi::Color> {
        self.current.as_ref().map(Position::side_to_move)
    }

    /// The last `position` line sent.
    pub fn line(&self) -> Option<&str> {
        self.line.as_deref()
    }

    /// The position of the outstanding (or last) `go`, when it is a legal position.
    pub fn searched(&self) -> Option<&Position> {
        self.searched.as_ref()
    }

    /// The position of the last `go`, or of the one before when a line answers that one.
    pub fn searched_by(&self, previous: bool) -> Option<&Position> {
        if previous {
            self.previous.as_ref()
        } else {
            self.searched.as_ref()
        }
    }

    /// The boards the engine may have misread for the last `go` (none for a reply to the one
    /// before, `previous`).
    pub fn misread_by(&self, previous: bool) -> MisreadBoards<'_> {
        if previous {
            MisreadBoards::none()
        } else {
            MisreadBoards::new(Some(&self.searched_reading), self.searched.as_ref())
        }
    }

    /// The position of an earlier search (the previous one's, or one before it) in which the
    /// reply `best` is legal while it is not in the last search's: the search it answers.
    pub fn abandoned_board(&self, best: &BestMove) -> Option<&Position> {
        if self.searched.as_ref().is_none_or(|p| fits(p, best)) {
            return None;
        }
        self.previous
            .iter()
            .chain(&self.earlier)
            .find(|p| fits(p, best))
    }
}

/// Whether a reply's move, and its ponder move if it has one, are legal in `position`.
fn fits(position: &Position, best: &BestMove) -> bool {
    let MoveToken::Move(mv) = best.best else {
        return false;
    };
    position.is_legal(mv)
        && match best.ponder {
            None => true,
            Some(MoveToken::Move(ponder)) => position.after(mv).is_legal(ponder),
            Some(_) => false,
        }
}

/// The position a `position` command describes; `None` when it is malformed or illegal, or
/// when a side has two kings (which one is in check, and so which moves are legal, is then
/// undefined: no move of the engine can be judged).
///
/// ```
/// use usicheck::observer::resolve;
/// use usicheck::usi::Command;
/// let Command::Position(p) = Command::parse("position startpos moves 7g7f") else { panic!() };
/// assert!(resolve(&p).is_some());
/// let Command::Position(p) = Command::parse("position startpos moves 7g7f 7g7f") else { panic!() };
/// assert!(resolve(&p).is_none());
/// let Command::Position(p) = Command::parse("position sfen 4k4/9/9/9/9/9/9/4K4/4K4 b - 1") else { panic!() };
/// assert!(resolve(&p).is_none());
/// ```
pub fn resolve(position: &PositionCommand) -> Option<Position> {
    if position.unparsed.is_some() {
        return None;
    }
    let base = match &position.start {
        StartPosition::Startpos => "startpos".to_owned(),
        StartPosition::Sfen(sfen) => format!("sfen {sfen}"),
    };
    let moves: Vec<String> = position
        .moves
        .iter()
        .flatten()
        .map(ToString::to_string)
        .collect();
    let position = position_after(&base, &moves).ok()?;
    let two_kings = validate(&position, Strictness::Lenient).is_err_and(|reasons| {
        reasons
            .iter()
            .any(|r| matches!(r, InvalidReason::TooManyKings { .. }))
    });
    (!two_kings).then_some(position)
}

/// `line` (a `position` command) with `moves` appended, adding the `moves` keyword if needed.
///
/// ```
/// use usicheck::observer::append_moves;
/// assert_eq!(append_moves("position startpos", &["7g7f"]), "position startpos moves 7g7f");
/// assert_eq!(append_moves("position startpos moves 7g7f", &["3c3d"]), "position startpos moves 7g7f 3c3d");
/// ```
pub fn append_moves(line: &str, moves: &[&str]) -> String {
    let mut out = line.trim_end().to_owned();
    if !out.split_whitespace().any(|token| token == "moves") {
        out.push_str(" moves");
    }
    for mv in moves {
        out.push(' ');
        out.push_str(mv);
    }
    out
}
