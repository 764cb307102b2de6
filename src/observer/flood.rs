//! Output-rate check: GUIs choke on engines that print thousands of `info` lines a second
//! (USI-INFO-013). The window is one search's: a GUI that sends a hundred short `go`s a second
//! (a fast match) sets that pace itself, and four lines a search is no flood.

use std::collections::VecDeque;

/// Most `info` lines accepted in any one-second window.
pub const MAX_INFO_PER_SECOND: usize = 300;

/// Counts `info` lines in a sliding one-second window of the current search.
///
/// ```
/// use usicheck::observer::FloodMeter;
/// let mut meter = FloodMeter::default();
/// assert!((0..300).all(|i| !meter.record(i * 10)));
/// assert!((0..400).any(|i| meter.record(1_000_000 + i * 10)));
/// let mut fast_match = FloodMeter::default();
/// assert!((0..1000).all(|i| {
///     if i % 4 == 0 { fast_match.on_search() }
///     !fast_match.record(i * 100)
/// }));
/// ```
#[derive(Clone, Debug, Default)]
pub struct FloodMeter {
    window: VecDeque<u64>,
    reported: bool,
}

impl FloodMeter {
    /// A new search starts: the lines before it were another search's.
    pub fn on_search(&mut self) {
        self.window.clear();
    }

    /// Records a line at `at_micros`; true the first time the window overflows.
    pub fn record(&mut self, at_micros: u64) -> bool {
        self.window.push_back(at_micros);
        while self
            .window
            .front()
            .is_some_and(|&first| at_micros.saturating_sub(first) >= 1_000_000)
        {
            self.window.pop_front();
        }
        if self.window.len() > MAX_INFO_PER_SECOND && !self.reported {
            self.reported = true;
            return true;
        }
        false
    }
}
