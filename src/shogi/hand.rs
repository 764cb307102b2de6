//! Pieces in hand.

use super::PieceKind;

/// How many pieces of each droppable kind a side holds.
///
/// ```
/// use usicheck::shogi::{Hand, PieceKind};
/// let mut h = Hand::default();
/// h.add(PieceKind::Pawn);
/// h.add(PieceKind::Horse); // a captured horse goes to hand as a bishop
/// assert_eq!(h.count(PieceKind::Pawn), 1);
/// assert_eq!(h.count(PieceKind::Bishop), 1);
/// assert_eq!(h.count(PieceKind::King), 0);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Hand {
    counts: [u8; 7],
}

impl Hand {
    /// The number held of `kind`; 0 for the king and promoted kinds.
    #[inline]
    pub const fn count(&self, kind: PieceKind) -> u8 {
        if kind.is_hand_kind() {
            self.counts[kind.index()]
        } else {
            0
        }
    }

    /// Sets the count of a hand kind (`kind` must be droppable).
    #[inline]
    pub fn set(&mut self, kind: PieceKind, count: u8) {
        debug_assert!(kind.is_hand_kind());
        self.counts[kind.index()] = count;
    }

    /// Adds one piece of `kind`, stored as its unpromoted kind.
    #[inline]
    pub fn add(&mut self, kind: PieceKind) {
        let k = kind.unpromoted();
        debug_assert!(k.is_hand_kind());
        self.counts[k.index()] = self.counts[k.index()].saturating_add(1);
    }

    /// Removes one piece of `kind` (which must be held).
    #[inline]
    pub fn remove(&mut self, kind: PieceKind) {
        debug_assert!(self.counts[kind.index()] > 0);
        self.counts[kind.index()] -= 1;
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.counts == [0; 7]
    }

    /// Total number of pieces held.
    pub fn total(&self) -> u32 {
        self.counts.iter().map(|&c| c as u32).sum()
    }

    /// `(kind, count)` for every held kind, in canonical order R B G S N L P.
    pub fn iter(&self) -> impl Iterator<Item = (PieceKind, u8)> + '_ {
        PieceKind::HAND_ORDER
            .into_iter()
            .map(|k| (k, self.counts[k.index()]))
            .filter(|&(_, c)| c > 0)
    }
}
