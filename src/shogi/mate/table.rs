//! The transposition table of the df-pn solver: fixed size, set-associative.

/// Proof and disproof numbers of one position, with the length of the proof once proven.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Bounds {
    pub pn: u32,
    pub dn: u32,
    /// Plies to mate along the stored proof (meaningful only when `pn == 0`).
    pub len: u32,
}

/// Slots per bucket: a new position may take any slot of its bucket. Positions that differ
/// only in the hands share a bucket, so it is wide.
const WAYS: usize = 8;

/// The smallest table, and the size every table starts at.
const MIN_SLOTS: usize = 1024;

/// Where a position goes in the table: its board (with side to move and attacker) and the two
/// hands, packed one count per byte.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct TableKey {
    pub board: u64,
    pub attacker_hand: u64,
    pub defender_hand: u64,
}

/// Whether every count of `a` is at least the matching count of `b`.
fn covers(a: u64, b: u64) -> bool {
    a.to_le_bytes()
        .iter()
        .zip(b.to_le_bytes())
        .all(|(&x, y)| x >= y)
}

/// At most a fixed number of entries: memory stays bounded however long the search. The
/// table starts small and doubles when a new position finds its bucket full, up to that
/// size; only then does it replace entries. A short search (most `checkmate` lines the
/// observer verifies) so touches a few kilobytes, not the whole table: zeroing 9 MiB for
/// each was a quarter of a simulated sweep's CPU time. A growing table keeps what the full
/// one would: no entry is replaced before the table is full-sized, and an entry keeps its
/// place in its bucket's order.
///
/// Lookups use hand dominance: a proof holds when the attacker holds at least the same pieces
/// and the defender at most the same (spare pieces never hurt the attacker, and the defender
/// can only use fewer), a disproof in the opposite case.
pub(super) struct Table {
    /// Board keys; 0 marks an empty slot (a board whose key is 0 is simply not cached).
    boards: Vec<u64>,
    attacker_hands: Vec<u64>,
    defender_hands: Vec<u64>,
    /// `pn | dn << 32` of the slot.
    numbers: Vec<u64>,
    /// Proof length of the slot.
    lens: Vec<u32>,
    bucket_mask: usize,
    /// Slots the table may grow to.
    max_slots: usize,
}

fn unpack(numbers: u64) -> (u32, u32) {
    (numbers as u32, (numbers >> 32) as u32)
}

impl Table {
    /// A table that grows to at least `entries` slots (rounded up to a power of two, at least
    /// 1024).
    pub fn new(entries: usize) -> Table {
        let max_slots = entries.clamp(MIN_SLOTS, 1 << 30).next_power_of_two();
        Table::sized(MIN_SLOTS, max_slots)
    }

    fn sized(slots: usize, max_slots: usize) -> Table {
        Table {
            boards: vec![0; slots],
            attacker_hands: vec![0; slots],
            defender_hands: vec![0; slots],
            numbers: vec![0; slots],
            lens: vec![0; slots],
            bucket_mask: (slots / WAYS) - 1,
            max_slots,
        }
    }

    /// Doubles the table, each entry going to the first free slot of its new bucket in slot
    /// order: a new bucket takes the entries of one old bucket only, so there is room, and
    /// their order is kept.
    fn grow(&mut self) {
        let mut grown = Table::sized(self.boards.len() * 2, self.max_slots);
        for i in (0..self.boards.len()).filter(|&i| self.boards[i] != 0) {
            let key = self.key_at(i);
            let slot = grown
                .bucket(key.board)
                .find(|&j| grown.boards[j] == 0)
                .expect("a new bucket holds one old bucket's entries");
            grown.put(slot, key, self.numbers[i], self.lens[i]);
        }
        *self = grown;
    }

    fn key_at(&self, slot: usize) -> TableKey {
        TableKey {
            board: self.boards[slot],
            attacker_hand: self.attacker_hands[slot],
            defender_hand: self.defender_hands[slot],
        }
    }

    fn put(&mut self, slot: usize, key: TableKey, numbers: u64, len: u32) {
        self.boards[slot] = key.board;
        self.attacker_hands[slot] = key.attacker_hand;
        self.defender_hands[slot] = key.defender_hand;
        self.numbers[slot] = numbers;
        self.lens[slot] = len;
    }

    fn bucket(&self, board: u64) -> std::ops::Range<usize> {
        let start = (board as usize & self.bucket_mask) * WAYS;
        start..start + WAYS
    }

    /// The bounds of `key`: a dominating proof or disproof if any, else the exact entry.
    pub fn get(&self, key: TableKey) -> Option<Bounds> {
        if key.board == 0 {
            return None;
        }
        let mut exact = None;
        for i in self.bucket(key.board) {
            if self.boards[i] != key.board {
                continue;
            }
            let (pn, dn) = unpack(self.numbers[i]);
            let bounds = Bounds {
                pn,
                dn,
                len: self.lens[i],
            };
            let attacker = self.attacker_hands[i];
            let defender = self.defender_hands[i];
            let more_for_attacker =
                covers(key.attacker_hand, attacker) && covers(defender, key.defender_hand);
            let less_for_attacker =
                covers(attacker, key.attacker_hand) && covers(key.defender_hand, defender);
            if (pn == 0 && more_for_attacker) || (dn == 0 && less_for_attacker) {
                return Some(bounds);
            }
            if more_for_attacker && less_for_attacker {
                exact = Some(bounds);
            }
        }
        exact
    }

    /// Stores `bounds` for `key`, replacing its old entry, else an empty slot, else the unsolved
    /// entry with the least work (pn + dn), else (all solved) the first slot.
    pub fn store(&mut self, key: TableKey, bounds: Bounds) {
        if key.board == 0 {
            return;
        }
        let free_or_same = |table: &Table| {
            table
                .bucket(key.board)
                .find(|&i| table.boards[i] == 0 || table.key_at(i) == key)
        };
        let mut found = free_or_same(self);
        while found.is_none() && self.boards.len() < self.max_slots {
            self.grow();
            found = free_or_same(self);
        }
        let range = self.bucket(key.board);
        let start = range.start;
        let slot = found
            .or_else(|| {
                range
                    .clone()
                    .map(|i| unpack(self.numbers[i]))
                    .enumerate()
                    .filter(|&(_, (pn, dn))| pn != 0 && dn != 0)
                    .min_by_key(|&(_, (pn, dn))| pn as u64 + dn as u64)
                    .map(|(i, _)| start + i)
            })
            .unwrap_or(start);
        let numbers = bounds.pn as u64 | (bounds.dn as u64) << 32;
        self.put(slot, key, numbers, bounds.len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(board: u64, attacker_hand: u64, defender_hand: u64) -> TableKey {
        TableKey {
            board,
            attacker_hand,
            defender_hand,
        }
    }

    const PROVEN: Bounds = Bounds {
        pn: 0,
        dn: u32::MAX,
        len: 3,
    };
    const DISPROVEN: Bounds = Bounds {
        pn: u32::MAX,
        dn: 0,
        len: 0,
    };

    #[test]
    fn keeps_solved_entries_when_a_bucket_overflows() {
        let mut t = Table::new(1024);
        let stride = (t.bucket_mask + 1) as u64;
        t.store(key(1, 0, 0), PROVEN);
        for i in 1..40 {
            let b = Bounds {
                pn: i as u32,
                dn: 1,
                len: 0,
            };
            t.store(key(1 + i * stride, 0, 0), b);
        }
        assert_eq!(t.get(key(1, 0, 0)), Some(PROVEN));
        assert_eq!(t.get(key(0, 0, 0)), None);
    }

    proptest::proptest! {
        /// Growing (with replacements once full-sized) answers every lookup as the table
        /// allocated at full size does; boards from few buckets fill them up.
        #[test]
        fn a_growing_table_answers_as_a_full_sized_one(
            stores in proptest::collection::vec((1u64..64, 0u64..512, 0u64..3, 0u64..3, 0u32..4, 0u32..4), 1..3000)
        ) {
            let mut growing = Table::new(4096);
            let mut full = Table::sized(4096, 4096);
            for &(low, high, attacker, defender, pn, dn) in &stores {
                let k = key(low | high << 12, attacker, defender);
                let b = Bounds { pn, dn, len: pn + dn };
                growing.store(k, b);
                full.store(k, b);
            }
            for &(low, high, attacker, defender, _, _) in &stores {
                let k = key(low | high << 12, attacker, defender);
                proptest::prop_assert_eq!(growing.get(k), full.get(k));
            }
            proptest::prop_assert!(growing.boards.len() <= 4096);
        }
    }

    #[test]
    fn a_table_starts_small_and_grows_to_its_bound() {
        let mut t = Table::new(1 << 18);
        assert_eq!(t.boards.len(), MIN_SLOTS);
        for board in 1..=100_000 {
            t.store(key(board, 0, 0), PROVEN);
        }
        assert_eq!(t.boards.len(), 1 << 17);
        for board in 100_001..=1_000_000 {
            t.store(key(board, 0, 0), PROVEN);
        }
        assert_eq!(t.boards.len(), 1 << 18);
    }

    #[test]
    fn proofs_and_disproofs_extend_by_hand_dominance() {
        let mut t = Table::new(1024);
        t.store(key(5, 0x0101, 0x02), PROVEN);
        t.store(key(7, 0x0101, 0x02), DISPROVEN);
        // More for the attacker, less for the defender: still proven.
        assert_eq!(t.get(key(5, 0x0201, 0x01)), Some(PROVEN));
        assert_eq!(t.get(key(5, 0x0100, 0x02)), None);
        assert_eq!(t.get(key(5, 0x0101, 0x03)), None);
        // Less for the attacker, more for the defender: still disproven.
        assert_eq!(t.get(key(7, 0x0100, 0x03)), Some(DISPROVEN));
        assert_eq!(t.get(key(7, 0x0201, 0x02)), None);
        assert_eq!(t.get(key(7, 0x0101, 0x01)), None);
    }
}
