//! Simulated time: an engine and the runner that judges it, run in one process on a clock
//! that jumps from event to event, so that `go byoyomi 1000` costs no real second and every
//! run gives the same transcript (deterministic simulation, as FoundationDB's simulator and
//! the `madsim` crate do it).
//!
//! Code that may run simulated reads time, sleeps, spawns threads and passes messages through
//! a [`Clock`]: [`Clock::Real`] is the plain `std` behaviour; [`Clock::Simulated`] makes every
//! such thread a task of a [`World`], which runs one task at a time. A search spends
//! simulated time by the nodes it searches ([`Clock::work`]).
//!
//! ```
//! use std::time::Duration;
//! use usicheck::sim::{Clock, World};
//!
//! let world = World::new(100);
//! let _driver = world.enter();
//! let clock = Clock::Simulated(world.clone());
//! let start = clock.now();
//! clock.sleep(Duration::from_secs(3600)); // no real hour passes
//! assert_eq!(clock.now() - start, Duration::from_secs(3600));
//! ```

mod channel;
mod world;

pub use channel::{Receiver, Sender};
pub use world::{Entered, World};

use std::time::{Duration, Instant};

/// Where time comes from: the machine's, or a simulated world's.
#[derive(Clone, Debug, Default)]
pub enum Clock {
    #[default]
    Real,
    Simulated(World),
}

impl Clock {
    /// The present.
    pub fn now(&self) -> Instant {
        match self {
            Clock::Real => Instant::now(),
            Clock::Simulated(world) => world.now(),
        }
    }

    /// Whether the clock is simulated.
    pub fn is_simulated(&self) -> bool {
        matches!(self, Clock::Simulated(_))
    }

    /// Waits `duration`.
    pub fn sleep(&self, duration: Duration) {
        match self {
            Clock::Real => std::thread::sleep(duration),
            Clock::Simulated(world) => {
                let until = world.now_micros() + duration.as_micros() as u64;
                while world.now_micros() < until && !std::thread::panicking() {
                    world.block(Some(until));
                }
            }
        }
    }

    /// Spends the time a search of `nodes` nodes takes: nothing on the real clock (the search
    /// itself takes it), a simulated span at the world's node rate otherwise. Other tasks run
    /// meanwhile, so a `stop` is read during a search as it would be.
    pub fn work(&self, nodes: u64) {
        if let Clock::Simulated(world) = self {
            self.sleep(world.work_time(nodes));
        }
    }

    /// Waits for ever (faults that hang). A simulated task ends with its world.
    pub fn park_forever(&self) -> ! {
        loop {
            match self {
                Clock::Real => std::thread::park(),
                Clock::Simulated(world) => world.block(None),
            }
        }
    }

    /// Runs `task` on a new thread (a new task of a simulated world).
    pub fn spawn<T: Send + 'static>(&self, task: impl FnOnce() -> T + Send + 'static) -> Task<T> {
        match self {
            Clock::Real => Task::Real(std::thread::spawn(task)),
            Clock::Simulated(world) => {
                let (tx, rx) = self.channel();
                world.spawn(task, move |result| tx.send(result));
                Task::Simulated(rx)
            }
        }
    }

    /// A channel whose receiver waits on this clock.
    pub fn channel<T>(&self) -> (Sender<T>, Receiver<T>) {
        channel::channel(self.clone())
    }
}

/// A thread started by [`Clock::spawn`].
#[derive(Debug)]
pub enum Task<T> {
    Real(std::thread::JoinHandle<T>),
    Simulated(Receiver<std::thread::Result<T>>),
}

impl<T> Task<T> {
    /// Waits for the thread to end; `Err` if it panicked.
    pub fn join(self) -> std::thread::Result<T> {
        match self {
            Task::Real(handle) => handle.join(),
            Task::Simulated(done) => done
                .recv_until(None)
                .unwrap_or_else(|| Err(Box::new("the simulated world ended"))),
        }
    }
}
