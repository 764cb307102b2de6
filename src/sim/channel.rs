//! A multi-producer channel whose receiver waits on a [`Clock`]: on the real clock a condition
//! variable, in a simulated world a wait that lets the other tasks run.

use super::Clock;
use super::world::TaskId;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

struct Inner<T> {
    clock: Clock,
    state: Mutex<State<T>>,
    arrived: Condvar,
}

struct State<T> {
    queue: VecDeque<T>,
    /// The simulated task waiting to receive.
    waiter: Option<TaskId>,
}

/// The sending half; cloning it adds a sender.
pub struct Sender<T>(Arc<Inner<T>>);

/// The receiving half.
pub struct Receiver<T>(Arc<Inner<T>>);

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender(Arc::clone(&self.0))
    }
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sender")
    }
}

impl<T> std::fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Receiver")
    }
}

pub(super) fn channel<T>(clock: Clock) -> (Sender<T>, Receiver<T>) {
    let inner = Arc::new(Inner {
        clock,
        state: Mutex::new(State {
            queue: VecDeque::new(),
            waiter: None,
        }),
        arrived: Condvar::new(),
    });
    (Sender(Arc::clone(&inner)), Receiver(inner))
}

impl<T> Inner<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T> Sender<T> {
    /// Queues `value`; never waits.
    pub fn send(&self, value: T) {
        let mut state = self.0.lock();
        state.queue.push_back(value);
        let waiter = state.waiter.take();
        drop(state);
        match (&self.0.clock, waiter) {
            (Clock::Simulated(world), Some(task)) => world.wake(task),
            (Clock::Simulated(_), None) => {}
            (Clock::Real | Clock::Paced(_), _) => self.0.arrived.notify_one(),
        }
    }
}

impl<T> Receiver<T> {
    /// The next value, waiting until `deadline` at most (for ever with `None`); `None` when the
    /// deadline passes first.
    pub fn recv_until(&self, deadline: Option<Instant>) -> Option<T> {
        let mut state = self.0.lock();
        loop {
            if let Some(value) = state.queue.pop_front() {
                return Some(value);
            }
            let now = self.0.clock.now();
            if deadline.is_some_and(|d| now >= d) {
                return None;
            }
            match &self.0.clock {
                Clock::Real | Clock::Paced(_) => {
                    state = match deadline {
                        Some(d) => {
                            self.0
                                .arrived
                                .wait_timeout(state, d - now)
                                .unwrap_or_else(PoisonError::into_inner)
                                .0
                        }
                        None => self
                            .0
                            .arrived
                            .wait(state)
                            .unwrap_or_else(PoisonError::into_inner),
                    };
                }
                Clock::Simulated(world) => {
                    if std::thread::panicking() || world.ended() {
                        return None;
                    }
                    state.waiter = Some(world.current_task());
                    drop(state);
                    world.block(deadline.map(|d| world.micros_of(d)));
                    state = self.0.lock();
                    state.waiter = None;
                }
            }
        }
    }
}
