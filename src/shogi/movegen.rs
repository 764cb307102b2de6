//! Legal move generation and single-move legality.

use super::{Bitboard, Color, Move, Piece, PieceKind, Position, Square, attacks};

/// More than the 593 legal moves of the richest known position.
pub const MAX_MOVES: usize = 600;

/// The legal moves of a position, without heap allocation.
///
/// ```
/// use usicheck::shogi::Position;
/// let moves = Position::startpos().legal_moves();
/// assert_eq!(moves.len(), 30);
/// assert!(moves.iter().any(|m| m.to_string() == "7g7f"));
/// ```
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

const PLACEHOLDER: Move = Move::Drop {
    kind: PieceKind::Pawn,
    to: Square::from_index_unchecked(0),
};

impl MoveList {
    pub fn new() -> MoveList {
        MoveList {
            moves: [PLACEHOLDER; MAX_MOVES],
            len: 0,
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    #[inline]
    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }

    /// The moves sorted by their USI text, as printed by `usicheck moves`.
    pub fn sorted_usi(&self) -> Vec<String> {
        let mut v: Vec<String> = self.iter().map(|m| m.to_string()).collect();
        v.sort();
        v
    }
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl std::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for MoveList {
    type Item = Move;
    type IntoIter = std::iter::Take<std::array::IntoIter<Move, MAX_MOVES>>;
    fn into_iter(self) -> Self::IntoIter {
        self.moves.into_iter().take(self.len)
    }
}

/// Where generated moves go: a list, or just a counter for bulk perft.
pub(crate) trait MoveSink {
    fn push(&mut self, mv: Move);
}

impl MoveSink for MoveList {
    #[inline]
    fn push(&mut self, mv: Move) {
        // Positions with impossible material could in theory exceed the bound; drop the excess
        // rather than panic (no real or published stress position comes close).
        if self.len < MAX_MOVES {
            self.moves[self.len] = mv;
            self.len += 1;
        }
    }
}

/// Counts moves without storing them.
pub(crate) struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
}

const fn ranks(from: u8, to: u8) -> Bitboard {
    let mut bits = 0u128;
    let mut r = from;
    while r <= to {
        bits |= Bitboard::rank(r).0;
        r += 1;
    }
    Bitboard(bits)
}

/// The three ranks where each side promotes.
const ZONE: [Bitboard; 2] = [ranks(1, 3), ranks(7, 9)];
/// The last rank: pawns and lances there could never move again.
const LAST_RANK: [Bitboard; 2] = [ranks(1, 1), ranks(9, 9)];
/// The last two ranks: knights there could never move again.
const LAST_TWO: [Bitboard; 2] = [ranks(1, 2), ranks(8, 9)];

/// Whether a piece of `kind` on `to` could never move again (so it must promote or not go there).
#[inline]
pub(crate) fn is_dead_square(color: Color, kind: PieceKind, to: Square) -> bool {
    match kind {
        PieceKind::Pawn | PieceKind::Lance => LAST_RANK[color.index()].contains(to),
        PieceKind::Knight => LAST_TWO[color.index()].contains(to),
        _ => false,
    }
}

/// The promotion zone of `color`.
#[inline]
pub fn promotion_zone(color: Color) -> Bitboard {
    ZONE[color.index()]
}

impl Position {
    /// Enemy sliders' targets: our pieces that alone shield our king from them.
    fn pinned(&self, king: Square, us: Color) -> Bitboard {
        let them = !us;
        let occ = self.occupied();
        let snipers = (attacks::lance_pseudo(us, king) & self.pieces_of(them, PieceKind::Lance))
            | (attacks::bishop_pseudo(king)
                & (self.pieces_of(them, PieceKind::Bishop)
                    | self.pieces_of(them, PieceKind::Horse)))
            | (attacks::rook_pseudo(king)
                & (self.pieces_of(them, PieceKind::Rook)
                    | self.pieces_of(them, PieceKind::Dragon)));
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let blockers = attacks::between(king, s) & occ;
            if !blockers.is_empty() && !blockers.has_more_than_one() {
                pinned |= blockers & self.pieces(us);
            }
        }
        pinned
    }

    pub(crate) fn generate<S: MoveSink>(&self, sink: &mut S) {
        let us = self.side_to_move();
        let them = !us;
        let occ = self.occupied();
        let own = self.pieces(us);
        let own_kings = self.pieces_of(us, PieceKind::King);
        let king = own_kings.first();
        let (checkers, pinned) = match king {
            Some(k) => (self.attackers_to(k, them, occ), self.pinned(k, us)),
            None => (Bitboard::EMPTY, Bitboard::EMPTY),
        };
        if let Some(k) = king {
            let occ_without_king = occ.without(k);
            for to in attacks::king(k) & !own {
                if self.attackers_to(to, them, occ_without_king).is_empty() {
                    sink.push(Move::Normal {
                        from: k,
                        to,
                        promote: false,
                    });
                }
            }
        }
        if checkers.has_more_than_one() {
            return;
        }
        let (target, drop_target) = match (king, checkers.first()) {
            (Some(k), Some(c)) => {
                let block = attacks::between(k, c);
                ((block | checkers) & !own, block)
            }
            _ => (!own, !occ),
        };
        let zone = ZONE[us.index()];
        for from in own & !own_kings {
            let Some(Piece { kind, .. }) = self.piece_at(from) else {
                continue;
            };
            let mut to_set = attacks::piece(us, kind, from, occ) & target;
            if let Some(k) = king.filter(|_| pinned.contains(from)) {
                to_set &= attacks::line(k, from);
            }
            if to_set.is_empty() {
                continue;
            }
            match kind {
                PieceKind::Pawn | PieceKind::Lance | PieceKind::Knight => {
                    let dead = if kind == PieceKind::Knight {
                        LAST_TWO[us.index()]
                    } else {
                        LAST_RANK[us.index()]
                    };
                    for to in to_set {
                        if zone.contains(to) {
                            sink.push(Move::Normal {
                                from,
                                to,
                                promote: true,
                            });
                        }
                        if !dead.contains(to) {
                            sink.push(Move::Normal {
                                from,
                                to,
                                promote: false,
                            });
                        }
                    }
                }
                PieceKind::Silver | PieceKind::Bishop | PieceKind::Rook => {
                    let from_zone = zone.contains(from);
                    for to in to_set {
                        if from_zone || zone.contains(to) {
                            sink.push(Move::Normal {
                                from,
                                to,
                                promote: true,
                            });
                        }
                        sink.push(Move::Normal {
                            from,
                            to,
                            promote: false,
                        });
                    }
                }
                _ => {
                    for to in to_set {
                        sink.push(Move::Normal {
                            from,
                            to,
                            promote: false,
                        });
                    }
                }
            }
        }
        self.generate_drops(sink, us, drop_target);
    }

    fn generate_drops<S: MoveSink>(&self, sink: &mut S, us: Color, drop_target: Bitboard) {
        let hand = self.hand(us);
        if hand.is_empty() || drop_target.is_empty() {
            return;
        }
        let u = us.index();
        for kind in PieceKind::HAND_ORDER {
            if hand.count(kind) == 0 {
                continue;
            }
            let squares = match kind {
                PieceKind::Pawn => self.pawn_drop_squares(us, drop_target),
                PieceKind::Lance => drop_target & !LAST_RANK[u],
                PieceKind::Knight => drop_target & !LAST_TWO[u],
                _ => drop_target,
            };
            for to in squares {
                sink.push(Move::Drop { kind, to });
            }
        }
    }

    /// Squares where a pawn drop is legal: not the last rank, no unpromoted own pawn on the file
    /// (nifu), and not a pawn-drop mate (uchifuzume).
    fn pawn_drop_squares(&self, us: Color, drop_target: Bitboard) -> Bitboard {
        let mut squares = drop_target & !LAST_RANK[us.index()];
        let pawns = self.pieces_of(us, PieceKind::Pawn);
        for file in 1..=9 {
            let f = Bitboard::file(file);
            if !(pawns & f).is_empty() {
                squares &= !f;
            }
        }
        if let Some(their_king) = self.king_square(!us) {
            // The only square where a dropped pawn checks: right in front of the enemy king.
            if let Some(front) = attacks::pawn(!us, their_king).first()
                && squares.contains(front)
                && self.is_pawn_drop_mate(front)
            {
                squares = squares.without(front);
            }
        }
        squares
    }

    /// Whether dropping a pawn on `to` (which checks the enemy king) mates. A pawn check cannot
    /// be blocked, so the defender's evasions contain no drops and this never recurses.
    fn is_pawn_drop_mate(&self, to: Square) -> bool {
        !self
            .after(Move::Drop {
                kind: PieceKind::Pawn,
                to,
            })
            .has_legal_moves()
    }

    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// The number of legal moves (faster than collecting them).
    pub fn count_legal_moves(&self) -> u64 {
        let mut c = MoveCounter(0);
        self.generate(&mut c);
        c.0
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_moves(&self) -> bool {
        self.count_legal_moves() > 0
    }

    /// Whether the side to move is in check and has no legal move.
    ///
    /// ```
    /// use usicheck::shogi::Position;
    /// let mated = Position::from_sfen("4k4/9/9/9/9/9/4s4/4g4/4K4 b 2r2b3g3s4n4l18p 1").unwrap();
    /// assert!(mated.is_checkmate());
    /// assert!(!Position::startpos().is_checkmate());
    /// ```
    pub fn is_checkmate(&self) -> bool {
        self.in_check() && !self.has_legal_moves()
    }

    /// Whether `mv` is legal here, without generating every move.
    ///
    /// ```
    /// use usicheck::shogi::Position;
    /// let pos = Position::startpos();
    /// assert!(pos.is_legal("7g7f".parse().unwrap()));
    /// assert!(!pos.is_legal("7g7e".parse().unwrap()));
    /// assert!(!pos.is_legal("P*5e".parse().unwrap()));
    /// ```
    pub fn is_legal(&self, mv: Move) -> bool {
        let us = self.side_to_move();
        match mv {
            Move::Normal { from, to, promote } => {
                let Some(piece) = self.piece_at(from) else {
                    return false;
                };
                if piece.color != us || self.pieces(us).contains(to) {
                    return false;
                }
                if !attacks::piece(us, piece.kind, from, self.occupied()).contains(to) {
                    return false;
                }
                if promote {
                    let zone = ZONE[us.index()];
                    if piece.kind.promoted().is_none()
                        || !(zone.contains(from) || zone.contains(to))
                    {
                        return false;
                    }
                } else if is_dead_square(us, piece.kind, to) {
                    return false;
                }
                !self.after(mv).king_attacked(us)
            }
            Move::Drop { kind, to } => {
                if !kind.is_hand_kind()
                    || self.hand(us).count(kind) == 0
                    || self.piece_at(to).is_some()
                {
                    return false;
                }
                if is_dead_square(us, kind, to) {
                    return false;
                }
                if kind == PieceKind::Pawn
                    && !(self.pieces_of(us, PieceKind::Pawn) & Bitboard::file(to.file())).is_empty()
                {
                    return false;
                }
                let after = self.after(mv);
                if after.king_attacked(us) {
                    return false;
                }
                !(kind == PieceKind::Pawn && after.in_check() && !after.has_legal_moves())
            }
        }
    }
}
