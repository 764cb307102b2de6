//! Simulated time: an engine and the runner that judges it, run in one process on a clock
//! that jumps from event to event, so that `go byoyomi 1000` costs no real second and every
//! run gives the same transcript (deterministic simulation, as FoundationDB's simulator and
//! the `madsim` crate do it).
//!
//! Code that may run simulated reads time, sleeps, spawns threads and passes messages through
//! a [`Clock`]: [`Clock::Real`] is the plain `std` behaviour; [`Clock::Simulated`] makes every
//! such thread a task of a [`World`], which runs one task at a time. A search spends
//! simulated time by the nodes it searches ([`Clock::work`]); [`Clock::Paced`] is real time
//! in which a search spends the same time per node as a simulated one.
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
    /// Real time, with searches no faster than this many nodes per millisecond: the reference
    /// engine as a process searches as its simulated self does, and mostly sleeps.
    Paced(u64),
    Simulated(World),
}

impl Clock {
    /// The present.
    pub fn now(&self) -> Instant {
        match self {
            Clock::Real | Clock::Paced(_) => Instant::now(),
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
            Clock::Real | Clock::Paced(_) => std::thread::sleep(duration),
            Clock::Simulated(world) => {
                let until = world.now_micros() + duration.as_micros() as u64;
                while world.now_micros() < until && !std::thread::panicking() {
                    world.block(Some(until));
                }
            }
        }
    }

    /// Spends the time a search of `nodes` nodes takes: nothing on the real clock (the search
    /// itself takes it), a span at the node rate otherwise (a sleep when paced, on top of the
    /// search's own time). Other tasks run meanwhile, so a `stop` is read during a search as
    /// it would be.
    pub fn work(&self, nodes: u64) {
        match self {
            Clock::Real => {}
            Clock::Paced(nodes_per_ms) => self.sleep(work_time(nodes, *nodes_per_ms)),
            Clock::Simulated(world) => self.sleep(world.work_time(nodes)),
        }
    }

    /// The clock a search spends its nodes on: this one, without its pace when the search's
    /// length is `counted` in nodes or plies (`go depth`, `go nodes`), where the pace would
    /// decide when it answers rather than how deep it gets.
    pub fn for_search(&self, counted: bool) -> Clock {
        match self {
            Clock::Paced(_) if counted => Clock::Real,
            other => other.clone(),
        }
    }

    /// Waits for ever (faults that hang). A simulated task ends with its world.
    pub fn park_forever(&self) -> ! {
        loop {
            match self {
                Clock::Real | Clock::Paced(_) => std::thread::park(),
                Clock::Simulated(world) => world.block(None),
            }
        }
    }

    /// Runs `task` on a new thread (a new task of a simulated world).
    pub fn spawn<T: Send + 'static>(&self, task: impl FnOnce() -> T + Send + 'static) -> Task<T> {
        match self {
            Clock::Real | Clock::Paced(_) => Task::Real(std::thread::spawn(task)),
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

/// The time `nodes` search nodes take at `nodes_per_ms` (at least one).
///
/// ```
/// use std::time::Duration;
/// assert_eq!(usicheck::sim::work_time(64, 20), Duration::from_micros(3200));
/// ```
pub fn work_time(nodes: u64, nodes_per_ms: u64) -> Duration {
    Duration::from_micros(nodes.saturating_mul(1000) / nodes_per_ms.max(1))
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
