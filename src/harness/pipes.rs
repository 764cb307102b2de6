//! An engine's USI loop on a thread of this process, talking through in-memory pipes: the
//! [`Transport`] the harness drives, as [`crate::engine::Session`] is for a process.
//!
//! A thread cannot be killed: an engine that ignores both `quit` and the end of its input is
//! left running. Such threads are counted ([`left_running`]) and the harness starts no session
//! once [`MAX_LEFT_RUNNING`] of them run.

use crate::engine::{
    Arrival, Direction, Event, LineSplitter, Reading, SendError, SessionOptions, Sink, Source,
    Stream, Termination, Transcript, Wait,
};
use crate::fuzzer::transport::Transport;
use std::io::{self, BufRead, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Engine threads left running by earlier sessions (they ignored `quit` and EOF) beyond which no
/// new session starts: each may hold a core.
pub const MAX_LEFT_RUNNING: usize = 4;

/// Lines buffered between the engine and the harness before the engine's writes block.
const QUEUED_LINES: usize = 4096;

/// After `quit`, how long a loop may take to return once its input is closed too.
const EOF_GRACE: Duration = Duration::from_millis(200);

/// The exit status of a loop that panicked (that of a Rust program whose main thread panics).
const PANIC_STATUS: i32 = 101;

static LEFT_RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Engine loops the harness gave up on (they ignored `quit` and end of input) that still run,
/// in this process.
pub fn left_running() -> usize {
    LEFT_RUNNING.load(Ordering::SeqCst)
}

/// Whether the loop has returned, and whether the harness gave up on it before: whichever
/// happens second settles the count of loops left running.
#[derive(Default)]
struct Fate {
    returned: bool,
    abandoned: bool,
}

fn settle(fate: &Mutex<Fate>, change: impl FnOnce(&mut Fate)) {
    let mut fate = fate.lock().unwrap_or_else(PoisonError::into_inner);
    let was_left = fate.abandoned && !fate.returned;
    change(&mut fate);
    let is_left = fate.abandoned && !fate.returned;
    match (was_left, is_left) {
        (false, true) => LEFT_RUNNING.fetch_add(1, Ordering::SeqCst),
        (true, false) => LEFT_RUNNING.fetch_sub(1, Ordering::SeqCst),
        _ => 0,
    };
}

/// What an engine's USI loop returns, read as an exit status: `()` and `Ok` are 0, `Err` is 1.
pub trait LoopStatus {
    fn status(self) -> i32;
}

impl LoopStatus for () {
    fn status(self) -> i32 {
        0
    }
}

impl LoopStatus for i32 {
    fn status(self) -> i32 {
        self
    }
}

impl<E> LoopStatus for Result<(), E> {
    fn status(self) -> i32 {
        match self {
            Ok(()) => 0,
            Err(_) => 1,
        }
    }
}

/// The engine's standard input: the lines the harness sends; end of file once the harness is
/// done with the engine.
pub struct EngineInput {
    chunks: Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    read: usize,
}

impl Read for EngineInput {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let count = available.len().min(out.len());
        out[..count].copy_from_slice(&available[..count]);
        self.consume(count);
        Ok(count)
    }
}

impl BufRead for EngineInput {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.read == self.chunk.len() {
            match self.chunks.recv() {
                Ok(chunk) => {
                    self.chunk = chunk;
                    self.read = 0;
                }
                Err(_) => break,
            }
        }
        Ok(&self.chunk[self.read..])
    }

    fn consume(&mut self, amount: usize) {
        self.read = (self.read + amount).min(self.chunk.len());
    }
}

/// The engine's standard output: split into lines as a process's stdout is, each stamped with
/// the time it was completed. Writes fail once the harness is done with the engine.
pub struct EngineOutput {
    lines: SyncSender<Event>,
    splitter: LineSplitter,
    clock: Instant,
}

impl EngineOutput {
    fn micros(&self) -> u64 {
        self.clock.elapsed().as_micros() as u64
    }
}

impl Write for EngineOutput {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut lines = Vec::new();
        self.splitter.push(bytes, |line| lines.push(line));
        let at_micros = self.micros();
        for line in lines {
            let line = line.decode(Stream::Stdout, at_micros);
            if self.lines.send(Event::Line(line)).is_err() {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for EngineOutput {
    fn drop(&mut self) {
        let at_micros = self.micros();
        if let Some(line) = self.splitter.finish() {
            let _ = self
                .lines
                .send(Event::Line(line.decode(Stream::Stdout, at_micros)));
        }
        let _ = self.lines.send(Event::Eof {
            stream: Stream::Stdout,
            at_micros,
        });
    }
}

/// An engine loop running on its own thread.
pub struct InProcess {
    clock: Instant,
    /// `None` once closed: the engine reads end of file.
    input: Option<Sender<Vec<u8>>>,
    events: Receiver<Event>,
    transcript: Transcript,
    stdout_closed: bool,
    termination: Option<Termination>,
    fate: Arc<Mutex<Fate>>,
}

impl InProcess {
    /// Starts `engine` on a new thread with fresh pipes.
    pub fn start<R: LoopStatus>(
        engine: impl FnOnce(EngineInput, EngineOutput) -> R + Send + 'static,
    ) -> io::Result<InProcess> {
        let clock = Instant::now();
        let (input, chunks) = mpsc::channel();
        let (lines, events) = mpsc::sync_channel(QUEUED_LINES);
        let exit = lines.clone();
        let stdin = EngineInput {
            chunks,
            chunk: Vec::new(),
            read: 0,
        };
        let stdout = EngineOutput {
            lines,
            splitter: LineSplitter::new(SessionOptions::default().max_line_bytes),
            clock,
        };
        let fate = Arc::new(Mutex::new(Fate::default()));
        let thread_fate = Arc::clone(&fate);
        std::thread::Builder::new()
            .name("usi-engine".into())
            .spawn(move || {
                let status = catch_unwind(AssertUnwindSafe(|| engine(stdin, stdout).status()));
                let termination = Termination::Exited(status.unwrap_or(PANIC_STATUS));
                let at_micros = clock.elapsed().as_micros() as u64;
                settle(&thread_fate, |fate| fate.returned = true);
                let _ = exit.send(Event::Exited {
                    termination,
                    at_micros,
                });
            })?;
        Ok(InProcess {
            clock,
            input: Some(input),
            events,
            transcript: Transcript::in_memory(SessionOptions::default().transcript_limits),
            stdout_closed: false,
            termination: None,
            fate,
        })
    }

    fn note(&mut self, direction: Direction, text: impl Into<String>) {
        let at = self.elapsed_micros();
        self.transcript.record(at, direction, text);
    }

    fn write(&mut self, bytes: Vec<u8>) -> Result<(), SendError> {
        let sent = self.input.as_ref().map(|input| input.send(bytes));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => {
                self.input = None;
                Err(SendError::Closed)
            }
        }
    }

    /// Waits until the loop has returned, reading what it still writes.
    fn wait_exit(&mut self, deadline: Instant) -> bool {
        let mut wait = Wait::for_exit(self, deadline);
        while self.termination.is_none() {
            if let Arrival::Deadline | Arrival::Over = wait.next(self) {
                break;
            }
        }
        self.termination.is_some()
    }
}

impl Source for InProcess {
    fn next_event(&mut self, deadline: Instant, _: Reading) -> Option<Event> {
        if self.is_over() {
            return None;
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        let event = match self.events.recv_timeout(wait) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
        };
        match &event {
            Event::Line(line) => {
                self.transcript
                    .record(line.at_micros, Direction::FromEngine, line.text.clone());
            }
            Event::Eof { at_micros, .. } => {
                self.stdout_closed = true;
                self.transcript
                    .record(*at_micros, Direction::Note, "output closed");
            }
            Event::Exited {
                termination,
                at_micros,
            } => {
                self.termination = Some(*termination);
                self.transcript.record(
                    *at_micros,
                    Direction::Note,
                    format!("the loop returned: {termination}"),
                );
            }
        }
        Some(event)
    }

    fn termination(&self) -> Option<Termination> {
        self.termination
    }

    fn is_over(&self) -> bool {
        self.stdout_closed && self.termination.is_some()
    }

    fn now(&self) -> Instant {
        Instant::now()
    }

    fn micros_at(&self, instant: Instant) -> u64 {
        instant.saturating_duration_since(self.clock).as_micros() as u64
    }

    fn stdout_closed(&self) -> bool {
        self.stdout_closed
    }

    fn exit_grace(&self) -> Duration {
        EOF_GRACE
    }
}

impl Sink for InProcess {
    fn send(&mut self, line: &str) -> Result<(), SendError> {
        self.note(Direction::ToEngine, line);
        self.write(format!("{line}\n").into_bytes())
    }

    fn send_raw(&mut self, bytes: &[u8]) -> Result<(), SendError> {
        self.note(Direction::ToEngine, String::from_utf8_lossy(bytes));
        self.note(
            Direction::Note,
            format!(
                "previous line sent raw: {} bytes, no newline added",
                bytes.len()
            ),
        );
        self.write(bytes.to_vec())
    }

    fn elapsed_micros(&self) -> u64 {
        self.clock.elapsed().as_micros() as u64
    }
}

impl Transport for InProcess {
    /// Sends `quit`, then closes the input after `timeout` if the loop has not returned; a
    /// loop still running `EOF_GRACE` later is left behind.
    fn quit(&mut self, timeout: Duration, sent: bool) -> Result<(), String> {
        if self.termination.is_some() {
            return Ok(());
        }
        let start = Instant::now();
        if !sent {
            let _ = self.send("quit");
        }
        if self.wait_exit(start + timeout) {
            return Ok(());
        }
        self.input = None;
        self.note(Direction::Note, "closed the engine's input");
        if self.wait_exit(Instant::now() + EOF_GRACE) {
            return Ok(());
        }
        self.note(
            Direction::Note,
            "the loop still runs: its thread is left behind",
        );
        Err(format!(
            "its loop still ran {} ms after `quit` and {} ms after end of input; the thread is \
             left running",
            start.elapsed().as_millis(),
            EOF_GRACE.as_millis()
        ))
    }

    fn transcript(&self) -> String {
        let mut text = Vec::new();
        self.transcript
            .write_to(&mut text)
            .expect("writing to memory");
        String::from_utf8_lossy(&text).into_owned()
    }
}

impl Drop for InProcess {
    /// Closes both pipes (the loop reads end of file, its writes fail) and counts the loop as
    /// left running until it returns.
    fn drop(&mut self) {
        self.input = None;
        settle(&self.fate, |fate| fate.abandoned = true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_that_ignores_quit_and_eof_is_counted_until_it_returns() {
        let (release, released) = mpsc::channel::<()>();
        let mut engine = InProcess::start(move |_input, _output| {
            let _ = released.recv();
        })
        .expect("a thread");
        let failed = engine.quit(Duration::from_millis(10), false);
        assert!(failed.is_err_and(|how| how.contains("left running")));
        drop(engine);
        assert_eq!(left_running(), 1);
        release.send(()).expect("the loop waits");
        let deadline = Instant::now() + Duration::from_secs(5);
        while left_running() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(left_running(), 0);
    }

    #[test]
    fn lines_arrive_split_stamped_and_followed_by_the_exit() {
        let mut engine = InProcess::start(|input: EngineInput, mut output: EngineOutput| {
            for line in input.lines() {
                let line = line.expect("text");
                let _ = write!(output, "{line}\r\n");
                if line == "quit" {
                    let _ = output.write_all(b"bye");
                    return 3;
                }
            }
            0
        })
        .expect("a thread");
        engine.send("usi").expect("open");
        let deadline = Instant::now() + Duration::from_secs(5);
        let Arrival::OnTime(Event::Line(line)) = Wait::until(&engine, deadline).next(&mut engine)
        else {
            panic!("no line")
        };
        assert_eq!(line.text, "usi");
        assert!(engine.quit(Duration::from_secs(5), false).is_ok());
        assert_eq!(engine.termination(), Some(Termination::Exited(3)));
        assert!(engine.is_over());
        let transcript = engine.transcript();
        assert!(transcript.contains("< bye"), "{transcript}");
    }
}
