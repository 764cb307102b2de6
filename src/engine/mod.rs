//! The engine process driver: start an untrusted engine, talk to it line by line with every
//! wait bounded by a deadline, keep a transcript, and leave no process behind.
//!
//! Guarantees, whatever the engine does:
//! - every call returns by its deadline: `expect*` by its [`Patience`], `send` by
//!   `send_timeout`, [`Session::quit`] by the sum of its escalation steps, `Drop` within
//!   `exit_grace` (a grandchild holding the pipes open delays nothing: the exit is reported);
//! - the engine runs in its own process group, which `quit` and `Drop` end with SIGKILL, and
//!   [`interrupt`] (usicheck's SIGINT/SIGTERM handler) too;
//! - memory is bounded: lines are cut at `max_line_bytes`, a full queue blocks the engine
//!   (backpressure, nothing lost), and the transcript and the events returned with each outcome
//!   keep their beginning and end within [`LogLimits`], counting what they drop (about 40 MB
//!   with the defaults); so is disk: a transcript file receives everything up to
//!   [`TRANSCRIPT_FILE_HEAD_BYTES`], then the in-memory tail when the session ends;
//! - engine text is kept as sent (lossily decoded, flagged); [`sanitise`] it for a terminal.
//!
//! ```no_run
//! use std::time::Duration;
//! use usicheck::engine::{EngineCommand, Session, SessionOptions};
//!
//! let mut session = Session::start(&EngineCommand::new("./engine"), SessionOptions::default())?;
//! session.send("usi").expect("engine reads its input");
//! match session.expect(|line| line.text == "usiok", Duration::from_secs(10)) {
//!     Ok(found) => println!("usiok after {} lines", found.seen.total()),
//!     Err(unmet) => println!("no usiok: {unmet}"),
//! }
//! let report = session.quit(Duration::from_secs(5));
//! println!("{:?} {:?}", report.termination, report.escalation);
//! print!("{}", session.transcript());
//! # Ok::<(), usicheck::engine::StartError>(())
//! ```

mod bounded;
mod command;
mod cpu_wait;
mod event;
mod group_cpu;
mod interrupt;
mod line;
mod process;
mod queue;
mod reader;
mod session;
mod simulated;
mod slots;
pub mod stall;
mod timeouts;
mod transcript;
mod wait;

pub use bounded::{BoundedLog, LogLimits};
pub use command::{EngineCommand, StartError};
pub use cpu_wait::{CpuWait, CpuWaitWatch};
pub use event::{Event, Termination};
pub use group_cpu::{GroupCpu, group_cpu, reaped_cpu};
pub use interrupt::{interrupt, interrupted};
pub use line::{Line, LineEnd, LineSplitter, RawLine, Stream};
pub use queue::QueueLimits;
pub use session::{
    Escalation, ExpectError, Found, Patience, QuitReport, Seen, SendError, Session, SessionOptions,
    Unmet,
};
pub use simulated::{EngineMain, EngineStdin, EngineStdout, SimulatedEngine};
pub use slots::{HeldCores, SearchSlot, SearchSlots, threads_set_by};
pub use timeouts::Timeouts;
pub use transcript::{
    Direction, TRANSCRIPT_FILE_HEAD_BYTES, Transcript, TranscriptEntry, sanitise,
};
pub use wait::{Arrival, Reading, Sink, Source, Wait};
