//! The reference engine behind `usicheck engine`: a conformant USI engine that, with faults
//! switched on, breaks exactly the rules those faults name.
//!
//! Architecture: a reader thread turns stdin into events; this module's loop owns the state
//! (idle, or one running search: timed, infinite, ponder or mate) and is the only place that
//! sends `bestmove`/`checkmate`, so every `go` gets exactly one terminal reply; the search runs
//! on its own thread with a stop flag and reports back with an event. Hence `isready` during a
//! search is answered at once, `stop` ends it with one `bestmove`, and `gameover`/`quit` end it
//! without a reply.
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

use crate::shogi::Color;
use crate::shogi::mate::{self, MateResult};
use crate::shogi::{Declaration, Move, Position, declaration, missing_points};
use crate::sim::{self, Receiver, Sender, Task};
use crate::usi::{Clock, Command, GameResult, Go, MateLimit};
use faults::{Fault, FaultSet};
use io::Output;
use options::{DeclarationRule, Options, SetOutcome};
use search::{Control, SearchJob, SearchResult};
use setup::{Setup, SetupFailure};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tt::Tt;

/// Longest silence during a slow `isready` (USI-READY-004 warns beyond 5 s).
const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(1);

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
    if engine.has(Fault::StartupBanner) {
        engine
            .out
            .line("usicheck-refengine by the usicheck developers");
    }
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

/// How long `ponder-leaks-bestmove` ponders before it answers.
const PONDER_LEAK: Duration = Duration::from_millis(400);

/// How long past its clock `occasional-late-byoyomi` holds an answer.
const LATE_BYOYOMI: Duration = Duration::from_millis(800);

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

/// What the `leak-per-game` fault keeps at each `usinewgame`.
const LEAK_PER_GAME: usize = 48 << 20;

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

    fn main_loop(&mut self) -> i32 {
        loop {
            let deaf = self.running.is_some() && self.has(Fault::DeafWhileSearching);
            let event = if deaf {
                match self.rx.recv_until(None) {
                    Some(done @ Event::Done { .. }) => done,
                    Some(other) => {
                        self.backlog.push_back(other);
                        continue;
                    }
                    None => return 0,
                }
            } else if let Some(event) = self.backlog.pop_front() {
                event
            } else {
                match self.rx.recv_until(None) {
                    Some(event) => event,
                    None => return 0,
                }
            };
            let flow = match event {
                Event::Line(line) => self.on_line(line),
                Event::Eof => self.on_eof(),
                Event::Done { id } => {
                    self.on_done(id);
                    Flow::Continue
                }
                Event::AnswerNow { id } => {
                    self.answer_now(id);
                    Flow::Continue
                }
            };
            if let Flow::Exit(code) = flow {
                self.out.flush();
                return code;
            }
        }
    }

    fn crash(&self) -> Flow {
        Flow::Exit(1)
    }

    fn on_eof(&mut self) -> Flow {
        if self.has(Fault::HangOnEof) {
            hang(&self.clock);
        }
        self.abort_search();
        Flow::Exit(0)
    }

    fn on_line(&mut self, mut line: String) -> Flow {
        if self.has(Fault::CarriageReturnKept) && line.ends_with('\r') {
            line.pop();
            line.push('?');
        }
        if self.has(Fault::StrictWhitespace)
            && (line.trim_matches(' ') != line || line.contains("  "))
        {
            return Flow::Continue;
        }
        if line.trim().is_empty() {
            if self.has(Fault::EchoBlankLines) {
                self.out.line("");
            }
            return Flow::Continue;
        }
        if self.has(Fault::CrashOnBadNumber) && has_malformed_number(&line) {
            return self.crash();
        }
        match Command::parse(&line) {
            Command::Usi => self.handshake(),
            Command::Debug(_) if self.has(Fault::CrashOnDebug) => return self.crash(),
            Command::Debug(_) | Command::Register(_) => {}
            Command::IsReady => self.isready(),
            Command::SetOption { name, value } => return self.setoption(&name, value.as_deref()),
            Command::UsiNewGame => return self.usinewgame(),
            Command::Position(cmd) => {
                match setup::setup(&cmd, self.last_good.as_ref(), &self.faults) {
                    Ok(s) => {
                        self.last_good = Some(s.clone());
                        self.setup = Ok(s);
                        if self.has(Fault::SearchOnPosition) {
                            self.out.line("info depth 1 seldepth 1 score cp 0");
                        }
                    }
                    Err(SetupFailure::Error(reason)) => {
                        self.out.line(&format!("info string error: {reason}"));
                        self.setup = Err(reason);
                    }
                    // The position before stays the one to search.
                    Err(SetupFailure::Ignored(reason)) => {
                        self.out.line(&format!("info string error: {reason}"));
                    }
                    Err(SetupFailure::Exit) => return self.crash(),
                    Err(SetupFailure::Hang) => hang(&self.clock),
                    // What a Rust engine's `unwrap` prints; a real panic would take usicheck
                    // down with the simulated engine it runs in process.
                    Err(SetupFailure::Panic(reason)) => {
                        self.out.error_line(&format!(
                            "thread 'main' panicked at src/position.rs:88:14:\n{reason}"
                        ));
                        return Flow::Exit(101);
                    }
                }
            }
            Command::Go(go) => {
                // An unknown token (USI-GO-011), not a malformed number the parser also keeps
                // (`go btime abc`, USI-ROBUST-007, fault `crash-on-bad-number`).
                if self.has(Fault::CrashOnUnknownGoToken)
                    && !go.extra.is_empty()
                    && !has_malformed_number(&line)
                {
                    return self.crash();
                }
                return self.go(&go);
            }
            Command::Stop => self.stop(),
            Command::PonderHit(clock) => {
                let has_args = line.split_whitespace().count() > 1;
                if self.has(Fault::CrashOnPonderhitArgs) && has_args {
                    return self.crash();
                }
                self.ponderhit(&clock);
            }
            Command::GameOver(result) => return self.gameover(&result),
            Command::Quit => {
                if self.has(Fault::IgnoreQuit)
                    || (self.has(Fault::QuitNeedsStop) && self.running.is_some())
                    || (self.has(Fault::QuitNeedsIsready) && !self.seen_isready)
                {
                    return Flow::Continue;
                }
                self.abort_search();
                return Flow::Exit(if self.has(Fault::NonzeroExit) { 3 } else { 0 });
            }
            Command::Raw(text) => {
                if self.has(Fault::CrashOnUnknownCommand) {
                    return self.crash();
                }
                if self.has(Fault::UnknownCommandReply) {
                    self.out
                        .line(&format!("Unknown command: {}", text.escape_debug()));
                }
            }
        }
        Flow::Continue
    }

    fn handshake(&mut self) {
        if self.has(Fault::FairyStockfishName) {
            self.out
                .line("id name Fairy-Stockfish (usicheck reference engine)");
        } else if !self.has(Fault::NoIdName) {
            self.out.line(concat!(
                "id name usicheck-refengine ",
                env!("CARGO_PKG_VERSION")
            ));
        }
        if self.has(Fault::ShiftJisAuthor) {
            // "将棋" in Shift_JIS: not valid UTF-8.
            self.out.bytes_line(b"id author usicheck \x8f\xab\x8a\xfb");
        } else if !self.has(Fault::NoIdAuthor) {
            self.out.line("id author usicheck developers");
        }
        let mut lines = self.options.advertise(&self.faults);
        let late = if self.has(Fault::OptionAfterUsiok) {
            lines.pop()
        } else {
            None
        };
        for line in &lines {
            self.out.line(line);
        }
        if self.has(Fault::SlowUsiok) {
            self.clock.sleep(Duration::from_millis(2500));
        }
        if self.has(Fault::HeavyInitAtUsi) {
            self.clock.sleep(Duration::from_millis(1500));
        }
        if self.has(Fault::UsiokTrailingBlank) {
            self.out.line("usiok ");
        } else if !self.has(Fault::NoUsiok) {
            self.out.line("usiok");
        }
        if let Some(line) = late {
            self.out.line(&line);
        }
    }

    fn readyok(&self) {
        self.out.lines(&self.readyok_lines());
    }

    /// The reply to `isready`, as the faults shape it (none, one or two lines).
    fn readyok_lines(&self) -> Vec<&'static str> {
        if self.has(Fault::NoReadyok) {
            return Vec::new();
        }
        let text = if self.has(Fault::DoubleSpacedOutput) {
            "readyok "
        } else {
            "readyok"
        };
        let copies = if self.has(Fault::DoubleReadyok) { 2 } else { 1 };
        vec![text; copies]
    }

    fn isready(&mut self) {
        self.seen_isready = true;
        if self.deaf_to_isready {
            return;
        }
        if self.running.is_some() {
            // UCI ping: answer without disturbing the search.
            if self.has(Fault::ReadyokAfterSearch) {
                self.pending_readyok += 1;
            } else {
                self.readyok();
            }
            return;
        }
        if !self.initialise() {
            return;
        }
        self.newgame_seen = false;
        let mut reply = self.readyok_lines();
        // In the same write as `readyok`, so that a process's line reaches usicheck with the
        // reply, as a simulated engine's does: written a moment later, which of the GUI's
        // waits it lands in would be a race.
        if self.has(Fault::InfoWhileIdle) {
            reply.push("info depth 1 seldepth 1 score cp 0");
        }
        self.out.lines(&reply);
    }

    /// The heavy part of `isready`: (simulated) evaluation loading with keep-alive lines, hash
    /// allocation, and reports on the string options.
    ///
    /// Returns `false` when `quit` or EOF interrupted it (then no `readyok` is owed).
    fn initialise(&mut self) -> bool {
        if self.has(Fault::ChattyStdout) {
            self.out.line("Loading evaluation files... done");
        }
        let total =
            Duration::from_millis(self.init_ms.max(self.options.slow_init_ms.max(0) as u64));
        let start = self.clock.now();
        let elapsed = |clock: &sim::Clock| clock.now() - start;
        let mut last_sign_of_life = start;
        while elapsed(&self.clock) < total {
            let wait = total
                .saturating_sub(elapsed(&self.clock))
                .min(KEEP_ALIVE_INTERVAL);
            // Input keeps arriving meanwhile: keep it for later, but leave at once on quit.
            match self.rx.recv_until(Some(self.clock.now() + wait)) {
                Some(Event::Line(line)) if Command::parse(&line) == Command::Quit => {
                    self.backlog.push_back(Event::Line(line));
                    return false;
                }
                Some(Event::Eof) => {
                    self.backlog.push_back(Event::Eof);
                    return false;
                }
                Some(event) => self.backlog.push_back(event),
                None => {}
            }
            let due = self.clock.now() - last_sign_of_life >= KEEP_ALIVE_INTERVAL;
            if due && elapsed(&self.clock) < total && !self.has(Fault::SilentSlowInit) {
                self.out.line("info string initialising");
                last_sign_of_life = self.clock.now();
            }
        }
        if self.options.hash_mb != self.tt_mb && !self.has(Fault::LazyHashAllocation) {
            self.allocate_hash();
        }
        if !self.options.note.is_empty() {
            self.out
                .line(&format!("info string note: {}", self.options.note));
        }
        if !self.options.book_file.is_empty() {
            self.out.line(&format!(
                "info string book file {} ignored: the book is built in",
                self.options.book_file
            ));
        }
        true
    }

    fn allocate_hash(&mut self) {
        *self.tt.lock().unwrap_or_else(PoisonError::into_inner) = Tt::new(self.options.hash_mb);
        self.tt_mb = self.options.hash_mb;
    }

    fn setoption(&mut self, name: &str, value: Option<&str>) -> Flow {
        if self.newgame_seen && self.has(Fault::SetoptionAfterNewgameIgnored) {
            return Flow::Continue;
        }
        let v = value.unwrap_or("");
        let crash = (self.has(Fault::CrashOnEmptyValue) && value == Some(""))
            || (self.has(Fault::CrashOnNonAsciiValue) && !v.is_ascii())
            || (self.has(Fault::CrashOnUsiPonder) && name.eq_ignore_ascii_case("USI_Ponder"))
            || (self.has(Fault::Int64SpinRejected)
                && v.trim()
                    .parse::<i64>()
                    .is_ok_and(|n| i32::try_from(n).is_err()));
        if crash {
            return self.crash();
        }
        if self.has(Fault::CrashOnSecondButton) && name.eq_ignore_ascii_case("ResetStats") {
            return self.crash();
        }
        if self.has(Fault::SetoptionBlocksIsready) && name.eq_ignore_ascii_case("ShowCurrMove") {
            self.deaf_to_isready = true;
        }
        match self.options.set(name, value, &self.faults) {
            SetOutcome::Applied => {}
            SetOutcome::ClearHash if self.has(Fault::CrashOnButton) => return self.crash(),
            SetOutcome::ClearHash => self
                .tt
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clear(),
            // Only a well-formed `setoption` of an unknown name: a missing name is a
            // malformed argument (USI-ROBUST-007), another fault's business.
            SetOutcome::Unknown(_) if self.has(Fault::CrashOnUnknownOption) && !name.is_empty() => {
                return self.crash();
            }
            SetOutcome::Rejected(why) | SetOutcome::Unknown(why) => {
                self.out.line(&format!("info string {why}"));
            }
        }
        Flow::Continue
    }

    fn usinewgame(&mut self) -> Flow {
        self.newgame_seen = true;
        self.newgame_ever = true;
        self.newgames += 1;
        if self.has(Fault::CrashAtThirdNewgame) && self.newgames == 3 {
            return self.crash();
        }
        // Touched, so that it is resident, and kept until the process ends. A simulated
        // engine has no process whose memory anyone samples: there the leak would only swell
        // usicheck's own (a self-test sweep runs every fault in one process).
        if self.has(Fault::LeakPerGame) && !self.clock.is_simulated() {
            self.leaked.push(vec![1u8; LEAK_PER_GAME]);
        }
        if self.has(Fault::HeavyNewgame) {
            self.clock.sleep(Duration::from_millis(1500));
        }
        if self.has(Fault::UnpromptedBestmove) {
            self.out.line("bestmove resign");
        }
        Flow::Continue
    }

    fn next_random(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn go(&mut self, go: &Go) -> Flow {
        if self.running.is_some() {
            self.out
                .line("info string error: go while searching; ignored");
            return Flow::Continue;
        }
        if self.has(Fault::RejectByoyomi) && go.clock.byoyomi.is_some() {
            self.out.error_line("error: byoyomi is not supported");
            return Flow::Continue;
        }
        let game_never_left = (self.has(Fault::ResignsAfterGameover) && self.gameovers > 0)
            || (self.has(Fault::UnknownResultKeepsGame) && self.unknown_result_seen);
        if game_never_left {
            self.out.line("bestmove resign");
            return Flow::Continue;
        }
        let extended_time = go.clock.bbyoyomi.is_some() || go.clock.wbyoyomi.is_some();
        if self.has(Fault::CrashOnExtendedTime) && extended_time {
            return self.crash();
        }
        let setup = match &self.setup {
            Ok(s) => Some(s.clone()),
            Err(_) if self.has(Fault::SilentAfterBadPosition) => return Flow::Continue,
            Err(_) => None,
        };
        let mate_only;
        let go = if self.has(Fault::CheckmateForGo) && go.mate.is_none() {
            let side = setup
                .as_ref()
                .map_or(Color::Black, |s| s.position.side_to_move());
            mate_only = self.as_go_mate(go, side);
            &mate_only
        } else {
            go
        };
        let mate = go
            .mate
            .filter(|_| !self.has(Fault::MateAnsweredWithBestmove));
        let mode = match mate {
            Some(limit) => Mode::Mate {
                infinite: limit == MateLimit::Infinite,
            },
            None if go.ponder => Mode::Ponder,
            None if go.infinite && !self.has(Fault::InfiniteEndsEarly) => Mode::Infinite,
            None => Mode::Timed,
        };
        let id = self.next_id;
        self.next_id += 1;
        let root = setup
            .as_ref()
            .map_or_else(Position::startpos, |s| s.position.clone());
        let budget = self.search_budget(go, mode, root.side_to_move());
        let control = Arc::new(Control::new(
            self.clock.clone(),
            mode == Mode::Ponder,
            budget,
        ));
        let mut running = Running {
            id,
            mode,
            control: control.clone(),
            handle: None,
            finished: None,
            stop_requested: false,
            root,
            movestogo: go.movestogo,
            restart: None,
            held: false,
        };
        self.set_fault_timer(&mut running, go);
        if self.has(Fault::HangOnPosition) && setup.as_ref().is_some_and(|s| hangs_on(&s.position))
        {
            // A search that never ends: no thread, no answer, not even after `stop`.
            self.running = Some(running);
            return Flow::Continue;
        }
        // A game move (not a ponder or an analysis) from the book, when the GUI turned it on.
        let book_line = setup
            .as_ref()
            .filter(|_| mode == Mode::Timed && self.options.own_book)
            .and_then(|s| book::line_for(&s.position));
        let immediate = match &setup {
            None if matches!(mode, Mode::Mate { .. }) => Some(Outcome::Mate(MateResult::Unknown)),
            None => Some(Outcome::Resign),
            Some(_) if !self.newgame_ever && self.has(Fault::NeedsNewgame) => Some(Outcome::Resign),
            Some(s) if !matches!(mode, Mode::Mate { .. }) && self.declaration_wins(&s.position) => {
                Some(Outcome::Win)
            }
            Some(s) if !matches!(mode, Mode::Mate { .. }) && !s.position.has_legal_moves() => {
                let no_move = Outcome::Move(SearchResult {
                    best: None,
                    ponder: None,
                });
                if matches!(mode, Mode::Infinite | Mode::Ponder)
                    && self.has(Fault::MatedInfiniteResigns)
                {
                    self.running = Some(running);
                    self.answer(no_move);
                    return Flow::Continue;
                }
                Some(no_move)
            }
            Some(s) => book_line.map(|line| self.play_from_book(line, &s.position)),
        };
        if let Some(outcome) = immediate {
            running.finished = Some(outcome);
            self.running = Some(running);
            if self.answers_when_done(mode) {
                self.deliver_finished();
            }
            return Flow::Continue;
        }
        let setup = setup.expect("no setup means an immediate answer");
        // Stochastic_Ponder: ponder on the position before the predicted move (the opponent to
        // move), and search the real one from `ponderhit`.
        let searched = match setup.before_last_move() {
            Some(before) if mode == Mode::Ponder && self.options.stochastic_ponder => {
                running.restart = Some((go.clone(), setup));
                before
            }
            _ => setup,
        };
        running.handle = Some(match mode {
            Mode::Mate { .. } => self.spawn_mate(id, go, searched, control),
            _ => self.spawn_search(id, go, searched, control),
        });
        self.running = Some(running);
        Flow::Continue
    }

    /// A book move, reported with its book line as `pv` (USI-EXT-006) before the answer.
    fn play_from_book(&self, line: Vec<Move>, root: &Position) -> Outcome {
        let result = SearchResult {
            best: line.first().copied(),
            ponder: line.get(1).copied(),
        };
        // `no-final-info` sends no `info` at all, so none for a book move either.
        if !self.has(Fault::BookWithoutInfo) && !self.has(Fault::NoFinalInfo) {
            self.out.line(&book::report(line, root).line(&self.faults));
        }
        Outcome::Move(result)
    }

    /// `go` as a mate-only engine reads it (fault `checkmate-for-go`): `go mate` with the
    /// search's own time budget, `go mate infinite` when it has none (`go infinite`, `go ponder`,
    /// no clock).
    fn as_go_mate(&self, go: &Go, side: Color) -> Go {
        let margin = self.options.network_delay_ms.max(0) as u64;
        let budget = if go.infinite || go.ponder {
            None
        } else {
            self.search_budget(go, Mode::Timed, side)
        };
        let limit = budget.map_or(MateLimit::Infinite, |b| {
            // `spawn_mate` keeps the margin back again.
            MateLimit::Millis(b.hard.as_millis() as u64 + margin)
        });
        Go {
            mate: Some(limit),
            ..go.clone()
        }
    }

    fn declaration_wins(&self, pos: &Position) -> bool {
        if self.options.declaration_rule == DeclarationRule::None {
            return false;
        }
        let mut d = declaration(pos);
        if self.options.declaration_rule == DeclarationRule::Csa27H && d.color == Color::White {
            d.points += missing_points(pos);
        }
        if self.has(Fault::NeverDeclares) {
            return false;
        }
        if self.has(Fault::InvalidWin) {
            return d.king_in_camp && d.pieces_in_camp >= 10 && d.points >= 27 && !d.in_check;
        }
        if self.has(Fault::DeclaresWithNinePieces) {
            // Counts one piece too many in the camp: 9 pass for the 10 the rule needs.
            let one_more = Declaration {
                pieces_in_camp: d.pieces_in_camp + 1,
                ..d
            };
            return one_more.is_valid();
        }
        d.is_valid()
    }

    /// Whether a finished search is answered at once (otherwise it waits for `stop`).
    fn answers_when_done(&self, mode: Mode) -> bool {
        match mode {
            Mode::Timed => true,
            Mode::Infinite => false,
            Mode::Ponder => self.has(Fault::EarlyPonderBestmove),
            Mode::Mate { infinite } => !(infinite && self.has(Fault::MateInfiniteWaitsStop)),
        }
    }

    fn spawn_search(
        &mut self,
        id: u64,
        go: &Go,
        setup: Setup,
        control: Arc<Control>,
    ) -> Task<Outcome> {
        let nodes = go
            .nodes
            .or((self.options.nodes_limit > 0).then_some(self.options.nodes_limit as u64));
        // A board read mirrored shows as the mirror of the true moves only where no moves were
        // played on it: `moves` after a mirrored board would set up another position.
        let mirror_pv = self.has(Fault::MirroredPv) && setup.bare_sfen();
        let losing = if self.has(Fault::PlaysPerpetualCheck) {
            Vec::new()
        } else {
            setup.perpetual_checks()
        };
        let max_moves = self.options.max_moves_to_draw;
        let job = SearchJob {
            losing,
            max_moves: (max_moves > 0).then_some(max_moves as usize),
            root: setup.position,
            history: setup.history,
            depth: if self.has(Fault::InfiniteEndsEarly) && go.infinite {
                Some(2)
            } else if self.has(Fault::InstantPonderhit) && go.ponder {
                Some(1)
            } else {
                go.depth
            },
            nodes,
            multi_pv: if self.has(Fault::MultiPvIgnored) {
                1
            } else {
                self.options.multi_pv.max(1) as usize
            },
            searchmoves: go.searchmoves.clone(),
            show_currmove: self.options.show_currmove,
            mirror_pv,
            go_start: self.clock.now(),
        };
        let lazy_hash = self.has(Fault::LazyHashAllocation) && self.options.hash_mb != self.tt_mb;
        if lazy_hash {
            self.tt_mb = self.options.hash_mb;
        }
        let hash_mb = self.options.hash_mb;
        let (tt, out, faults, tx) = (
            self.tt.clone(),
            self.out.clone(),
            self.faults.clone(),
            self.tx.clone(),
        );
        let clock = self.clock.clone();
        self.clock.spawn(move || {
            let mut tt = tt.lock().unwrap_or_else(PoisonError::into_inner);
            if lazy_hash {
                clock.sleep(Duration::from_millis(1500));
                *tt = Tt::new(hash_mb);
            }
            let result = search::search(&job, &control, &mut tt, &out, &faults);
            tx.send(Event::Done { id });
            Outcome::Move(result)
        })
    }

    fn spawn_mate(
        &mut self,
        id: u64,
        go: &Go,
        setup: Setup,
        control: Arc<Control>,
    ) -> Task<Outcome> {
        let deadline = match go.mate {
            Some(MateLimit::Millis(ms)) if !self.has(Fault::MateLimitAsDistance) => {
                // The solver polls its clock between expansions; keep a little more back.
                let margin = self.options.network_delay_ms.max(0) as u64 + ms / 20;
                Some(self.clock.now() + Duration::from_millis(ms.saturating_sub(margin)))
            }
            _ => None,
        };
        let mut limits = mate::Limits::new()
            .with_clock(
                self.clock
                    .for_search(go.nodes.is_some() || go.depth.is_some()),
            )
            .with_stop(control.stop.clone())
            .with_table_entries(mate_table_entries(self.options.hash_mb));
        limits.deadline = deadline;
        limits.nodes = go.nodes.filter(|_| !self.has(Fault::MateNodesIgnored));
        if let Some(depth) = go.depth {
            limits.max_plies = depth;
        }
        if let Some(MateLimit::Millis(moves)) =
            go.mate.filter(|_| self.has(Fault::MateLimitAsDistance))
        {
            let plies = moves.saturating_mul(2).saturating_sub(1);
            limits.max_plies = u32::try_from(plies).unwrap_or(u32::MAX);
        }
        let tx = self.tx.clone();
        self.clock.spawn(move || {
            let result = mate::solve(&setup.position, &limits);
            tx.send(Event::Done { id });
            Outcome::Mate(result)
        })
    }

    fn on_done(&mut self, id: u64) {
        let Some(running) = self.running.as_mut().filter(|r| r.id == id) else {
            return;
        };
        running.collect();
        let (mode, held) = (running.mode, running.held);
        if running.stop_requested || (self.answers_when_done(mode) && !held) {
            self.deliver_finished();
        }
    }

    /// Starts the timer of `ponder-leaks-bestmove` (a `go ponder`) or of
    /// `occasional-late-byoyomi` (one `go` with `byoyomi` in five), holding the answer for the
    /// latter.
    fn set_fault_timer(&mut self, running: &mut Running, go: &Go) {
        let after = if running.mode == Mode::Ponder && self.has(Fault::PonderLeaksBestmove) {
            PONDER_LEAK
        } else if running.mode == Mode::Timed
            && self.has(Fault::OccasionalLateByoyomi)
            && go.clock.byoyomi.is_some_and(|b| b > 0)
            && self.next_random().is_multiple_of(5)
        {
            running.held = true;
            let own = match running.root.side_to_move() {
                Color::Black => go.clock.btime,
                Color::White => go.clock.wtime,
            };
            let clock = own.unwrap_or(0) + go.clock.byoyomi.unwrap_or(0);
            Duration::from_millis(clock.max(0) as u64) + LATE_BYOYOMI
        } else {
            return;
        };
        let (tx, id, clock) = (self.tx.clone(), running.id, self.clock.clone());
        drop(self.clock.spawn(move || {
            clock.sleep(after);
            tx.send(Event::AnswerNow { id });
        }));
    }

    /// A fault's timer ran out: a held answer, or a ponder search still pondering, is sent now.
    fn answer_now(&mut self, id: u64) {
        let Some(running) = self.running.as_mut().filter(|r| r.id == id) else {
            return;
        };
        let leaks = running.mode == Mode::Ponder && running.restart.is_none();
        if !(running.held || leaks) || running.stop_requested {
            return;
        }
        running.held = false;
        running.control.stop();
        running.collect();
        self.deliver_finished();
    }

    fn stop(&mut self) {
        let Some(running) = self.running.as_ref() else {
            if self.has(Fault::StopWhileIdleBestmove) {
                self.out.line("bestmove resign");
            }
            return;
        };
        if running.stop_requested {
            return;
        }
        if self.has(Fault::SlowStop) {
            self.clock.sleep(Duration::from_secs(2));
        }
        let mode = running.mode;
        let silent = match mode {
            Mode::Ponder => {
                self.has(Fault::PonderStopSilent) || self.has(Fault::NoBestmoveAfterStop)
            }
            Mode::Timed | Mode::Infinite => self.has(Fault::NoBestmoveAfterStop),
            Mode::Mate { .. } => false,
        };
        if silent {
            self.abort_search();
            return;
        }
        if matches!(mode, Mode::Mate { .. }) && self.has(Fault::MateStopBestmove) {
            self.abort_search();
            self.out.line("bestmove resign");
            return;
        }
        // Wait for the search here, so its answer precedes anything sent after `stop`.
        let running = self.running.as_mut().expect("checked above");
        running.stop_requested = true;
        running.control.stop();
        running.collect();
        if running.restart.is_some() {
            // A Stochastic_Ponder search found a move for the position before the predicted
            // one: the GUI discards the answer to a stopped ponder (USI-PONDER-006), but it
            // must still be a move of the position it was given.
            let best = running.root.legal_moves().iter().next().copied();
            running.finished = Some(Outcome::Move(SearchResult { best, ponder: None }));
        }
        self.deliver_finished();
    }

    /// The time limit of a normal search; `None` for `go infinite`, `go mate` and no clock.
    fn search_budget(&self, go: &Go, mode: Mode, side: Color) -> Option<timeman::Budget> {
        let margin = self.options.network_delay_ms.max(0) as u64;
        match (mode, go.mate) {
            (Mode::Infinite | Mode::Mate { .. }, _) => None,
            (Mode::Ponder, _) if self.has(Fault::PonderClockIgnored) => None,
            (_, Some(MateLimit::Millis(ms))) => {
                // Only a faulty engine searches normally on `go mate`.
                let ms = Duration::from_millis(ms.saturating_sub(margin).max(1));
                Some(timeman::Budget { soft: ms, hard: ms })
            }
            _ => timeman::budget(go, side, margin, &self.faults),
        }
    }

    fn ponderhit(&mut self, clock: &Clock) {
        let clock_given = !clock.is_empty() && !self.has(Fault::PonderhitClockIgnored);
        let budget = self.running.as_ref().filter(|_| clock_given).and_then(|r| {
            let go = Go {
                clock: clock.clone(),
                movestogo: r.movestogo,
                ..Go::default()
            };
            self.search_budget(&go, Mode::Timed, r.root.side_to_move())
        });
        let Some(running) = self.running.as_mut() else {
            if self.has(Fault::PonderhitWhileIdleBestmove) {
                self.out.line("bestmove resign");
            }
            return;
        };
        if running.mode != Mode::Ponder || self.faults.has(Fault::PonderhitIgnored) {
            return;
        }
        if let Some((go, real)) = running.restart.take() {
            self.search_from_ponderhit(go, real, budget);
            return;
        }
        running.mode = Mode::Timed;
        running.control.ponderhit(budget);
        if running.finished.is_some() {
            self.deliver_finished();
        }
    }

    /// `ponderhit` ends a `Stochastic_Ponder` search, which was of the position before the
    /// predicted move: it is dropped (no reply), and the real position is searched from now
    /// under the clock, the `ponderhit`'s if it carried one, else the `go ponder`'s.
    fn search_from_ponderhit(&mut self, go: Go, real: Setup, hit_budget: Option<timeman::Budget>) {
        let Some(mut running) = self.running.take() else {
            return;
        };
        running.control.stop();
        if let Some(handle) = running.handle.take() {
            let _ = handle.join();
        }
        let side = real.position.side_to_move();
        let budget = if self.has(Fault::StochasticPonderhitUntimed) {
            None
        } else {
            hit_budget.or_else(|| self.search_budget(&go, Mode::Ponder, side))
        };
        let go = Go {
            ponder: false,
            ..go
        };
        let id = self.next_id;
        self.next_id += 1;
        let control = Arc::new(Control::new(self.clock.clone(), false, budget));
        running.id = id;
        running.mode = Mode::Timed;
        running.control = control.clone();
        running.finished = None;
        running.handle = Some(self.spawn_search(id, &go, real, control));
        self.running = Some(running);
    }

    fn gameover(&mut self, result: &GameResult) -> Flow {
        self.gameovers += 1;
        self.unknown_result_seen |= *result == GameResult::Unknown;
        let unknown = matches!(result, GameResult::Unknown | GameResult::Other(_));
        if (self.has(Fault::CrashOnGameoverDraw) && *result == GameResult::Draw)
            || (self.has(Fault::CrashOnUnknownResult) && unknown)
            || (self.has(Fault::SecondGameCrash) && self.gameovers >= 2)
        {
            return self.crash();
        }
        if self.has(Fault::GameoverReply) {
            self.out.line("gameover acknowledged");
        }
        self.deaf_to_isready |= self.has(Fault::DeafAfterGameover);
        let keep = match self.running.as_ref().map(|r| r.mode) {
            Some(Mode::Ponder) => {
                self.has(Fault::PonderIgnoresGameover) || self.has(Fault::GameoverKeepsSearching)
            }
            Some(_) => self.has(Fault::GameoverKeepsSearching),
            None => true,
        };
        if !keep {
            self.abort_search();
        }
        Flow::Continue
    }

    /// Ends any search without a reply.
    fn abort_search(&mut self) {
        if let Some(mut running) = self.running.take() {
            running.control.stop();
            if let Some(handle) = running.handle.take() {
                let _ = handle.join();
            }
        }
    }

    /// Sends the held answer of the running search and returns to idle.
    fn deliver_finished(&mut self) {
        let outcome = self.running.as_mut().and_then(|r| r.finished.take());
        if let Some(outcome) = outcome {
            self.answer(outcome);
        }
    }

    /// Sends the one terminal reply of the running search and returns to idle.
    fn answer(&mut self, outcome: Outcome) {
        let Some(running) = self.running.take() else {
            return;
        };
        let lines = match outcome {
            Outcome::Mate(result) => {
                reply::checkmate(result, &running.root, running.stop_requested, &self.faults)
            }
            Outcome::Win => vec![reply::special("win", &self.faults)],
            Outcome::Resign => vec![reply::special("resign", &self.faults)],
            Outcome::Move(result) => self.bestmove_lines(result, &running.root),
        };
        // One write: a doubled reply (faults `double-bestmove`, `double-checkmate`) arrives
        // as one chunk, before the GUI can send its next command.
        if !lines.is_empty() {
            self.out.line(&lines.join("\n"));
        }
        for _ in 0..std::mem::take(&mut self.pending_readyok) {
            self.readyok();
        }
    }

    fn bestmove_lines(&mut self, result: SearchResult, root: &Position) -> Vec<String> {
        let twice = self.has(Fault::DoubleBestmove)
            || (self.has(Fault::OccasionalDoubleBestmove) && self.next_random().is_multiple_of(5));
        if result.best.is_some() && self.has(Fault::SelfPonder) {
            let (out, clock) = (self.out.clone(), self.clock.clone());
            // Well-formed search lines: their only fault is that no search was asked for.
            drop(self.clock.spawn(move || {
                for i in 1..=10 {
                    clock.sleep(Duration::from_millis(100));
                    out.line(&format!(
                        "info depth {i} seldepth {i} time {} nodes {} score cp 0",
                        i * 100,
                        i * 1000
                    ));
                }
            }));
        }
        let line = reply::bestmove(&result, root, self.options.ponder, &self.faults);
        let copies = if twice { 2 } else { 1 };
        vec![line; copies]
    }
}

/// Mate-solver table entries for a `USI_Hash` of `mb` (24-byte entries), at most 2^18 so each
/// `go mate` allocates at most 6 MiB.
fn mate_table_entries(mb: i64) -> usize {
    (((mb.max(1) as usize) << 20) / 24).min(1 << 18)
}

/// Whether a `go` line has a number keyword followed by something that is not a number.
fn has_malformed_number(line: &str) -> bool {
    const NUMERIC: [&str; 12] = [
        "btime",
        "wtime",
        "byoyomi",
        "binc",
        "winc",
        "movestogo",
        "depth",
        "nodes",
        "movetime",
        "bbyoyomi",
        "wbyoyomi",
        "mate",
    ];
    let tokens: Vec<&str> = line.split_whitespace().collect();
    tokens.first() == Some(&"go")
        && tokens.windows(2).any(|w| {
            NUMERIC.contains(&w[0])
                && w[1] != "infinite"
                && !NUMERIC.contains(&w[1])
                && w[1].parse::<i64>().is_err()
        })
}

/// The board the `hang-on-position` fault never finishes searching: Black's king on 5i in check
/// from White's rook on 5e, two golds in hand (`15-ext/no-pass-in-check`), any move count.
const HANG_SFEN: &str = "4k4/9/9/9/4r4/9/9/9/4K4 b 2Gr2b2g4s4n4l18p 1";

fn hangs_on(pos: &Position) -> bool {
    Position::from_sfen(HANG_SFEN).is_ok_and(|hang| hang.key() == pos.key())
}

/// Never returns and never reads input again (faults that hang).
fn hang(clock: &sim::Clock) -> ! {
    clock.park_forever()
}
