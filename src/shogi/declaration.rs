//! Entering-king declaration (nyugyoku sengen) under the CSA 27-point rule (USI-RULES-001).

use super::{Bitboard, Color, PieceKind, Position, promotion_zone};

/// The facts a declaration by the side to move is judged on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    pub color: Color,
    /// The declarer's king stands in the enemy camp (its promotion zone).
    pub king_in_camp: bool,
    /// Non-king pieces of the declarer inside the enemy camp (10 needed).
    pub pieces_in_camp: u32,
    /// Rook and bishop (promoted or not) 5, others 1, over the hand and the pieces in camp.
    pub points: u32,
    /// 28 for Black (sente), 27 for White (gote).
    pub required_points: u32,
    pub in_check: bool,
}

/// Pieces in the enemy camp a declaration needs.
pub const REQUIRED_PIECES_IN_CAMP: u32 = 10;

impl Declaration {
    /// Whether the declaration wins (time remaining is the caller's concern).
    pub fn is_valid(&self) -> bool {
        self.king_in_camp
            && self.pieces_in_camp >= REQUIRED_PIECES_IN_CAMP
            && self.points >= self.required_points
            && !self.in_check
    }
}

fn points(kind: PieceKind) -> u32 {
    match kind.unpromoted() {
        PieceKind::Bishop | PieceKind::Rook => 5,
        PieceKind::King => 0,
        _ => 1,
    }
}

/// Judges a declaration by the side to move.
///
/// ```
/// use usicheck::shogi::{declaration, Position};
/// let win = Position::from_sfen("+P+P+P+P+P+P+P+P+P/+P8/4K4/9/9/9/9/9/8k b 2R2B4g4s4n4l8p 1").unwrap();
/// let d = declaration(&win);
/// assert_eq!((d.pieces_in_camp, d.points), (10, 30));
/// assert!(d.is_valid());
/// let short = Position::from_sfen("+P+P+P+P+P+P+P+P+P/+P8/4K4/9/9/9/9/9/8k b 2RB2Gb2g4s4n4l8p 1").unwrap();
/// assert_eq!(declaration(&short).points, 27);
/// assert!(!declaration(&short).is_valid());
/// ```
pub fn declaration(pos: &Position) -> Declaration {
    let color = pos.side_to_move();
    let camp = promotion_zone(color);
    let king = pos.pieces_of(color, PieceKind::King);
    let in_camp: Bitboard = pos.pieces(color) & camp & !king;
    let board_points: u32 = in_camp
        .filter_map(|sq| pos.piece_at(sq))
        .map(|p| points(p.kind))
        .sum();
    let hand_points: u32 = pos
        .hand(color)
        .iter()
        .map(|(k, n)| points(k) * n as u32)
        .sum();
    Declaration {
        color,
        king_in_camp: !king.is_empty() && (king & !camp).is_empty(),
        pieces_in_camp: in_camp.count(),
        points: board_points + hand_points,
        required_points: if color == Color::Black { 28 } else { 27 },
        in_check: pos.in_check(),
    }
}

/// Points of a full set of pieces: 2 rooks and 2 bishops at 5, 34 others at 1.
const FULL_SET_POINTS: u32 = 4 * 5 + 34;

/// Points of the pieces on neither the board nor a hand (a handicap's removed pieces): what
/// the handicap declaration rules (YaneuraOu's `EnteringKingRule` `CSARule27H`, USI-RULES-002)
/// credit White, the upper hand, with.
///
/// ```
/// use usicheck::shogi::{missing_points, Position};
/// assert_eq!(missing_points(&Position::startpos()), 0);
/// let two_piece = Position::from_sfen("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1").unwrap();
/// assert_eq!(missing_points(&two_piece), 10);
/// ```
pub fn missing_points(pos: &Position) -> u32 {
    let mut present = 0;
    for color in [Color::Black, Color::White] {
        present += pos
            .pieces(color)
            .filter_map(|sq| pos.piece_at(sq))
            .map(|p| points(p.kind))
            .sum::<u32>();
        present += pos
            .hand(color)
            .iter()
            .map(|(k, n)| points(k) * n as u32)
            .sum::<u32>();
    }
    FULL_SET_POINTS.saturating_sub(present)
}
