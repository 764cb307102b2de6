//! The `go` command and the clock fields it shares with `ponderhit`.

use super::lex::Tokens;
use crate::shogi::Move;
use std::fmt;
use std::str::FromStr;

/// Remaining times and increments in milliseconds, as carried by `go` (and by `ponderhit` in the
/// YaneuraOu/ShogiHome extension, USI-EXT-015). Signed, so an overrun clock can be expressed.
/// `bbyoyomi`/`wbyoyomi` are the USI 2.0 per-side byoyomi (USI-EXT-013).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Clock {
    pub btime: Option<i64>,
    pub wtime: Option<i64>,
    pub byoyomi: Option<i64>,
    pub binc: Option<i64>,
    pub winc: Option<i64>,
    pub bbyoyomi: Option<i64>,
    pub wbyoyomi: Option<i64>,
}

impl Clock {
    pub fn is_empty(&self) -> bool {
        *self == Clock::default()
    }

    /// The field named by `keyword`, if it is a clock keyword.
    fn field(&mut self, keyword: &str) -> Option<&mut Option<i64>> {
        Some(match keyword {
            "btime" => &mut self.btime,
            "wtime" => &mut self.wtime,
            "byoyomi" => &mut self.byoyomi,
            "binc" => &mut self.binc,
            "winc" => &mut self.winc,
            "bbyoyomi" => &mut self.bbyoyomi,
            "wbyoyomi" => &mut self.wbyoyomi,
            _ => return None,
        })
    }

    fn fields(&self) -> [(&'static str, Option<i64>); 7] {
        [
            ("btime", self.btime),
            ("wtime", self.wtime),
            ("byoyomi", self.byoyomi),
            ("binc", self.binc),
            ("winc", self.winc),
            ("bbyoyomi", self.bbyoyomi),
            ("wbyoyomi", self.wbyoyomi),
        ]
    }

    /// Reads clock fields in any order, ignoring every other token (USI-STOP-005).
    pub(crate) fn parse_args(mut tokens: Tokens<'_>) -> Clock {
        let mut clock = Clock::default();
        while let Some(tok) = tokens.next() {
            if let Some(slot) = clock.field(tok) {
                set_number(slot, &mut tokens);
            }
        }
        clock
    }
}

/// Writes ` key value` for every present field.
impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (key, value) in self.fields() {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        Ok(())
    }
}

/// The limit of a `go mate` search: milliseconds, or `infinite` (USI-MATE-001).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MateLimit {
    Millis(u64),
    Infinite,
}

impl fmt::Display for MateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MateLimit::Millis(ms) => write!(f, "{ms}"),
            MateLimit::Infinite => f.write_str("infinite"),
        }
    }
}

/// `go` with every parameter. Parsing accepts the tokens in any order, ignores a keyword whose
/// number is missing or malformed, and keeps unknown tokens in `extra` (USI-GO-011).
///
/// ```
/// use usicheck::usi::{Command, Go, MateLimit};
/// let Command::Go(go) = Command::parse("go byoyomi 1000 wtime 0 btime 0 foo") else { panic!() };
/// assert_eq!((go.clock.btime, go.clock.wtime, go.clock.byoyomi), (Some(0), Some(0), Some(1000)));
/// assert_eq!(go.extra, ["foo"]);
/// assert_eq!(go.to_string(), "go btime 0 wtime 0 byoyomi 1000 foo");
/// let Command::Go(go) = Command::parse("go nodes 10000 mate infinite") else { panic!() };
/// assert_eq!((go.nodes, go.mate), (Some(10000), Some(MateLimit::Infinite)));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Go {
    pub ponder: bool,
    pub mate: Option<MateLimit>,
    pub clock: Clock,
    pub movestogo: Option<u32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<i64>,
    pub infinite: bool,
    /// `go perft N`, as Stockfish-family engines (YaneuraOu) accept.
    pub perft: Option<u32>,
    /// Empty when absent.
    pub searchmoves: Vec<Move>,
    /// Tokens the parser did not recognise, in order.
    pub extra: Vec<String>,
}

impl Go {
    /// `go btime … wtime … byoyomi …`, the usual timed search.
    pub fn byoyomi(btime: i64, wtime: i64, byoyomi: i64) -> Go {
        Go {
            clock: Clock {
                btime: Some(btime),
                wtime: Some(wtime),
                byoyomi: Some(byoyomi),
                ..Clock::default()
            },
            ..Go::default()
        }
    }

    pub(crate) fn parse_args(mut tokens: Tokens<'_>) -> Go {
        let mut go = Go::default();
        while let Some(tok) = tokens.next() {
            if let Some(slot) = go.clock.field(tok) {
                set_number(slot, &mut tokens);
                continue;
            }
            match tok {
                "ponder" => go.ponder = true,
                "infinite" => go.infinite = true,
                "movestogo" => set_number(&mut go.movestogo, &mut tokens),
                "depth" => set_number(&mut go.depth, &mut tokens),
                "nodes" => set_number(&mut go.nodes, &mut tokens),
                "movetime" => set_number(&mut go.movetime, &mut tokens),
                "perft" => set_number(&mut go.perft, &mut tokens),
                "mate" => {
                    // A missing argument means "no limit", as YaneuraOu reads it.
                    let mut limit = None;
                    set_number(&mut limit, &mut tokens);
                    go.mate = Some(match limit {
                        Some(ms) => MateLimit::Millis(ms),
                        None => {
                            if tokens.peek() == Some("infinite") {
                                tokens.next();
                            }
                            MateLimit::Infinite
                        }
                    });
                }
                "searchmoves" => {
                    while let Some(mv) = tokens.peek().and_then(|t| t.parse::<Move>().ok()) {
                        tokens.next();
                        go.searchmoves.push(mv);
                    }
                }
                other => go.extra.push(other.to_string()),
            }
        }
        go
    }
}

/// Sets `slot` from the next token if it is a number; otherwise leaves both alone.
fn set_number<T: FromStr>(slot: &mut Option<T>, tokens: &mut Tokens<'_>) {
    if let Some(value) = tokens.peek().and_then(|t| t.parse().ok()) {
        tokens.next();
        *slot = Some(value);
    }
}

/// Canonical order: `ponder` and `mate` right after `go` (as GUIs send them), then the clock,
/// the limits, unknown tokens, and `searchmoves` last because it takes a variable-length list.
impl fmt::Display for Go {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("go")?;
        if self.ponder {
            f.write_str(" ponder")?;
        }
        if let Some(mate) = self.mate {
            write!(f, " mate {mate}")?;
        }
        write!(f, "{}", self.clock)?;
        let limits = [
            ("movestogo", self.movestogo.map(i128::from)),
            ("depth", self.depth.map(i128::from)),
            ("nodes", self.nodes.map(i128::from)),
            ("movetime", self.movetime.map(i128::from)),
        ];
        for (key, value) in limits {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if self.infinite {
            f.write_str(" infinite")?;
        }
        if let Some(n) = self.perft {
            write!(f, " perft {n}")?;
        }
        for tok in &self.extra {
            write!(f, " {tok}")?;
        }
        if !self.searchmoves.is_empty() {
            f.write_str(" searchmoves")?;
            for mv in &self.searchmoves {
                write!(f, " {mv}")?;
            }
        }
        Ok(())
    }
}
