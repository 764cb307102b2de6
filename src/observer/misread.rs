//! The diagnosis of a misread position: a reply that is illegal in the position the engine was
//! given but legal on a board it may have read instead is evidence that it misread the
//! `position` line, not that its move generator is broken.
//!
//! These misreadings are looked for, for the search the reply belongs to: the SFEN board with
//! its files mirrored (9 read as 1); the SFEN hands with their counts misread (each count of 2
//! or more read as 1, or as its last digit); the SFEN's White to move read as Black; the moves
//! that decline a promotion skipped; the moves beyond the previous line's count played on the
//! previous board (continuity assumed); and the previous position kept (the engine rejected the
//! last `position` line). Reading fewer pieces in hand only takes moves away, so a hand misread
//! shows in a mate claim (a `checkmate` line that mates only when the defender holds fewer
//! pieces), not in a single move. A reply that is also legal with the side to move read wrong
//! proves none of the others.

use crate::shogi::Color;

use crate::rules::RuleId;
use crate::shogi::mate::{self, Limits, MateLineError};
use crate::shogi::{Move, Position};
use crate::usi::{MoveToken, PositionCommand, StartPosition};
use std::cell::OnceCell;

/// The rules the observer charges a misreading to when no scenario step names one: reading
/// the `sfen` form (USI-POSITION-001, the board) and its hands (USI-POSITION-004), and the
/// optional forms whose rejection leaves the position before in place
/// ([`rejected_form_rule`]).
pub const MISREAD_RULES: [RuleId; 8] = [
    crate::rule!("USI-POSITION-001"),
    crate::rule!("USI-POSITION-004"),
    crate::rule!("USI-POSITION-005"),
    crate::rule!("USI-POSITION-007"),
    crate::rule!("USI-POSITION-008"),
    crate::rule!("USI-POSITION-002"),
    crate::rule!("USI-POSITION-003"),
    crate::rule!("USI-MATE-009"),
];

/// A way an engine may have read the position it was given.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Misreading {
    /// The SFEN board with its files read right to left (9 as 1).
    MirroredFiles,
    /// The SFEN hands with every count of 2 or more read as 1.
    HandCountsAsOne,
    /// The SFEN hands with every count read as its last digit (`18p` as `8p`, `10p` as none).
    HandCountsLastDigit,
    /// The SFEN's `w` ignored: Black to move.
    BlackToMove,
    /// The moves of the list that decline a promotion they could make skipped (`8h2b` read as
    /// no move).
    NonPromotionsSkipped,
    /// The previous position kept and only the moves beyond the previous line's count played
    /// on it, the line assumed to continue the one before (same base).
    ContinuityAssumed,
    /// The position of the `position` line before: the last one was rejected and the previous
    /// one kept.
    Stale,
}

impl Misreading {
    /// The rule the observer charges this misreading to when the running step names none:
    /// `None` for a stale position, whose cause (what the engine rejected) depends on the
    /// line rejected ([`Diagnosis::rule`]).
    pub fn rule(self) -> Option<RuleId> {
        match self {
            Misreading::MirroredFiles => Some(crate::rule!("USI-POSITION-001")),
            Misreading::HandCountsAsOne | Misreading::HandCountsLastDigit => {
                Some(crate::rule!("USI-POSITION-004"))
            }
            Misreading::BlackToMove => Some(crate::rule!("USI-POSITION-005")),
            Misreading::NonPromotionsSkipped => Some(crate::rule!("USI-POSITION-007")),
            Misreading::ContinuityAssumed => Some(crate::rule!("USI-POSITION-008")),
            Misreading::Stale => None,
        }
    }

    /// Where the reply is legal, for a verdict's reason ("… but legal {where}").
    fn board_named(self) -> &'static str {
        match self {
            Misreading::MirroredFiles => "with the SFEN board's files mirrored (9 read as 1)",
            Misreading::HandCountsAsOne => "with the SFEN hand counts of 2 or more read as 1",
            Misreading::HandCountsLastDigit => {
                "with the SFEN hand counts read as their last digit (18 as 8, 10 as none)"
            }
            Misreading::BlackToMove => "with the SFEN's White to move read as Black to move",
            Misreading::NonPromotionsSkipped => "with the moves that decline a promotion skipped",
            Misreading::ContinuityAssumed => {
                "on the previous position with only the moves beyond its count played"
            }
            Misreading::Stale => "in the previous position",
        }
    }

    /// Whether the misreading changes where a drop is legal only through the pieces around
    /// it, so that a drop is no evidence of it: the mirror moves the pawn on its file and the
    /// king a pawn drop mates, not the drop's square; a drop legal for Black only is as well a
    /// move generator that drops from the wrong hand.
    fn moves_drops(self) -> bool {
        matches!(self, Misreading::MirroredFiles | Misreading::BlackToMove)
    }

    /// The misreadings charged once per session are told apart by this: the two hand readings
    /// are one misreading of the hands.
    fn kind(self) -> u8 {
        match self {
            Misreading::MirroredFiles => 0,
            Misreading::HandCountsAsOne | Misreading::HandCountsLastDigit => 1,
            Misreading::Stale => 2,
            Misreading::BlackToMove => 3,
            Misreading::NonPromotionsSkipped => 4,
            Misreading::ContinuityAssumed => 5,
        }
    }
}

/// A misreading that explains an illegal reply, with the board it was read on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnosis {
    pub misreading: Misreading,
    /// The `position` line the engine kept, for [`Misreading::Stale`].
    previous_line: Option<String>,
    /// For [`Misreading::Stale`]: the rule of the optional form the rejected line used, when
    /// it used one ([`rejected_form_rule`]).
    rejected_form: Option<RuleId>,
    /// Whether the reply is also legal on the real board with the other side to move, which
    /// the reason then says: a rival explanation, so only kept in a step about reading the
    /// position, whose rule it is charged to. For [`Misreading::BlackToMove`], whether it is
    /// also legal in the previous position: no rival, since either way the line's White to
    /// move was not taken (USI-POSITION-005).
    also_other_side: bool,
}

impl Diagnosis {
    /// The rule the observer charges this diagnosis to when the running step names none.
    pub fn rule(&self) -> Option<RuleId> {
        self.misreading.rule().or(self.rejected_form)
    }

    /// The rule of the misreading itself, when the reply fits no rival reading: it is charged
    /// there even while a step names another rule for reading the position (that one is for
    /// a stale position, whose cause is the form the step sent, or a reply two readings fit).
    pub fn named_rule(&self) -> Option<RuleId> {
        let rival = self.also_other_side && self.misreading != Misreading::BlackToMove;
        self.misreading.rule().filter(|_| !rival)
    }

    /// How the reply is explained, to follow "`X` is illegal here but legal".
    ///
    /// ```
    /// use usicheck::observer::{Diagnosis, Misreading};
    /// let mirrored = Diagnosis::of(Misreading::MirroredFiles);
    /// assert_eq!(mirrored.explained(), "with the SFEN board's files mirrored (9 read as 1)");
    /// ```
    pub fn explained(&self) -> String {
        let board = match &self.previous_line {
            Some(line) => format!(
                "{} (`{}`): the engine kept it, as if it had rejected the last `position`",
                self.misreading.board_named(),
                crate::quote::quote(line)
            ),
            None => self.misreading.board_named().to_owned(),
        };
        if self.also_other_side && self.misreading == Misreading::BlackToMove {
            format!("{board}, and in the previous position")
        } else if self.also_other_side {
            format!("{board}, and on the board given with the other side to move")
        } else {
            board
        }
    }

    /// A diagnosis of `misreading` without the line it kept.
    pub fn of(misreading: Misreading) -> Diagnosis {
        Diagnosis {
            misreading,
            previous_line: None,
            rejected_form: None,
            also_other_side: false,
        }
    }
}

/// What the engine may have read for one search: the `position` command sent, and the one
/// before it with its position (what an engine that rejected the command still holds).
#[derive(Clone, Debug, Default)]
pub struct Reading {
    sent: Option<PositionCommand>,
    previous: Option<(String, Position)>,
}

impl Reading {
    /// The reading of `sent` (the `position` command), after `previous` (the line and position
    /// the engine held before it, when known).
    pub fn new(sent: &PositionCommand, previous: Option<(String, Position)>) -> Reading {
        Reading {
            sent: Some(sent.clone()),
            previous,
        }
    }

    /// The boards the engine may have searched instead of `given` (the position the command
    /// describes), each with its misreading; only those that differ from `given`.
    fn boards(&self, given: &Position) -> Vec<(Diagnosis, Position)> {
        let mut boards: Vec<(Diagnosis, Position)> = Vec::new();
        if let Some(sent) = &self.sent {
            let misread = [
                Misreading::MirroredFiles,
                Misreading::HandCountsAsOne,
                Misreading::HandCountsLastDigit,
                Misreading::BlackToMove,
                Misreading::NonPromotionsSkipped,
            ]
            .into_iter()
            .filter_map(|misreading| Some((misreading, misread_line(sent, misreading)?)));
            let continued = (self.previous.as_ref())
                .and_then(|(line, board)| continued(sent, line, board))
                .map(|board| (Misreading::ContinuityAssumed, board));
            for (misreading, board) in misread.chain(continued) {
                if board != *given && boards.iter().all(|(_, b)| *b != board) {
                    boards.push((Diagnosis::of(misreading), board));
                }
            }
        }
        if let Some((line, board)) = &self.previous
            && board != given
        {
            let diagnosis = Diagnosis {
                misreading: Misreading::Stale,
                previous_line: Some(line.clone()),
                rejected_form: self.sent.as_ref().and_then(rejected_form_rule),
                also_other_side: false,
            };
            boards.push((diagnosis, board.clone()));
        }
        boards
    }
}

/// The rule of the optional form `sent` uses that an engine may reject (and then answer from
/// the position before): a tsume board without the attacker's king (USI-MATE-009), an SFEN
/// without its move count (USI-POSITION-002), `moves` followed by nothing (USI-POSITION-003).
///
/// ```
/// use usicheck::observer::rejected_form_rule;
/// use usicheck::usi::Command;
/// let rule = |line| match Command::parse(line) {
///     Command::Position(p) => rejected_form_rule(&p),
///     _ => unreachable!(),
/// };
/// let kingless = "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";
/// assert_eq!(rule(kingless), Some(usicheck::rule!("USI-MATE-009")));
/// assert_eq!(rule("position sfen 4k4/9/9/9/9/9/9/9/4K4 b 2r2b4g4s4n4l18p"), Some(usicheck::rule!("USI-POSITION-002")));
/// assert_eq!(rule("position startpos moves"), Some(usicheck::rule!("USI-POSITION-003")));
/// assert_eq!(rule("position startpos moves 7g7f"), None);
/// ```
pub fn rejected_form_rule(sent: &PositionCommand) -> Option<RuleId> {
    if sent.moves.as_ref().is_some_and(Vec::is_empty) {
        return Some(crate::rule!("USI-POSITION-003"));
    }
    let StartPosition::Sfen(sfen) = &sent.start else {
        return None;
    };
    let board = Position::from_sfen(sfen).ok()?;
    if board.king_square(board.side_to_move()).is_none() {
        Some(crate::rule!("USI-MATE-009"))
    } else if sfen.split_whitespace().count() == 3 {
        Some(crate::rule!("USI-POSITION-002"))
    } else {
        None
    }
}

/// The position an engine that misreads `sent` as `misreading` says sets up, its moves played;
/// `None` when the misreading needs what the command lacks (an SFEN, a non-promotion), or the
/// moves are illegal on the misread board (such an engine rejects the line: that is
/// [`Misreading::Stale`]).
fn misread_line(sent: &PositionCommand, misreading: Misreading) -> Option<Position> {
    let base = match &sent.start {
        StartPosition::Sfen(sfen) => Position::from_sfen(sfen).ok()?,
        StartPosition::Startpos => Position::startpos(),
    };
    let sfen = matches!(sent.start, StartPosition::Sfen(_));
    let mut board = match misreading {
        Misreading::MirroredFiles if sfen => base.mirrored_files(),
        Misreading::HandCountsAsOne if sfen => base.with_hand_counts(|n| n.min(1)),
        Misreading::HandCountsLastDigit if sfen => base.with_hand_counts(|n| n % 10),
        Misreading::BlackToMove if sfen && base.side_to_move() == Color::White => {
            let mut black = base;
            black.set_side_to_move(Color::Black);
            black
        }
        Misreading::NonPromotionsSkipped => base,
        _ => return None,
    };
    let mut skipped = false;
    for &mv in sent.moves.iter().flatten() {
        if misreading == Misreading::NonPromotionsSkipped && declines_promotion(&board, mv) {
            skipped = true;
            continue;
        }
        if !board.is_legal(mv) {
            return None;
        }
        board.play_unchecked(mv);
    }
    (misreading != Misreading::NonPromotionsSkipped || skipped).then_some(board)
}

/// Whether `mv` is a legal move that declines a promotion it could make.
fn declines_promotion(board: &Position, mv: Move) -> bool {
    match mv {
        Move::Normal {
            from,
            to,
            promote: false,
        } => {
            board.is_legal(mv)
                && board.is_legal(Move::Normal {
                    from,
                    to,
                    promote: true,
                })
        }
        _ => false,
    }
}

/// The position an engine that assumes `sent` continues `previous_line` (whose position it
/// holds, `held`) sets up: the moves beyond the previous line's count played on `held`. `None`
/// unless both lines have the same base, or when a move is illegal there. With no move beyond
/// the count, the board is `held`: the board [`Misreading::Stale`] names too, but a line with
/// the base the engine read last, in no optional form ([`rejected_form_rule`]), gives it no
/// cause to reject it, so keeping its board is assuming continuity.
fn continued(sent: &PositionCommand, previous_line: &str, held: &Position) -> Option<Position> {
    let crate::usi::Command::Position(previous) = crate::usi::Command::parse(previous_line) else {
        return None;
    };
    let moves = sent.moves.as_deref().unwrap_or_default();
    let before = previous.moves.as_deref().unwrap_or_default();
    if previous.start != sent.start {
        return None;
    }
    if moves.len() <= before.len() {
        return rejected_form_rule(sent).is_none().then(|| held.clone());
    }
    let mut board = held.clone();
    for &mv in &moves[before.len()..] {
        if !board.is_legal(mv) {
            return None;
        }
        board.play_unchecked(mv);
    }
    Some(board)
}

/// The misread boards of one search, worked out only when a reply is illegal.
pub struct MisreadBoards<'a> {
    reading: Option<&'a Reading>,
    given: Option<&'a Position>,
    boards: OnceCell<Vec<(Diagnosis, Position)>>,
    /// Whether the reply is judged for a step about reading the position, where the side to
    /// move read wrong is a misreading too, not a rival explanation (see [`Self::find`]).
    reading_step: bool,
}

impl<'a> MisreadBoards<'a> {
    /// The boards `reading` offers instead of `given`; none without a reading (a reply to an
    /// earlier search, or a test).
    pub fn new(reading: Option<&'a Reading>, given: Option<&'a Position>) -> MisreadBoards<'a> {
        MisreadBoards {
            reading,
            given,
            boards: OnceCell::new(),
            reading_step: false,
        }
    }

    /// The same boards, judged for a step whose rule is reading the position right.
    pub fn in_reading_step(self, reading_step: bool) -> MisreadBoards<'a> {
        MisreadBoards {
            reading_step,
            ..self
        }
    }

    /// No misread board: every illegal reply stays illegal.
    pub fn none() -> MisreadBoards<'static> {
        MisreadBoards::new(None, None)
    }

    fn boards(&self) -> &[(Diagnosis, Position)] {
        self.boards
            .get_or_init(|| match (self.reading, self.given) {
                (Some(reading), Some(given)) => reading.boards(given),
                _ => Vec::new(),
            })
    }

    /// The first misreading on whose board `legal` holds. `evidence` is the first move that is
    /// illegal on the real board: a drop is no evidence of a mirrored board or of the side to
    /// move misread ([`Misreading::moves_drops`]). A reply also legal on the real board with the other side to
    /// move is no evidence either: the moves of one side fit many boards (a king move of the
    /// side not to move is often legal in the position before), and reading the side to move
    /// wrong explains it as well, except in a step about reading the position, where both are
    /// misreadings of it (an engine that ignores `moves 5g5f` answers for the side that was to
    /// move before it, and its replies are often legal on the real board with that side to
    /// move).
    fn find(&self, evidence: Option<Move>, legal: impl Fn(&Position) -> bool) -> Option<Diagnosis> {
        let drop = evidence.is_some_and(Move::is_drop);
        let mut explaining = (self.boards().iter())
            .filter(|(d, _)| !(drop && d.misreading.moves_drops()))
            .filter(|(_, board)| legal(board));
        let mut found = explaining.next().map(|(d, _)| d.clone())?;
        if found.misreading == Misreading::BlackToMove {
            // The side to move read wrong is this misreading itself. A board after it may fit
            // too (the previous position kept, where Black was to move), which the reason
            // says; either way the engine did not take the line's White to move.
            found.also_other_side = explaining.next().is_some();
            return Some(found);
        }
        let mut other_side = self.given?.clone();
        other_side.set_side_to_move(!other_side.side_to_move());
        found.also_other_side = self.side_can_be_misread() && legal(&other_side);
        (self.reading_step || !found.also_other_side).then_some(found)
    }

    /// Whether the line sent has a side to move to read wrong: an SFEN's, or the one its moves
    /// lead to. `position startpos` alone has neither; a reply for White there shows a board
    /// kept, not a side misread.
    fn side_can_be_misread(&self) -> bool {
        self.reading
            .and_then(|r| r.sent.as_ref())
            .is_none_or(|sent| {
                matches!(sent.start, StartPosition::Sfen(_))
                    || sent.moves.as_ref().is_some_and(|m| !m.is_empty())
            })
    }

    /// A diagnosis of `mv`, illegal on the real board.
    pub fn of_move(&self, mv: Move) -> Option<Diagnosis> {
        self.find(Some(mv), |board| board.is_legal(mv))
    }

    /// A diagnosis of `ponder`, illegal after `best` on the real board: both legal in turn on a
    /// misread board.
    pub fn of_ponder(&self, best: Move, ponder: Move) -> Option<Diagnosis> {
        self.find(Some(ponder), |board| {
            board.is_legal(best) && board.after(best).is_legal(ponder)
        })
    }

    /// A diagnosis of `moves` (a `pv`), illegal from the real board: a legal sequence from a
    /// misread board, up to its first special token.
    pub fn of_sequence(&self, real: &Position, moves: &[MoveToken]) -> Option<Diagnosis> {
        let evidence = first_illegal(real, moves);
        self.find(evidence, |board| first_illegal(board, moves).is_none())
    }

    /// A diagnosis of a mating `line` that `failure` refutes on the real board: it mates on a
    /// misread board, as verified with `limits`.
    pub fn of_mate(
        &self,
        line: &[Move],
        failure: &MateLineError,
        limits: &Limits,
    ) -> Option<Diagnosis> {
        let evidence = match failure {
            MateLineError::IllegalMove { mv, .. } => Some(*mv),
            _ => None,
        };
        self.find(evidence, |board| mate::verify(board, line, limits).is_ok())
    }
}

/// The first move of `moves` that is illegal in turn from `position`, up to the first special
/// token.
fn first_illegal(position: &Position, moves: &[MoveToken]) -> Option<Move> {
    let mut pos = position.clone();
    for token in moves {
        let MoveToken::Move(mv) = token else {
            return None;
        };
        if !pos.is_legal(*mv) {
            return Some(*mv);
        }
        pos.play_unchecked(*mv);
    }
    None
}

/// The misreadings already charged to a position rule in one session: each is charged once,
/// at the first line that shows it.
#[derive(Clone, Debug, Default)]
pub struct Shown {
    kinds: Vec<u8>,
}

impl Shown {
    /// Records `misreading` as charged; whether it is the first time this session.
    pub fn first(&mut self, misreading: Misreading) -> bool {
        let kind = misreading.kind();
        if self.kinds.contains(&kind) {
            false
        } else {
            self.kinds.push(kind);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usi::Command;

    /// The misreadings of `line` (a `position` command) sent after `previous`.
    fn misreadings(line: &str, previous: Option<&str>) -> Vec<Misreading> {
        let position = |line: &str| match Command::parse(line) {
            Command::Position(p) => p,
            other => panic!("{other:?}"),
        };
        let sent = position(line);
        let given = crate::observer::resolve(&sent).expect("a legal position");
        let held = previous.map(|l| {
            (
                l.to_owned(),
                crate::observer::resolve(&position(l)).unwrap(),
            )
        });
        let reading = Reading::new(&sent, held);
        reading
            .boards(&given)
            .into_iter()
            .map(|(d, _)| d.misreading)
            .collect()
    }

    #[test]
    fn only_boards_that_differ_from_the_one_given_are_misread_boards() {
        use Misreading::*;
        let asymmetric = "position sfen 8k/9/9/9/9/9/9/P8/KL7 b - 1";
        assert_eq!(misreadings(asymmetric, None), [MirroredFiles]);
        // Mirrored, the lance stands on 2i: 9i9h is not a move there, the line is rejected.
        assert_eq!(misreadings(&format!("{asymmetric} moves 9h9g"), None), []);
        assert_eq!(misreadings("position startpos", None), []);
        let symmetric = "position sfen 4k4/9/9/9/9/9/9/9/4K4 b 2P10p 1";
        assert_eq!(
            misreadings(symmetric, Some("position startpos")),
            [HandCountsAsOne, HandCountsLastDigit, Stale]
        );
        // `11p` read as its last digit or as 1 is the same board, offered once.
        let eleven = "position sfen 4k4/9/9/9/9/9/9/9/4K4 b 11p 1";
        assert_eq!(misreadings(eleven, None), [HandCountsAsOne]);
        assert_eq!(misreadings(eleven, Some(eleven)), [HandCountsAsOne]);
    }
}
