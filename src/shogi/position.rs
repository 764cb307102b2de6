//! The board state: pieces, hands, side to move, and making moves.

use super::{Bitboard, Color, Hand, Move, Piece, PieceKind, Square, attacks, zobrist};

/// A shogi position: board, both hands, side to move and move number, with a Zobrist key.
///
/// Moves are made by copy-make: clone, then [`Position::play_unchecked`]. At about 450 bytes a
/// copy is cheaper than recording and reverting the changes.
///
/// ```
/// use usicheck::shogi::{Color, Position};
/// let mut pos = Position::startpos();
/// assert_eq!(pos.legal_moves().len(), 30);
/// pos.play("7g7f".parse().unwrap()).unwrap();
/// assert_eq!(pos.side_to_move(), Color::White);
/// assert_eq!(pos.move_number(), 2);
/// assert!(pos.play("7g7f".parse().unwrap()).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    board: [Option<Piece>; 81],
    by_color: [Bitboard; 2],
    by_kind: [Bitboard; 14],
    hands: [Hand; 2],
    side: Color,
    move_number: u32,
    ply: u32,
    /// XOR of the piece-square and side-to-move keys.
    key: u64,
    /// Wrapping sum of one key per piece in hand; kept apart because sums and XORs do not commute.
    hand_key: u64,
}

/// What [`Position::make`] records so [`Position::unmake`] can restore the position exactly.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Undo {
    captured: Option<Piece>,
    key: u64,
    hand_key: u64,
}

/// A move that is not legal in the position it was played in.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {mv} in {sfen}")]
pub struct IllegalMoveError {
    pub mv: Move,
    pub sfen: String,
}

const STARTPOS_SFEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

impl Position {
    /// An empty board, empty hands, Black to move, move number 1.
    pub fn empty() -> Position {
        Position {
            board: [None; 81],
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 14],
            hands: [Hand::default(); 2],
            side: Color::Black,
            move_number: 1,
            ply: 0,
            key: 0,
            hand_key: 0,
        }
    }

    /// The standard starting position.
    pub fn startpos() -> Position {
        Position::from_sfen(STARTPOS_SFEN).expect("startpos SFEN is valid")
    }

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The SFEN move number (1 for the first move of a game, counts every ply).
    #[inline]
    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    /// Moves played on this value since it was set up (from SFEN or startpos).
    #[inline]
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Zobrist key of board, both hands and side to move (not the move number), for repetition.
    #[inline]
    pub fn key(&self) -> u64 {
        self.key ^ self.hand_key
    }

    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    #[inline]
    pub fn hand(&self, color: Color) -> Hand {
        self.hands[color.index()]
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// Squares holding pieces of `color`.
    #[inline]
    pub fn pieces(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Squares holding pieces of `kind`, both colours.
    #[inline]
    pub fn pieces_of_kind(&self, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()]
    }

    #[inline]
    pub fn pieces_of(&self, color: Color, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()] & self.by_color[color.index()]
    }

    /// The king of `color` (the lowest-index one if a malformed position has several).
    #[inline]
    pub fn king_square(&self, color: Color) -> Option<Square> {
        self.pieces_of(color, PieceKind::King).first()
    }

    /// Sets the side to move, keeping the key consistent.
    pub fn set_side_to_move(&mut self, color: Color) {
        if self.side != color {
            self.side = color;
            self.key ^= zobrist::WHITE_TO_MOVE;
        }
    }

    pub fn set_move_number(&mut self, n: u32) {
        self.move_number = n;
    }

    /// Puts `piece` on `sq`, replacing whatever was there.
    pub fn set_piece(&mut self, sq: Square, piece: Option<Piece>) {
        if let Some(old) = self.board[sq.index()] {
            self.remove_piece(sq, old);
        }
        if let Some(p) = piece {
            self.put_piece(sq, p);
        }
    }

    /// Sets how many of a hand kind `color` holds; kinds that cannot be held are ignored.
    pub fn set_hand_count(&mut self, color: Color, kind: PieceKind, count: u8) {
        if !kind.is_hand_kind() {
            return;
        }
        let h = &mut self.hands[color.index()];
        let old = h.count(kind);
        let unit = zobrist::HAND[color.index()][kind.index()];
        self.hand_key = self
            .hand_key
            .wrapping_sub(unit.wrapping_mul(old as u64))
            .wrapping_add(unit.wrapping_mul(count as u64));
        h.set(kind, count);
    }

    #[inline]
    fn put_piece(&mut self, sq: Square, p: Piece) {
        let bit = Bitboard::from_square(sq);
        self.board[sq.index()] = Some(p);
        self.by_color[p.color.index()] |= bit;
        self.by_kind[p.kind.index()] |= bit;
        self.key ^= zobrist::BOARD[p.color.index()][p.kind.index()][sq.index()];
    }

    #[inline]
    fn remove_piece(&mut self, sq: Square, p: Piece) {
        let bit = Bitboard::from_square(sq);
        self.board[sq.index()] = None;
        self.by_color[p.color.index()] ^= bit;
        self.by_kind[p.kind.index()] ^= bit;
        self.key ^= zobrist::BOARD[p.color.index()][p.kind.index()][sq.index()];
    }

    /// Pieces that move like a gold: gold and the four promoted minor kinds.
    #[inline]
    pub(crate) fn golds(&self) -> Bitboard {
        self.by_kind[PieceKind::Gold.index()]
            | self.by_kind[PieceKind::ProPawn.index()]
            | self.by_kind[PieceKind::ProLance.index()]
            | self.by_kind[PieceKind::ProKnight.index()]
            | self.by_kind[PieceKind::ProSilver.index()]
    }

    /// Pieces of either colour that reach `sq` with one step as seen from `defender`'s side
    /// (pawn, knight, silver, gold-movers, king and the king-steps of horse and dragon).
    #[inline]
    fn step_attackers(&self, sq: Square, defender: Color) -> Bitboard {
        let k = &self.by_kind;
        let kings =
            k[PieceKind::King.index()] | k[PieceKind::Horse.index()] | k[PieceKind::Dragon.index()];
        (attacks::pawn(defender, sq) & k[PieceKind::Pawn.index()])
            | (attacks::knight(defender, sq) & k[PieceKind::Knight.index()])
            | (attacks::silver(defender, sq) & k[PieceKind::Silver.index()])
            | (attacks::gold(defender, sq) & self.golds())
            | (attacks::king(sq) & kings)
    }

    /// Pieces of `attacker` that attack `sq`, given occupancy `occupied`.
    #[inline]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let them = self.by_color[attacker.index()];
        let defender = !attacker;
        let k = &self.by_kind;
        let steps = self.step_attackers(sq, defender);
        let bishops = k[PieceKind::Bishop.index()] | k[PieceKind::Horse.index()];
        let rooks = k[PieceKind::Rook.index()] | k[PieceKind::Dragon.index()];
        let sliders = (attacks::lance(defender, sq, occupied) & k[PieceKind::Lance.index()])
            | (attacks::bishop(sq, occupied) & bishops)
            | (attacks::rook(sq, occupied) & rooks);
        (steps | sliders) & them
    }

    /// Whether any piece of `attacker` attacks `sq`.
    #[inline]
    pub fn is_attacked(&self, sq: Square, attacker: Color) -> bool {
        self.is_attacked_with(sq, attacker, self.occupied())
    }

    /// Whether any piece of `attacker` attacks `sq` given occupancy `occupied`; cheap step
    /// attackers first, sliders only when one stands on an open line.
    #[inline]
    pub fn is_attacked_with(&self, sq: Square, attacker: Color, occupied: Bitboard) -> bool {
        let them = self.by_color[attacker.index()];
        let defender = !attacker;
        let k = &self.by_kind;
        let steps = self.step_attackers(sq, defender);
        if !(steps & them).is_empty() {
            return true;
        }
        let rooks = (k[PieceKind::Rook.index()] | k[PieceKind::Dragon.index()]) & them;
        if !(attacks::rook_pseudo(sq) & rooks).is_empty()
            && !(attacks::rook(sq, occupied) & rooks).is_empty()
        {
            return true;
        }
        let bishops = (k[PieceKind::Bishop.index()] | k[PieceKind::Horse.index()]) & them;
        if !(attacks::bishop_pseudo(sq) & bishops).is_empty()
            && !(attacks::bishop(sq, occupied) & bishops).is_empty()
        {
            return true;
        }
        let lances = k[PieceKind::Lance.index()] & them;
        !(attacks::lance_pseudo(defender, sq) & lances).is_empty()
            && !(attacks::lance(defender, sq, occupied) & lances).is_empty()
    }

    /// Enemy pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        match self.king_square(self.side) {
            Some(k) => self.attackers_to(k, !self.side, self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        !self.checkers().is_empty()
    }

    /// Whether the king of `color` is attacked (used to reject positions where the side that
    /// just moved left its king en prise).
    pub fn king_attacked(&self, color: Color) -> bool {
        self.king_square(color)
            .is_some_and(|k| self.is_attacked(k, !color))
    }

    /// Plays `mv` if it is legal.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMoveError> {
        if !self.is_legal(mv) {
            return Err(IllegalMoveError {
                mv,
                sfen: self.to_sfen(),
            });
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Plays `mv` without checking legality. The move must at least move a piece of the side to
    /// move (or drop a held piece); anything else leaves the position unchanged except the turn.
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) {
        let us = self.side;
        match mv {
            Move::Normal { from, to, promote } => {
                let Some(piece) = self.board[from.index()] else {
                    debug_assert!(false, "no piece on {from}");
                    return;
                };
                if let Some(captured) = self.board[to.index()] {
                    self.remove_piece(to, captured);
                    let base = captured.kind.unpromoted();
                    if base.is_hand_kind() {
                        self.hands[us.index()].add(base);
                        self.hand_key = self
                            .hand_key
                            .wrapping_add(zobrist::HAND[us.index()][base.index()]);
                    }
                }
                self.remove_piece(from, piece);
                let kind = if promote {
                    piece.kind.promoted().unwrap_or(piece.kind)
                } else {
                    piece.kind
                };
                self.put_piece(to, Piece::new(piece.color, kind));
            }
            Move::Drop { kind, to } => {
                if self.hands[us.index()].count(kind) == 0 {
                    debug_assert!(false, "no {kind:?} in hand");
                    return;
                }
                self.hands[us.index()].remove(kind);
                self.hand_key = self
                    .hand_key
                    .wrapping_sub(zobrist::HAND[us.index()][kind.index()]);
                self.put_piece(to, Piece::new(us, kind));
            }
        }
        self.side = !us;
        self.key ^= zobrist::WHITE_TO_MOVE;
        self.move_number = self.move_number.saturating_add(1);
        self.ply = self.ply.saturating_add(1);
    }

    /// Plays a legal `mv` in place and returns what [`Position::unmake`] needs to take it back.
    ///
    /// ```
    /// use usicheck::shogi::Position;
    /// let mut pos = Position::startpos();
    /// let before = pos.clone();
    /// let mv = "7g7f".parse().unwrap();
    /// let undo = pos.make(mv);
    /// pos.unmake(mv, undo);
    /// assert_eq!(pos, before);
    /// ```
    #[inline]
    pub fn make(&mut self, mv: Move) -> Undo {
        let undo = Undo {
            captured: self.board[mv.to().index()],
            key: self.key,
            hand_key: self.hand_key,
        };
        self.play_unchecked(mv);
        undo
    }

    /// Takes back `mv`, which must be the last move made with [`Position::make`].
    #[inline]
    pub fn unmake(&mut self, mv: Move, undo: Undo) {
        let us = !self.side;
        match mv {
            Move::Normal { from, to, promote } => {
                let Some(moved) = self.board[to.index()] else {
                    return;
                };
                self.remove_piece(to, moved);
                let kind = if promote {
                    moved.kind.unpromoted()
                } else {
                    moved.kind
                };
                self.put_piece(from, Piece::new(moved.color, kind));
                if let Some(captured) = undo.captured {
                    self.put_piece(to, captured);
                    let base = captured.kind.unpromoted();
                    if base.is_hand_kind() {
                        self.hands[us.index()].remove(base);
                    }
                }
            }
            Move::Drop { kind, to } => {
                if let Some(p) = self.board[to.index()] {
                    self.remove_piece(to, p);
                }
                self.hands[us.index()].add(kind);
            }
        }
        self.side = us;
        self.key = undo.key;
        self.hand_key = undo.hand_key;
        self.move_number = self.move_number.saturating_sub(1);
        self.ply = self.ply.saturating_sub(1);
    }

    /// The position after `mv` (copy-make).
    #[inline]
    pub fn after(&self, mv: Move) -> Position {
        let mut p = self.clone();
        p.play_unchecked(mv);
        p
    }

    /// Whether `mv` (assumed legal) gives check.
    pub fn gives_check(&self, mv: Move) -> bool {
        self.after(mv).in_check()
    }

    /// The board with its files read right to left (9 as 1); hands, side to move and move
    /// number unchanged.
    ///
    /// ```
    /// use usicheck::shogi::Position;
    /// let pos = Position::from_sfen("8k/9/9/9/9/9/9/P8/KL7 b - 1").unwrap();
    /// assert_eq!(pos.mirrored_files().to_sfen(), "k8/9/9/9/9/9/9/8P/7LK b - 1");
    /// assert_eq!(pos.mirrored_files().mirrored_files(), pos);
    /// ```
    pub fn mirrored_files(&self) -> Position {
        let mut mirrored = self.clone();
        for sq in Square::all() {
            let source = Square::new(10 - sq.file(), sq.rank()).expect("on the board");
            mirrored.set_piece(sq, self.piece_at(source));
        }
        mirrored
    }

    /// The position with every count in both hands replaced by `count(old)` (0: none held).
    ///
    /// ```
    /// use usicheck::shogi::{Color, PieceKind, Position};
    /// let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2R10p 1").unwrap();
    /// let read = pos.with_hand_counts(|n| n % 10);
    /// assert_eq!(read.hand(Color::Black).count(PieceKind::Rook), 2);
    /// assert_eq!(read.hand(Color::White).count(PieceKind::Pawn), 0);
    /// ```
    pub fn with_hand_counts(&self, count: impl Fn(u8) -> u8) -> Position {
        let mut read = self.clone();
        for color in Color::ALL {
            for (kind, held) in self.hand(color).iter() {
                read.set_hand_count(color, kind, count(held));
            }
        }
        read
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}
