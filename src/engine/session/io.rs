//! The session's I/O: writing to the engine's stdin within a deadline, and reading its
//! events, each recorded in the transcript as it is accepted.

use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::process::ChildStdin;
use std::time::{Duration, Instant};

use super::{SendError, Session, Wire};
use crate::engine::event::Event;
use crate::engine::line::{Line, LineEnd, Stream};
use crate::engine::transcript::Direction;
use crate::engine::wait::Sink;

impl Session {
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
    /// through a [`Wait`](crate::engine::Wait), which holds the deadline under a flood.
    pub(super) fn read_event(&mut self, deadline: Instant) -> Option<Event> {
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

    pub(super) fn accept(&mut self, mut event: Event) -> Event {
        if let Event::Line(line) = &mut event {
            line.entry = Some(self.transcript.entries().total());
        }
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

    /// Records `text` in the transcript, now: what usicheck did that the engine cannot see.
    pub fn note(&mut self, text: impl Into<String>) {
        self.note_at_now(Direction::Note, text);
    }

    pub(super) fn note_at_now(&mut self, direction: Direction, text: impl Into<String>) {
        let at = self.elapsed_micros();
        self.transcript.record(at, direction, text);
    }
}

impl Sink for Session {
    fn send(&mut self, line: &str) -> Result<(), SendError> {
        Session::send(self, line)
    }

    fn send_raw(&mut self, bytes: &[u8]) -> Result<(), SendError> {
        Session::send_raw(self, bytes)
    }

    fn elapsed_micros(&self) -> u64 {
        Session::elapsed_micros(self)
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
