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

/// A fixed number of entries, allocated once: memory stays bounded however long the search.
/// The vectors are zero-initialised, so a fresh table costs no writes.
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
}

fn unpack(numbers: u64) -> (u32, u32) {
    (numbers as u32, (numbers >> 32) as u32)
}

impl Table {
    /// A table of at least `entries` slots (rounded up to a power of two, at least 1024).
    pub fn new(entries: usize) -> Table {
        let size = entries.clamp(1024, 1 << 30).next_power_of_two();
        Table {
            boards: vec![0; size],
            attacker_hands: vec![0; size],
            defender_hands: vec![0; size],
            numbers: vec![0; size],
            lens: vec![0; size],
            bucket_mask: (size / WAYS) - 1,
        }
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
        let range = self.bucket(key.board);
        let start = range.start;
        let slot = range
            .clone()
            .find(|&i| {
                let b = self.boards[i];
                b == 0
                    || (b == key.board
                        && self.attacker_hands[i] == key.attacker_hand
                        && self.defender_hands[i] == key.defender_hand)
            })
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
        self.boards[slot] = key.board;
        self.attacker_hands[slot] = key.attacker_hand;
        self.defender_hands[slot] = key.defender_hand;
        self.numbers[slot] = bounds.pn as u64 | (bounds.dn as u64) << 32;
        self.lens[slot] = bounds.len;
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
