//! Reading an output pipe into time-stamped line events, from a reader thread and, for
//! stdout, from the session itself while it waits.

use std::io::{self, PipeReader, PipeWriter, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::event::Event;
use super::line::{LineSplitter, Stream};
use super::queue::EventQueue;

/// How often a reader blocked on a silent pipe checks whether the session is gone, so that a
/// process escaping the group cannot keep a thread alive by holding the pipe open.
const CLOSED_POLL_MILLIS: i32 = 200;
const READ_CHUNK: usize = 64 * 1024;

/// One output pipe (non-blocking) with its line splitter.
#[derive(Debug)]
pub(crate) struct LineSource {
    stream: Stream,
    pipe: Box<dyn PipeRead>,
    splitter: LineSplitter,
    buffer: Vec<u8>,
    clock: Instant,
    done: bool,
}

pub(crate) trait PipeRead: Read + AsRawFd + Send + std::fmt::Debug {}
impl<T: Read + AsRawFd + Send + std::fmt::Debug> PipeRead for T {}

/// What one read did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadOutcome {
    /// Bytes were read (perhaps no complete line yet).
    Read,
    /// Nothing to read now.
    WouldBlock,
    /// End of stream (or the events have nowhere to go): the Eof event has been delivered.
    Finished,
}

impl LineSource {
    pub(crate) fn new(
        stream: Stream,
        pipe: Box<dyn PipeRead>,
        clock: Instant,
        max_line_bytes: usize,
    ) -> io::Result<Self> {
        // SAFETY: the descriptor is owned by `pipe`, alive for this call.
        set_nonblocking(unsafe { BorrowedFd::borrow_raw(pipe.as_raw_fd()) })?;
        Ok(LineSource {
            stream,
            pipe,
            splitter: LineSplitter::new(max_line_bytes),
            buffer: vec![0; READ_CHUNK],
            clock,
            done: false,
        })
    }

    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    pub(crate) fn raw_fd(&self) -> RawFd {
        self.pipe.as_raw_fd()
    }

    /// Reads once without blocking, delivering every completed line; `deliver` returns false
    /// when events can no longer be accepted.
    pub(crate) fn read_once(&mut self, deliver: &mut dyn FnMut(Event) -> bool) -> ReadOutcome {
        if self.done {
            return ReadOutcome::Finished;
        }
        let count = loop {
            match self.pipe.read(&mut self.buffer) {
                Ok(count) => break count,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    return ReadOutcome::WouldBlock;
                }
                Err(_) => break 0,
            }
        };
        let micros = self.clock.elapsed().as_micros() as u64;
        let stream = self.stream;
        if count > 0 {
            let mut open = true;
            self.splitter.push(&self.buffer[..count], |raw| {
                open = open && deliver(Event::Line(raw.decode(stream, micros)));
            });
            if open {
                return ReadOutcome::Read;
            }
        } else if let Some(raw) = self.splitter.finish() {
            deliver(Event::Line(raw.decode(stream, micros)));
        }
        self.done = true;
        deliver(Event::Eof {
            stream,
            at_micros: micros,
        });
        ReadOutcome::Finished
    }
}

/// A pipe shared by its reader thread and the session.
///
/// While the session waits it reads the pipe itself and the thread stands aside (it naps, and
/// is kicked out of `poll` if it was in it), so a prompt reply reaches the session without a
/// thread hop or two threads racing for it (see benches/driver.rs). While the session is busy
/// elsewhere the thread reads, so lines are still stamped when they arrive (within `NAP`).
#[derive(Debug)]
pub(crate) struct SharedSource {
    pub(crate) source: Mutex<LineSource>,
    fd: RawFd,
    /// Set once end of stream has been delivered: the pipe is then no longer polled.
    finished: AtomicBool,
    session_waiting: AtomicBool,
    reader_polling: AtomicBool,
    kick_reader: PipeReader,
    kick_writer: PipeWriter,
}

/// How long the reader thread naps while the session reads for itself.
const NAP: Duration = Duration::from_millis(5);

impl SharedSource {
    pub(crate) fn new(source: LineSource) -> io::Result<Self> {
        let (kick_reader, kick_writer) = io::pipe()?;
        set_nonblocking(kick_reader.as_fd())?;
        set_nonblocking(kick_writer.as_fd())?;
        Ok(SharedSource {
            fd: source.raw_fd(),
            finished: AtomicBool::new(false),
            source: Mutex::new(source),
            session_waiting: AtomicBool::new(false),
            reader_polling: AtomicBool::new(false),
            kick_reader,
            kick_writer,
        })
    }

    /// The pipe's descriptor while it may still deliver something.
    pub(crate) fn pollable_fd(&self) -> Option<RawFd> {
        (!self.finished.load(Ordering::SeqCst)).then_some(self.fd)
    }

    /// Reads once (see [`LineSource::read_once`]), remembering the end of stream.
    pub(crate) fn read_once(
        &self,
        source: &mut LineSource,
        deliver: &mut dyn FnMut(Event) -> bool,
    ) -> ReadOutcome {
        let outcome = source.read_once(deliver);
        if outcome == ReadOutcome::Finished {
            self.finished.store(true, Ordering::SeqCst);
        }
        outcome
    }

    /// Marks the session as waiting (and reading) until the guard is dropped.
    pub(crate) fn session_waits(&self) -> SessionWaiting<'_> {
        self.session_waiting.store(true, Ordering::SeqCst);
        if self.reader_polling.load(Ordering::SeqCst) {
            // A full pipe means a kick is already pending.
            let _ = (&self.kick_writer).write(&[1]);
        }
        SessionWaiting(self)
    }

    /// Waits until the thread should read: the pipe is readable and the session is not
    /// reading it. False once the session has closed the queue.
    fn reader_turn(&self, queue: &EventQueue) -> bool {
        loop {
            if queue.is_closed() {
                return false;
            }
            if self.session_waiting.load(Ordering::SeqCst) {
                thread::sleep(NAP);
                continue;
            }
            self.reader_polling.store(true, Ordering::SeqCst);
            let ready = !self.session_waiting.load(Ordering::SeqCst) && self.poll();
            self.reader_polling.store(false, Ordering::SeqCst);
            let mut sink = [0u8; 16];
            while matches!((&self.kick_reader).read(&mut sink), Ok(count) if count > 0) {}
            if ready && !self.session_waiting.load(Ordering::SeqCst) {
                return true;
            }
        }
    }

    /// Polls the pipe and the kick pipe; true if the pipe is readable (or in error).
    fn poll(&self) -> bool {
        let source_fd = self
            .source
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .raw_fd();
        let mut fds = [
            libc::pollfd {
                fd: source_fd,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.kick_reader.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two valid pollfds; the descriptors outlive the call.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, CLOSED_POLL_MILLIS) };
        ready < 0 || fds[0].revents != 0
    }
}

/// Ends the session's turn at reading when dropped.
pub(crate) struct SessionWaiting<'a>(&'a SharedSource);

impl Drop for SessionWaiting<'_> {
    fn drop(&mut self) {
        self.0.session_waiting.store(false, Ordering::SeqCst);
    }
}

/// Starts the thread that keeps reading `shared` into the queue until end of stream or until
/// the session closes the queue.
pub(crate) fn spawn_reader(
    shared: Arc<SharedSource>,
    queue: Arc<EventQueue>,
) -> io::Result<JoinHandle<()>> {
    let stream = shared
        .source
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .stream;
    let name = match stream {
        Stream::Stdout => "engine-stdout",
        Stream::Stderr => "engine-stderr",
    };
    thread::Builder::new().name(name.into()).spawn(move || {
        while shared.reader_turn(&queue) {
            let mut source = shared.source.lock().unwrap_or_else(|p| p.into_inner());
            let outcome = shared.read_once(&mut source, &mut |event| match event {
                Event::Line(_) => queue.push_bounded(event),
                _ => {
                    queue.push_unbounded(event);
                    true
                }
            });
            if outcome == ReadOutcome::Finished {
                break;
            }
        }
    })
}

/// Puts a descriptor in non-blocking mode.
pub(crate) fn set_nonblocking(fd: BorrowedFd<'_>) -> io::Result<()> {
    let fd = fd.as_fd().as_raw_fd();
    // SAFETY: fcntl on a valid descriptor; only O_NONBLOCK is added.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
