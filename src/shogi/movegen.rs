//! Legal move generation and single-move legality.

use super::{Bitboard, Color, Move, Piece, PieceKind, Position, Square, attacks};

/// More than the 593 legal moves of the richest known legal position (a capacity hint).
pub const MAX_MOVES: usize = 600;

/// The legal moves of a position.
///
/// ```
/// use usicheck::shogi::Position;
/// let moves = Position::startpos().legal_moves();
/// assert_eq!(moves.len(), 30);
/// assert!(moves.iter().any(|m| m.to_string() == "7g7f"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveList {
    // A Vec rather than a fixed array: stress positions with impossible material may exceed any
    // bound, and hot loops (perft, search) reuse buffers through `legal_moves_into`.
    moves: Vec<Move>,
}

impl MoveList {
    pub fn new() -> MoveList {
        MoveList {
            moves: Vec::with_capacity(MAX_MOVES),
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves
    }

    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.moves.iter()
    }

    #[inline]
    pub fn contains(&self, mv: Move) -> bool {
        self.moves.contains(&mv)
    }

    /// The moves sorted by their USI text, as printed by `usicheck moves`.
    pub fn sorted_usi(&self) -> Vec<String> {
        let mut v: Vec<String> = self.iter().map(|m| m.to_string()).collect();
        v.sort();
        v
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
    type IntoIter = std::vec::IntoIter<Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.moves.into_iter()
    }
}

/// Where generated moves go: a list, or just a counter for bulk perft. Moves arrive in sets
/// sharing an origin (or a dropped kind), so a counter only needs population counts.
pub(crate) trait MoveSink {
    /// Moves from `from` to each square of `promotions` (promoting) and `non_promotions`.
    fn push_normal(&mut self, from: Square, promotions: Bitboard, non_promotions: Bitboard);
    /// Drops of `kind` on each square of `to`.
    fn push_drops(&mut self, kind: PieceKind, to: Bitboard);
    /// Moves to each square of the sets from the square `back` indices away (pawn pushes).
    #[inline]
    fn push_shifted(&mut self, promotions: Bitboard, non_promotions: Bitboard, back: isize) {
        for to in promotions {
            let from = Square::from_index_unchecked(to.index().wrapping_add_signed(back));
            self.push_normal(from, Bitboard::from_square(to), Bitboard::EMPTY);
        }
        for to in non_promotions {
            let from = Square::from_index_unchecked(to.index().wrapping_add_signed(back));
            self.push_normal(from, Bitboard::EMPTY, Bitboard::from_square(to));
        }
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn push_normal(&mut self, from: Square, promotions: Bitboard, non_promotions: Bitboard) {
        self.moves.push_normal(from, promotions, non_promotions);
    }

    #[inline]
    fn push_drops(&mut self, kind: PieceKind, to: Bitboard) {
        self.moves.push_drops(kind, to);
    }
}

impl MoveSink for Vec<Move> {
    #[inline]
    fn push_normal(&mut self, from: Square, promotions: Bitboard, non_promotions: Bitboard) {
        for to in promotions {
            self.push(Move::Normal {
                from,
                to,
                promote: true,
            });
        }
        for to in non_promotions {
            self.push(Move::Normal {
                from,
                to,
                promote: false,
            });
        }
    }

    #[inline]
    fn push_drops(&mut self, kind: PieceKind, to: Bitboard) {
        for to in to {
            self.push(Move::Drop { kind, to });
        }
    }
}

/// Counts moves without storing them.
pub(crate) struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline]
    fn push_shifted(&mut self, promotions: Bitboard, non_promotions: Bitboard, _: isize) {
        self.0 += (promotions.count() + non_promotions.count()) as u64;
    }

    #[inline]
    fn push_normal(&mut self, _: Square, promotions: Bitboard, non_promotions: Bitboard) {
        self.0 += (promotions.count() + non_promotions.count()) as u64;
    }

    #[inline]
    fn push_drops(&mut self, _: PieceKind, to: Bitboard) {
        self.0 += to.count() as u64;
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
            let mut safe = Bitboard::EMPTY;
            for to in attacks::king(k) & !own {
                if !self.is_attacked_with(to, them, occ_without_king) {
                    safe = safe.with(to);
                }
            }
            if !safe.is_empty() {
                sink.push_normal(k, Bitboard::EMPTY, safe);
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
        let last_rank = LAST_RANK[us.index()];
        let last_two = LAST_TWO[us.index()];
        let free = !pinned;
        // Unpinned pawns all at once: shift the set one rank forward.
        let pawns = self.pieces_of(us, PieceKind::Pawn) & free & !last_rank;
        let pawn_targets = match us {
            Color::Black => Bitboard(pawns.0 >> 1),
            Color::White => Bitboard(pawns.0 << 1),
        } & target;
        if !pawn_targets.is_empty() {
            let back = if us == Color::Black { 1 } else { -1 };
            sink.push_shifted(pawn_targets & zone, pawn_targets & !last_rank, back);
        }
        for from in self.pieces_of(us, PieceKind::Lance) & free {
            let to = attacks::lance(us, from, occ) & target;
            sink.push_normal(from, to & zone, to & !last_rank);
        }
        for from in self.pieces_of(us, PieceKind::Knight) & free {
            let to = attacks::knight(us, from) & target;
            sink.push_normal(from, to & zone, to & !last_two);
        }
        for from in self.pieces_of(us, PieceKind::Silver) & free {
            let to = attacks::silver(us, from) & target;
            let promotions = if zone.contains(from) { to } else { to & zone };
            sink.push_normal(from, promotions, to);
        }
        for from in self.golds() & own & free {
            sink.push_normal(from, Bitboard::EMPTY, attacks::gold(us, from) & target);
        }
        for from in self.pieces_of(us, PieceKind::Bishop) & free {
            let to = attacks::bishop(from, occ) & target;
            let promotions = if zone.contains(from) { to } else { to & zone };
            sink.push_normal(from, promotions, to);
        }
        for from in self.pieces_of(us, PieceKind::Rook) & free {
            let to = attacks::rook(from, occ) & target;
            let promotions = if zone.contains(from) { to } else { to & zone };
            sink.push_normal(from, promotions, to);
        }
        for from in self.pieces_of(us, PieceKind::Horse) & free {
            sink.push_normal(
                from,
                Bitboard::EMPTY,
                (attacks::bishop(from, occ) | attacks::king(from)) & target,
            );
        }
        for from in self.pieces_of(us, PieceKind::Dragon) & free {
            sink.push_normal(
                from,
                Bitboard::EMPTY,
                (attacks::rook(from, occ) | attacks::king(from)) & target,
            );
        }
        // Pinned pieces may only move along the line through their king and the pinner.
        for from in pinned & !own_kings {
            let (Some(Piece { kind, .. }), Some(k)) = (self.piece_at(from), king) else {
                continue;
            };
            let to_set = attacks::piece(us, kind, from, occ) & target & attacks::line(k, from);
            let (promotions, non_promotions) = match kind {
                PieceKind::Pawn | PieceKind::Lance => (to_set & zone, to_set & !last_rank),
                PieceKind::Knight => (to_set & zone, to_set & !last_two),
                PieceKind::Silver | PieceKind::Bishop | PieceKind::Rook => (
                    if zone.contains(from) {
                        to_set
                    } else {
                        to_set & zone
                    },
                    to_set,
                ),
                _ => (Bitboard::EMPTY, to_set),
            };
            sink.push_normal(from, promotions, non_promotions);
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
            if !squares.is_empty() {
                sink.push_drops(kind, squares);
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

    /// Replaces the contents of `out` with the legal moves; reusing one buffer per ply avoids
    /// both allocation and the fixed-size array of [`MoveList`].
    pub fn legal_moves_into(&self, out: &mut Vec<Move>) {
        out.clear();
        self.generate(out);
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
