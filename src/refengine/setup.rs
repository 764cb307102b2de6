//! Turning a `position` command into the position to search, with the game's history; every
//! problem becomes a one-line reason for `info string error: …`.

use super::faults::{Fault, FaultSet};
use crate::shogi::{
    Color, Move, PieceKind, Position, Repetition, Strictness, promotion_zone, repetition_of,
    validate,
};
use crate::usi::{PositionCommand, StartPosition};

/// A position ready to search.
#[derive(Clone, Debug)]
pub struct Setup {
    pub position: Position,
    /// Keys of the positions before the current one, oldest first.
    pub history: Vec<u64>,
    /// Whether the side to move was in check in each of `history`'s positions (for
    /// perpetual check, USI-RULES-004).
    pub checks: Vec<bool>,
    /// The command's base, kept so a faulty engine can assume continuity.
    base: StartPosition,
    moves_applied: usize,
    /// The position before the last move played, for [`Setup::before_last_move`].
    before_last: Option<Position>,
}

impl Setup {
    /// A position with no history, as if sent as `position sfen <it>`.
    pub fn new(position: Position) -> Setup {
        Setup {
            position,
            history: Vec::new(),
            checks: Vec::new(),
            base: StartPosition::Startpos,
            moves_applied: 0,
            before_last: None,
        }
    }

    /// The position before the last move, with its history: where a `Stochastic_Ponder`
    /// engine ponders, the opponent to move (the last move is the predicted one). `None` when
    /// no move was played.
    pub fn before_last_move(&self) -> Option<Setup> {
        let position = self.before_last.clone()?;
        let mut history = self.history.clone();
        history.pop();
        let mut checks = self.checks.clone();
        checks.pop();
        Some(Setup {
            position,
            history,
            checks,
            base: self.base.clone(),
            moves_applied: self.moves_applied.saturating_sub(1),
            before_last: None,
        })
    }

    /// The root moves that complete a perpetual check by the side to move (the fourth
    /// occurrence of a position while it has checked with every move since the first): they
    /// lose the game (USI-RULES-004).
    pub fn perpetual_checks(&self) -> Vec<Move> {
        let side = self.position.side_to_move();
        let mut line: Vec<(u64, bool)> = self
            .history
            .iter()
            .copied()
            .zip(self.checks.iter().copied())
            .collect();
        line.push((self.position.key(), self.position.in_check()));
        self.position
            .legal_moves()
            .iter()
            .copied()
            .filter(|&m| {
                let after = self.position.after(m);
                if !self.history.contains(&after.key()) {
                    return false;
                }
                line.push((after.key(), after.in_check()));
                let repetition = repetition_of(&line, after.side_to_move());
                line.pop();
                repetition == Some(Repetition::PerpetualCheck { loser: side })
            })
            .collect()
    }

    /// Whether the command gave the board as `sfen` with no moves after it.
    pub fn bare_sfen(&self) -> bool {
        matches!(self.base, StartPosition::Sfen(_)) && self.moves_applied == 0
    }
}

/// How a bad `position` command should be handled besides reporting it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupFailure {
    /// Report `info string error: <reason>` and stay alive.
    Error(String),
    /// Faulty engines: report `info string error: <reason>` and keep the previous position.
    Ignored(String),
    /// Faulty engines: exit with status 1.
    Exit,
    /// Faulty engines: stop reading input.
    Hang,
    /// Faulty engines: panic (its message on stderr, exit status 101), for this reason.
    Panic(String),
}

/// Most moves a faulty engine accepts (`long-game-rejected`).
const SHORT_GAME_LIMIT: usize = 300;

/// Builds the position of `cmd`; `previous` is the last good setup (for `assume-continuity`).
pub fn setup(
    cmd: &PositionCommand,
    previous: Option<&Setup>,
    faults: &FaultSet,
) -> Result<Setup, SetupFailure> {
    let moves: &[Move] = cmd.moves.as_deref().unwrap_or(&[]);
    if let Some(rest) = &cmd.unparsed {
        let reason = match cmd.moves {
            Some(_) => format!("move {} is not a USI move: {rest}", moves.len() + 1),
            None => format!("unexpected text after the position: {rest}"),
        };
        return Err(SetupFailure::Error(reason));
    }
    if faults.has(Fault::RejectEmptyMoves) && cmd.moves.as_ref().is_some_and(|m| m.is_empty()) {
        return Err(SetupFailure::Error("'moves' with no moves".into()));
    }
    if faults.has(Fault::LongGameRejected) && moves.len() > SHORT_GAME_LIMIT {
        return Err(SetupFailure::Error(format!(
            "more than {SHORT_GAME_LIMIT} moves"
        )));
    }
    if faults.has(Fault::AssumeContinuity)
        && let Some(prev) = previous.filter(|p| p.base == cmd.start)
    {
        let mut next = prev.clone();
        for &m in moves.iter().skip(prev.moves_applied) {
            if next.position.is_legal(m) {
                next.before_last = Some(next.position.clone());
                next.history.push(next.position.key());
                next.checks.push(next.position.in_check());
                next.position.play_unchecked(m);
            }
        }
        next.moves_applied = next.moves_applied.max(moves.len());
        return Ok(next);
    }
    let mut position = base_position(&cmd.start, faults)?;
    let stale = faults.has(Fault::StaleAfterRejectedSfen);
    let strictness = if faults.has(Fault::RejectKinglessTsume) || stale {
        Strictness::Strict
    } else {
        Strictness::Lenient
    };
    if let Err(reasons) = validate(&position, strictness) {
        let text: Vec<String> = reasons.iter().map(ToString::to_string).collect();
        let reason = format!("illegal position: {}", text.join("; "));
        return Err(if stale {
            SetupFailure::Ignored(reason)
        } else {
            SetupFailure::Error(reason)
        });
    }
    let mut history = Vec::with_capacity(moves.len());
    let mut checks = Vec::with_capacity(moves.len());
    let mut before_last = None;
    for (i, &m) in moves.iter().enumerate() {
        if faults.has(Fault::SkipNonPromotions) && declines_promotion(&position, m) {
            continue;
        }
        if !position.is_legal(m) {
            if faults.has(Fault::HangOnIllegalMove) {
                return Err(SetupFailure::Hang);
            }
            if faults.has(Fault::PanicOnIllegalMove) {
                return Err(SetupFailure::Panic(format!("illegal move {m}")));
            }
            return Err(SetupFailure::Error(format!(
                "move {} ({m}) is illegal in {}",
                i + 1,
                position.to_sfen()
            )));
        }
        if i + 1 == moves.len() {
            before_last = Some(position.clone());
        }
        history.push(position.key());
        checks.push(position.in_check());
        position.play_unchecked(m);
    }
    Ok(Setup {
        position,
        history,
        checks,
        base: cmd.start.clone(),
        moves_applied: moves.len(),
        before_last,
    })
}

fn base_position(start: &StartPosition, faults: &FaultSet) -> Result<Position, SetupFailure> {
    let StartPosition::Sfen(text) = start else {
        return Ok(Position::startpos());
    };
    let fields: Vec<&str> = text.split_whitespace().collect();
    if faults.has(Fault::RequireMoveCount) && fields.len() < 4 {
        return Err(SetupFailure::Error("SFEN has no move count".into()));
    }
    if faults.has(Fault::CrashOnHandOrder)
        && fields.get(2).is_some_and(|h| !canonical_hand_order(h))
    {
        return Err(SetupFailure::Exit);
    }
    let text = if faults.has(Fault::SingleDigitHands) {
        last_digit_counts(text)
    } else {
        text.clone()
    };
    let mut position = match Position::from_sfen(&text) {
        Ok(p) => p,
        Err(_) if faults.has(Fault::ExitOnBadSfen) => return Err(SetupFailure::Exit),
        Err(e) => return Err(SetupFailure::Error(e.to_string())),
    };
    if faults.has(Fault::MirroredSfen) {
        position = position.mirrored_files();
    }
    if faults.has(Fault::IgnoreSideToMove) {
        position.set_side_to_move(Color::Black);
    }
    Ok(position)
}

/// Whether `m` moves a piece that could promote on this move but does not.
fn declines_promotion(pos: &Position, m: Move) -> bool {
    let Move::Normal {
        from,
        to,
        promote: false,
    } = m
    else {
        return false;
    };
    let Some(piece) = pos.piece_at(from) else {
        return false;
    };
    let zone = promotion_zone(piece.color);
    piece.kind.promoted().is_some() && (zone.contains(from) || zone.contains(to))
}

/// `18p` read as `8p`: only the last digit of each count survives.
fn last_digit_counts(sfen: &str) -> String {
    let mut fields: Vec<String> = sfen.split_whitespace().map(str::to_string).collect();
    if let Some(hand) = fields.get_mut(2) {
        let mut out = String::new();
        let mut digits = String::new();
        for c in hand.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
            } else {
                out.extend(digits.pop());
                digits.clear();
                out.push(c);
            }
        }
        *hand = out;
    }
    fields.join(" ")
}

/// Whether the hand lists Black before White and R B G S N L P within each side.
fn canonical_hand_order(hand: &str) -> bool {
    let rank = |c: char| -> Option<usize> {
        let kind = PieceKind::from_usi_letter(c.to_ascii_uppercase())?;
        let order = PieceKind::HAND_ORDER.iter().position(|&k| k == kind)?;
        Some(if c.is_ascii_uppercase() {
            order
        } else {
            7 + order
        })
    };
    let ranks: Vec<usize> = hand
        .chars()
        .filter(|c| c.is_ascii_alphabetic())
        .filter_map(rank)
        .collect();
    ranks.windows(2).all(|w| w[0] < w[1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usi::Command;

    fn run(line: &str, faults: &[&str]) -> Result<Setup, SetupFailure> {
        let Command::Position(cmd) = Command::parse(line) else {
            panic!("{line}")
        };
        setup(
            &cmd,
            None,
            &FaultSet::from_names(faults.iter().copied()).unwrap(),
        )
    }

    #[test]
    fn reports_bad_positions_with_a_reason() {
        assert!(run("position startpos moves 7g7f", &[]).is_ok());
        assert!(
            matches!(run("position startpos moves 7g7f 7g7f", &[]), Err(SetupFailure::Error(e)) if e.contains("illegal"))
        );
        assert!(matches!(
            run("position sfen 9/9 b - 1", &[]),
            Err(SetupFailure::Error(_))
        ));
        assert!(matches!(
            run("position startpos moves 7g7f xx", &[]),
            Err(SetupFailure::Error(_))
        ));
        assert!(
            run(
                "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
                &[]
            )
            .is_ok()
        );
        assert!(
            run(
                "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
                &["reject-kingless-tsume"]
            )
            .is_err()
        );
        assert!(matches!(
            run(
                "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
                &["stale-after-rejected-sfen"]
            ),
            Err(SetupFailure::Ignored(_))
        ));
    }

    #[test]
    fn hand_helpers() {
        assert_eq!(
            last_digit_counts("4k4/9/9/9/9/9/9/9/4K4 b 18p2R 1"),
            "4k4/9/9/9/9/9/9/9/4K4 b 8p2R 1"
        );
        assert!(canonical_hand_order("2RB3p"));
        assert!(!canonical_hand_order("p2R"));
    }
}
