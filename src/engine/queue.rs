//! The bounded hand-over from reader threads to the session.
//!
//! Lines apply backpressure: a reader blocks while the queue is full, so the engine blocks on
//! its own writes and no output is lost. The session only ever waits with a deadline, so a full
//! queue cannot stall it. End-of-stream and exit events bypass the bound (there are three).

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

use super::event::Event;

/// Capacity of the queue, in events and in bytes of text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueLimits {
    pub events: usize,
    pub bytes: usize,
}

#[derive(Debug)]
pub(crate) struct EventQueue {
    limits: QueueLimits,
    state: Mutex<State>,
    readable: Condvar,
    writable: Condvar,
}

#[derive(Debug, Default)]
struct State {
    events: VecDeque<Event>,
    bytes: usize,
    closed: bool,
}

impl EventQueue {
    pub(crate) fn new(limits: QueueLimits) -> Self {
        EventQueue {
            limits,
            state: Mutex::default(),
            readable: Condvar::new(),
            writable: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits for room, then queues a line event. False once the queue is closed.
    pub(crate) fn push_bounded(&self, event: Event) -> bool {
        let weight = event.weight();
        let mut state = self.lock();
        while !state.closed
            && !state.events.is_empty()
            && (state.events.len() >= self.limits.events
                || state.bytes + weight > self.limits.bytes)
        {
            state = self
                .writable
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        if state.closed {
            return false;
        }
        state.bytes += weight;
        state.events.push_back(event);
        self.readable.notify_one();
        true
    }

    /// Queues an end-of-stream or exit event without waiting for room.
    pub(crate) fn push_unbounded(&self, event: Event) {
        let mut state = self.lock();
        if !state.closed {
            state.bytes += event.weight();
            state.events.push_back(event);
            self.readable.notify_one();
        }
    }

    /// The oldest event, waiting until `deadline` at most.
    pub(crate) fn pop_until(&self, deadline: Instant) -> Option<Event> {
        let mut state = self.lock();
        loop {
            if let Some(event) = state.events.pop_front() {
                state.bytes -= event.weight();
                self.writable.notify_all();
                return Some(event);
            }
            let now = Instant::now();
            if now >= deadline || state.closed {
                return None;
            }
            state = self
                .readable
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
    }

    /// Drops everything queued and releases blocked readers for good.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.events.clear();
        state.bytes = 0;
        self.writable.notify_all();
        self.readable.notify_all();
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.lock().closed
    }
}
