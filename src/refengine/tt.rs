//! A small transposition table remembering the best move per position, sized by `USI_Hash`;
//! it orders moves, yields the principal variation and gives `hashfull` a meaning.

use crate::shogi::{Move, PieceKind, Square};

/// Best moves keyed by Zobrist key, one entry per slot, always replaced.
///
/// Stored as two zero-initialised arrays (a zero move is an empty slot), allocated at the first
/// store: the default table an engine starts with is replaced at `isready` after `setoption
/// name USI_Hash` before it is used, so an in-process fuzz session ([`crate::harness`]) with a
/// 1 MiB hash never allocates the 16 MiB one.
pub struct Tt {
    slots: usize,
    keys: Vec<u64>,
    moves: Vec<u32>,
}

/// The slot count of a table of `mb` mebibytes, as when a slot was an `Option<(u64, Move)>`
/// (the count decides which positions share a slot, hence the moves searched first).
fn slot_count(mb: i64) -> usize {
    let bytes = usize::try_from(mb.max(1)).unwrap_or(1) << 20;
    (bytes / size_of::<Option<(u64, Move)>>()).max(1024)
}

const FILLED: u32 = 1 << 31;
const DROP: u32 = 1 << 30;
const PROMOTE: u32 = 1 << 29;

fn encode(mv: Move) -> u32 {
    match mv {
        Move::Normal { from, to, promote } => {
            let promote = if promote { PROMOTE } else { 0 };
            FILLED | promote | (from.index() as u32) << 8 | to.index() as u32
        }
        Move::Drop { kind, to } => FILLED | DROP | (kind.index() as u32) << 8 | to.index() as u32,
    }
}

fn decode(bits: u32) -> Option<Move> {
    if bits & FILLED == 0 {
        return None;
    }
    let to = Square::from_index((bits & 0xff) as usize)?;
    let source = ((bits >> 8) & 0xff) as usize;
    Some(if bits & DROP != 0 {
        Move::Drop {
            kind: PieceKind::from_index(source)?,
            to,
        }
    } else {
        Move::Normal {
            from: Square::from_index(source)?,
            to,
            promote: bits & PROMOTE != 0,
        }
    })
}

impl Tt {
    /// A table of about `mb` mebibytes.
    ///
    /// ```
    /// use usicheck::refengine::tt::Tt;
    /// let mut tt = Tt::new(1);
    /// for text in ["7g7f", "8h2b+", "P*5e"] {
    ///     let m = text.parse().unwrap();
    ///     tt.store(42, m);
    ///     assert_eq!(tt.probe(42), Some(m));
    /// }
    /// assert_eq!(tt.probe(43), None);
    /// ```
    pub fn new(mb: i64) -> Tt {
        Tt {
            slots: slot_count(mb),
            keys: Vec::new(),
            moves: Vec::new(),
        }
    }

    fn index(&self, key: u64) -> usize {
        (key % self.slots as u64) as usize
    }

    pub fn store(&mut self, key: u64, mv: Move) {
        if self.keys.is_empty() {
            self.keys = vec![0; self.slots];
            self.moves = vec![0; self.slots];
        }
        let i = self.index(key);
        self.keys[i] = key;
        self.moves[i] = encode(mv);
    }

    pub fn probe(&self, key: u64) -> Option<Move> {
        let i = self.index(key);
        if self.keys.get(i) == Some(&key) {
            decode(self.moves[i])
        } else {
            None
        }
    }

    pub fn clear(&mut self) {
        self.keys.fill(0);
        self.moves.fill(0);
    }

    /// Permill of the first 1000 slots in use.
    pub fn hashfull(&self) -> u32 {
        let sample = self.moves.get(..1000).unwrap_or_default();
        sample.iter().filter(|&&bits| bits != 0).count() as u32
    }
}
