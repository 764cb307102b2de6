//! The transposition table of the df-pn solver: fixed size, set-associative.

/// Proof and disproof numbers of one position, with the length of the proof once proven.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Bounds {
    pub pn: u32,
    pub dn: u32,
    /// Plies to mate along the stored proof (meaningful only when `pn == 0`).
    pub len: u32,
}

#[derive(Copy, Clone, Default)]
struct Entry {
    /// Zobrist key; 0 marks an empty slot (a position whose key is 0 is simply not cached).
    key: u64,
    bounds: Bounds,
}

impl Entry {
    fn is_solved(&self) -> bool {
        self.bounds.pn == 0 || self.bounds.dn == 0
    }
}

/// Slots per bucket: a new position may take any slot of its bucket.
const WAYS: usize = 4;

/// A fixed number of entries, allocated once: memory stays bounded however long the search.
pub(super) struct Table {
    entries: Vec<Entry>,
    bucket_mask: usize,
}

impl Table {
    /// A table of at least `entries` slots (rounded up to a power of two, at least 1024).
    pub fn new(entries: usize) -> Table {
        let size = entries.clamp(1024, 1 << 30).next_power_of_two();
        Table {
            entries: vec![Entry::default(); size],
            bucket_mask: (size / WAYS) - 1,
        }
    }

    fn bucket(&self, key: u64) -> std::ops::Range<usize> {
        let start = (key as usize & self.bucket_mask) * WAYS;
        start..start + WAYS
    }

    pub fn get(&self, key: u64) -> Option<Bounds> {
        if key == 0 {
            return None;
        }
        self.entries[self.bucket(key)]
            .iter()
            .find(|e| e.key == key)
            .map(|e| e.bounds)
    }

    /// Stores `bounds` for `key`, replacing its old entry, else an empty slot, else the unsolved
    /// entry with the least work (pn + dn), else (all solved) the first slot.
    pub fn store(&mut self, key: u64, bounds: Bounds) {
        if key == 0 {
            return;
        }
        let range = self.bucket(key);
        let bucket = &mut self.entries[range];
        let slot = bucket
            .iter()
            .position(|e| e.key == key || e.key == 0)
            .or_else(|| {
                bucket
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| !e.is_solved())
                    .min_by_key(|(_, e)| e.bounds.pn as u64 + e.bounds.dn as u64)
                    .map(|(i, _)| i)
            })
            .unwrap_or(0);
        bucket[slot] = Entry { key, bounds };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_solved_entries_when_a_bucket_overflows() {
        let mut t = Table::new(1024);
        let proven = Bounds {
            pn: 0,
            dn: u32::MAX,
            len: 3,
        };
        let stride = (t.bucket_mask + 1) as u64;
        t.store(1, proven);
        for i in 1..20 {
            let b = Bounds {
                pn: i as u32,
                dn: 1,
                len: 0,
            };
            t.store(1 + i * stride, b);
        }
        assert_eq!(t.get(1), Some(proven));
        assert_eq!(t.get(0), None);
    }
}
