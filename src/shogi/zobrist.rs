//! Zobrist keys, generated at compile time from a fixed seed so keys are stable across runs.

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn board_keys() -> [[[u64; 81]; 14]; 2] {
    let mut t = [[[0; 81]; 14]; 2];
    let mut state = 0x5553_4943_4845_434Bu64; // "USICHECK"
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 14 {
            let mut s = 0;
            while s < 81 {
                let (ns, v) = splitmix(state);
                state = ns;
                t[c][k][s] = v;
                s += 1;
            }
            k += 1;
        }
        c += 1;
    }
    t
}

const fn hand_keys() -> [[u64; 7]; 2] {
    let mut t = [[0; 7]; 2];
    let mut state = 0x4841_4E44u64;
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 7 {
            let (ns, v) = splitmix(state);
            state = ns;
            t[c][k] = v;
            k += 1;
        }
        c += 1;
    }
    t
}

/// XORed in for each piece on a square, indexed `[color][kind][square]`.
pub(crate) static BOARD: [[[u64; 81]; 14]; 2] = board_keys();
/// Added (wrapping) once per piece held, indexed `[color][kind]`, so counts need no table.
pub(crate) static HAND: [[u64; 7]; 2] = hand_keys();
/// XORed in when White is to move.
pub(crate) const WHITE_TO_MOVE: u64 = 0xA5F1_52D3_9C7E_0B61;
