//! The one worker pool of certify, run, selftest, play and fuzz: `jobs` scoped threads that
//! claim work by index from a shared counter until it is exhausted, a worker stops the pool or
//! the pool's stop condition holds, and send what they produce to the calling thread as it is
//! produced, so that the caller reports in its own order.
//!
//! A worker is a closure over a [`Worker`] handle: what it keeps across its items (play's
//! engine and opponent processes) are its locals, and what it does once its claims run out
//! (judging leaks, quitting) is the code after its loop. Work is claimed in index order, so a
//! caller that wants another order maps the index through its own plan.
//!
//! No crate: rayon's global work-stealing pool is meant for short computations, not sessions
//! that block on an engine's pipes for seconds while [`crate::engine::SearchSlots`] decides
//! which of them computes, and a channel and a counter are all the rest needs.
//!
//! ```
//! use usicheck::pool::Pool;
//! let words = ["usi", "isready", "usinewgame", "go"];
//! let mut lengths = vec![0; words.len()];
//! Pool::new(2).items(words.len()).run(
//!     |worker| {
//!         for index in worker.claims() {
//!             worker.send((index, words[index].len()));
//!         }
//!     },
//!     // On the calling thread, in the order the results come in.
//!     |(index, length)| lengths[index] = length,
//! );
//! assert_eq!(lengths, [3, 7, 10, 2]);
//! ```

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// How many workers run and what they claim; [`Pool::run`] runs them.
pub struct Pool<'a> {
    jobs: usize,
    items: Option<usize>,
    stop_when: Option<&'a (dyn Fn() -> bool + Sync)>,
}

/// What the workers share: the next index and whether one of them stopped the pool.
struct Claims<'a> {
    next: AtomicUsize,
    items: Option<usize>,
    stopped: AtomicBool,
    stop_when: Option<&'a (dyn Fn() -> bool + Sync)>,
}

/// One worker's handle: its claims, its channel to the calling thread, and the pool's stop.
pub struct Worker<'p, M> {
    number: usize,
    claims: &'p Claims<'p>,
    sender: mpsc::Sender<M>,
}

impl<'a> Pool<'a> {
    /// `jobs` workers (at least one), claiming indices 0, 1, 2, … until stopped.
    pub fn new(jobs: usize) -> Pool<'a> {
        Pool {
            jobs: jobs.max(1),
            items: None,
            stop_when: None,
        }
    }

    /// Only `count` indices, 0 to `count - 1`; no more workers than that (but one).
    pub fn items(self, count: usize) -> Pool<'a> {
        Pool {
            items: Some(count),
            ..self
        }
    }

    /// No index is claimed once `stop` holds (an interrupt, the run's time up); it is asked
    /// before every claim.
    pub fn stop_when(self, stop: &'a (dyn Fn() -> bool + Sync)) -> Pool<'a> {
        Pool {
            stop_when: Some(stop),
            ..self
        }
    }

    /// Runs `work` on every worker and `deliver` on this thread with each message a worker
    /// sends, as it is sent; returns once every worker has returned and its messages are
    /// delivered. A worker's panic is raised here once the others have returned.
    pub fn run<M: Send>(self, work: impl Fn(&Worker<'_, M>) + Sync, mut deliver: impl FnMut(M)) {
        let workers = self.items.map_or(self.jobs, |n| self.jobs.min(n.max(1)));
        let claims = Claims {
            next: AtomicUsize::new(0),
            items: self.items,
            stopped: AtomicBool::new(false),
            stop_when: self.stop_when,
        };
        let (sender, receiver) = mpsc::channel();
        std::thread::scope(|scope| {
            for number in 0..workers {
                let worker = Worker {
                    number,
                    claims: &claims,
                    sender: sender.clone(),
                };
                let work = &work;
                scope.spawn(move || work(&worker));
            }
            drop(sender);
            for message in receiver {
                deliver(message);
            }
        });
    }
}

impl<M> Worker<'_, M> {
    /// This worker's number, 0 to the number of workers less one.
    pub fn number(&self) -> usize {
        self.number
    }

    /// The next index nobody has claimed; `None` once they are all claimed, the pool was
    /// [stopped](Worker::stop) or its stop condition holds.
    pub fn claim(&self) -> Option<usize> {
        if self.stopped() {
            return None;
        }
        let index = self.claims.next.fetch_add(1, Ordering::SeqCst);
        match self.claims.items {
            Some(count) if index >= count => None,
            _ => Some(index),
        }
    }

    /// [`Worker::claim`] until it gives `None`.
    pub fn claims(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::from_fn(|| self.claim())
    }

    /// Sends `message` to the calling thread.
    pub fn send(&self, message: M) {
        // The receiver lives until every worker has returned.
        let _ = self.sender.send(message);
    }

    /// No worker claims anything more (what has been claimed is still done).
    pub fn stop(&self) {
        self.claims.stopped.store(true, Ordering::SeqCst);
    }

    /// Whether a worker stopped the pool or its stop condition holds.
    pub fn stopped(&self) -> bool {
        self.claims.stopped.load(Ordering::SeqCst)
            || self.claims.stop_when.is_some_and(|stop| stop())
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;
    use std::sync::Barrier;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    #[test]
    fn every_index_is_done_once_and_delivered_to_the_caller() {
        let mut seen = Vec::new();
        Pool::new(3).items(50).run(
            |worker| worker.claims().for_each(|i| worker.send(i * 2)),
            |doubled| seen.push(doubled),
        );
        seen.sort_unstable();
        assert_eq!(seen, (0..50).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn one_worker_claims_and_delivers_in_index_order() {
        let mut seen = Vec::new();
        Pool::new(1).items(5).run(
            |worker| worker.claims().for_each(|i| worker.send(i)),
            |i| seen.push(i),
        );
        assert_eq!(seen, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn messages_of_one_worker_arrive_in_the_order_sent() {
        let mut seen = Vec::new();
        Pool::new(4).items(20).run(
            |worker| {
                for i in worker.claims() {
                    worker.send((i, "started"));
                    worker.send((i, "finished"));
                }
            },
            |message| seen.push(message),
        );
        for i in 0..20 {
            let started = seen.iter().position(|&m| m == (i, "started"));
            let finished = seen.iter().position(|&m| m == (i, "finished"));
            assert!(started.unwrap() < finished.unwrap(), "{i}: {seen:?}");
        }
    }

    #[test]
    fn no_more_workers_than_items_and_at_least_one() {
        let count = |jobs, items| {
            let mut workers = Vec::new();
            Pool::new(jobs)
                .items(items)
                .run(|worker| worker.send(worker.number()), |n| workers.push(n));
            workers.sort_unstable();
            workers
        };
        assert_eq!(count(8, 3), [0, 1, 2]);
        assert_eq!(count(8, 0), [0]);
        assert_eq!(count(0, 5), [0]);
        assert_eq!(count(2, 5), [0, 1]);
    }

    #[test]
    fn each_worker_keeps_its_state_and_finishes_with_it() {
        // Every worker counts its own items and sends the count once its claims run out, as
        // play's workers keep their engines across games and judge them at the end.
        let mut per_worker = Vec::new();
        Pool::new(3).items(30).run(
            |worker| {
                let mut done = 0;
                for _ in worker.claims() {
                    done += 1;
                }
                worker.send((worker.number(), done));
            },
            |finished| per_worker.push(finished),
        );
        per_worker.sort_unstable();
        assert_eq!(
            per_worker.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        assert_eq!(per_worker.iter().map(|(_, d)| d).sum::<usize>(), 30);
    }

    #[test]
    fn a_worker_that_stops_the_pool_stops_every_claim() {
        // Two workers each claim one index and wait for each other; the one with index 0
        // stops the pool: neither claims again, although 98 indices are left.
        let both_claimed = Barrier::new(2);
        let stopped = Barrier::new(2);
        let mut done = Vec::new();
        Pool::new(2).items(100).run(
            |worker| {
                let index = worker.claim().expect("two of 100");
                both_claimed.wait();
                if index == 0 {
                    worker.stop();
                }
                stopped.wait();
                worker.send(index);
                assert!(worker.stopped());
                assert_eq!(worker.claim(), None);
            },
            |index| done.push(index),
        );
        done.sort_unstable();
        assert_eq!(done, [0, 1]);
    }

    #[test]
    fn nothing_is_claimed_once_the_stop_condition_holds() {
        let time_up = AtomicBool::new(false);
        let stop = || time_up.load(Ordering::SeqCst);
        let claimed = AtomicUsize::new(0);
        Pool::new(1).stop_when(&stop).run(
            |worker| {
                for index in worker.claims() {
                    claimed.fetch_add(1, Ordering::SeqCst);
                    if index == 6 {
                        time_up.store(true, Ordering::SeqCst);
                    }
                }
            },
            |()| {},
        );
        assert_eq!(claimed.load(Ordering::SeqCst), 7);
    }

    #[test]
    fn an_open_ended_pool_runs_until_stopped() {
        let mut seen = Vec::new();
        Pool::new(1).run(
            |worker| {
                for index in worker.claims() {
                    worker.send(index);
                    if index == 9 {
                        worker.stop();
                    }
                }
            },
            |index| seen.push(index),
        );
        assert_eq!(seen, (0..10).collect::<Vec<_>>());
    }
}
