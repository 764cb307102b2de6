//! A record's moves on the reference board. Records name the piece that moves, which USI
//! moves do not: the writers replay a game to name it, and the readers replay a record to
//! check that each move is legal and moves the piece it names.

use crate::play::{GameRecord, Opening, base_sfen};
use crate::shogi::{Game, Move, PieceKind, Position, Strictness, validate};

/// The position before each move of the record and the move, for the moves that parse and
/// are legal (an illegal last move is written as the end of the game).
pub(super) fn replay(record: &GameRecord) -> (Position, Vec<(Position, Move, Option<f64>)>) {
    let start = Position::from_sfen(&base_sfen(&record.base)).unwrap_or_default();
    let mut position = start.clone();
    let mut moves = Vec::new();
    let opening = record.opening_moves.iter().map(|m| (m.as_str(), None));
    let played = record.plies.iter().map(|p| (p.usi.as_str(), p.used_ms));
    for (text, used) in opening.chain(played) {
        let Ok(mv) = text.parse::<Move>() else { break };
        let before = position.clone();
        if position.play(mv).is_err() {
            break;
        }
        moves.push((before, mv, used));
    }
    (start, moves)
}

/// The kind that moves in `mv`, before it promotes (the piece on its square, or the dropped
/// kind).
pub(super) fn mover(before: &Position, mv: Move) -> PieceKind {
    match mv {
        Move::Drop { kind, .. } => kind,
        Move::Normal { from, .. } => before.piece_at(from).map_or(PieceKind::Pawn, |p| p.kind),
    }
}

/// A record being read: its start position and the moves so far, each checked by the
/// reference rules.
pub(super) struct Line {
    game: Game,
}

impl Line {
    /// A record from `start`, which must be a position a game can reach (kings, no two
    /// pawns on a file, no piece that can never move, …).
    pub(super) fn new(mut start: Position) -> Result<Line, String> {
        start.set_move_number(1);
        validate(&start, Strictness::Strict).map_err(|reasons| {
            let reasons: Vec<String> = reasons.iter().map(ToString::to_string).collect();
            format!("the start position is not legal: {}", reasons.join("; "))
        })?;
        Ok(Line {
            game: Game::new(start),
        })
    }

    pub(super) fn position(&self) -> &Position {
        self.game.position()
    }

    /// The moves played so far.
    pub(super) fn played(&self) -> usize {
        self.game.moves().len()
    }

    /// Plays `mv`, written `text` in the record, if it is legal and, when the record names
    /// the piece that moves (`named`, before it promotes), moves that piece.
    pub(super) fn play(
        &mut self,
        mv: Move,
        named: Option<PieceKind>,
        text: &str,
    ) -> Result<(), String> {
        let position = self.game.position();
        if let (Some(named), Move::Normal { from, .. }) = (named, mv) {
            match position.piece_at(from) {
                Some(piece) if piece.kind != named => {
                    return Err(format!(
                        "`{text}`: the piece on {from} is a {:?}, not a {named:?}",
                        piece.kind
                    ));
                }
                None => return Err(format!("`{text}`: no piece on {from}")),
                Some(_) => {}
            }
        }
        self.game
            .play(mv)
            .map_err(|e| format!("`{text}` ({mv}) is illegal in {}", e.sfen))
    }

    /// The opening the record makes: `startpos` when it starts there, and its moves.
    pub(super) fn into_opening(self) -> Opening {
        let sfen = self.game.base().to_sfen();
        let base = if sfen == Position::startpos().to_sfen() {
            "startpos".to_owned()
        } else {
            format!("sfen {sfen}")
        };
        let moves = self.game.moves().iter().map(ToString::to_string).collect();
        Opening { base, moves }
    }
}

/// A resigned game's record from `base` through `moves`, the first `opening` of them an
/// opening's, for the readers' round trips.
#[cfg(test)]
pub(super) fn game(base: &str, opening: usize, moves: &[&str]) -> GameRecord {
    use crate::play::{Ply, Reason, Winner};
    use crate::shogi::Color;
    let first = Position::from_sfen(&base_sfen(base))
        .expect("a test base")
        .side_to_move();
    GameRecord {
        number: 1,
        base: base.to_owned(),
        opening_moves: moves[..opening].iter().map(|m| (*m).to_owned()).collect(),
        engine_color: Color::Black,
        plies: moves
            .iter()
            .enumerate()
            .skip(opening)
            .map(|(i, m)| Ply {
                usi: (*m).to_owned(),
                side: if i % 2 == 0 { first } else { !first },
                used_ms: Some(1500.0),
                allowed_ms: None,
            })
            .collect(),
        winner: Winner::Black,
        reason: Reason::Resign,
        loser: Some(Color::White),
        detail: String::new(),
        notes: Vec::new(),
        seconds: 1.0,
        engine_rss_kib: None,
        engine_threads: None,
        engine_children: None,
    }
}
