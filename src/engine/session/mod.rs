//! The session: talking to one engine process, every wait bounded by a deadline.
//!
//! This file holds the session's state, its options and the types of its outcomes; the
//! session's jobs are split by file: `start.rs` spawns the engine and sets up its wire, `io.rs`
//! writes to it and reads its events into the transcript, `waits.rs` expects lines or
//! silence, and `end.rs` quits, signals and reaps it.

mod end;
mod io;
mod start;
mod waits;

use std::path::PathBuf;
use std::process::ChildStdin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::bounded::{BoundedLog, LogLimits};
use super::event::{Event, Termination};
use super::line::Line;
use super::process::ReapPermit;
use super::queue::{EventQueue, QueueLimits};
use super::reader::SharedSource;
use super::simulated;
use super::transcript::Transcript;
use crate::sim::{Clock, Entered};

/// Events observed while waiting for something else, bounded like a transcript.
pub type Seen = BoundedLog<Event>;

/// Tuning of a [`Session`]; the defaults suit certification runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionOptions {
    /// Longest line kept; the rest of a longer line is counted, not stored.
    pub max_line_bytes: usize,
    /// Lines buffered between the reader threads and the session before the engine is blocked.
    pub queue: QueueLimits,
    /// In-memory transcript bounds.
    pub transcript_limits: LogLimits,
    /// Stream the complete transcript to this file.
    pub transcript_path: Option<PathBuf>,
    /// Append to [`Self::transcript_path`], this note first, instead of truncating it: the
    /// session continues a report an earlier session's transcript began there (no note
    /// without a file: there is nothing to part).
    pub transcript_continues: Option<String>,
    /// Bounds of the events returned with each outcome.
    pub seen_limits: LogLimits,
    /// How long a write to the engine's stdin may block.
    pub send_timeout: Duration,
    /// How long to wait, after the engine exits, for the rest of its output (and vice versa).
    pub exit_grace: Duration,
    /// During [`Session::quit`], how long after SIGTERM before SIGKILL.
    pub term_grace: Duration,
    /// During [`Session::quit`], how long to wait for the exit after SIGKILL.
    pub kill_grace: Duration,
}

impl Default for SessionOptions {
    /// Bounds one session's memory to about 11 MiB whatever the engine prints (line buffers
    /// 2 × 1 MiB, queue 2 MiB, transcript 1 + 4 MiB, seen events 0.5 + 1 MiB), so that
    /// `certify --jobs 8` stays far below 150 MB; the transcript file keeps more (its head).
    fn default() -> Self {
        const MIB: usize = 1 << 20;
        SessionOptions {
            max_line_bytes: MIB,
            queue: QueueLimits {
                events: 4096,
                bytes: 2 * MIB,
            },
            transcript_limits: LogLimits {
                head_entries: 2000,
                head_bytes: MIB,
                tail_entries: 10_000,
                tail_bytes: 4 * MIB,
            },
            transcript_path: None,
            transcript_continues: None,
            seen_limits: LogLimits {
                head_entries: 256,
                head_bytes: MIB / 2,
                tail_entries: 1024,
                tail_bytes: MIB,
            },
            send_timeout: Duration::from_secs(1),
            exit_grace: Duration::from_millis(100),
            term_grace: Duration::from_secs(1),
            kill_grace: Duration::from_secs(1),
        }
    }
}

/// How long an expectation may wait.
///
/// ```
/// use std::time::Duration;
/// use usicheck::engine::Patience;
/// let ready = Patience::KeepAlive { idle: Duration::from_secs(30), cap: Duration::from_secs(300) };
/// assert_eq!(ready.first_deadline(), Duration::from_secs(30));
/// assert_eq!(Patience::from(Duration::from_secs(2)).first_deadline(), Duration::from_secs(2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Patience {
    /// A fixed deadline.
    Fixed(Duration),
    /// Restarted by every stdout line, but never beyond `cap` in total (T-READY).
    KeepAlive { idle: Duration, cap: Duration },
}

impl Patience {
    /// The wait allowed before any line arrives.
    pub fn first_deadline(self) -> Duration {
        match self {
            Patience::Fixed(wait) => wait,
            Patience::KeepAlive { idle, cap } => idle.min(cap),
        }
    }
}

impl From<Duration> for Patience {
    fn from(wait: Duration) -> Self {
        Patience::Fixed(wait)
    }
}

/// A line that satisfied an expectation, with the events before it.
#[derive(Clone, Debug)]
pub struct Found {
    pub line: Line,
    pub seen: Seen,
}

/// Why an expectation was not met.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unmet {
    #[error("timed out")]
    Timeout,
    /// The engine closed its stdout but is still running (or its exit was not seen in time).
    #[error("engine closed its stdout")]
    Eof,
    #[error("engine {0}")]
    Exited(Termination),
}

/// An expectation that was not met, with everything observed meanwhile.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{kind} after {waited:?}")]
pub struct ExpectError {
    pub kind: Unmet,
    pub seen: Seen,
    pub waited: Duration,
}

/// A write to the engine's stdin that did not complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    #[error("engine did not read its input: {written} of {len} bytes written before the deadline")]
    Timeout { written: usize, len: usize },
    #[error("engine's stdin is closed")]
    Closed,
}

/// How far [`Session::quit`] had to go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Escalation {
    /// The engine exited by itself (after `quit`, or earlier).
    None,
    /// It exited on SIGTERM to its process group.
    Sigterm,
    /// It needed SIGKILL to its process group.
    Sigkill,
    /// It was still not seen exiting after SIGKILL (stuck in the kernel).
    Unkillable,
}

/// The result of [`Session::quit`].
#[derive(Clone, Debug)]
pub struct QuitReport {
    pub termination: Option<Termination>,
    pub escalation: Escalation,
    pub seen: Seen,
    pub elapsed: Duration,
}

/// A running engine: send lines, expect lines, quit. No call blocks past its deadline.
///
/// The engine runs as the leader of its own process group; [`Session::quit`] and `Drop` end
/// the whole group with SIGKILL, so grandchildren do not outlive the session.
#[derive(Debug)]
pub struct Session {
    /// The process group; 0 for a simulated engine.
    pid: libc::pid_t,
    clock: Instant,
    /// Where the session's time comes from: the machine's, or the simulated engine's world.
    time: Clock,
    options: SessionOptions,
    stdin: Option<ChildStdin>,
    wire: Wire,
    transcript: Transcript,
    stdout_eof: bool,
    stderr_eof: bool,
    termination: Option<Termination>,
    /// When the engine's exit was observed (microseconds since start).
    exited_at_micros: Option<u64>,
    /// When usicheck first asked the engine to end: `quit` sent or stdin closed.
    end_requested_at_micros: Option<u64>,
    /// An exit event held back until both pipes reach EOF or the grace ends, so that output
    /// written just before exiting is delivered before the exit.
    held_exit: Option<(Event, Instant)>,
    finished: bool,
    /// The simulated world this session created (it ends with the session).
    _world: Option<Arc<Entered>>,
}

/// What carries the engine's lines.
enum Wire {
    Process {
        queue: Arc<EventQueue>,
        /// Stdout, read by its reader thread and, while the session waits, by the session.
        stdout: Arc<SharedSource>,
        reap_permit: Arc<ReapPermit>,
    },
    Simulated(simulated::Wire),
}

impl std::fmt::Debug for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Wire::Process { .. } => "Process",
            Wire::Simulated(_) => "Simulated",
        })
    }
}

/// Longest line a simulated engine's stdout keeps whole.
pub(crate) const MAX_SIMULATED_LINE: usize = 1 << 20;

impl Session {
    /// The engine's pid, which is also its process group id.
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Microseconds since the session started: the time base of every event.
    pub fn elapsed_micros(&self) -> u64 {
        self.micros_at(self.now())
    }

    /// The present on the session's clock (simulated for a simulated engine).
    pub fn now(&self) -> Instant {
        self.time.now()
    }

    /// Waits `duration` on the session's clock.
    pub fn sleep(&self, duration: Duration) {
        self.time.sleep(duration);
    }

    /// Whether the engine runs simulated (no process: no pid, no CPU waits, no load).
    pub fn is_simulated(&self) -> bool {
        self.time.is_simulated()
    }

    /// The instant the session clock counts from.
    pub fn origin(&self) -> Instant {
        self.clock
    }

    /// `instant` on the session clock (the time base of every event), saturating at zero.
    pub fn micros_at(&self, instant: Instant) -> u64 {
        instant.saturating_duration_since(self.clock).as_micros() as u64
    }

    /// How the engine ended, once its exit has been delivered.
    pub fn termination(&self) -> Option<Termination> {
        self.termination
    }

    /// Whether the engine ended on its own after being asked to (`quit` or stdin EOF), as
    /// opposed to dying before it could read the request.
    pub fn exited_after_end_request(&self) -> bool {
        matches!(
            (self.end_requested_at_micros, self.exited_at_micros),
            (Some(asked), Some(exited)) if exited >= asked
        )
    }

    /// True once the engine closed its stdout.
    pub fn stdout_closed(&self) -> bool {
        self.stdout_eof
    }

    /// True once nothing more can arrive: both pipes closed and the exit delivered.
    pub fn is_over(&self) -> bool {
        self.finished || (self.stdout_eof && self.stderr_eof && self.termination.is_some())
    }

    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    pub fn options(&self) -> &SessionOptions {
        &self.options
    }
}
