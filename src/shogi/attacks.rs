//! Attack tables: step attacks per colour and kind, ray masks for sliders, and the squares
//! between or on a line through two squares. All tables are built at compile time.

use super::{Bitboard, Color, PieceKind, Square};

/// (file delta, rank delta) for Black; White mirrors the rank delta. Rank 1 is Black's far side.
const PAWN_STEPS: &[(i8, i8)] = &[(0, -1)];
const KNIGHT_STEPS: &[(i8, i8)] = &[(-1, -2), (1, -2)];
const SILVER_STEPS: &[(i8, i8)] = &[(0, -1), (-1, -1), (1, -1), (-1, 1), (1, 1)];
const GOLD_STEPS: &[(i8, i8)] = &[(0, -1), (-1, -1), (1, -1), (-1, 0), (1, 0), (0, 1)];
const KING_STEPS: &[(i8, i8)] = &[
    (0, -1),
    (-1, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (0, 1),
    (-1, 1),
    (1, 1),
];

/// Ray directions as (file delta, rank delta); the index order fixes `OPPOSITE` and `INCREASING`.
const DIRECTIONS: [(i8, i8); 8] = [
    (0, -1),
    (0, 1),
    (1, 0),
    (-1, 0),
    (1, -1),
    (-1, -1),
    (1, 1),
    (-1, 1),
];
const OPPOSITE: [usize; 8] = [1, 0, 3, 2, 7, 6, 5, 4];
/// Whether square indices grow along the direction (then the nearest blocker is the lowest bit).
const INCREASING: [bool; 8] = [false, true, true, false, true, false, true, false];
const UP: usize = 0;
const DOWN: usize = 1;
const ROOK_DIRS: [usize; 4] = [0, 1, 2, 3];
const BISHOP_DIRS: [usize; 4] = [4, 5, 6, 7];

const fn offset(sq: usize, df: i8, dr: i8) -> Option<usize> {
    let f = (sq / 9) as i8 + df;
    let r = (sq % 9) as i8 + dr;
    if f >= 0 && f < 9 && r >= 0 && r < 9 {
        Some(f as usize * 9 + r as usize)
    } else {
        None
    }
}

const fn step_table(steps: &[(i8, i8)], color: Color) -> [Bitboard; 81] {
    let mut t = [Bitboard::EMPTY; 81];
    let mut sq = 0;
    while sq < 81 {
        let mut bits = 0u128;
        let mut i = 0;
        while i < steps.len() {
            let (df, dr) = steps[i];
            let dr = if matches!(color, Color::White) {
                -dr
            } else {
                dr
            };
            if let Some(to) = offset(sq, df, dr) {
                bits |= 1u128 << to;
            }
            i += 1;
        }
        t[sq] = Bitboard(bits);
        sq += 1;
    }
    t
}

const fn colored(steps: &[(i8, i8)]) -> [[Bitboard; 81]; 2] {
    [
        step_table(steps, Color::Black),
        step_table(steps, Color::White),
    ]
}

static PAWN: [[Bitboard; 81]; 2] = colored(PAWN_STEPS);
static KNIGHT: [[Bitboard; 81]; 2] = colored(KNIGHT_STEPS);
static SILVER: [[Bitboard; 81]; 2] = colored(SILVER_STEPS);
static GOLD: [[Bitboard; 81]; 2] = colored(GOLD_STEPS);
static KING: [Bitboard; 81] = step_table(KING_STEPS, Color::Black);

const fn ray_tables() -> [[Bitboard; 81]; 8] {
    let mut t = [[Bitboard::EMPTY; 81]; 8];
    let mut d = 0;
    while d < 8 {
        let (df, dr) = DIRECTIONS[d];
        let mut sq = 0;
        while sq < 81 {
            let mut bits = 0u128;
            let mut cur = sq;
            while let Some(next) = offset(cur, df, dr) {
                bits |= 1u128 << next;
                cur = next;
            }
            t[d][sq] = Bitboard(bits);
            sq += 1;
        }
        d += 1;
    }
    t
}

static RAYS: [[Bitboard; 81]; 8] = ray_tables();

/// `DIRECTION_BETWEEN[a][b]` is 1 + the direction from `a` to `b`, or 0 when not aligned.
const fn direction_table() -> [[u8; 81]; 81] {
    let rays = ray_tables();
    let mut t = [[0u8; 81]; 81];
    let mut d = 0;
    while d < 8 {
        let mut a = 0;
        while a < 81 {
            let mut b = 0;
            while b < 81 {
                if rays[d][a].0 & (1u128 << b) != 0 {
                    t[a][b] = d as u8 + 1;
                }
                b += 1;
            }
            a += 1;
        }
        d += 1;
    }
    t
}

static DIRECTION_BETWEEN: [[u8; 81]; 81] = direction_table();

/// `FILE_ATTACKS[rank][inner]`: the 9-bit file mask a rook on `rank` (0-based) attacks along its
/// file, given the occupancy of the file's seven inner squares (the end squares never block).
const fn file_attack_table() -> [[u16; 128]; 9] {
    let mut t = [[0u16; 128]; 9];
    let mut r = 0;
    while r < 9 {
        let mut inner = 0;
        while inner < 128 {
            let occ = (inner as u16) << 1;
            let mut bits = 0u16;
            let mut up = r as i32 - 1;
            while up >= 0 {
                bits |= 1 << up;
                if occ & (1 << up) != 0 {
                    break;
                }
                up -= 1;
            }
            let mut down = r + 1;
            while down < 9 {
                bits |= 1 << down;
                if occ & (1 << down) != 0 {
                    break;
                }
                down += 1;
            }
            t[r][inner] = bits;
            inner += 1;
        }
        r += 1;
    }
    t
}

static FILE_ATTACKS: [[u16; 128]; 9] = file_attack_table();

/// Both directions along the file of `sq`, by table lookup on the file's occupancy.
#[inline]
fn file_attacks(sq: usize, occupied: Bitboard) -> Bitboard {
    let shift = (sq / 9) * 9;
    let inner = ((occupied.0 >> (shift + 1)) & 0x7F) as usize;
    Bitboard((FILE_ATTACKS[sq % 9][inner] as u128) << shift)
}

#[inline]
fn ray(dir: usize, sq: usize, occupied: Bitboard) -> Bitboard {
    let r = RAYS[dir][sq];
    let blockers = r.0 & occupied.0;
    if blockers == 0 {
        return r;
    }
    let nearest = if INCREASING[dir] {
        blockers.trailing_zeros()
    } else {
        127 - blockers.leading_zeros()
    };
    Bitboard(r.0 ^ RAYS[dir][nearest as usize].0)
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn(color: Color, sq: Square) -> Bitboard {
    PAWN[color.index()][sq.index()]
}

#[inline]
pub fn knight(color: Color, sq: Square) -> Bitboard {
    KNIGHT[color.index()][sq.index()]
}

#[inline]
pub fn silver(color: Color, sq: Square) -> Bitboard {
    SILVER[color.index()][sq.index()]
}

/// Gold and every gold-moving promoted piece.
#[inline]
pub fn gold(color: Color, sq: Square) -> Bitboard {
    GOLD[color.index()][sq.index()]
}

#[inline]
pub fn king(sq: Square) -> Bitboard {
    KING[sq.index()]
}

#[inline]
pub fn lance(color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
    ray(
        if color == Color::Black { UP } else { DOWN },
        sq.index(),
        occupied,
    )
}

#[inline]
pub fn bishop(sq: Square, occupied: Bitboard) -> Bitboard {
    let s = sq.index();
    ray(BISHOP_DIRS[0], s, occupied)
        | ray(BISHOP_DIRS[1], s, occupied)
        | ray(BISHOP_DIRS[2], s, occupied)
        | ray(BISHOP_DIRS[3], s, occupied)
}

#[inline]
pub fn rook(sq: Square, occupied: Bitboard) -> Bitboard {
    let s = sq.index();
    file_attacks(s, occupied) | ray(ROOK_DIRS[2], s, occupied) | ray(ROOK_DIRS[3], s, occupied)
}

/// Squares a lance of `color` on `sq` would attack on an empty board.
#[inline]
pub fn lance_pseudo(color: Color, sq: Square) -> Bitboard {
    RAYS[if color == Color::Black { UP } else { DOWN }][sq.index()]
}

#[inline]
pub fn bishop_pseudo(sq: Square) -> Bitboard {
    let s = sq.index();
    RAYS[4][s] | RAYS[5][s] | RAYS[6][s] | RAYS[7][s]
}

#[inline]
pub fn rook_pseudo(sq: Square) -> Bitboard {
    let s = sq.index();
    RAYS[0][s] | RAYS[1][s] | RAYS[2][s] | RAYS[3][s]
}

/// Squares a piece attacks given the board occupancy.
///
/// ```
/// use usicheck::shogi::{attacks, Bitboard, Color, PieceKind, Square};
/// let sq = Square::new(5, 5).unwrap();
/// assert_eq!(attacks::piece(Color::Black, PieceKind::Rook, sq, Bitboard::EMPTY).count(), 16);
/// assert_eq!(attacks::piece(Color::White, PieceKind::Knight, sq, Bitboard::EMPTY).count(), 2);
/// ```
#[inline]
pub fn piece(color: Color, kind: PieceKind, sq: Square, occupied: Bitboard) -> Bitboard {
    match kind {
        PieceKind::Pawn => pawn(color, sq),
        PieceKind::Lance => lance(color, sq, occupied),
        PieceKind::Knight => knight(color, sq),
        PieceKind::Silver => silver(color, sq),
        PieceKind::Gold
        | PieceKind::ProPawn
        | PieceKind::ProLance
        | PieceKind::ProKnight
        | PieceKind::ProSilver => gold(color, sq),
        PieceKind::Bishop => bishop(sq, occupied),
        PieceKind::Rook => rook(sq, occupied),
        PieceKind::King => king(sq),
        PieceKind::Horse => bishop(sq, occupied) | king(sq),
        PieceKind::Dragon => rook(sq, occupied) | king(sq),
    }
}

/// Squares strictly between `a` and `b` when they share a file, rank or diagonal; else empty.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    match DIRECTION_BETWEEN[a.index()][b.index()] {
        0 => Bitboard::EMPTY,
        d => {
            let d = d as usize - 1;
            Bitboard(RAYS[d][a.index()].0 ^ RAYS[d][b.index()].0 ^ (1u128 << b.index()))
        }
    }
}

/// The whole line through `a` and `b` (both included) when aligned; else empty.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    match DIRECTION_BETWEEN[a.index()][b.index()] {
        0 => Bitboard::EMPTY,
        d => {
            let d = d as usize - 1;
            Bitboard(RAYS[d][a.index()].0 | RAYS[OPPOSITE[d]][a.index()].0 | (1u128 << a.index()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn sliders_stop_at_blockers() {
        let occ = Bitboard::from_square(sq("5c")) | Bitboard::from_square(sq("2e"));
        let r = rook(sq("5e"), occ);
        assert!(r.contains(sq("5c")) && !r.contains(sq("5b")));
        assert!(r.contains(sq("2e")) && !r.contains(sq("1e")));
        assert!(r.contains(sq("5i")) && r.contains(sq("9e")));
        assert_eq!(lance(Color::Black, sq("5e"), occ).count(), 2);
        assert_eq!(lance(Color::White, sq("5e"), occ).count(), 4);
        assert_eq!(bishop(sq("1a"), Bitboard::EMPTY).count(), 8);
    }

    #[test]
    fn between_and_line() {
        assert_eq!(between(sq("5a"), sq("5e")).count(), 3);
        assert_eq!(between(sq("1a"), sq("9i")).count(), 7);
        assert!(between(sq("1a"), sq("2c")).is_empty());
        assert_eq!(line(sq("5e"), sq("4d")).count(), 9);
        assert_eq!(line(sq("5e"), sq("5c")), Bitboard::file(5));
    }

    #[test]
    fn step_tables_mirror() {
        assert_eq!(
            knight(Color::Black, sq("5e"))
                .into_iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>(),
            ["4c", "6c"]
        );
        assert_eq!(
            knight(Color::White, sq("5e"))
                .into_iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>(),
            ["4g", "6g"]
        );
        assert_eq!(gold(Color::Black, sq("5e")).count(), 6);
        assert!(pawn(Color::Black, sq("5a")).is_empty());
    }
}
