//! A small transposition table remembering the best move per position, sized by `USI_Hash`;
//! it orders moves, yields the principal variation and gives `hashfull` a meaning.

use crate::shogi::Move;

/// Best moves keyed by Zobrist key, one entry per slot, always replaced.
pub struct Tt {
    slots: Vec<Option<(u64, Move)>>,
}

impl Tt {
    /// A table of about `mb` mebibytes.
    ///
    /// ```
    /// use usicheck::refengine::tt::Tt;
    /// let mut tt = Tt::new(1);
    /// let m = "7g7f".parse().unwrap();
    /// tt.store(42, m);
    /// assert_eq!(tt.probe(42), Some(m));
    /// assert_eq!(tt.probe(43), None);
    /// ```
    pub fn new(mb: i64) -> Tt {
        let bytes = usize::try_from(mb.max(1)).unwrap_or(1) << 20;
        let len = (bytes / size_of::<Option<(u64, Move)>>()).max(1024);
        Tt {
            slots: vec![None; len],
        }
    }

    fn index(&self, key: u64) -> usize {
        (key % self.slots.len() as u64) as usize
    }

    pub fn store(&mut self, key: u64, mv: Move) {
        let i = self.index(key);
        self.slots[i] = Some((key, mv));
    }

    pub fn probe(&self, key: u64) -> Option<Move> {
        match self.slots[self.index(key)] {
            Some((k, m)) if k == key => Some(m),
            _ => None,
        }
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
    }

    /// Permill of the first 1000 slots in use.
    pub fn hashfull(&self) -> u32 {
        let sample = &self.slots[..1000];
        sample.iter().filter(|s| s.is_some()).count() as u32
    }
}
