//! The simulated world: threads that take turns, one at a time, on a clock that only moves
//! when every one of them waits.
//!
//! Every thread of a simulated engine and the thread that drives it is a *task* of one
//! [`World`]. Exactly one task holds the turn; it keeps it until it waits (on a
//! [`super::Receiver`], a sleep, or a join), then the turn passes to the first task that can
//! run, in the order they became able to. When no task can run, the clock jumps to the
//! earliest timer. What the OS scheduler does therefore never shows: the same inputs give the
//! same lines at the same simulated microseconds, on a loaded machine as on an idle one.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::Thread;
use std::time::{Duration, Instant};

pub(super) type TaskId = u64;

/// The unwinding payload of a task whose world has ended (not a panic of the engine's).
struct WorldEnded;

std::thread_local! {
    /// The task the current thread is, in the world it belongs to.
    static CURRENT: std::cell::Cell<Option<TaskId>> = const { std::cell::Cell::new(None) };
    /// The driving thread's membership, shared by the sessions that use the world.
    static ENTERED: std::cell::RefCell<std::sync::Weak<Entered>> =
        const { std::cell::RefCell::new(std::sync::Weak::new()) };
}

/// One simulation: its clock and its tasks. Cloning shares it.
#[derive(Clone)]
pub struct World(Arc<Shared>);

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "World(at {} µs)", self.now_micros())
    }
}

struct Shared {
    state: Mutex<State>,
    /// The real instant that stands for simulated time zero.
    origin: Instant,
    /// Search nodes per simulated millisecond (see [`World::work`]).
    nodes_per_ms: u64,
}

#[derive(Default)]
struct State {
    now: u64,
    running: Option<TaskId>,
    ready: VecDeque<TaskId>,
    timers: BTreeSet<(u64, TaskId)>,
    /// Tasks waiting, with their timer if any.
    blocked: HashMap<TaskId, Option<u64>>,
    next_id: TaskId,
    ended: bool,
    /// Each task's group: the tasks of one simulated engine, which end together.
    group_of: HashMap<TaskId, u64>,
    ended_groups: HashSet<u64>,
    next_group: u64,
    /// Each task's thread, which alone is unparked when the turn passes to it: waking every
    /// task at each hand-off cost a sweep a quarter of its CPU time in the kernel.
    threads: HashMap<TaskId, Thread>,
}

impl State {
    /// Wakes the task that holds the turn, if another thread is waiting for it.
    fn wake_running(&self) {
        if let Some(thread) = self.running.and_then(|task| self.threads.get(&task)) {
            thread.unpark();
        }
    }

    /// Wakes every task, for those that must unwind because the world or their group ended.
    fn wake_all(&self) {
        self.threads.values().for_each(Thread::unpark);
    }

    fn is_dead(&self, task: TaskId) -> bool {
        self.ended
            || self
                .group_of
                .get(&task)
                .is_some_and(|group| self.ended_groups.contains(group))
    }
}

/// The driving thread's membership of a world; dropping it ends the world.
#[must_use]
#[derive(Debug)]
pub struct Entered {
    world: World,
}

impl Entered {
    pub fn world(&self) -> &World {
        &self.world
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        let mut state = self.world.lock();
        state.ended = true;
        state.running = None;
        state.wake_all();
        drop(state);
        CURRENT.set(None);
    }
}

impl World {
    /// A world at simulated time zero whose searches run `nodes_per_ms` nodes per millisecond.
    pub fn new(nodes_per_ms: u64) -> World {
        World(Arc::new(Shared {
            state: Mutex::default(),
            origin: Instant::now(),
            nodes_per_ms: nodes_per_ms.max(1),
        }))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes the calling thread the world's first task, holding the turn; the world ends when
    /// the guard is dropped (its other tasks unwind the next time they would run).
    pub fn enter(&self) -> Entered {
        let mut state = self.lock();
        let id = state.next_id;
        state.next_id += 1;
        state.running = Some(id);
        state.threads.insert(id, std::thread::current());
        CURRENT.set(Some(id));
        Entered {
            world: self.clone(),
        }
    }

    /// The world the current thread drives, shared, or else a new one it enters: the world
    /// ends when the last holder drops it (say, the last session of a scenario).
    pub fn shared_or_new(nodes_per_ms: u64) -> Arc<Entered> {
        if let Some(entered) = ENTERED.with_borrow(std::sync::Weak::upgrade) {
            return entered;
        }
        let entered = Arc::new(World::new(nodes_per_ms).enter());
        ENTERED.set(Arc::downgrade(&entered));
        entered
    }

    /// Simulated microseconds since the world began.
    pub fn now_micros(&self) -> u64 {
        self.lock().now
    }

    /// The simulated present as an [`Instant`] (the world's origin plus simulated time), so
    /// that code written against `Instant` runs unchanged.
    pub fn now(&self) -> Instant {
        self.at(self.now_micros())
    }

    fn at(&self, micros: u64) -> Instant {
        self.0.origin + Duration::from_micros(micros)
    }

    /// `instant` in simulated microseconds (instants before the origin are zero).
    pub fn micros_of(&self, instant: Instant) -> u64 {
        instant.saturating_duration_since(self.0.origin).as_micros() as u64
    }

    /// The time `nodes` search nodes take.
    pub fn work_time(&self, nodes: u64) -> Duration {
        super::work_time(nodes, self.0.nodes_per_ms)
    }

    /// The current thread's task. Panics outside the world: every thread that touches a
    /// simulated clock must be one of its tasks.
    fn me(&self) -> TaskId {
        CURRENT
            .get()
            .expect("a simulated clock used outside its world's tasks")
    }

    /// Waits until `deadline` (simulated microseconds) or until [`Self::wake`]; the caller
    /// checks which.
    pub(super) fn block(&self, deadline: Option<u64>) {
        if std::thread::panicking() {
            // A destructor running while a task unwinds: never wait there.
            return;
        }
        let me = self.me();
        let mut state = self.lock();
        let timer = deadline.map(|at| at.max(state.now));
        state.blocked.insert(me, timer);
        if let Some(at) = timer {
            state.timers.insert((at, me));
        }
        self.pass_turn(state, me);
    }

    /// Makes `task` able to run if it waits (called by the task holding the turn).
    pub(super) fn wake(&self, task: TaskId) {
        let mut state = self.lock();
        if let Some(timer) = state.blocked.remove(&task) {
            if let Some(at) = timer {
                state.timers.remove(&(at, task));
            }
            state.ready.push_back(task);
        }
    }

    /// The current task, for a [`super::Receiver`] to record as its waiter.
    pub(super) fn current_task(&self) -> TaskId {
        self.me()
    }

    /// Whether the world has ended (its driver is gone): nothing more happens in it.
    pub(super) fn ended(&self) -> bool {
        self.lock().ended
    }

    fn pass_turn(&self, mut state: MutexGuard<'_, State>, me: TaskId) {
        Self::schedule(&mut state);
        if state.running != Some(me) {
            state.wake_running();
        }
        self.await_turn(state, me);
    }

    fn schedule(state: &mut State) {
        state.running = if let Some(next) = state.ready.pop_front() {
            Some(next)
        } else if let Some((at, next)) = state.timers.pop_first() {
            state.now = state.now.max(at);
            state.blocked.remove(&next);
            Some(next)
        } else {
            None
        };
    }

    fn await_turn<'a>(&'a self, mut state: MutexGuard<'a, State>, me: TaskId) {
        while state.running != Some(me) {
            if state.is_dead(me) {
                drop(state);
                std::panic::resume_unwind(Box::new(WorldEnded));
            }
            // An unpark between the unlock and the park is kept, so no hand-off is missed;
            // a spurious return only checks again.
            drop(state);
            std::thread::park();
            state = self.lock();
        }
    }

    /// Runs `task` as the first task of a new group (say, one engine), which
    /// [`Self::end_group`] ends as a signal ends a process group; returns the group.
    pub fn spawn_group(&self, task: impl FnOnce() + Send + 'static) -> u64 {
        let group = {
            let mut state = self.lock();
            state.next_group += 1;
            state.next_group
        };
        self.spawn_in(Some(group), task, |_| {});
        group
    }

    /// Ends every task of `group`: each unwinds instead of running again.
    pub fn end_group(&self, group: u64) {
        let mut state = self.lock();
        state.ended_groups.insert(group);
        let dead: Vec<TaskId> = state
            .group_of
            .iter()
            .filter(|(_, g)| **g == group)
            .map(|(task, _)| *task)
            .collect();
        for task in dead {
            if let Some(Some(at)) = state.blocked.remove(&task) {
                state.timers.remove(&(at, task));
            }
            state.ready.retain(|t| *t != task);
        }
        state.wake_all();
    }

    /// Runs `task` as a new task of the world, in the group of the task that spawns it, after
    /// the tasks already able to run; its result (or its panic) goes to `done`.
    pub(super) fn spawn<T: Send + 'static>(
        &self,
        task: impl FnOnce() -> T + Send + 'static,
        done: impl FnOnce(std::thread::Result<T>) + Send + 'static,
    ) {
        self.spawn_in(None, task, done);
    }

    fn spawn_in<T: Send + 'static>(
        &self,
        group: Option<u64>,
        task: impl FnOnce() -> T + Send + 'static,
        done: impl FnOnce(std::thread::Result<T>) + Send + 'static,
    ) {
        let id = {
            let mut state = self.lock();
            let id = state.next_id;
            state.next_id += 1;
            state.ready.push_back(id);
            let group = group.or_else(|| {
                let parent = CURRENT.get()?;
                state.group_of.get(&parent).copied()
            });
            if let Some(group) = group {
                state.group_of.insert(id, group);
            }
            id
        };
        let world = self.clone();
        std::thread::spawn(move || {
            CURRENT.set(Some(id));
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut state = world.lock();
                state.threads.insert(id, std::thread::current());
                world.await_turn(state, id);
                task()
            }));
            match ran {
                Err(payload) if payload.is::<WorldEnded>() => {
                    world.lock().threads.remove(&id);
                }
                ran => {
                    done(ran);
                    let mut state = world.lock();
                    state.group_of.remove(&id);
                    state.threads.remove(&id);
                    if state.running == Some(id) {
                        Self::schedule(&mut state);
                        state.wake_running();
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::Clock;
    use super::*;

    #[test]
    fn time_jumps_to_the_earliest_timer_and_tasks_take_turns_in_order() {
        let world = World::new(100);
        let _entered = world.enter();
        let clock = Clock::Simulated(world.clone());
        let (tx, rx) = clock.channel();
        for (name, ms) in [("slow", 300), ("fast", 100), ("mid", 200)] {
            let (clock, tx) = (clock.clone(), tx.clone());
            clock.clone().spawn(move || {
                clock.sleep(Duration::from_millis(ms));
                tx.send((name, world_micros(&clock)));
            });
        }
        let got: Vec<_> = (0..3).filter_map(|_| rx.recv_until(None)).collect();
        assert_eq!(
            got,
            [("fast", 100_000), ("mid", 200_000), ("slow", 300_000)]
        );
        assert_eq!(world.now_micros(), 300_000);
    }

    fn world_micros(clock: &Clock) -> u64 {
        match clock {
            Clock::Simulated(world) => world.now_micros(),
            Clock::Real | Clock::Paced(_) => unreachable!(),
        }
    }

    #[test]
    fn a_wait_with_a_deadline_ends_at_it_when_nothing_comes() {
        let world = World::new(100);
        let _entered = world.enter();
        let clock = Clock::Simulated(world.clone());
        let (_tx, rx) = clock.channel::<()>();
        let deadline = clock.now() + Duration::from_secs(5);
        assert_eq!(rx.recv_until(Some(deadline)), None);
        assert_eq!(world.now_micros(), 5_000_000);
    }

    #[test]
    fn work_advances_the_clock_by_the_nodes_searched() {
        let world = World::new(100);
        let _entered = world.enter();
        let clock = Clock::Simulated(world.clone());
        clock.work(250);
        assert_eq!(world.now_micros(), 2_500);
    }

    #[test]
    fn tasks_of_an_ended_world_unwind_quietly() {
        let world = World::new(100);
        let entered = world.enter();
        let clock = Clock::Simulated(world.clone());
        let task = clock.clone().spawn(move || clock.park_forever());
        drop(entered);
        // The parked task unwinds with the world: joining it ends rather than waits.
        assert!(task.join().is_err());
    }
}
