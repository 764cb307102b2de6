//! Time controls (`--tc`) and the clocks of one game: what each `go` says and when a reply
//! comes too late.

use crate::shogi::Color;
use std::fmt;
use std::time::Duration;

/// How the engines' thinking is limited, for every move of every game.
///
/// ```
/// use usicheck::play::TimeControl;
/// assert_eq!("10s+1s".parse(), Ok(TimeControl::Byoyomi { main_ms: 10_000, byoyomi_ms: 1_000 }));
/// assert_eq!("60s+1s/inc".parse(), Ok(TimeControl::Fischer { main_ms: 60_000, inc_ms: 1_000 }));
/// assert_eq!("5m".parse(), Ok(TimeControl::Byoyomi { main_ms: 300_000, byoyomi_ms: 0 }));
/// assert_eq!("movetime=200ms".parse(), Ok(TimeControl::Movetime(200)));
/// assert_eq!("depth=3".parse(), Ok(TimeControl::Depth(3)));
/// assert_eq!("nodes=5000".parse(), Ok(TimeControl::Nodes(5000)));
/// assert!("10s+".parse::<TimeControl>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Main time, then `byoyomi` per move (0: sudden death).
    Byoyomi { main_ms: u64, byoyomi_ms: u64 },
    /// Main time plus an increment added before each move (`binc`/`winc`).
    Fischer { main_ms: u64, inc_ms: u64 },
    /// A fixed time per move (`go movetime`).
    Movetime(u64),
    /// A fixed search depth, no clock (`go depth`).
    Depth(u32),
    /// A fixed node budget, no clock (`go nodes`).
    Nodes(u64),
}

/// Milliseconds in `text`: `1s`, `100ms`, `2m`, `1h`; a bare number is seconds.
fn millis(text: &str) -> Result<u64, String> {
    let duration = crate::duration::parse(text).map_err(|e| format!("`{text}`: {e}"))?;
    Ok(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

impl std::str::FromStr for TimeControl {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let number = |value: &str| {
            value
                .parse::<u64>()
                .map_err(|_| format!("`{text}`: `{value}` is not a number"))
        };
        if let Some(depth) = text.strip_prefix("depth=") {
            let depth = u32::try_from(number(depth)?).map_err(|_| format!("`{text}`: too deep"))?;
            return Ok(TimeControl::Depth(depth));
        }
        if let Some(nodes) = text.strip_prefix("nodes=") {
            return Ok(TimeControl::Nodes(number(nodes)?));
        }
        if let Some(movetime) = text.strip_prefix("movetime=") {
            return Ok(TimeControl::Movetime(millis(movetime)?));
        }
        let (main, extra) = text.split_once('+').unwrap_or((text, "0"));
        let main_ms = millis(main)?;
        Ok(match extra.strip_suffix("/inc") {
            Some(inc) => TimeControl::Fischer {
                main_ms,
                inc_ms: millis(inc)?,
            },
            None => TimeControl::Byoyomi {
                main_ms,
                byoyomi_ms: millis(extra)?,
            },
        })
    }
}

/// `ms` as `--tc` spells it: whole seconds as `10s`, else `500ms`.
fn spelled(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// The `--tc` spelling, which parses back to the same control.
///
/// ```
/// use usicheck::play::TimeControl;
/// for tc in ["1s+100ms", "60s+1s/inc", "movetime=500ms", "depth=3", "nodes=100"] {
///     assert_eq!(tc.parse::<TimeControl>().unwrap().to_string(), tc);
/// }
/// ```
impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::Byoyomi {
                main_ms,
                byoyomi_ms,
            } => write!(f, "{}+{}", spelled(main_ms), spelled(byoyomi_ms)),
            TimeControl::Fischer { main_ms, inc_ms } => {
                write!(f, "{}+{}/inc", spelled(main_ms), spelled(inc_ms))
            }
            TimeControl::Movetime(ms) => write!(f, "movetime={}", spelled(ms)),
            TimeControl::Depth(depth) => write!(f, "depth={depth}"),
            TimeControl::Nodes(nodes) => write!(f, "nodes={nodes}"),
        }
    }
}

/// Both players' main time left, counted down by the time each move really took; each side
/// under its own control (`--tc`, `--opponent-tc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// Black's control, then White's.
    controls: [TimeControl; 2],
    /// Main time left in ms, Black then White.
    left_ms: [u64; 2],
}

impl Clocks {
    /// Both sides under `control`.
    pub fn new(control: TimeControl) -> Clocks {
        Clocks::each([control; 2])
    }

    /// Black under `controls[0]`, White under `controls[1]`.
    pub fn each(controls: [TimeControl; 2]) -> Clocks {
        let main = |control| match control {
            TimeControl::Byoyomi { main_ms, .. } | TimeControl::Fischer { main_ms, .. } => main_ms,
            _ => 0,
        };
        Clocks {
            controls,
            left_ms: controls.map(main),
        }
    }

    /// Main time left for `side`, in ms.
    pub fn left_ms(&self, side: Color) -> u64 {
        self.left_ms[side.index()]
    }

    /// The `go` command for `side` to move, with both clocks as they stand (`btime`/`wtime`
    /// are absolute colours; a side without a clock is given the mover's time and increment).
    ///
    /// ```
    /// use usicheck::play::{Clocks, TimeControl};
    /// use usicheck::shogi::Color;
    /// let clocks = Clocks::new("1s+100ms".parse().unwrap());
    /// assert_eq!(clocks.go(Color::Black), "go btime 1000 wtime 1000 byoyomi 100");
    /// let fischer = Clocks::new("2s+1s/inc".parse().unwrap());
    /// assert_eq!(fischer.go(Color::White), "go btime 2000 wtime 2000 binc 1000 winc 1000");
    /// let mixed = Clocks::each(["3s+0s".parse().unwrap(), "depth=2".parse().unwrap()]);
    /// assert_eq!(mixed.go(Color::Black), "go btime 3000 wtime 3000 byoyomi 0");
    /// assert_eq!(mixed.go(Color::White), "go depth 2");
    /// ```
    pub fn go(&self, side: Color) -> String {
        let control = self.controls[side.index()];
        let clocked = |c: Color| {
            matches!(
                self.controls[c.index()],
                TimeControl::Byoyomi { .. } | TimeControl::Fischer { .. }
            )
        };
        let [b, w] = [Color::Black, Color::White]
            .map(|c| self.left_ms[if clocked(c) { c } else { side }.index()]);
        let inc = |c: Color| match self.controls[c.index()] {
            TimeControl::Fischer { inc_ms, .. } => inc_ms,
            _ => match control {
                TimeControl::Fischer { inc_ms, .. } => inc_ms,
                _ => 0,
            },
        };
        match control {
            TimeControl::Byoyomi { byoyomi_ms, .. } => {
                format!("go btime {b} wtime {w} byoyomi {byoyomi_ms}")
            }
            TimeControl::Fischer { .. } => format!(
                "go btime {b} wtime {w} binc {} winc {}",
                inc(Color::Black),
                inc(Color::White)
            ),
            TimeControl::Movetime(ms) => format!("go movetime {ms}"),
            TimeControl::Depth(depth) => format!("go depth {depth}"),
            TimeControl::Nodes(nodes) => format!("go nodes {nodes}"),
        }
    }

    /// How long `side` may think on this move before its flag falls (the grace not included);
    /// `None` when the search has no clock (depth, nodes).
    pub fn allowance(&self, side: Color) -> Option<Duration> {
        let left = self.left_ms(side);
        let ms = match self.controls[side.index()] {
            TimeControl::Byoyomi { byoyomi_ms, .. } => left + byoyomi_ms,
            TimeControl::Fischer { inc_ms, .. } => left + inc_ms,
            TimeControl::Movetime(ms) => ms,
            TimeControl::Depth(_) | TimeControl::Nodes(_) => return None,
        };
        Some(Duration::from_millis(ms))
    }

    /// Charges `side` the time its move really took (within its allowance and grace): main
    /// time first, byoyomi absorbs the rest; an increment is added before the move.
    ///
    /// ```
    /// use std::time::Duration;
    /// use usicheck::play::{Clocks, TimeControl};
    /// use usicheck::shogi::Color;
    /// let mut clocks = Clocks::new("1s+100ms".parse().unwrap());
    /// clocks.charge(Color::Black, Duration::from_millis(1050));
    /// assert_eq!(clocks.left_ms(Color::Black), 0);
    /// let mut fischer = Clocks::new("1s+500ms/inc".parse().unwrap());
    /// fischer.charge(Color::White, Duration::from_millis(200));
    /// assert_eq!(fischer.left_ms(Color::White), 1300);
    /// ```
    pub fn charge(&mut self, side: Color, used: Duration) {
        let used = u64::try_from(used.as_millis()).unwrap_or(u64::MAX);
        let left = &mut self.left_ms[side.index()];
        *left = match self.controls[side.index()] {
            TimeControl::Byoyomi { .. } => left.saturating_sub(used),
            TimeControl::Fischer { inc_ms, .. } => (*left + inc_ms).saturating_sub(used),
            _ => *left,
        };
    }
}
