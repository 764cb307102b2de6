//! An `arbitrary`-structured USI session sent to the engine named by `USICHECK_ENGINE`. One
//! engine process serves many inputs: each input is a new game (`gameover draw`, `isready`,
//! `usinewgame`), and every `USICHECK_RESTART_EVERY` inputs (default 200; 1 = a fresh process
//! per input) the engine is sent `quit`, must exit, and is started again. Oracles: `usiok` after
//! `usi`, `readyok` after every `isready` (standard timeouts of RULES.md §0.3), exactly one
//! `bestmove` per `go`, within the time limit plus T-STOP, never during `go infinite` before
//! `stop`, naming a legal move (or `resign`, or `win` when the declaration is valid), and exit
//! after `quit`. A violation (a crash or a hang included) quits the engine, then panics with the
//! transcript since the engine started, so libFuzzer saves the input.
//!
//! Environment: `USICHECK_ENGINE` (program, required), `USICHECK_ENGINE_ARGS` (arguments,
//! split on blanks), `USICHECK_ENGINE_OPTIONS` (`Name=value;Name=value`, sent as `setoption`),
//! `USICHECK_RESTART_EVERY`.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};
use usicheck::engine::{
    Arrival, EngineCommand, Escalation, Event, Line, Patience, Session, SessionOptions,
    Termination, Timeouts, Wait,
};
use usicheck::shogi::{Position, declaration};
use usicheck::usi::{Message, MoveToken, SpecialMove};

struct Engine {
    command: EngineCommand,
    options: Vec<String>,
    /// Inputs one process serves before it is quit and started again.
    restart_every: u64,
}

static ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    let Some(program) = std::env::var_os("USICHECK_ENGINE") else {
        eprintln!("engine_session: set USICHECK_ENGINE to the engine to fuzz");
        std::process::exit(2);
    };
    let args = std::env::var("USICHECK_ENGINE_ARGS").unwrap_or_default();
    let options = std::env::var("USICHECK_ENGINE_OPTIONS").unwrap_or_default();
    Engine {
        command: EngineCommand::new(program).args(args.split_whitespace()),
        options: options
            .split(';')
            .filter_map(|pair| pair.split_once('='))
            .map(|(name, value)| format!("setoption name {} value {}", name.trim(), value.trim()))
            .collect(),
        restart_every: std::env::var("USICHECK_RESTART_EVERY")
            .ok()
            .and_then(|n| n.trim().parse().ok())
            .filter(|&n| n > 0)
            .unwrap_or(200),
    }
});

/// The engine process kept across inputs (`None` before the first and after a restart).
static RUNNING: Mutex<Option<Run>> = Mutex::new(None);

/// Legal starts: the initial position and positions of the published perft suite.
const STARTS: &[&str] = &[
    "startpos",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1",
    "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91",
    "9/9/9/3k5/9/5K3/9/9/9 b RB2G2S2N2L9Prb2g2s2n2l9p 1",
    "3rkr3/9/8p/4N4/1B7/9/1SG6/1KS6/9 b LPp 1",
];

/// Lines no engine may act on (USI-ROBUST: unknown commands are ignored).
const NOISE: &[&str] = &[
    "",
    "   ",
    "hello",
    "joho debug on",
    "positionx startpos",
    "go!",
];

#[derive(Arbitrary, Debug)]
enum Limit {
    Byoyomi(u8),
    MoveTime(u8),
    Depth(u8),
    Nodes(u16),
    Clock { black: u8, white: u8, increment: u8 },
}

impl Limit {
    /// The `go` arguments and how long the search may take before `bestmove` is due.
    fn args(&self) -> (String, Duration) {
        // Searches of a few milliseconds: many inputs per second, the oracles unchanged.
        let ms = |x: u8| 5 + u64::from(x % 60);
        match *self {
            Limit::Byoyomi(x) => (
                format!("btime 0 wtime 0 byoyomi {}", ms(x)),
                Duration::from_millis(ms(x)),
            ),
            Limit::MoveTime(x) => (format!("movetime {}", ms(x)), Duration::from_millis(ms(x))),
            Limit::Depth(x) => (format!("depth {}", 1 + x % 3), Duration::from_secs(10)),
            Limit::Nodes(x) => (format!("nodes {}", 1 + x % 5000), Duration::from_secs(10)),
            Limit::Clock {
                black,
                white,
                increment,
            } => {
                let (b, w, inc) = (ms(black) * 10, ms(white) * 10, ms(increment));
                (
                    format!("btime {b} wtime {w} binc {inc} winc {inc}"),
                    Duration::from_millis(b.max(w) + inc),
                )
            }
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Action {
    IsReady,
    /// `gameover draw`, `isready`, `usinewgame`.
    NewGame,
    /// A start and move choices, each taken modulo the legal moves.
    Position {
        start: u8,
        choices: Vec<u8>,
    },
    Go(Limit),
    /// `go infinite`, wait `wait % 50` ms (no `bestmove` allowed), `stop`.
    Infinite {
        wait: u8,
    },
    Noise(u8),
}

#[derive(Arbitrary, Debug)]
struct Plan {
    actions: Vec<Action>,
}

const MAX_ACTIONS: usize = 12;
const MAX_PLIES: usize = 60;

struct Run {
    session: Session,
    timeouts: Timeouts,
    /// Inputs this process has served, the current one included.
    inputs: u64,
    /// The position the engine was last sent, and the line that sent it.
    position: Position,
    position_line: String,
}

impl Run {
    /// Starts the engine and brings it to `readyok`.
    fn start(engine: &Engine) -> Run {
        let session = match Session::start(&engine.command, SessionOptions::default()) {
            Ok(session) => session,
            Err(err) => {
                eprintln!("engine_session: cannot start the engine: {err}");
                std::process::exit(2);
            }
        };
        let mut run = Run {
            session,
            timeouts: Timeouts::default(),
            inputs: 0,
            position: Position::startpos(),
            position_line: "position startpos".to_string(),
        };
        run.send("usi");
        let usiok = Patience::Fixed(run.timeouts.usiok);
        run.expect("usiok", |line| line.text == "usiok", usiok);
        for option in &engine.options {
            run.send(option);
        }
        run.ready();
        run
    }

    /// A new game in the running engine, as a GUI starts one; the engine is idle after it.
    fn new_game(&mut self) {
        if self.inputs > 0 {
            self.send("gameover draw");
            self.ready();
        }
        self.inputs += 1;
        self.send("usinewgame");
        self.position = Position::startpos();
        self.position_line = "position startpos".to_string();
        self.send("position startpos");
    }

    /// Sends `quit`: the engine must exit.
    fn quit(mut self) {
        let report = self.session.quit(self.timeouts.quit);
        if report.termination.is_none() || report.escalation != Escalation::None {
            let (termination, escalation) = (report.termination, report.escalation);
            self.fail(format!(
                "no exit within {:?} of quit: {termination:?}, {escalation:?}",
                self.timeouts.quit
            ));
        }
    }

    /// Quits the engine (no process is left behind: libFuzzer aborts on the panic) and panics
    /// with the violation and the transcript since the engine started (earlier inputs of the
    /// same process may have set up what this one revealed).
    fn fail(&mut self, violation: String) -> ! {
        self.session.quit(self.timeouts.quit);
        panic!(
            "engine_session: {violation} (input {} of this engine process)\n--- transcript ---\n{}",
            self.inputs,
            self.session.transcript()
        );
    }

    fn send(&mut self, line: &str) {
        if let Err(err) = self.session.send(line) {
            match self.termination() {
                Some(end) => self.fail(format!("the engine {end} before {line:?}")),
                None => self.fail(format!("sending {line:?}: {err}")),
            }
        }
    }

    /// How the engine ended, if it has (waits briefly for its exit to be reaped).
    fn termination(&mut self) -> Option<Termination> {
        let mut wait = Wait::for_exit(&self.session, Instant::now() + Duration::from_millis(500));
        while self.session.termination().is_none() {
            if let Arrival::Deadline | Arrival::Over = wait.next(&mut self.session) {
                break;
            }
        }
        self.session.termination()
    }

    fn expect(&mut self, what: &str, matches: impl FnMut(&Line) -> bool, patience: Patience) {
        match self.session.expect(matches, patience) {
            Ok(found) => {
                if let Some(line) = found.seen.iter().find_map(bestmove_line) {
                    self.fail(format!("unrequested {line:?} while waiting for {what}"));
                }
            }
            Err(err) => self.fail(format!("no {what}: {err}")),
        }
    }

    fn ready(&mut self) {
        self.send("isready");
        let patience = self.timeouts.ready();
        self.expect("readyok", |line| line.text == "readyok", patience);
    }

    fn bestmove(&mut self, within: Duration) {
        let deadline = within + self.timeouts.stop + self.timeouts.grace;
        let found = match self.session.expect(is_bestmove, deadline) {
            Ok(found) => found,
            Err(err) => self.fail(format!("no bestmove within {deadline:?}: {err}")),
        };
        let (message, _) = Message::parse(&found.line.text);
        let Message::BestMove(best) = message else {
            self.fail(format!("malformed {:?}", found.line.text));
        };
        let legal = match best.best {
            MoveToken::Move(mv) => self.position.is_legal(mv),
            MoveToken::Special(SpecialMove::Resign) => true,
            MoveToken::Special(SpecialMove::Win) => declaration(&self.position).is_valid(),
            _ => false,
        };
        if !legal {
            let sfen = self.position.to_sfen();
            self.fail(format!("illegal {:?} in {sfen}", found.line.text));
        }
    }
}

fn is_bestmove(line: &Line) -> bool {
    line.text.split_ascii_whitespace().next() == Some("bestmove")
}

fn bestmove_line(event: &Event) -> Option<String> {
    match event {
        Event::Line(line) if is_bestmove(line) => Some(line.text.clone()),
        _ => None,
    }
}

fuzz_target!(|plan: Plan| {
    let engine = &*ENGINE;
    let mut running = RUNNING.lock().unwrap_or_else(PoisonError::into_inner);
    let run = running.get_or_insert_with(|| Run::start(engine));
    run.new_game();
    for action in plan.actions.iter().take(MAX_ACTIONS) {
        match action {
            Action::IsReady => run.ready(),
            Action::NewGame => {
                run.send("gameover draw");
                run.ready();
                run.send("usinewgame");
                let line = run.position_line.clone();
                run.send(&line);
            }
            Action::Position { start, choices } => {
                let start = STARTS[usize::from(*start) % STARTS.len()];
                let mut position = Position::from_sfen(start).expect("suite SFEN");
                let mut line = match start {
                    "startpos" => "position startpos".to_string(),
                    sfen => format!("position sfen {sfen}"),
                };
                for (ply, choice) in choices.iter().take(MAX_PLIES).enumerate() {
                    let moves = position.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let mv = moves.as_slice()[usize::from(*choice) % moves.len()];
                    line.push_str(if ply == 0 { " moves " } else { " " });
                    line.push_str(&mv.to_string());
                    position.play_unchecked(mv);
                }
                run.send(&line);
                run.position = position;
                run.position_line = line;
            }
            Action::Go(limit) => {
                let (args, within) = limit.args();
                run.send(&format!("go {args}"));
                run.bestmove(within);
            }
            Action::Infinite { wait } => {
                run.send("go infinite");
                let wait = Duration::from_millis(u64::from(*wait % 50));
                if let Err(found) = run.session.expect_silence(is_bestmove, wait) {
                    run.fail(format!("{:?} during go infinite", found.line.text));
                }
                if let Some(end) = run.session.termination() {
                    run.fail(format!("the engine {end} during go infinite"));
                }
                run.send("stop");
                run.bestmove(Duration::ZERO);
            }
            Action::Noise(which) => run.send(NOISE[usize::from(*which) % NOISE.len()]),
        }
    }
    run.ready();
    if run.inputs >= engine.restart_every
        && let Some(run) = running.take()
    {
        run.quit();
    }
});
