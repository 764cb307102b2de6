//! Reader threads: one per output pipe, turning bytes into time-stamped line events.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Instant;

use super::event::Event;
use super::line::{LineSplitter, Stream};
use super::queue::EventQueue;

/// How often a reader blocked on a silent pipe checks whether the session is gone, so that a
/// process escaping the group cannot keep a thread alive by holding the pipe open.
const CLOSED_POLL_MILLIS: i32 = 200;
const READ_CHUNK: usize = 64 * 1024;

pub(crate) fn spawn_reader<R>(
    stream: Stream,
    mut pipe: R,
    queue: Arc<EventQueue>,
    clock: Instant,
    max_line_bytes: usize,
) -> io::Result<JoinHandle<()>>
where
    R: Read + AsRawFd + Send + 'static,
{
    let name = match stream {
        Stream::Stdout => "engine-stdout",
        Stream::Stderr => "engine-stderr",
    };
    thread::Builder::new().name(name.into()).spawn(move || {
        let micros = || clock.elapsed().as_micros() as u64;
        let mut splitter = LineSplitter::new(max_line_bytes);
        let mut buffer = vec![0; READ_CHUNK];
        let mut open = true;
        while open && wait_readable(pipe.as_raw_fd(), &queue) {
            let count = match pipe.read(&mut buffer) {
                Ok(0) => break,
                Ok(count) => count,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let at_micros = micros();
            splitter.push(&buffer[..count], |raw| {
                open = open && queue.push_bounded(Event::Line(raw.decode(stream, at_micros)));
            });
        }
        if let Some(raw) = splitter.finish() {
            queue.push_bounded(Event::Line(raw.decode(stream, micros())));
        }
        queue.push_unbounded(Event::Eof {
            stream,
            at_micros: micros(),
        });
    })
}

/// Waits until the pipe has data or hangs up; false once the session has closed the queue.
fn wait_readable(fd: RawFd, queue: &EventQueue) -> bool {
    loop {
        if queue.is_closed() {
            return false;
        }
        let mut poll_fd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, owned by this thread's pipe for the duration of the call.
        let ready = unsafe { libc::poll(&mut poll_fd, 1, CLOSED_POLL_MILLIS) };
        if ready != 0 {
            // Ready, or a poll error (EINTR): either way a read will tell.
            return true;
        }
    }
}
