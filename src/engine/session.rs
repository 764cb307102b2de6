//! The session: talking to one engine process, every wait bounded by a deadline.

use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::path::PathBuf;
use std::process::ChildStdin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::bounded::{BoundedLog, LogLimits};
use super::command::{EngineCommand, StartError};
use super::event::{Event, Termination};
use super::line::{Line, LineEnd, Stream};
use super::process::{ReapPermit, signal_group, spawn_exit_watcher};
use super::queue::{EventQueue, QueueLimits};
use super::reader::{LineSource, PipeRead, SharedSource, set_nonblocking, spawn_reader};
use super::simulated::{self, SimulatedEngine};
use super::transcript::{Direction, Transcript};
use super::wait::{Arrival, Reading, Source, Wait};
use crate::sim::{Clock, Entered, World};

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
    /// Starts the engine; a missing binary, non-executable file or directory is a
    /// [`StartError`]. A command with a [simulated](EngineCommand::simulated) engine runs it
    /// in the world the calling thread's sessions share (see [`crate::sim`]), a new one if
    /// none is running.
    pub fn start(command: &EngineCommand, options: SessionOptions) -> Result<Session, StartError> {
        let transcript = Self::transcript_for(&options)?;
        if let Some(engine) = command.simulation() {
            return Ok(Self::start_simulated(command, engine, options, transcript));
        }
        Self::start_process(command, options, transcript)
    }

    fn transcript_for(options: &SessionOptions) -> Result<Transcript, StartError> {
        Ok(match &options.transcript_path {
            Some(path) => {
                Transcript::to_file(options.transcript_limits, path).map_err(|source| {
                    StartError::TranscriptFile {
                        path: path.clone(),
                        source,
                    }
                })?
            }
            None => Transcript::in_memory(options.transcript_limits),
        })
    }

    fn start_simulated(
        command: &EngineCommand,
        engine: &SimulatedEngine,
        options: SessionOptions,
        mut transcript: Transcript,
    ) -> Session {
        let entered = World::shared_or_new(engine.nodes_per_ms);
        let world = entered.world().clone();
        let time = Clock::Simulated(world.clone());
        transcript.record(0, Direction::Note, format!("started {command} (simulated)"));
        let wire = simulated::Wire::start(engine, world);
        Session {
            pid: 0,
            clock: time.now(),
            time,
            stdin: None,
            wire: Wire::Simulated(wire),
            _world: Some(entered),
            transcript,
            stdout_eof: false,
            stderr_eof: false,
            termination: None,
            exited_at_micros: None,
            end_requested_at_micros: None,
            held_exit: None,
            finished: false,
            options,
        }
    }

    fn start_process(
        command: &EngineCommand,
        options: SessionOptions,
        mut transcript: Transcript,
    ) -> Result<Session, StartError> {
        super::stall::watch();
        ignore_sigpipe();
        let clock = Instant::now();
        let mut child = command.spawn()?;
        let pid = child.id() as libc::pid_t;
        if !super::interrupt::register(pid) {
            return Err(StartError::Interrupted);
        }
        transcript.record(0, Direction::Note, format!("started {command} (pid {pid})"));
        let program = command.program().to_path_buf();
        let io_error = |source| StartError::Io {
            program: program.clone(),
            source,
        };
        // Until the session exists, its Drop cannot kill the group: do it by hand.
        let kill_on_error = |error| {
            signal_group(pid, libc::SIGKILL);
            io_error(error)
        };
        let queue = Arc::new(EventQueue::new(options.queue).map_err(kill_on_error)?);
        let max_line = options.max_line_bytes;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            unreachable!("all three pipes were requested");
        };
        let shared = |stream, pipe: Box<dyn PipeRead>| {
            LineSource::new(stream, pipe, clock, max_line)
                .and_then(SharedSource::new)
                .map(Arc::new)
        };
        let stdout = shared(Stream::Stdout, Box::new(stdout)).map_err(kill_on_error)?;
        let stderr = shared(Stream::Stderr, Box::new(stderr)).map_err(kill_on_error)?;
        set_nonblocking(stdin.as_fd()).map_err(kill_on_error)?;
        let reap_permit = Arc::<ReapPermit>::default();
        let session = Session {
            pid,
            clock,
            time: Clock::Real,
            stdin: Some(stdin),
            wire: Wire::Process {
                queue: Arc::clone(&queue),
                stdout: Arc::clone(&stdout),
                reap_permit: Arc::clone(&reap_permit),
            },
            _world: None,
            transcript,
            stdout_eof: false,
            stderr_eof: false,
            termination: None,
            exited_at_micros: None,
            end_requested_at_micros: None,
            held_exit: None,
            finished: false,
            options,
        };
        spawn_reader(stdout, Arc::clone(&queue)).map_err(io_error)?;
        spawn_reader(stderr, Arc::clone(&queue)).map_err(io_error)?;
        spawn_exit_watcher(pid, queue, clock, reap_permit).map_err(io_error)?;
        Ok(session)
    }

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

    /// Writes `line` and a newline to the engine, waiting at most `send_timeout`.
    pub fn send(&mut self, line: &str) -> Result<(), SendError> {
        let at = self.elapsed_micros();
        self.note_at_now(Direction::ToEngine, line);
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.write_all(&bytes)?;
        if line.trim() == "quit" {
            self.end_requested_at_micros.get_or_insert(at);
        }
        Ok(())
    }

    /// Writes raw bytes (no newline added), for fuzzing; recorded lossily in the transcript.
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), SendError> {
        let text = String::from_utf8_lossy(bytes).into_owned();
        self.note_at_now(Direction::ToEngine, text);
        self.note_at_now(
            Direction::Note,
            format!(
                "previous line sent raw: {} bytes, no newline added",
                bytes.len()
            ),
        );
        self.write_all(bytes)
    }

    /// Closes the engine's stdin (EOF); later sends fail with [`SendError::Closed`].
    pub fn close_stdin(&mut self) {
        let was_open = match &mut self.wire {
            Wire::Simulated(wire) => wire.close_input(),
            Wire::Process { .. } => self.stdin.take().is_some(),
        };
        if was_open {
            let at = self.elapsed_micros();
            self.end_requested_at_micros.get_or_insert(at);
            self.note_at_now(Direction::Note, "closed the engine's stdin");
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> Result<(), SendError> {
        if let Wire::Simulated(wire) = &mut self.wire {
            return if wire.write(bytes) {
                Ok(())
            } else {
                Err(SendError::Closed)
            };
        }
        // Only a process's pipe can be full: real time.
        let deadline = Instant::now() + self.options.send_timeout;
        let Some(stdin) = &mut self.stdin else {
            return Err(SendError::Closed);
        };
        let mut written = 0;
        while written < bytes.len() {
            match stdin.write(&bytes[written..]) {
                Ok(count) => written += count,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    let now = Instant::now();
                    if now >= deadline || !wait_writable(stdin, deadline - now) {
                        self.note_at_now(
                            Direction::Note,
                            format!("send timed out: {written} of {} bytes written", bytes.len()),
                        );
                        return Err(SendError::Timeout {
                            written,
                            len: bytes.len(),
                        });
                    }
                }
                Err(_) => {
                    self.stdin = None;
                    self.note_at_now(Direction::Note, "engine's stdin is closed");
                    return Err(SendError::Closed);
                }
            }
        }
        Ok(())
    }

    /// The next event, waiting until `deadline` at most; `None` on timeout or when nothing
    /// more can arrive. Every event is recorded in the transcript as it is returned. Read
    /// through a [`Wait`], which holds the deadline under a flood.
    fn read_event(&mut self, deadline: Instant) -> Option<Event> {
        loop {
            if let Some((_, release)) = &self.held_exit
                && (self.stdout_eof && self.stderr_eof || self.now() >= *release)
            {
                let (event, _) = self.held_exit.take()?;
                return Some(self.accept(event));
            }
            if self.finished {
                return None;
            }
            let wait_until = if self.is_over() {
                self.now()
            } else {
                self.held_exit
                    .as_ref()
                    .map_or(deadline, |(_, release)| deadline.min(*release))
            };
            let popped = match &self.wire {
                Wire::Process { queue, stdout, .. } => queue.pop_until(wait_until, stdout),
                Wire::Simulated(wire) => {
                    let event = wire.events.recv_until(Some(wait_until));
                    if event.is_some() {
                        // Reading a line takes a microsecond, as it does from a pipe: what
                        // usicheck sends in reply goes out after the line, never at its time.
                        self.time.sleep(Duration::from_micros(1));
                    }
                    event
                }
            };
            match popped {
                Some(event @ Event::Exited { .. }) if !(self.stdout_eof && self.stderr_eof) => {
                    self.held_exit = Some((event, self.now() + self.options.exit_grace));
                }
                Some(event) => return Some(self.accept(event)),
                None if self.now() >= deadline || self.is_over() => return None,
                None => {}
            }
        }
    }

    /// Waits for a stdout line satisfying `matches`, for a fixed time (a [`Duration`]) or
    /// with a keep-alive ([`Patience::KeepAlive`]).
    ///
    /// Fails with [`Unmet::Timeout`] at the deadline, [`Unmet::Exited`] if the engine ends
    /// (after its last output is read), or [`Unmet::Eof`] if it closes stdout and keeps running.
    pub fn expect(
        &mut self,
        mut matches: impl FnMut(&Line) -> bool,
        patience: impl Into<Patience>,
    ) -> Result<Found, Box<ExpectError>> {
        let patience = patience.into();
        let start = self.now();
        let mut wait = Wait::until(self, start + patience.first_deadline());
        let mut seen = Seen::new(self.options.seen_limits, Event::weight);
        loop {
            let kind = match wait.next(self) {
                Arrival::OnTime(Event::Line(line))
                    if line.stream == Stream::Stdout && matches(&line) =>
                {
                    return Ok(Found { line, seen });
                }
                Arrival::OnTime(event) => {
                    if let (Patience::KeepAlive { idle, cap }, Event::Line(line)) =
                        (patience, &event)
                        && line.stream == Stream::Stdout
                    {
                        let idle_end = (self.now() + idle).min(start + cap);
                        wait.extend_to(self, idle_end);
                    }
                    seen.push(event);
                    continue;
                }
                Arrival::Late(event) => {
                    seen.push(event);
                    Unmet::Timeout
                }
                Arrival::Deadline if self.stdout_eof => Unmet::Eof,
                Arrival::Deadline => Unmet::Timeout,
                Arrival::Over => match self.termination {
                    Some(termination) => Unmet::Exited(termination),
                    None => Unmet::Eof,
                },
            };
            return Err(Box::new(ExpectError {
                kind,
                seen,
                waited: self.now() - start,
            }));
        }
    }

    /// Asserts that no stdout line satisfying `matches` arrives for `duration`.
    ///
    /// Returns what was seen (ending early if nothing more can arrive), or the offending line.
    pub fn expect_silence(
        &mut self,
        mut matches: impl FnMut(&Line) -> bool,
        duration: Duration,
    ) -> Result<Seen, Box<Found>> {
        let mut wait = Wait::until(self, self.now() + duration);
        let mut seen = Seen::new(self.options.seen_limits, Event::weight);
        loop {
            match wait.next(self) {
                Arrival::OnTime(Event::Line(line))
                    if line.stream == Stream::Stdout && matches(&line) =>
                {
                    return Err(Box::new(Found { line, seen }));
                }
                Arrival::OnTime(event) => seen.push(event),
                Arrival::Late(event) => {
                    seen.push(event);
                    return Ok(seen);
                }
                Arrival::Deadline | Arrival::Over => return Ok(seen),
            }
        }
    }

    /// Everything already received, without waiting.
    pub fn drain(&mut self) -> Seen {
        let mut wait = Wait::until(self, self.now());
        let mut seen = Seen::new(self.options.seen_limits, Event::weight);
        while let Arrival::OnTime(event) | Arrival::Late(event) = wait.next(self) {
            seen.push(event);
        }
        seen
    }

    /// Ends the engine: sends `quit` and waits up to `timeout`, then SIGTERM to the process
    /// group and `term_grace`, then SIGKILL and `kill_grace`. Finally SIGKILLs whatever is left
    /// of the group and lets the engine be reaped. Takes at most
    /// `timeout + term_grace + kill_grace + exit_grace` (plus the send timeout).
    pub fn quit(&mut self, timeout: Duration) -> QuitReport {
        self.end_after_quit(timeout, true)
    }

    /// As [`Session::quit`], with `quit` already sent when `send_quit` is false (in a write
    /// with other commands).
    pub fn end_after_quit(&mut self, timeout: Duration, send_quit: bool) -> QuitReport {
        let start = self.now();
        let mut seen = Seen::new(self.options.seen_limits, Event::weight);
        let escalation = if self.finished {
            Escalation::None
        } else {
            if send_quit {
                let _ = self.send("quit");
            }
            if self.wait_exit(start + timeout, &mut seen) || self.wait_held_up(start, &mut seen) {
                Escalation::None
            } else if self.signal_and_wait(libc::SIGTERM, self.options.term_grace, &mut seen) {
                Escalation::Sigterm
            } else if self.signal_and_wait(libc::SIGKILL, self.options.kill_grace, &mut seen) {
                Escalation::Sigkill
            } else {
                Escalation::Unkillable
            }
        };
        self.finish(&mut seen);
        QuitReport {
            termination: self.termination,
            escalation,
            seen,
            elapsed: self.now() - start,
        }
    }

    /// After the exit's deadline passed: waits once more as long as usicheck itself was held
    /// up since `since` (a loaded or stalled machine, [`super::stall`]), as every other wait
    /// of a session does, so that no signal goes to an engine that had no time to exit.
    /// Whether it exited then.
    fn wait_held_up(&mut self, since: Instant, seen: &mut Seen) -> bool {
        if self.is_simulated() {
            return false;
        }
        let held_up = super::stall::worst_between(since, self.now());
        if held_up.is_zero() {
            return false;
        }
        self.note_at_now(
            Direction::Note,
            format!(
                "waiting {} ms more for the exit: usicheck itself was held up that long",
                held_up.as_millis()
            ),
        );
        self.wait_exit(self.now() + held_up, seen)
    }

    fn signal_and_wait(&mut self, signal: libc::c_int, grace: Duration, seen: &mut Seen) -> bool {
        let name = if signal == libc::SIGTERM {
            "SIGTERM"
        } else {
            "SIGKILL"
        };
        self.note_at_now(
            Direction::Note,
            format!("sent {name} to process group {}", self.pid),
        );
        self.signal(signal);
        self.wait_exit(self.now() + grace, seen)
    }

    /// Waits until the leader's exit has been observed (perhaps still held back).
    fn wait_exit(&mut self, deadline: Instant, seen: &mut Seen) -> bool {
        let mut wait = Wait::for_exit(self, deadline);
        while self.termination.is_none() && self.held_exit.is_none() {
            match wait.next(self) {
                Arrival::OnTime(event) | Arrival::Late(event) => seen.push(event),
                Arrival::Deadline | Arrival::Over => break,
            }
        }
        self.termination.is_some() || self.held_exit.is_some()
    }

    /// Kills what is left of the group, collects the last output briefly, and releases the
    /// engine to be reaped. The group is never signalled again afterwards.
    fn finish(&mut self, seen: &mut Seen) {
        if self.finished {
            return;
        }
        self.signal(libc::SIGKILL);
        self.stdin = None;
        let mut wait = Wait::for_exit(self, self.now() + self.options.exit_grace);
        while !self.is_over() {
            match wait.next(self) {
                Arrival::OnTime(event) | Arrival::Late(event) => seen.push(event),
                Arrival::Deadline | Arrival::Over => break,
            }
        }
        if let Some((event, _)) = self.held_exit.take() {
            seen.push(self.accept(event));
        }
        self.finished = true;
        if let Wire::Process {
            queue, reap_permit, ..
        } = &self.wire
        {
            reap_permit.grant();
            queue.close();
        }
        if let Err(error) = self.transcript.flush() {
            eprintln!("usicheck: transcript file: {error}");
        }
    }

    fn signal(&mut self, signal: libc::c_int) {
        match &mut self.wire {
            Wire::Process { .. } => signal_group(self.pid, signal),
            Wire::Simulated(wire) => wire.kill(signal),
        }
    }

    fn accept(&mut self, event: Event) -> Event {
        match &event {
            Event::Line(line) => {
                let direction = match line.stream {
                    Stream::Stdout => Direction::FromEngine,
                    Stream::Stderr => Direction::Stderr,
                };
                self.transcript
                    .record(line.at_micros, direction, line.text.clone());
                self.note_line_flags(line);
            }
            Event::Eof { stream, at_micros } => {
                let name = match stream {
                    Stream::Stdout => {
                        self.stdout_eof = true;
                        "stdout"
                    }
                    Stream::Stderr => {
                        self.stderr_eof = true;
                        "stderr"
                    }
                };
                self.transcript
                    .record(*at_micros, Direction::Note, format!("{name} closed"));
            }
            Event::Exited {
                termination,
                at_micros,
            } => {
                self.termination = Some(*termination);
                self.exited_at_micros = Some(*at_micros);
                self.transcript
                    .record(*at_micros, Direction::Note, termination.to_string());
            }
        }
        event
    }

    fn note_line_flags(&mut self, line: &Line) {
        if line.truncated {
            self.transcript.record(
                line.at_micros,
                Direction::Note,
                format!(
                    "line truncated: kept {} of {} bytes",
                    line.text.len(),
                    line.raw_len
                ),
            );
        }
        if line.invalid_utf8 {
            self.transcript.record(
                line.at_micros,
                Direction::Note,
                "line is not valid UTF-8 (shown with U+FFFD)",
            );
        }
        if line.end == LineEnd::Eof {
            self.transcript
                .record(line.at_micros, Direction::Note, "line has no final newline");
        }
    }

    fn note_at_now(&mut self, direction: Direction, text: impl Into<String>) {
        let at = self.elapsed_micros();
        self.transcript.record(at, direction, text);
    }
}

impl Source for Session {
    fn next_event(&mut self, deadline: Instant, _: Reading) -> Option<Event> {
        self.read_event(deadline)
    }

    fn now(&self) -> Instant {
        Session::now(self)
    }

    fn micros_at(&self, instant: Instant) -> u64 {
        Session::micros_at(self, instant)
    }

    fn termination(&self) -> Option<Termination> {
        self.termination
    }

    fn is_over(&self) -> bool {
        Session::is_over(self)
    }

    fn stdout_closed(&self) -> bool {
        self.stdout_eof
    }

    fn exit_grace(&self) -> Duration {
        self.options.exit_grace
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let mut seen = Seen::new(self.options.seen_limits, Event::weight);
        self.finish(&mut seen);
    }
}

/// Waits until the pipe accepts data; false if `timeout` passes first.
fn wait_writable(stdin: &ChildStdin, timeout: Duration) -> bool {
    let mut poll_fd = libc::pollfd {
        fd: stdin.as_raw_fd(),
        events: libc::POLLOUT,
        revents: 0,
    };
    let millis = timeout.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
    // SAFETY: one valid pollfd for a descriptor we own.
    unsafe { libc::poll(&mut poll_fd, 1, millis) != 0 }
}

/// Writing to an engine that died raises SIGPIPE. Rust's `main` ignores it, so the write fails
/// with `BrokenPipe` and the death is judged; a host without that `main` (a libFuzzer target)
/// still has the default action, which would kill the host instead.
fn ignore_sigpipe() {
    static IGNORED: std::sync::Once = std::sync::Once::new();
    IGNORED.call_once(|| {
        // SAFETY: installs the `SIG_IGN` disposition, no handler code runs.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
    });
}
