//! Sets of squares as 81-bit masks.

use super::Square;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares: bit `i` is the square with index `i` (so each file is a contiguous 9-bit run).
///
/// ```
/// use usicheck::shogi::{Bitboard, Square};
/// let sq = Square::new(5, 5).unwrap();
/// let bb = Bitboard::from_square(sq);
/// assert!(bb.contains(sq));
/// assert_eq!(bb.count(), 1);
/// assert_eq!(bb.into_iter().collect::<Vec<_>>(), vec![sq]);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u128);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 81 squares.
    pub const FULL: Bitboard = Bitboard((1u128 << 81) - 1);

    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u128 << sq.index())
    }

    /// The nine squares of a file (1–9).
    #[inline]
    pub const fn file(file: u8) -> Bitboard {
        Bitboard(0x1FFu128 << ((file as u32 - 1) * 9))
    }

    /// The nine squares of a rank (1–9).
    pub const fn rank(rank: u8) -> Bitboard {
        let mut bits = 0u128;
        let mut f = 0;
        while f < 9 {
            bits |= 1u128 << (f * 9 + rank as u32 - 1);
            f += 1;
        }
        Bitboard(bits)
    }

    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1u128 << sq.index()) != 0
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether more than one square is set.
    #[inline]
    pub const fn has_more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest-index square, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(
                self.0.trailing_zeros() as usize
            ))
        }
    }

    #[inline]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | (1u128 << sq.index()))
    }

    #[inline]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1u128 << sq.index()))
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(Square::from_index_unchecked(i))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atr for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    /// Complement within the 81 board squares.
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Self::FULL.0)
    }
}
