//! Piece kinds and coloured pieces.

use super::Color;
use std::fmt;

/// A piece kind, promoted kinds included.
///
/// ```
/// use usicheck::shogi::PieceKind;
/// assert_eq!(PieceKind::Silver.promoted(), Some(PieceKind::ProSilver));
/// assert_eq!(PieceKind::Dragon.unpromoted(), PieceKind::Rook);
/// assert_eq!(PieceKind::from_usi_letter('B'), Some(PieceKind::Bishop));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    Pawn = 0,
    Lance = 1,
    Knight = 2,
    Silver = 3,
    Gold = 4,
    Bishop = 5,
    Rook = 6,
    King = 7,
    ProPawn = 8,
    ProLance = 9,
    ProKnight = 10,
    ProSilver = 11,
    Horse = 12,
    Dragon = 13,
}

impl PieceKind {
    pub const COUNT: usize = 14;

    pub const ALL: [PieceKind; 14] = [
        PieceKind::Pawn,
        PieceKind::Lance,
        PieceKind::Knight,
        PieceKind::Silver,
        PieceKind::Gold,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::King,
        PieceKind::ProPawn,
        PieceKind::ProLance,
        PieceKind::ProKnight,
        PieceKind::ProSilver,
        PieceKind::Horse,
        PieceKind::Dragon,
    ];

    /// Kinds that can be held in hand, in canonical SFEN hand order (R B G S N L P).
    pub const HAND_ORDER: [PieceKind; 7] = [
        PieceKind::Rook,
        PieceKind::Bishop,
        PieceKind::Gold,
        PieceKind::Silver,
        PieceKind::Knight,
        PieceKind::Lance,
        PieceKind::Pawn,
    ];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub const fn from_index(index: usize) -> Option<PieceKind> {
        if index < Self::COUNT {
            Some(Self::ALL[index])
        } else {
            None
        }
    }

    /// The promoted kind, if this kind can promote.
    pub const fn promoted(self) -> Option<PieceKind> {
        match self {
            PieceKind::Pawn => Some(PieceKind::ProPawn),
            PieceKind::Lance => Some(PieceKind::ProLance),
            PieceKind::Knight => Some(PieceKind::ProKnight),
            PieceKind::Silver => Some(PieceKind::ProSilver),
            PieceKind::Bishop => Some(PieceKind::Horse),
            PieceKind::Rook => Some(PieceKind::Dragon),
            _ => None,
        }
    }

    /// The base kind (the kind it becomes when captured), itself for unpromoted kinds.
    pub const fn unpromoted(self) -> PieceKind {
        match self {
            PieceKind::ProPawn => PieceKind::Pawn,
            PieceKind::ProLance => PieceKind::Lance,
            PieceKind::ProKnight => PieceKind::Knight,
            PieceKind::ProSilver => PieceKind::Silver,
            PieceKind::Horse => PieceKind::Bishop,
            PieceKind::Dragon => PieceKind::Rook,
            k => k,
        }
    }

    #[inline]
    pub const fn is_promoted(self) -> bool {
        (self as u8) >= 8
    }

    /// Whether a piece of this kind may be held in hand and dropped.
    #[inline]
    pub const fn is_hand_kind(self) -> bool {
        (self as u8) < 7
    }

    /// The uppercase SFEN/USI letter of the unpromoted kind (`P L N S G B R K`).
    pub const fn usi_letter(self) -> char {
        match self.unpromoted() {
            PieceKind::Pawn => 'P',
            PieceKind::Lance => 'L',
            PieceKind::Knight => 'N',
            PieceKind::Silver => 'S',
            PieceKind::Gold => 'G',
            PieceKind::Bishop => 'B',
            PieceKind::Rook => 'R',
            _ => 'K',
        }
    }

    /// Parses an uppercase SFEN/USI letter into an unpromoted kind.
    pub const fn from_usi_letter(c: char) -> Option<PieceKind> {
        match c {
            'P' => Some(PieceKind::Pawn),
            'L' => Some(PieceKind::Lance),
            'N' => Some(PieceKind::Knight),
            'S' => Some(PieceKind::Silver),
            'G' => Some(PieceKind::Gold),
            'B' => Some(PieceKind::Bishop),
            'R' => Some(PieceKind::Rook),
            'K' => Some(PieceKind::King),
            _ => None,
        }
    }
}

/// A piece of one colour.
///
/// ```
/// use usicheck::shogi::{Color, Piece, PieceKind};
/// let p = Piece::new(Color::White, PieceKind::Horse);
/// assert_eq!(p.to_string(), "+b");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: PieceKind,
}

impl Piece {
    #[inline]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }
}

impl fmt::Display for Piece {
    /// SFEN spelling: `+` for promoted, uppercase for Black.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind.is_promoted() {
            f.write_str("+")?;
        }
        let c = self.kind.usi_letter();
        let c = match self.color {
            Color::Black => c,
            Color::White => c.to_ascii_lowercase(),
        };
        write!(f, "{c}")
    }
}
