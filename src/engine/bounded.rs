//! A log that keeps its beginning and its end within fixed limits, counting what it drops.

use std::collections::VecDeque;

/// Limits of a [`BoundedLog`]: entries and bytes kept at the head and at the tail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogLimits {
    pub head_entries: usize,
    pub head_bytes: usize,
    pub tail_entries: usize,
    pub tail_bytes: usize,
}

/// Keeps the first entries (a handshake, say) and the most recent ones; the middle of a flood is
/// dropped and counted. The newest entry is always kept.
///
/// ```
/// use usicheck::engine::{BoundedLog, LogLimits};
/// let limits = LogLimits { head_entries: 2, head_bytes: 100, tail_entries: 2, tail_bytes: 100 };
/// let mut log = BoundedLog::new(limits, |s: &String| s.len());
/// for i in 0..10 {
///     log.push(i.to_string());
/// }
/// assert_eq!(log.head(), ["0", "1"]);
/// assert_eq!(log.tail().cloned().collect::<Vec<_>>(), ["8", "9"]);
/// assert_eq!(log.omitted(), 6);
/// ```
#[derive(Clone, Debug)]
pub struct BoundedLog<T> {
    limits: LogLimits,
    weigh: fn(&T) -> usize,
    head: Vec<T>,
    head_bytes: usize,
    tail: VecDeque<T>,
    tail_bytes: usize,
    omitted: u64,
}

impl<T> BoundedLog<T> {
    pub fn new(limits: LogLimits, weigh: fn(&T) -> usize) -> Self {
        BoundedLog {
            limits,
            weigh,
            head: Vec::new(),
            head_bytes: 0,
            tail: VecDeque::new(),
            tail_bytes: 0,
            omitted: 0,
        }
    }

    pub fn push(&mut self, entry: T) {
        let weight = (self.weigh)(&entry);
        let head_has_room = self.tail.is_empty()
            && self.omitted == 0
            && self.head.len() < self.limits.head_entries
            && self.head_bytes + weight <= self.limits.head_bytes;
        if head_has_room {
            self.head_bytes += weight;
            self.head.push(entry);
            return;
        }
        self.tail_bytes += weight;
        self.tail.push_back(entry);
        while self.tail.len() > 1
            && (self.tail.len() > self.limits.tail_entries
                || self.tail_bytes > self.limits.tail_bytes)
        {
            if let Some(dropped) = self.tail.pop_front() {
                self.tail_bytes -= (self.weigh)(&dropped);
                self.omitted += 1;
            }
        }
    }

    /// The first entries, kept for good.
    pub fn head(&self) -> &[T] {
        &self.head
    }

    /// The most recent entries after the head.
    pub fn tail(&self) -> impl Iterator<Item = &T> {
        self.tail.iter()
    }

    /// Entries dropped between head and tail.
    pub fn omitted(&self) -> u64 {
        self.omitted
    }

    /// Every kept entry, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.head.iter().chain(self.tail.iter())
    }

    /// Entries ever pushed.
    pub fn total(&self) -> u64 {
        (self.head.len() + self.tail.len()) as u64 + self.omitted
    }

    pub fn is_empty(&self) -> bool {
        self.head.is_empty() && self.tail.is_empty() && self.omitted == 0
    }

    /// The newest entry.
    pub fn last(&self) -> Option<&T> {
        self.tail.back().or(self.head.last())
    }
}
