//! The reference engine behind `usicheck engine`: a conformant USI engine that, with faults
//! switched on, breaks exactly the rules those faults name.
//!
//! Architecture: a reader thread turns stdin into events; the engine's loop owns the state
//! (idle, or one running search: timed, infinite, ponder or mate) and is the only place that
//! sends `bestmove`/`checkmate`, so every `go` gets exactly one terminal reply; the search runs
//! on its own thread with a stop flag and reports back with an event. Hence `isready` during a
//! search is answered at once, `stop` ends it with one `bestmove`, and `gameover`/`quit` end it
//! without a reply.
//!
//! This module holds the entry points and the engine's state; the loop and the idle commands
//! are in `commands.rs`, the life of a `go` in `go.rs`, and the places where a fault changes
//! what the engine does in `hooks.rs`.
//!
//! Behaviour where the rules leave a choice:
//! - a bad `position` is reported as `info string error: <reason>`; a following `go` is answered
//!   `bestmove resign` (after `stop` for `go infinite`/`go ponder`) and `go mate` with
//!   `checkmate timeout`;
//! - `go infinite`/`go ponder` that finish early (mate found, no legal move, declaration) hold
//!   their answer until `stop` (or `ponderhit`, which may then answer at once);
//! - `go mate` runs the df-pn solver of [`crate::shogi::mate`] (its table sized by `USI_Hash`,
//!   `go nodes`/`go depth` as its node and ply limits); `stop` answers `checkmate timeout`;
//! - with `USI_OwnBook` on (it is off by default), a game `go` from the start position plays
//!   the book move of [`book`] at once, reported with an `info … pv` line;
//! - with `Stochastic_Ponder` on (off by default), `go ponder` searches the position before the
//!   predicted move (its `pv`s are of that position) and `ponderhit` starts a search of the
//!   real one; a `stop` before it is answered with the real position's first legal move;
//! - a `go` with no limit at all searches until `stop` or until it proves a mate;
//! - `gameover` during a search stops it with no reply; `Threads` is accepted but one search
//!   thread is used; `go perft` is searched like a plain `go`.

/// Vendor extensions the reference engine implements (rule IDs, for `--claim`): early ponder,
/// a `ponderhit` that carries the clock.
pub const CLAIMS: &[crate::rules::RuleId] = &[crate::rule!("USI-EXT-015")];

pub mod book;
pub mod fault_gaps;
pub mod faults;
pub mod info;
pub mod io;
pub mod options;
pub mod reply;
pub mod search;
pub mod setup;
pub mod timeman;
pub mod tt;

mod commands;
mod go;
mod hooks;

use crate::shogi::Position;
use crate::shogi::mate::MateResult;
use crate::sim::{self, Receiver, Sender, Task};
use crate::usi::Go;
use faults::{Fault, FaultSet};
use io::Output;
use options::Options;
use search::{Control, SearchResult};
use setup::Setup;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tt::Tt;

/// How one engine process behaves.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub faults: FaultSet,
    /// Seeds the faults that misbehave only sometimes.
    pub seed: u64,
    /// Simulated initialisation at `isready` (also the `SlowInitMs` option), in ms.
    pub init_ms: u64,
    /// Real time, or a simulated world's (see [`crate::sim`]).
    pub clock: sim::Clock,
}

/// Runs the engine on stdin/stdout until `quit` or EOF; returns the exit status.
pub fn run(config: Config) -> i32 {
    let stdin = std::io::BufReader::new(std::io::stdin());
    usi_loop(config, stdin, std::io::stdout())
}

/// Runs the engine on `input` and `output` until `quit` or EOF and returns the exit status:
/// [`run`] over any reader and writer, e.g. in-process under [`crate::harness`]. Faults that
/// crash return a failure status rather than ending the process; faults that hang never return.
///
/// ```
/// use std::io::Write;
/// use std::sync::{Arc, Mutex};
/// use usicheck::refengine::{Config, usi_loop};
///
/// #[derive(Clone, Default)]
/// struct Shared(Arc<Mutex<Vec<u8>>>);
/// impl Write for Shared {
///     fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
///         self.0.lock().unwrap().write(bytes)
///     }
///     fn flush(&mut self) -> std::io::Result<()> {
///         Ok(())
///     }
/// }
///
/// let output = Shared::default();
/// let status = usi_loop(Config::default(), &b"usi\nisready\nquit\n"[..], output.clone());
/// let text = String::from_utf8(output.0.lock().unwrap().clone()).unwrap();
/// assert_eq!(status, 0);
/// assert!(text.contains("usiok\n") && text.ends_with("readyok\n"));
/// ```
pub fn usi_loop(
    config: Config,
    input: impl std::io::BufRead + Send + 'static,
    output: impl std::io::Write + Send + 'static,
) -> i32 {
    usi_loop_with_errors(config, input, output, std::io::stderr())
}

/// [`usi_loop`] with its error lines (stderr) written to `errors`.
pub fn usi_loop_with_errors(
    config: Config,
    input: impl std::io::BufRead + Send + 'static,
    output: impl std::io::Write + Send + 'static,
    errors: impl std::io::Write + Send + 'static,
) -> i32 {
    let (tx, rx) = config.clock.channel();
    io::spawn_reader(&config.clock, input, tx.clone(), Event::Line, Event::Eof);
    let out = Output::new(&config.faults, Box::new(output), Box::new(errors));
    let mut engine = Engine::new(config, out, tx, rx);
    engine.startup_banner();
    engine.main_loop()
}

/// Search nodes per simulated millisecond: slow enough that a simulated second of search
/// costs little real time, fast enough to search a few plies.
pub const SIMULATED_NODES_PER_MS: u64 = 20;

/// The engine of `config` run in simulated time (see [`crate::sim`]) instead of a process, for
/// [`crate::engine::EngineCommand::simulated`].
pub fn simulated(config: Config) -> crate::engine::SimulatedEngine {
    crate::engine::SimulatedEngine {
        main: Arc::new(move |clock, stdin, stdout, stderr| {
            let config = Config {
                clock,
                ..config.clone()
            };
            usi_loop_with_errors(config, stdin, stdout, stderr)
        }),
        nodes_per_ms: SIMULATED_NODES_PER_MS,
    }
}

enum Event {
    Line(String),
    Eof,
    /// Search `id` has finished; its outcome is the return value of its thread.
    Done {
        id: u64,
    },
    /// A fault's timer: search `id` answers now, finished or not (`ponder-leaks-bestmove`,
    /// `occasional-late-byoyomi`).
    AnswerNow {
        id: u64,
    },
}

/// What a search produced.
enum Outcome {
    Move(SearchResult),
    /// The entering-king declaration holds.
    Win,
    /// Resign without searching (bad position, or a faulty engine's whim).
    Resign,
    Mate(MateResult),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mode {
    /// A clocked, depth- or node-limited search: answer when done.
    Timed,
    /// `go infinite`: answer only after `stop`.
    Infinite,
    /// `go ponder`: answer after `stop`, or becomes `Timed` at `ponderhit`.
    Ponder,
    /// `go mate`: answer with `checkmate` when solved or at the limit.
    Mate { infinite: bool },
}

struct Running {
    id: u64,
    mode: Mode,
    control: Arc<Control>,
    handle: Option<Task<Outcome>>,
    /// An answer that must wait for `stop`/`ponderhit`.
    finished: Option<Outcome>,
    stop_requested: bool,
    root: Position,
    /// `movestogo` of the `go`, for a clock that comes with `ponderhit`.
    movestogo: Option<u32>,
    /// A `Stochastic_Ponder` search, of the position before the predicted move: the `go ponder`
    /// and the real position, searched from `ponderhit`.
    restart: Option<(Go, Setup)>,
    /// The answer is held until an [`Event::AnswerNow`] (fault `occasional-late-byoyomi`).
    held: bool,
}

impl Running {
    /// Joins the search thread, keeping its outcome for delivery.
    fn collect(&mut self) {
        if let Some(handle) = self.handle.take()
            && let Ok(outcome) = handle.join()
        {
            self.finished = Some(outcome);
        }
    }
}

enum Flow {
    Continue,
    Exit(i32),
}

struct Engine {
    out: Output,
    faults: FaultSet,
    options: Options,
    tt: Arc<Mutex<Tt>>,
    /// `USI_Hash` the table was allocated with.
    tt_mb: i64,
    /// Simulated initialisation at `isready` from the environment, in ms.
    init_ms: u64,
    /// The position to search, or why the last `position` failed.
    setup: Result<Setup, String>,
    /// The last good position (the `assume-continuity` fault builds on it).
    last_good: Option<Setup>,
    running: Option<Running>,
    /// Tells stale `Done` events of aborted searches apart.
    next_id: u64,
    tx: Sender<Event>,
    rx: Receiver<Event>,
    clock: sim::Clock,
    /// Events read but not yet handled (input that arrived during a slow `isready`, or during
    /// a search for the `deaf-while-searching` fault).
    backlog: VecDeque<Event>,
    /// State of the PRNG behind the faults that misbehave only sometimes.
    rng: u64,
    /// `usinewgame` seen since the last `isready`.
    newgame_seen: bool,
    /// Whether any `usinewgame` arrived in this process (fault `needs-newgame`).
    newgame_ever: bool,
    /// Faulty engines only: `isready` is no longer answered.
    deaf_to_isready: bool,
    seen_isready: bool,
    gameovers: u32,
    /// A `gameover unknown` has been received (fault `unknown-result-keeps-game`).
    unknown_result_seen: bool,
    /// `readyok`s owed once the search ends (`readyok-after-search` fault).
    pending_readyok: u32,
    /// `usinewgame`s received (fault `crash-at-third-newgame`).
    newgames: u32,
    /// Memory kept on purpose (fault `leak-per-game`).
    leaked: Vec<Vec<u8>>,
}

impl Engine {
    fn new(config: Config, out: Output, tx: Sender<Event>, rx: Receiver<Event>) -> Engine {
        let options = Options::default();
        Engine {
            out,
            tt: Arc::new(Mutex::new(Tt::new(options.hash_mb))),
            tt_mb: options.hash_mb,
            options,
            faults: config.faults,
            init_ms: config.init_ms,
            setup: Ok(Setup::new(Position::startpos())),
            last_good: None,
            running: None,
            next_id: 0,
            tx,
            rx,
            clock: config.clock,
            backlog: VecDeque::new(),
            rng: config.seed | 1,
            newgame_seen: false,
            newgames: 0,
            leaked: Vec::new(),
            newgame_ever: false,
            deaf_to_isready: false,
            seen_isready: false,
            gameovers: 0,
            unknown_result_seen: false,
            pending_readyok: 0,
        }
    }

    fn has(&self, fault: Fault) -> bool {
        self.faults.has(fault)
    }
}
