//! A small transposition table remembering the best move per position, sized by `USI_Hash`;
//! it orders moves, yields the principal variation and gives `hashfull` a meaning.

use crate::shogi::{Move, PieceKind, Square};
use std::collections::HashMap;

/// Best moves keyed by Zobrist key, one entry per slot, always replaced.
///
/// The slots live in a map from slot index to entry, so the table holds only what was stored:
/// a search touches a few thousand of the millions of slots a `USI_Hash` of 256 MiB gives, and
/// a self-test sweep runs thousands of engines in one process. Which positions share a slot,
/// and so the moves searched first, is the same as in a flat array of that many slots.
pub struct Tt {
    slots: usize,
    entries: HashMap<usize, (u64, u32)>,
    /// Entries among the first 1000 slots, the `hashfull` sample.
    sampled: u32,
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
            entries: HashMap::new(),
            sampled: 0,
        }
    }

    fn index(&self, key: u64) -> usize {
        (key % self.slots as u64) as usize
    }

    pub fn store(&mut self, key: u64, mv: Move) {
        let i = self.index(key);
        if self.entries.insert(i, (key, encode(mv))).is_none() && i < 1000 {
            self.sampled += 1;
        }
    }

    pub fn probe(&self, key: u64) -> Option<Move> {
        match self.entries.get(&self.index(key)) {
            Some(&(stored, bits)) if stored == key => decode(bits),
            _ => None,
        }
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.sampled = 0;
    }

    /// Permill of the first 1000 slots in use.
    pub fn hashfull(&self) -> u32 {
        self.sampled
    }
}
