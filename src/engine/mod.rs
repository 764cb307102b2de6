//! The engine process driver: start an untrusted engine, talk to it line by line with every
//! wait bounded by a deadline, keep a transcript, and leave no process behind.
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
mod event;
mod line;
mod process;
mod queue;
mod reader;
mod session;
mod timeouts;
mod transcript;

pub use bounded::{BoundedLog, LogLimits};
pub use command::{EngineCommand, StartError};
pub use event::{Event, Termination};
pub use line::{Line, LineEnd, LineSplitter, RawLine, Stream};
pub use queue::QueueLimits;
pub use session::{
    Escalation, ExpectError, Found, Patience, QuitReport, Seen, SendError, Session, SessionOptions,
    Unmet,
};
pub use timeouts::Timeouts;
pub use transcript::{Direction, Transcript, TranscriptEntry, sanitise};
