//! The fuzzer's input as a USI session: what `cargo fuzz` generates and `cargo fuzz fmt` prints.

use crate::fuzzer::plan::{self, Cmd, Kind, Mix};
use arbitrary::{Arbitrary, Unstructured};
use std::fmt;

/// Fuzzer input bytes per episode: the seed of its generator.
const BYTES_PER_EPISODE: usize = 4;

/// A session of the fuzzer's mix ([`Mix::Quick`]), one GUI episode per seed, each generated
/// from its seed alone: a mutation of one seed changes one episode, and libFuzzer's crossover
/// splices episodes of different inputs.
///
/// From fuzzer bytes ([`Arbitrary::arbitrary_take_rest`], what `fuzz_target!(|session:
/// Session| …)` calls), every 4 bytes are a seed (little-endian, the last one zero-padded)
/// and bytes beyond [`Session::MAX_EPISODES`] seeds are ignored. `Debug` prints the lines the
/// session sends, so `cargo fuzz fmt` shows a saved input as the GUI's side of the exchange.
///
/// ```
/// use arbitrary::{Arbitrary, Unstructured};
/// use usicheck::harness::Session;
///
/// let session = Session::arbitrary_take_rest(Unstructured::new(&[1, 0, 0, 0, 2])).unwrap();
/// assert_eq!(session, Session::from_seeds([1, 2]));
/// let shown = format!("{session:?}");
/// assert!(shown.contains("# episode 2 of 2, seed 0x00000002"), "{shown}");
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Session {
    seeds: Vec<u32>,
}

impl Session {
    /// Episodes in a session at most: longer inputs are cut here, so that a session stays
    /// within milliseconds.
    pub const MAX_EPISODES: usize = 8;

    /// The session of these episode seeds (the first [`Session::MAX_EPISODES`] of them).
    pub fn from_seeds(seeds: impl IntoIterator<Item = u32>) -> Session {
        Session {
            seeds: seeds.into_iter().take(Session::MAX_EPISODES).collect(),
        }
    }

    /// One seed per episode, in order.
    pub fn seeds(&self) -> &[u32] {
        &self.seeds
    }

    /// The commands the session sends after the handshake, pauses included.
    pub fn commands(&self) -> Vec<Cmd> {
        plan::episodes(self.seeds.iter().map(|&seed| u64::from(seed)), Mix::Quick)
    }
}

impl<'a> Arbitrary<'a> for Session {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Session> {
        let episodes = u.int_in_range(0..=Session::MAX_EPISODES)?;
        let seeds = (0..episodes)
            .map(|_| u32::arbitrary(u))
            .collect::<arbitrary::Result<Vec<u32>>>()?;
        Ok(Session { seeds })
    }

    /// Every 4 bytes a seed, as the harness read raw inputs before it took a `Session`:
    /// corpora of that time keep their meaning.
    fn arbitrary_take_rest(u: Unstructured<'a>) -> arbitrary::Result<Session> {
        let seeds = u.take_rest().chunks(BYTES_PER_EPISODE).map(|chunk| {
            let mut seed = [0; BYTES_PER_EPISODE];
            seed[..chunk.len()].copy_from_slice(chunk);
            u32::from_le_bytes(seed)
        });
        Ok(Session::from_seeds(seeds))
    }

    /// As [`Session::arbitrary`] reads: a byte for the count, then the seeds. The lower bound
    /// stays 0: libFuzzer's empty input is the session of the handshake alone.
    fn size_hint(_depth: usize) -> (usize, Option<usize>) {
        (0, Some(1 + BYTES_PER_EPISODE * Session::MAX_EPISODES))
    }
}

impl fmt::Debug for Session {
    /// The lines sent after the handshake, episode by episode, each quoted as a Rust string
    /// (garbage lines hold blanks and control characters).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seeds: Vec<String> = self.seeds.iter().map(|s| format!("{s:#010x}")).collect();
        writeln!(f, "Session::from_seeds([{}])", seeds.join(", "))?;
        writeln!(
            f,
            "# after `usi`, the `setoption`s, `isready` and `usinewgame`, the GUI sends:"
        )?;
        let episodes = self.seeds.len();
        for (i, &seed) in self.seeds.iter().enumerate() {
            writeln!(f, "# episode {} of {episodes}, seed {seed:#010x}", i + 1)?;
            for cmd in Session::from_seeds([seed]).commands() {
                match cmd.kind {
                    Kind::Sleep(pause) => writeln!(f, "  (pause {} ms)", pause.as_millis())?,
                    _ if cmd.raw => writeln!(f, "  {:?} (raw: no newline added)", cmd.text)?,
                    _ => writeln!(f, "  {:?}", cmd.text)?,
                }
            }
        }
        write!(f, "# then `stop` if a search is open, `isready` and `quit`")
    }
}
