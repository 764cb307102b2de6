//! Engine I/O: one locked, line-flushing writer shared by every thread, and an input reader
//! thread so input is read even while searching. Both work over any reader and writer, so the
//! engine runs on stdin/stdout or in-process on in-memory pipes ([`crate::harness`]).

use super::faults::{Fault, FaultSet};
use crate::sim::{Clock, Sender};
use std::io::{BufRead, BufWriter, Write};
use std::sync::{Arc, Mutex, PoisonError};

/// The engine's output (stdout, or an in-memory pipe). Cloning shares the same lock, so lines
/// never interleave.
#[derive(Clone)]
pub struct Output {
    inner: Arc<Mutex<Writer>>,
    errors: Arc<Mutex<Box<dyn Write + Send>>>,
}

struct Writer {
    out: BufWriter<Box<dyn Write + Send>>,
    flush_each_line: bool,
    bom_pending: bool,
}

impl Writer {
    /// Buffers one line (after the byte-order mark a fault owes first).
    fn write_line(&mut self, bytes: &[u8]) {
        if self.bom_pending {
            self.bom_pending = false;
            let _ = self.out.write_all(b"\xEF\xBB\xBF");
        }
        let _ = self.out.write_all(bytes);
        let _ = self.out.write_all(b"\n");
    }
}

impl Output {
    /// Writes to `out`, buffered and flushed as the faults say; error lines go to `errors`.
    pub fn new(
        faults: &FaultSet,
        out: Box<dyn Write + Send>,
        errors: Box<dyn Write + Send>,
    ) -> Output {
        let capacity = if faults.has(Fault::BufferedOutput) {
            1 << 20
        } else {
            1 << 12
        };
        Output {
            inner: Arc::new(Mutex::new(Writer {
                out: BufWriter::with_capacity(capacity, out),
                flush_each_line: !faults.has(Fault::BufferedOutput),
                bom_pending: faults.has(Fault::ByteOrderMark),
            })),
            errors: Arc::new(Mutex::new(errors)),
        }
    }

    /// Writes one line to the error stream (stderr).
    pub fn error_line(&self, text: &str) {
        let mut errors = self.errors.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = writeln!(errors, "{text}");
        let _ = errors.flush();
    }

    /// Writes one line and (unless faulty) flushes it. Write errors mean the GUI is gone;
    /// the engine then notices EOF on stdin and exits, so they are ignored here.
    pub fn line(&self, text: &str) {
        self.bytes_line(text.as_bytes());
    }

    /// Writes `texts`, one line each, in one write: a reader gets them together.
    pub fn lines(&self, texts: &[&str]) {
        let mut w = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        for text in texts {
            w.write_line(text.as_bytes());
        }
        if w.flush_each_line {
            let _ = w.out.flush();
        }
    }

    /// Writes one line of raw bytes (used to send text in another encoding).
    pub fn bytes_line(&self, bytes: &[u8]) {
        let mut w = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        w.write_line(bytes);
        if w.flush_each_line {
            let _ = w.out.flush();
        }
    }

    /// Flushes whatever is buffered; called before exiting.
    pub fn flush(&self) {
        let mut w = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = w.out.flush();
    }
}

/// Spawns the input reader. Each line (without its `\n`, but with any `\r`, decoded lossily
/// so invalid UTF-8 cannot kill the engine) goes through `wrap`; EOF or a read error sends `eof`
/// and ends the thread.
pub fn spawn_reader<E: Send + 'static>(
    clock: &Clock,
    mut input: impl BufRead + Send + 'static,
    tx: Sender<E>,
    wrap: fn(String) -> E,
    eof: E,
) {
    drop(clock.spawn(move || {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if buf.last() == Some(&b'\n') {
                        buf.pop();
                    }
                    tx.send(wrap(String::from_utf8_lossy(&buf).into_owned()));
                }
            }
        }
        tx.send(eof);
    }));
}
