//! Start positions of a match: the lines of an openings file, taken in order or shuffled by a
//! seed, cut to a number of plies, and lengthened by random legal plies, each played twice
//! with colours swapped (fastchess's `-openings order=random plies=N` and `-srand`).

use super::game::base_sfen;
use super::record;
use crate::shogi::{Game, Move};
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

/// A start position: a `position` base and moves played before the engines take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// `startpos` or `sfen …`.
    pub base: String,
    pub moves: Vec<String>,
}

impl Opening {
    /// One line of an openings file: `startpos [moves …]`, `sfen SFEN [moves …]` or a bare
    /// SFEN (with or without `moves …`); `position ` in front is allowed. The moves must be
    /// legal.
    ///
    /// ```
    /// use usicheck::play::Opening;
    /// let o = Opening::parse("position startpos moves 7g7f 3c3d").unwrap();
    /// assert_eq!((o.base.as_str(), o.moves.len()), ("startpos", 2));
    /// let bare = Opening::parse("lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1").unwrap();
    /// assert!(bare.base.starts_with("sfen lnsgkgsnl/1r7/"));
    /// assert!(Opening::parse("startpos moves 7g7e").is_err());
    /// ```
    pub fn parse(line: &str) -> Result<Opening, String> {
        let line = line.trim();
        let line = line.strip_prefix("position ").unwrap_or(line).trim();
        let (head, moves) = match line.split_once(" moves") {
            Some((head, moves)) => (head.trim(), moves.split_whitespace().collect()),
            None => (line, Vec::new()),
        };
        let base = if head == "startpos" {
            "startpos".to_owned()
        } else {
            let sfen = head.strip_prefix("sfen ").unwrap_or(head).trim();
            format!("sfen {sfen}")
        };
        Game::from_usi(&base_sfen(&base), &moves).map_err(|e| format!("`{line}`: {e}"))?;
        Ok(Opening {
            base,
            moves: moves.into_iter().map(str::to_owned).collect(),
        })
    }

    /// The bundled set: the start position, common openings, and the handicaps (the
    /// handicap giver is White and moves first).
    pub fn bundled() -> Vec<Opening> {
        const LINES: &[&str] = &[
            "startpos",
            "startpos moves 7g7f 3c3d",
            "startpos moves 2g2f 8c8d",
            "startpos moves 7g7f 8c8d 7i6h",
            "startpos moves 2g2f 3c3d 7g7f 4c4d",
            "sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
            "sfen lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
            "sfen lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
            "sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ];
        LINES
            .iter()
            .map(|line| Opening::parse(line).expect("bundled openings are legal"))
            .collect()
    }

    /// The openings of `--openings VALUE`: `bundled`; a game record (`.kif`, `.kifu`, or
    /// `.csa` with one opening per game, see [`record::read_record`]), its start position and
    /// moves; or any other file as lines [`Opening::parse`] reads (`#` starts a comment line;
    /// blank lines are skipped). Errors name the file and line.
    pub fn load(value: &str) -> Result<Vec<Opening>, String> {
        if value == "bundled" {
            return Ok(Opening::bundled());
        }
        if record::is_record(value.as_ref()) {
            return record::read_record(value.as_ref());
        }
        let text =
            std::fs::read_to_string(value).map_err(|e| format!("--openings {value}: {e}"))?;
        let openings = text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
            .map(|(n, line)| Opening::parse(line).map_err(|e| format!("{value}:{}: {e}", n + 1)))
            .collect::<Result<Vec<_>, _>>()?;
        if openings.is_empty() {
            return Err(format!("--openings {value}: no position in it"));
        }
        Ok(openings)
    }
}

/// The order openings are taken in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// As the file gives them.
    #[default]
    Sequential,
    /// Shuffled once by `--seed`, then in that order.
    Random,
}

/// The openings of a match and how each game's start is drawn from them.
#[derive(Clone, Debug)]
pub struct Book {
    openings: Vec<Opening>,
    order: Vec<usize>,
    shuffled: bool,
    /// Each opening's moves are cut to this many (`--opening-plies`).
    plies: Option<usize>,
    /// Random legal plies played after the opening's moves (`--random-plies`).
    random_plies: usize,
    seed: u64,
}

impl Book {
    /// A book of `openings` (at least one) taken in `order`, shuffled and randomised by `seed`.
    ///
    /// ```
    /// use usicheck::play::{Book, Opening, Order};
    /// let book = Book::new(Opening::bundled(), Order::Random, 7, None, 0);
    /// let firsts: Vec<Opening> = (0..9).map(|pair| book.opening(pair)).collect();
    /// assert!(Opening::bundled().iter().all(|o| firsts.contains(o)), "each once per cycle");
    /// assert_eq!(book.opening(2), Book::new(Opening::bundled(), Order::Random, 7, None, 0).opening(2));
    /// ```
    pub fn new(
        openings: Vec<Opening>,
        order: Order,
        seed: u64,
        plies: Option<usize>,
        random_plies: usize,
    ) -> Book {
        assert!(!openings.is_empty(), "a book has an opening");
        let mut indices: Vec<usize> = (0..openings.len()).collect();
        if order == Order::Random {
            indices.shuffle(&mut rng(seed, u64::MAX));
        }
        Book {
            openings,
            order: indices,
            shuffled: order == Order::Random,
            plies,
            random_plies,
            seed,
        }
    }

    /// The start position alone.
    pub fn startpos() -> Book {
        let startpos = Opening::parse("startpos").expect("the start position");
        Book::new(vec![startpos], Order::Sequential, 0, None, 0)
    }

    /// The seed the openings were drawn with, when they were drawn at random.
    pub fn seed(&self) -> Option<u64> {
        (self.shuffled || self.random_plies > 0).then_some(self.seed)
    }

    /// The opening of pair `pair` (from 0; games `2 × pair` and `2 × pair + 1` play it with
    /// colours swapped): the book's openings cycled in order, each cut to `plies` and followed
    /// by `random_plies` random legal moves drawn from the seed and the pair, never into a
    /// position without a legal move.
    ///
    /// ```
    /// use usicheck::play::{Book, Opening, Order};
    /// let book = Book::new(vec![Opening::parse("startpos moves 7g7f 3c3d").unwrap()], Order::Sequential, 1, Some(1), 4);
    /// let o = book.opening(0);
    /// assert_eq!((o.moves[0].as_str(), o.moves.len()), ("7g7f", 5));
    /// assert_ne!(book.opening(1), o, "each pair its own random plies");
    /// assert!(Opening::parse(&format!("startpos moves {}", o.moves.join(" "))).is_ok());
    /// ```
    pub fn opening(&self, pair: usize) -> Opening {
        let mut opening = self.openings[self.order[pair % self.order.len()]].clone();
        if let Some(plies) = self.plies {
            opening.moves.truncate(plies);
        }
        if self.random_plies == 0 {
            return opening;
        }
        let mut game = Game::from_usi(&base_sfen(&opening.base), &opening.moves)
            .expect("openings are checked when read");
        let mut rng = rng(self.seed, pair as u64);
        for _ in 0..self.random_plies {
            let playable: Vec<Move> = game
                .position()
                .legal_moves()
                .iter()
                .copied()
                .filter(|&mv| !game.position().after(mv).legal_moves().is_empty())
                .collect();
            if playable.is_empty() {
                break;
            }
            let mv = playable[rng.random_range(0..playable.len())];
            game.play(mv).expect("a legal move");
            opening.moves.push(mv.to_string());
        }
        opening
    }
}

/// The random numbers of `stream` in a match seeded `seed` (`seed_from_u64` spreads the bits).
fn rng(seed: u64, stream: u64) -> rand_xorshift::XorShiftRng {
    rand_xorshift::XorShiftRng::seed_from_u64(seed ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}
