//! Squares of the 9×9 board in USI coordinates.

use std::fmt;

/// A board square. Files count 1–9 from Black's right, ranks 1–9 (`a`–`i`) from White's side,
/// so Black's promotion zone is ranks 1–3. USI writes a square as file digit + rank letter: `7g`.
///
/// The index is `(file - 1) * 9 + (rank - 1)`, 0..81.
///
/// ```
/// use usicheck::shogi::Square;
/// let sq = Square::new(7, 7).unwrap();
/// assert_eq!(sq.to_string(), "7g");
/// assert_eq!("7g".parse::<Square>().unwrap(), sq);
/// assert_eq!(sq.file(), 7);
/// assert_eq!(sq.rank(), 7);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const COUNT: usize = 81;

    /// The square at `file` and `rank`, both 1–9.
    #[inline]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file >= 1 && file <= 9 && rank >= 1 && rank <= 9 {
            Some(Square((file - 1) * 9 + (rank - 1)))
        } else {
            None
        }
    }

    /// The square with index `index` (0..81).
    #[inline]
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < 81 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square with index `index`; out-of-range indices are a bug (checked in debug builds).
    #[inline]
    pub const fn from_index_unchecked(index: usize) -> Square {
        debug_assert!(index < 81);
        Square(index as u8)
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 1–9.
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 / 9 + 1
    }

    /// Rank 1–9 (`a` = 1).
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 % 9 + 1
    }

    /// All 81 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..81u8).map(Square)
    }
}

/// Why a square token is not a square.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a square: expected file 1-9 and rank a-i")]
pub struct ParseSquareError;

impl std::str::FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        match s.as_bytes() {
            [f @ b'1'..=b'9', r @ b'a'..=b'i'] => {
                Square::new(f - b'0', r - b'a' + 1).ok_or(ParseSquareError)
            }
            _ => Err(ParseSquareError),
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), (b'a' + self.rank() - 1) as char)
    }
}
