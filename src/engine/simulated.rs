//! An engine loop run in a simulated world (see [`crate::sim`]) instead of a process: its
//! stdin, stdout and exit as the [`super::Session`] sees a process's, on simulated time.

use super::event::{Event, Termination};
use super::line::{LineSplitter, Stream};
use crate::sim::{Clock, Receiver, Sender, World};
use std::io::{self, BufRead, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// The engine's main function: its clock, stdin, stdout and stderr; returns its exit status.
pub type EngineMain = dyn Fn(Clock, EngineStdin, EngineStdout, EngineStdout) -> i32 + Send + Sync;

/// An engine that can run simulated, and how fast it searches there.
#[derive(Clone)]
pub struct SimulatedEngine {
    pub main: Arc<EngineMain>,
    /// Search nodes per simulated millisecond.
    pub nodes_per_ms: u64,
}

impl std::fmt::Debug for SimulatedEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SimulatedEngine({} nodes/ms)", self.nodes_per_ms)
    }
}

impl PartialEq for SimulatedEngine {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.main, &other.main) && self.nodes_per_ms == other.nodes_per_ms
    }
}

impl Eq for SimulatedEngine {}

/// The session's side of a running simulated engine.
pub(crate) struct Wire {
    pub(crate) world: World,
    /// Byte chunks to the engine's stdin; an empty chunk is EOF.
    input: Option<Sender<Vec<u8>>>,
    pub(crate) events: Receiver<Event>,
    sender: Sender<Event>,
    /// Set when the session kills the engine: nothing it writes afterwards arrives.
    killed: Arc<AtomicBool>,
    origin_micros: u64,
    group: u64,
}

impl Wire {
    /// Starts `engine` as a new task group of `world`, at the world's present.
    pub(crate) fn start(engine: &SimulatedEngine, world: World) -> Wire {
        let clock = Clock::Simulated(world.clone());
        let (input, stdin) = clock.channel();
        let (sender, events) = clock.channel();
        let killed = Arc::new(AtomicBool::new(false));
        let origin_micros = world.now_micros();
        let output = |stream| EngineStdout {
            world: world.clone(),
            origin_micros,
            stream,
            to_session: sender.clone(),
            killed: Arc::clone(&killed),
            splitter: Mutex::new(LineSplitter::new(super::session::MAX_SIMULATED_LINE)),
        };
        let (stdout, stderr) = (output(Stream::Stdout), output(Stream::Stderr));
        let stdin = EngineStdin {
            chunks: stdin,
            buffer: Vec::new(),
            at: 0,
            eof: false,
        };
        let main = Arc::clone(&engine.main);
        let (exit, done) = (sender.clone(), Arc::clone(&killed));
        let at = {
            let world = world.clone();
            move || world.now_micros() - origin_micros
        };
        let group = world.spawn_group(move || {
            let status = main(clock, stdin, stdout, stderr);
            if !done.load(Ordering::SeqCst) {
                let at_micros = at();
                for stream in [Stream::Stdout, Stream::Stderr] {
                    exit.send(Event::Eof { stream, at_micros });
                }
                exit.send(Event::Exited {
                    termination: Termination::Exited(status),
                    at_micros,
                });
            }
        });
        Wire {
            world,
            input: Some(input),
            events,
            sender,
            killed,
            origin_micros,
            group,
        }
    }

    /// Writes to the engine's stdin; false once it is closed.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> bool {
        match &self.input {
            Some(input) if !self.killed.load(Ordering::SeqCst) => {
                input.send(bytes.to_vec());
                true
            }
            _ => false,
        }
    }

    /// Sends EOF; false if stdin was already closed.
    pub(crate) fn close_input(&mut self) -> bool {
        let Some(input) = self.input.take() else {
            return false;
        };
        input.send(Vec::new());
        true
    }

    /// Kills the engine as a signal kills a process group: its tasks end, its pipes close.
    pub(crate) fn kill(&mut self, signal: i32) {
        if self.killed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.world.end_group(self.group);
        let at_micros = self.world.now_micros() - self.origin_micros;
        for stream in [Stream::Stdout, Stream::Stderr] {
            self.sender.send(Event::Eof { stream, at_micros });
        }
        self.sender.send(Event::Exited {
            termination: Termination::Signalled {
                signal,
                core_dumped: false,
            },
            at_micros,
        });
    }
}

/// The engine's stdin: what the session wrote, as a byte stream.
pub struct EngineStdin {
    chunks: Receiver<Vec<u8>>,
    buffer: Vec<u8>,
    at: usize,
    eof: bool,
}

impl Read for EngineStdin {
    fn read(&mut self, into: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let count = available.len().min(into.len());
        into[..count].copy_from_slice(&available[..count]);
        self.consume(count);
        Ok(count)
    }
}

impl BufRead for EngineStdin {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.at == self.buffer.len() && !self.eof {
            match self.chunks.recv_until(None) {
                Some(chunk) if !chunk.is_empty() => {
                    self.buffer = chunk;
                    self.at = 0;
                }
                _ => self.eof = true,
            }
        }
        Ok(&self.buffer[self.at..])
    }

    fn consume(&mut self, count: usize) {
        self.at = (self.at + count).min(self.buffer.len());
    }
}

/// The engine's stdout (or stderr): every line reaches the session at the simulated time it
/// is written.
pub struct EngineStdout {
    world: World,
    origin_micros: u64,
    stream: Stream,
    to_session: Sender<Event>,
    killed: Arc<AtomicBool>,
    splitter: Mutex<LineSplitter>,
}

impl Write for EngineStdout {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.killed.load(Ordering::SeqCst) {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        let at_micros = self.world.now_micros() - self.origin_micros;
        let mut splitter = self.splitter.lock().unwrap_or_else(PoisonError::into_inner);
        splitter.push(bytes, |raw| {
            self.to_session
                .send(Event::Line(raw.decode(self.stream, at_micros)));
        });
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
