//! What a session observes from the engine process, in arrival order.

use std::fmt;

use super::line::{Line, Stream};

/// How the engine process ended.
///
/// ```
/// use usicheck::engine::Termination;
/// assert_eq!(Termination::Exited(0).to_string(), "exited with status 0");
/// let crash = Termination::Signalled { signal: 11, core_dumped: false };
/// assert_eq!(crash.to_string(), "killed by signal 11 (SIGSEGV)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    Exited(i32),
    Signalled { signal: i32, core_dumped: bool },
}

impl Termination {
    /// True for a normal exit with status 0.
    pub fn is_success(self) -> bool {
        self == Termination::Exited(0)
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Termination::Exited(status) => write!(f, "exited with status {status}"),
            Termination::Signalled {
                signal,
                core_dumped,
            } => {
                write!(f, "killed by signal {signal}")?;
                if let Some(name) = signal_name(signal) {
                    write!(f, " ({name})")?;
                }
                if core_dumped {
                    f.write_str(", core dumped")?;
                }
                Ok(())
            }
        }
    }
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        _ => return None,
    })
}

/// One observation, time-stamped in microseconds since the session started.
///
/// Events of one stream arrive in order; between stdout and stderr the order is only as good
/// as the timestamps (each pipe is read independently).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A line on stdout or stderr.
    Line(Line),
    /// The pipe was closed by every process holding it.
    Eof { stream: Stream, at_micros: u64 },
    /// The engine process (the group leader) ended.
    Exited {
        termination: Termination,
        at_micros: u64,
    },
}

impl Event {
    pub fn at_micros(&self) -> u64 {
        match self {
            Event::Line(line) => line.at_micros,
            Event::Eof { at_micros, .. } | Event::Exited { at_micros, .. } => *at_micros,
        }
    }

    /// Bytes of text held, for memory bounds.
    pub(crate) fn weight(&self) -> usize {
        match self {
            Event::Line(line) => line.text.len() + 64,
            _ => 64,
        }
    }
}
