//! `usicheck engine`, driven line by line: the reference engine passes every check below, and
//! each `--fault` makes the check for the rules it names fail.
//!
//! Checks are grouped by RULES.md section. Each returns `Err(reason)` when it observes a
//! violation. [`FAULT_CHECKS`] maps every fault to the check that catches it; one test runs the
//! whole table on a small worker pool.
//!
//! The engine runs simulated (see `usicheck::sim`): in process, on a clock that jumps from
//! event to event, so every time bound is exact and no load on the machine decides an outcome.
//! The few tests that need a real process (its memory, its environment) say so.

use regex::Regex;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};
use usicheck::engine::{
    Arrival, EngineCommand, Event, Line, LineEnd, SessionOptions, Stream, Termination, Wait,
};
use usicheck::refengine::faults::{Fault, FaultSet};
use usicheck::refengine::{self, Config};
use usicheck::shogi::{Move, Position};

// ---------------------------------------------------------------------------------------------
// A tiny expect-style session with deadlines.

/// Grace added to every time bound: RULES.md §0.3's G, as usicheck allows it. Simulated time
/// has no latency to excuse beyond that.
const GRACE: Duration = Duration::from_millis(100);
const T_STOP: Duration = Duration::from_millis(1000);
const T_SILENT: Duration = Duration::from_millis(400);
/// Bound for replies that need no thinking (`usiok`, `readyok`) and for short searches.
const T_REPLY: Duration = Duration::from_secs(3);
/// Bound for a real process's replies and exit: generous, as the machine may be loaded (no
/// check on a process is about speed; one tells a prompt exit from one after a minute).
const T_PROCESS: Duration = Duration::from_secs(10);

const F_MATED: &str = "sfen 4k4/9/9/9/9/9/4s4/4g4/4K4 b 2r2b3g3s4n4l18p 1";
const F_MATE1: &str = "sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1";
const F_DECL_WIN: &str = "sfen +P+P+P+P+P+P+P+P+P/+P8/4K4/9/9/9/9/9/8k b 2R2B4g4s4n4l8p 1";
const F_DECL_27: &str = "sfen +P+P+P+P+P+P+P+P+P/+P8/4K4/9/9/9/9/9/8k b 2RB2Gb2g4s4n4l8p 1";
/// F-DECL-WIN with 9 pieces in the camp (29 points): invalid, the CSA rule needs 10.
const F_DECL_9_PIECES: &str = "sfen +P+P+P+P+P+P+P+P+P/9/4K4/9/9/9/9/9/4k4 b 2R2B4g4s4n4l9p 1";
const F_HANDI: &str = "sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1";
const F_NOPROMO: &str = "startpos moves 7g7f 3c3d 8h2b";
/// White's army at home against Black's bare king and full hand: the solver cannot settle it
/// within seconds.
const HARD_MATE: &str = "sfen lnsgkgsnl/9/ppppppppp/9/9/9/9/9/4K4 b 2R2B2G2S2N2L9P 1";

/// `usicheck engine` with `faults`, as a command line.
fn engine_command(faults: &[&str]) -> EngineCommand {
    let mut command = EngineCommand::new(env!("CARGO_BIN_EXE_usicheck")).arg("engine");
    for fault in faults {
        command = command.args(["--fault", fault]);
    }
    command
}

struct Session {
    engine: usicheck::engine::Session,
    /// Every stdout line received, for error messages.
    transcript: Vec<String>,
    /// Every stderr line received.
    stderr: Vec<String>,
    /// The engine closed its stdout.
    eof: bool,
}

impl Session {
    /// The built-in engine with `faults`, simulated.
    fn start(faults: &[&str]) -> Session {
        Session::simulated(faults, 0)
    }

    /// The same, with `init_ms` of initialisation at every `isready`.
    fn simulated(faults: &[&str], init_ms: u64) -> Session {
        let config = Config {
            faults: FaultSet::from_names(faults.iter().copied()).expect("known faults"),
            // `usicheck engine`'s default.
            seed: 1,
            init_ms,
            ..Config::default()
        };
        Session::on(engine_command(faults).simulated(refengine::simulated(config)))
    }

    /// `usicheck engine` with `faults` and `env` in a process of its own, on real time.
    fn process(faults: &[&str], env: &[(&str, &str)]) -> Session {
        let command = env
            .iter()
            .fold(engine_command(faults), |command, (key, value)| {
                command.env(key, value)
            });
        Session::on(command)
    }

    fn on(command: EngineCommand) -> Session {
        Session {
            engine: usicheck::engine::Session::start(&command, SessionOptions::default())
                .expect("start usicheck engine"),
            transcript: Vec::new(),
            stderr: Vec::new(),
            eof: false,
        }
    }

    fn now(&self) -> Instant {
        self.engine.now()
    }

    /// Waits on the session's clock.
    fn sleep(&self, duration: Duration) {
        self.engine.sleep(duration);
    }

    fn send(&mut self, line: &str) {
        let _ = self.engine.send(line);
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let _ = self.engine.send_raw(bytes);
    }

    fn close_stdin(&mut self) {
        self.engine.close_stdin();
    }

    /// Records `event`; a stdout line is returned.
    fn take(&mut self, event: Event) -> Option<Line> {
        match event {
            Event::Line(line) if line.stream == Stream::Stdout => {
                self.transcript.push(line.text.clone());
                return Some(line);
            }
            Event::Line(line) => self.stderr.push(line.text),
            Event::Eof {
                stream: Stream::Stdout,
                ..
            } => self.eof = true,
            Event::Eof { .. } | Event::Exited { .. } => {}
        }
        None
    }

    /// The next stdout line, or `None` at the deadline or EOF.
    fn next_raw(&mut self, deadline: Instant) -> Option<Line> {
        let mut wait = Wait::until(&self.engine, deadline);
        while !self.eof {
            let (Arrival::OnTime(event) | Arrival::Late(event)) = wait.next(&mut self.engine)
            else {
                return None;
            };
            if let Some(line) = self.take(event) {
                return Some(line);
            }
        }
        None
    }

    fn next_line(&mut self, deadline: Instant) -> Option<String> {
        self.next_raw(deadline).map(|line| line.text)
    }

    /// Reads until a line satisfies `pred`; returns it and the lines before it.
    fn expect_with(
        &mut self,
        what: &str,
        within: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> Result<(String, Vec<String>), String> {
        let deadline = self.now() + within;
        let mut before = Vec::new();
        while let Some(line) = self.next_line(deadline) {
            if pred(&line) {
                return Ok((line, before));
            }
            before.push(line);
        }
        Err(format!(
            "no {what} within {within:?}; transcript tail: {:?}",
            self.tail()
        ))
    }

    fn expect_prefix(
        &mut self,
        prefix: &str,
        within: Duration,
    ) -> Result<(String, Vec<String>), String> {
        self.expect_with(prefix, within, |l| l.starts_with(prefix))
    }

    /// All lines arriving during `window`.
    fn collect(&mut self, window: Duration) -> Vec<String> {
        let deadline = self.now() + window;
        let mut lines = Vec::new();
        while let Some(line) = self.next_line(deadline) {
            lines.push(line);
        }
        lines
    }

    /// How the engine ended, if it does within `within` (reading its last output).
    fn wait_exit(&mut self, within: Duration) -> Option<Termination> {
        let mut wait = Wait::for_exit(&self.engine, self.now() + within);
        while self.engine.termination().is_none() {
            let (Arrival::OnTime(event) | Arrival::Late(event)) = wait.next(&mut self.engine)
            else {
                return None;
            };
            self.take(event);
        }
        self.engine.termination()
    }

    fn tail(&self) -> &[String] {
        &self.transcript[self.transcript.len().saturating_sub(6)..]
    }

    /// The bound for a reply that needs no thinking.
    fn reply_bound(&self) -> Duration {
        if self.engine.is_simulated() {
            T_REPLY
        } else {
            T_PROCESS
        }
    }

    /// `usi` … `usiok`, `isready` … `readyok`.
    fn ready(&mut self) -> Result<(), String> {
        self.send("usi");
        self.expect_prefix("usiok", self.reply_bound())?;
        self.send("isready");
        self.expect_prefix("readyok", self.reply_bound())?;
        Ok(())
    }

    /// Sends `position <position>` and `go <go>`; returns the `bestmove` line and the time it
    /// took, failing after `within`.
    fn search(
        &mut self,
        position: &str,
        go: &str,
        within: Duration,
    ) -> Result<(String, Duration), String> {
        self.send(&format!("position {position}"));
        let start = self.now();
        self.send(&format!("go {go}"));
        let (line, _) = self.expect_prefix("bestmove", within)?;
        Ok((line, self.now() - start))
    }
}

// ---------------------------------------------------------------------------------------------
// Oracles.

/// The position a `position` argument describes (`startpos …` or `sfen … [moves …]`).
fn position_of(arg: &str) -> Position {
    let (base, moves) = match arg.split_once(" moves") {
        Some((b, m)) => (b, m.split_whitespace().collect::<Vec<_>>()),
        None => (arg, Vec::new()),
    };
    usicheck::shogi::position_after(base.trim(), &moves).expect("fixture is legal")
}

fn legal_in(pos: &Position, token: &str) -> Result<Move, String> {
    let m: Move = token
        .parse()
        .map_err(|e| format!("{token:?} is not a USI move: {e}"))?;
    if pos.is_legal(m) {
        Ok(m)
    } else {
        Err(format!("{token} is illegal in {}", pos.to_sfen()))
    }
}

/// Checks a `bestmove` line's grammar and that the move (and ponder move) are legal.
fn check_bestmove(line: &str, position: &str) -> Result<Move, String> {
    let re = Regex::new(r"^bestmove (\S+)( ponder (\S+))?$").unwrap();
    let caps = re
        .captures(line)
        .ok_or_else(|| format!("bad bestmove line {line:?}"))?;
    let pos = position_of(position);
    let best = legal_in(&pos, &caps[1])?;
    if let Some(p) = caps.get(3) {
        legal_in(&pos.after(best), p.as_str()).map_err(|e| format!("ponder: {e}"))?;
    }
    Ok(best)
}

/// A legal search in `position` answered within `within`.
fn legal_search(
    s: &mut Session,
    position: &str,
    go: &str,
    within: Duration,
) -> Result<Move, String> {
    let (line, _) = s.search(position, go, within)?;
    check_bestmove(&line, position)
}

fn silent(s: &mut Session, what: &str, accept: impl Fn(&str) -> bool) -> Result<(), String> {
    match s.collect(T_SILENT).into_iter().find(|l| !accept(l)) {
        Some(line) => Err(format!("{what}: unexpected {line:?}")),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// §1–2 Handshake and options.

/// One `option` line: name, type, and its fields.
struct OptionLine {
    name: String,
    kind: String,
    default: Option<String>,
    min: Option<String>,
    max: Option<String>,
    vars: Vec<String>,
}

fn parse_option(line: &str) -> Result<OptionLine, String> {
    let t: Vec<&str> = line.split(' ').collect();
    if t.len() < 5 || t[0] != "option" || t[1] != "name" || t[3] != "type" {
        return Err(format!("option line does not parse: {line:?}"));
    }
    let mut o = OptionLine {
        name: t[2].into(),
        kind: t[4].into(),
        default: None,
        min: None,
        max: None,
        vars: Vec::new(),
    };
    let mut rest = t[5..].chunks(2);
    for pair in rest.by_ref() {
        let [key, value] = pair else {
            return Err(format!("dangling token in {line:?}"));
        };
        match *key {
            "default" => o.default = Some(value.to_string()),
            "min" => o.min = Some(value.to_string()),
            "max" => o.max = Some(value.to_string()),
            "var" => o.vars.push(value.to_string()),
            _ => return Err(format!("unknown option field {key:?} in {line:?}")),
        }
    }
    Ok(o)
}

fn check_option(o: &OptionLine) -> Result<(), String> {
    let name = &o.name;
    if !name.is_ascii() {
        return Err(format!(
            "option name {name:?} is not ASCII (USI-ENCODING-001)"
        ));
    }
    if name == "USI_OwnBook" && o.kind != "check" {
        return Err("USI_OwnBook must be a check (USI-OPTION-013)".into());
    }
    let int = |v: &Option<String>| v.as_deref().and_then(|v| v.parse::<i64>().ok());
    match o.kind.as_str() {
        "check" if !matches!(o.default.as_deref(), Some("true" | "false")) => {
            Err(format!("{name}: check default must be true|false"))
        }
        "spin" => match (int(&o.default), int(&o.min), int(&o.max)) {
            (Some(d), Some(lo), Some(hi)) if lo <= d && d <= hi => Ok(()),
            _ => Err(format!("{name}: spin needs integer min <= default <= max")),
        },
        "combo" if !o.default.as_ref().is_some_and(|d| o.vars.contains(d)) => {
            Err(format!("{name}: combo default is not one of its vars"))
        }
        "button" if o.default.is_some() => Err(format!("{name}: button with a default")),
        "string" | "filename" if o.default.is_none() => {
            Err(format!("{name}: no default (use <empty>)"))
        }
        "check" | "combo" | "button" | "string" | "filename" => Ok(()),
        other => Err(format!("{name}: unknown option type {other:?}")),
    }
}

/// USI-HANDSHAKE-001..004, USI-OPTION-001..006/013/014, USI-EXT-011/012, USI-ENCODING-001..003,
/// USI-ROBUST-006.
fn handshake(s: &mut Session) -> Result<(), String> {
    let start = s.now();
    s.send("usi");
    let deadline = start + Duration::from_secs(3);
    let mut lines = Vec::new();
    let mut usiok = None;
    while let Some(line) = s.next_raw(deadline) {
        let done = line.text.starts_with("usiok");
        if done {
            usiok = Some((line.clone(), s.now() - start));
        }
        lines.push(line);
        if done {
            break;
        }
    }
    let (terminator, latency) = usiok.ok_or("no usiok within 3 s")?;
    if terminator.text != "usiok" {
        return Err(format!(
            "terminator is {:?}, not exactly usiok",
            terminator.text
        ));
    }
    if terminator.end != LineEnd::Lf {
        return Err(format!(
            "usiok ends with {:?}, not a line feed",
            terminator.end
        ));
    }
    if latency > Duration::from_secs(2) {
        return Err(format!("usiok took {latency:?} (> 2 s, USI-HANDSHAKE-001)"));
    }
    if lines[0].text.starts_with('\u{feff}') {
        return Err("stdout starts with a byte-order mark".into());
    }
    let protocol = |line: &Line| {
        ["id ", "option ", "info ", "usiok"]
            .iter()
            .any(|p| line.text.starts_with(p))
    };
    if let Some(banner) = lines.iter().find(|line| !protocol(line)) {
        return Err(format!(
            "non-protocol line before usiok {:?} (allowed: USI-HANDSHAKE-008)",
            banner.text
        ));
    }
    let mut names = Vec::new();
    let (mut id_name, mut id_author) = (false, false);
    for line in &lines {
        if line.invalid_utf8 {
            return Err("a handshake line is not UTF-8".into());
        }
        let line = line.text.as_str();
        id_name |= line.starts_with("id name ");
        id_author |= line.starts_with("id author ");
        if line.starts_with("option") {
            let o = parse_option(line)?;
            check_option(&o)?;
            names.push(o.name);
        }
    }
    if !id_name || !id_author {
        return Err("id name and id author must precede usiok".into());
    }
    for required in ["USI_Hash", "USI_Ponder", "MultiPV", "Threads"] {
        if !names.iter().any(|n| n == required) {
            return Err(format!("option {required} is not advertised"));
        }
    }
    silent(s, "after usiok", |_| false)
}

/// USI-OPTION-007/008/010/012, USI-HANDSHAKE-007, USI-ENCODING-004, USI-EXT-002.
fn setoption_survives(s: &mut Session) -> Result<(), String> {
    s.send("usi");
    s.expect_prefix("usiok", T_REPLY)?;
    for line in [
        "setoption name ClearHash",
        "setoption name EngineNote value",
        "setoption name BookFile value /tmp/a b/c.bin",
        "setoption name BookFile value /tmp/評価関数/nn.bin",
        "setoption name NoSuchOption value 1",
        "setoption name MultiPV value 99",
        "setoption name USI_Hash value 64",
        "setoption name USI_Ponder value true",
        "setoption name NodesLimit value 5000000000",
        "setoption name ShowCurrMove value true",
        "setoption name EnteringKingRule value CSARule27",
    ] {
        s.send(line);
    }
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY)?;
    Ok(())
}

/// USI-HANDSHAKE-007: every advertised button can be pressed right after `usiok`.
fn presses_every_button(s: &mut Session) -> Result<(), String> {
    s.send("usi");
    let (_, handshake) = s.expect_prefix("usiok", T_REPLY)?;
    let mut buttons = Vec::new();
    for line in handshake.iter().filter(|l| l.starts_with("option")) {
        let option = parse_option(line)?;
        if option.kind == "button" {
            buttons.push(option.name);
        }
    }
    if buttons.is_empty() {
        return Err("no button option advertised".into());
    }
    for button in &buttons {
        s.send(&format!("setoption name {button}"));
    }
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY)?;
    Ok(())
}

/// USI-OPTION-009.
fn option_names_case_insensitive(s: &mut Session) -> Result<(), String> {
    s.send("usi");
    s.expect_prefix("usiok", T_REPLY)?;
    s.send("setoption name multipv value 1");
    s.send("isready");
    let (_, before) = s.expect_prefix("readyok", T_REPLY)?;
    match before.iter().find(|l| l.contains("No such option")) {
        Some(l) => Err(format!("lower-case name rejected: {l:?}")),
        None => Ok(()),
    }
}

/// USI-INFO-010 with USI-EXT-004 (MultiPV changed after `usinewgame`).
fn multipv_after_newgame(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("usinewgame");
    s.send("setoption name MultiPV value 2");
    s.send("position startpos");
    s.send("go depth 2");
    let (_, infos) = s.expect_prefix("bestmove", T_REPLY)?;
    if infos.iter().any(|l| l.contains(" multipv 2 ")) {
        Ok(())
    } else {
        Err("no `multipv 2` line".into())
    }
}

/// The `multipv` numbers of the `info` lines in `lines`, in order.
fn multipv_numbers(lines: &[String]) -> Vec<u32> {
    lines
        .iter()
        .filter_map(|l| l.split(" multipv ").nth(1)?.split(' ').next()?.parse().ok())
        .collect()
}

/// Not a rule check (no rule orders MultiPV lines): with MultiPV 3 every iteration's lines come
/// as `multipv 1`, `2`, `3`.
fn multipv_lines_in_order(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("setoption name MultiPV value 3");
    s.send("position startpos");
    s.send("go depth 2");
    let (_, infos) = s.expect_prefix("bestmove", T_REPLY)?;
    let numbers = multipv_numbers(&infos);
    match numbers.windows(2).find(|w| w[1] != 1 && w[1] != w[0] + 1) {
        Some(w) => Err(format!(
            "multipv {} after multipv {}: {numbers:?}",
            w[1], w[0]
        )),
        None if numbers.contains(&3) => Ok(()),
        None => Err(format!("no `multipv 3` line: {numbers:?}")),
    }
}

// ---------------------------------------------------------------------------------------------
// §3 isready / usinewgame.

/// USI-READY-001.
fn isready_twice(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("isready");
    s.send("isready");
    let n = s
        .collect(Duration::from_millis(600))
        .iter()
        .filter(|l| l.starts_with("readyok"))
        .count();
    if n == 2 {
        Ok(())
    } else {
        Err(format!("{n} readyok for 2 isready"))
    }
}

/// USI-READY-006 (and USI-GO-012: input is read while searching).
fn isready_during_search(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos");
    s.send("go infinite");
    s.sleep(Duration::from_millis(200));
    s.send("isready");
    let (_, before) = s.expect_prefix("readyok", T_STOP)?;
    if before.iter().any(|l| l.starts_with("bestmove")) {
        return Err("bestmove before stop".into());
    }
    s.send("stop");
    s.expect_prefix("bestmove", T_STOP)?;
    Ok(())
}

/// USI-READY-002: a large hash set before `isready` is ready at `readyok`.
fn prepared_at_readyok(s: &mut Session) -> Result<(), String> {
    s.send("usi");
    s.expect_prefix("usiok", T_REPLY)?;
    s.send("setoption name USI_Hash value 64");
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY)?;
    legal_search(
        s,
        "startpos",
        "btime 0 wtime 0 byoyomi 1000",
        Duration::from_millis(1000) + GRACE,
    )
    .map(|_| ())
}

/// USI-READY-004: a slow `isready` (2 s) keeps the GUI informed.
fn keep_alive(s: &mut Session) -> Result<(), String> {
    s.send("usi");
    s.expect_prefix("usiok", T_REPLY)?;
    s.send("isready");
    let mut last = s.now();
    let deadline = last + Duration::from_secs(5);
    while let Some(line) = s.next_line(deadline) {
        let silence = s.now() - last;
        if silence > Duration::from_millis(1500) {
            return Err(format!("{silence:?} of silence during isready"));
        }
        last = s.now();
        if line == "readyok" {
            return Ok(());
        }
    }
    Err("no readyok".into())
}

/// USI-READY-003: the heavy work waits for `isready`, so `usiok` comes at once.
fn initialises_at_isready(s: &mut Session) -> Result<(), String> {
    let start = s.now();
    s.send("usi");
    s.expect_prefix("usiok", T_REPLY)?;
    let launch = s.now() - start;
    let start = s.now();
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY)?;
    let ready = s.now() - start;
    if launch >= Duration::from_secs(1) && launch > ready {
        return Err(format!(
            "usiok took {launch:?}, readyok {ready:?}: initialisation at launch"
        ));
    }
    Ok(())
}

/// USI-READY-007.
fn go_right_after_newgame(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("usinewgame");
    legal_search(
        s,
        "startpos",
        "btime 0 wtime 0 byoyomi 1000",
        Duration::from_millis(1000) + GRACE,
    )
    .map(|_| ())
}

/// USI-READY-008.
fn go_without_newgame(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    legal_search(s, "startpos", "btime 0 wtime 0 byoyomi 300", T_REPLY).map(|_| ())
}

// ---------------------------------------------------------------------------------------------
// §4 position.

fn legal_reply(position: &'static str) -> impl Fn(&mut Session) -> Result<(), String> {
    move |s| {
        s.ready()?;
        legal_search(s, position, "btime 0 wtime 0 byoyomi 300", T_REPLY).map(|_| ())
    }
}

/// USI-POSITION-001: an SFEN whose king stands on file 9.
const KING_ON_FILE_9: &str = "sfen 4k4/9/9/9/9/9/9/9/K8 b - 1";
/// USI-POSITION-002: no move count.
const NO_MOVE_COUNT: &str = "sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -";
/// USI-POSITION-004: a two-digit hand count is Black's only material.
const TEN_PAWNS: &str = "sfen 4k4/9/9/9/9/9/9/9/9 b 10P 1";
/// USI-POSITION-004: hand not in canonical order.
const HAND_OUT_OF_ORDER: &str = "sfen 4k4/9/9/9/9/9/9/9/4K4 b p2R 1";
/// USI-EXT-018's position (`15-ext/no-pass-in-check`): Black's king in check from a rook, two
/// golds in hand; the `hang-on-position` fault never answers a `go` on it.
const IN_CHECK_GOLDS: &str = "sfen 4k4/9/9/9/4r4/9/9/9/4K4 b 2Gr2b2g4s4n4l18p 1";
/// USI-MATE-009: F-MATE1 without Black's king.
const KINGLESS_TSUME: &str = "sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";
/// USI-POSITION-006: White's best move is the mating drop `G*5h`.
const WHITE_DROP_MATE: &str = "sfen 4k4/9/9/9/9/9/4p4/9/4K4 w g2R2B3G4S4N4L17P 1";

/// USI-POSITION-006: every move token is `7g7f`, `8h2b+` or `P*3d`.
fn drop_notation(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    let (line, _) = s.search(WHITE_DROP_MATE, "btime 0 wtime 0 byoyomi 1000", T_REPLY)?;
    let best = check_bestmove(&line, WHITE_DROP_MATE)?;
    if best.to_string() == "G*5h" {
        Ok(())
    } else {
        Err(format!("expected G*5h, got {line:?}"))
    }
}

/// USI-POSITION-001: the `info` lines of a search of an SFEN position are read on the board as
/// written: every `pv` is legal there, as is the `bestmove`.
fn sfen_pv_read_as_written(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send(&format!("position {KING_ON_FILE_9}"));
    s.send("go depth 2");
    let (line, infos) = s.expect_prefix("bestmove", T_REPLY)?;
    check_bestmove(&line, KING_ON_FILE_9)?;
    let root = position_of(KING_ON_FILE_9);
    let mut nodes = 0;
    for info in infos.iter().filter(|l| l.contains(" pv ")) {
        check_info(info, &root, &mut nodes)?;
    }
    Ok(())
}

/// USI-POSITION-008: a shorter position after a longer one with the same base.
fn rebuild_every_position(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    legal_search(s, "startpos moves 7g7f", "depth 1", T_REPLY)?;
    legal_search(s, "startpos", "depth 1", T_REPLY).map(|_| ())
}

/// USI-POSITION-009: White is far ahead in material at the third occurrence of a cycle;
/// `5b5a` would repeat the start a fourth time (a draw), `1d1e` only loses a pawn.
fn avoids_fourth_repetition(s: &mut Session) -> Result<(), String> {
    let cycle = "5i5h 5a5b 5h5i 5b5a";
    let position = format!(
        "sfen 4k4/9/9/8p/9/8P/9/9/4K4 b 2r2b4g4s4n4l16p 1 moves {cycle} {cycle} 5i5h 5a5b 5h5i"
    );
    s.ready()?;
    let (line, _) = s.search(&position, "depth 2 searchmoves 5b5a 1d1e", T_REPLY)?;
    if line.starts_with("bestmove 1d1e") {
        Ok(())
    } else {
        Err(format!("walked into sennichite: {line:?}"))
    }
}

/// USI-RULES-004 (engine-side advisory): Black, far behind, has checked White's king back and
/// forth from the position after 3b3a, which has occurred three times; 3b3a again would be its
/// fourth occurrence with Black checking every move since the first: a perpetual check, lost.
fn avoids_perpetual_check(s: &mut Session) -> Result<(), String> {
    let cycle = "1a1b 3a3b 1b1a 3b3a";
    let position = format!(
        "sfen 6R1k/9/9/9/9/9/9/9/K8 w r2b4g4s4n4l18p 1 moves {cycle} {cycle} 1a1b 3a3b 1b1a"
    );
    s.ready()?;
    let (line, _) = s.search(&position, "btime 0 wtime 0 byoyomi 300", T_REPLY)?;
    // 3b3a+ (a dragon) makes a new position; only the rook's 3b3a repeats.
    if line == "bestmove 3b3a" || line.starts_with("bestmove 3b3a ") {
        Err(format!("completed a perpetual check: {line:?}"))
    } else {
        Ok(())
    }
}

/// USI-EXT-019: set to `CSARule27` (as usicheck's handshake sets it), the engine does not
/// declare where only the handicap rule `CSARule27H` would credit White enough points (17 of
/// the 27 White needs, plus 10 for a rook and a bishop on neither board nor hand).
fn entering_king_rule_followed(s: &mut Session) -> Result<(), String> {
    s.send("usi");
    s.expect_prefix("usiok", T_REPLY)?;
    s.send("setoption name EnteringKingRule value CSARule27");
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY)?;
    let (line, _) = s.search(F_DECL_WIN, "btime 0 wtime 0 byoyomi 300", T_REPLY)?;
    if line != "bestmove win" {
        return Err(format!("valid declaration answered {line:?}"));
    }
    let handicap = "sfen 4K4/9/9/9/9/9/+p+p+p+p+p+p+p+p+p/4k4/4+p4 w B2G4S4N4L8Pr2g 1";
    let (line, _) = s.search(handicap, "btime 0 wtime 0 byoyomi 300", T_REPLY)?;
    if line == "bestmove win" {
        Err(format!(
            "declared by the handicap rule under CSARule27: {line:?}"
        ))
    } else {
        Ok(())
    }
}

/// USI-EXT-020: the reference engine names itself, not as Fairy-Stockfish (whose dialect
/// usicheck would note).
fn own_id_name(s: &mut Session) -> Result<(), String> {
    s.send("usi");
    let (line, _) = s.expect_prefix("id name", T_REPLY)?;
    s.expect_prefix("usiok", T_REPLY)?;
    if usicheck::observer::is_fairy_stockfish(line.trim_start_matches("id name ")) {
        Err(format!("names itself as Fairy-Stockfish: {line:?}"))
    } else {
        Ok(())
    }
}

/// USI-POSITION-010.
fn position_is_silent(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos moves 7g7f");
    silent(s, "after position", |l| l.starts_with("info string"))
}

/// USI-POSITION-011 and USI-GO-002 after a bad position.
fn bad_position_survives(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos moves 7g7f 7g7f");
    s.expect_prefix("info string error", T_REPLY)?;
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY)?;
    s.send("position sfen 9/9 b - 1");
    s.expect_prefix("info string error", T_REPLY)?;
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY)?;
    s.send("go btime 0 wtime 0 byoyomi 300");
    let (line, _) = s.expect_prefix("bestmove", T_STOP)?;
    if line == "bestmove resign" {
        Ok(())
    } else {
        Err(format!("after a bad position: {line:?}"))
    }
}

/// USI-ROBUST-008: a legal game of 320 plies.
fn long_game(s: &mut Session) -> Result<(), String> {
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    for ply in 0..320 {
        let list = pos.legal_moves();
        let candidates: Vec<Move> = list
            .iter()
            .copied()
            .filter(|&m| pos.after(m).has_legal_moves())
            .collect();
        let m = candidates[(ply * 7) % candidates.len()];
        pos.play_unchecked(m);
        moves.push(m.to_string());
    }
    let position = format!("startpos moves {}", moves.join(" "));
    s.ready()?;
    legal_search(s, &position, "btime 0 wtime 0 byoyomi 300", T_REPLY).map(|_| ())
}

// ---------------------------------------------------------------------------------------------
// §5 go.

/// USI-GO-001, USI-STOP-002, USI-STOP-004: nothing answers a command that is not `go`.
fn forced_mode(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("usinewgame");
    s.send("stop");
    s.send("ponderhit");
    silent(s, "idle", |l| l.starts_with("info string"))
}

/// USI-GO-002: exactly one bestmove for each of 12 searches.
fn one_bestmove_per_go(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    for _ in 0..12 {
        s.search("startpos", "depth 1", T_REPLY)?;
    }
    silent(s, "after the last bestmove", |l| !l.starts_with("bestmove"))
}

/// The next `bestmove` or `checkmate` line.
fn terminal_reply(s: &mut Session, within: Duration) -> Result<String, String> {
    s.expect_with("bestmove or checkmate", within, |l| {
        l.starts_with("bestmove") || l.starts_with("checkmate")
    })
    .map(|(line, _)| line)
}

/// USI-GO-002: a normal `go` (timed, `infinite`, `ponder`) is answered with `bestmove`, also
/// where a mate in one exists, and `go mate` with `checkmate`.
fn normal_go_gets_bestmove(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send(&format!("position {F_MATE1}"));
    for (go, stop) in [
        ("btime 0 wtime 0 byoyomi 300", false),
        ("infinite", true),
        ("ponder btime 1000 wtime 1000 byoyomi 1000", true),
    ] {
        s.send(&format!("go {go}"));
        if stop {
            s.sleep(Duration::from_millis(300));
            s.send("stop");
        }
        let line = terminal_reply(s, T_REPLY)?;
        if !line.starts_with("bestmove") {
            return Err(format!("go {go} answered {line:?}"));
        }
    }
    s.send("go mate 1000");
    checkmate_reply(s, F_MATE1, Duration::from_millis(1000) + GRACE).map(|_| ())
}

fn timed(
    position: &'static str,
    go: &'static str,
    bound_ms: u64,
) -> impl Fn(&mut Session) -> Result<(), String> {
    move |s| {
        s.ready()?;
        let bound = Duration::from_millis(bound_ms) + GRACE;
        // Well past the bound is as good as never.
        let (line, took) = s.search(position, go, bound + Duration::from_millis(1500))?;
        check_bestmove(&line, position)?;
        if took > bound {
            Err(format!("bestmove after {took:?} > {bound:?}"))
        } else {
            Ok(())
        }
    }
}

/// Not a rule check (moving early is allowed): shows the engine spends its byoyomi.
fn uses_byoyomi(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    let (_, took) = s.search("startpos", "btime 0 wtime 0 byoyomi 1000", T_REPLY)?;
    if took < Duration::from_millis(300) {
        Err(format!("moved after {took:?} of a 1 s byoyomi"))
    } else {
        Ok(())
    }
}

/// USI-GO-008: `go infinite` waits for `stop`, also with no legal move.
fn infinite_waits_for_stop(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    for (position, wait) in [("startpos", 1200), (F_MATED, 500)] {
        s.send(&format!("position {position}"));
        s.send("go infinite");
        if let Some(l) = s
            .collect(Duration::from_millis(wait))
            .iter()
            .find(|l| l.starts_with("bestmove"))
        {
            return Err(format!("{l:?} before stop"));
        }
        s.send("stop");
        let start = s.now();
        let (line, _) = s.expect_prefix("bestmove", T_STOP)?;
        if s.now() - start > T_STOP {
            return Err("stop answered late".into());
        }
        if position == F_MATED && line != "bestmove resign" {
            return Err(format!("mated but answered {line:?}"));
        }
    }
    Ok(())
}

/// USI-GO-010: `searchmoves` restricts the root.
fn searchmoves_respected(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    let (line, _) = s.search("startpos", "depth 2 searchmoves 1g1f", T_REPLY)?;
    if line.starts_with("bestmove 1g1f") {
        Ok(())
    } else {
        Err(format!("searchmoves 1g1f gave {line:?}"))
    }
}

/// USI-GO-010: `go nodes N` stops near N nodes (engines check the limit between batches,
/// so the observer's tolerance, 2N + 10000, applies here too).
fn node_limit_respected(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos");
    s.send("go nodes 1000");
    // An engine that ignores the limit may search for long: look for 1.5 s, then stop it.
    let mut infos = s.collect(Duration::from_millis(1500));
    if !infos.iter().any(|l| l.starts_with("bestmove")) {
        s.send("stop");
        infos.extend(s.expect_prefix("bestmove", T_REPLY)?.1);
    }
    let searched = infos
        .iter()
        .filter_map(|l| {
            l.split(" nodes ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .max()
        .ok_or("no `info … nodes` line for `go nodes 1000`")?;
    if searched > 2 * 1000 + 10_000 {
        Err(format!("go nodes 1000 searched {searched} nodes"))
    } else {
        Ok(())
    }
}

/// USI-GO-011, USI-EXT-013, USI-ROBUST-007: unknown and malformed tokens are survived.
fn odd_go_tokens(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    legal_search(
        s,
        "startpos",
        "byoyomi 500 wtime 0 btime 0 foo 5 bbyoyomi 500 wbyoyomi 500",
        T_REPLY,
    )?;
    legal_search(s, "startpos", "btime abc wtime 0 byoyomi 300", T_REPLY)?;
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY).map(|_| ())
}

// ---------------------------------------------------------------------------------------------
// §6–8 ponder, stop, bestmove.

/// USI-BESTMOVE-001/002/007, USI-PONDER-001.
fn bestmove_is_legal(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    legal_search(s, "startpos", "btime 0 wtime 0 byoyomi 300", T_REPLY)?;
    legal_search(s, F_HANDI, "btime 0 wtime 0 byoyomi 300", T_REPLY).map(|_| ())
}

/// USI-PONDER-002: no bestmove in ponder mode until stop, even when mated.
fn ponder_waits(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send(&format!("position {F_MATED}"));
    s.send("go ponder btime 1000 wtime 1000 byoyomi 1000");
    if let Some(l) = s
        .collect(Duration::from_millis(800))
        .iter()
        .find(|l| l.starts_with("bestmove"))
    {
        return Err(format!("{l:?} while pondering"));
    }
    s.send("stop");
    let (line, _) = s.expect_prefix("bestmove", T_STOP)?;
    if line == "bestmove resign" {
        Ok(())
    } else {
        Err(format!("mated but answered {line:?}"))
    }
}

/// USI-PONDER-004 with USI-STOP-005: `ponderhit` (with clock tokens) starts the clock.
fn ponderhit_starts_clock(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos moves 7g7f 3c3d");
    s.send("go ponder btime 1000 wtime 1000 byoyomi 1000");
    s.sleep(Duration::from_millis(300));
    s.send("ponderhit btime 1000 wtime 1000 byoyomi 1000");
    let start = s.now();
    let (line, _) = s.expect_prefix("bestmove", Duration::from_millis(2000) + GRACE)?;
    check_bestmove(&line, "startpos moves 7g7f 3c3d")?;
    if s.now() - start > Duration::from_millis(2000) + GRACE {
        Err("late after ponderhit".into())
    } else {
        Ok(())
    }
}

/// USI-PONDER-003/004: the clock of `go ponder` binds from a plain `ponderhit`, and the
/// reference engine searches on under it (an answer at once, from a finished ponder search, is
/// allowed: USI-PONDER-005).
fn ponderhit_plain(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos moves 7g7f 3c3d");
    s.send("go ponder btime 1000 wtime 1000 byoyomi 1000");
    s.sleep(Duration::from_millis(300));
    s.send("ponderhit");
    let start = s.now();
    let (line, _) = s.expect_prefix("bestmove", Duration::from_millis(2000) + GRACE)?;
    let after = s.now() - start;
    check_bestmove(&line, "startpos moves 7g7f 3c3d")?;
    if after < Duration::from_millis(100) {
        return Err(format!(
            "{line:?} {after:?} after ponderhit: the ponder search had finished"
        ));
    }
    Ok(())
}

/// USI-EXT-016: with `Stochastic_Ponder` the ponder search is of the position before the
/// predicted move, and `ponderhit` still gets a legal move within the clock.
fn stochastic_ponder(s: &mut Session) -> Result<(), String> {
    s.send("usi");
    s.expect_prefix("usiok", T_REPLY)?;
    s.send("setoption name Stochastic_Ponder value true");
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY)?;
    s.send("position startpos moves 7g7f 3c3d");
    s.send("go ponder btime 1000 wtime 1000 byoyomi 1000");
    s.sleep(Duration::from_millis(300));
    s.send("ponderhit");
    let (line, infos) = s.expect_prefix("bestmove", Duration::from_millis(2000) + GRACE)?;
    check_bestmove(&line, "startpos moves 7g7f 3c3d")?;
    let earlier = position_of("startpos moves 7g7f");
    let first_pv = infos
        .iter()
        .find_map(|l| l.split_once(" pv ").map(|(_, pv)| pv.to_owned()))
        .ok_or("no pv while pondering")?;
    let first = first_pv.split(' ').next().unwrap_or_default();
    legal_in(&earlier, first)
        .map(|_| ())
        .map_err(|e| format!("the ponder pv is not of the position before 3c3d: {e}"))
}

/// USI-EXT-015: "early ponder" — `go ponder` without a clock, the clock on `ponderhit`.
fn early_ponder(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos moves 7g7f 3c3d");
    s.send("go ponder");
    s.sleep(Duration::from_millis(200));
    s.send("ponderhit btime 1000 wtime 1000 byoyomi 1000");
    let (line, _) = s.expect_prefix("bestmove", Duration::from_millis(2000) + GRACE)?;
    check_bestmove(&line, "startpos moves 7g7f 3c3d").map(|_| ())
}

/// USI-PONDER-006: a ponder miss.
fn ponder_miss(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos moves 7g7f 3c3d");
    s.send("go ponder btime 1000 wtime 1000 byoyomi 1000");
    s.sleep(Duration::from_millis(200));
    s.send("stop");
    s.expect_prefix("bestmove", T_STOP)?;
    legal_search(
        s,
        "startpos moves 7g7f 8c8d",
        "btime 1000 wtime 1000 byoyomi 300",
        T_REPLY,
    )
    .map(|_| ())
}

/// USI-PONDER-007, USI-INFO-001: no search output while idle.
fn quiet_when_idle(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    silent(s, "after readyok", |l| l.starts_with("info string"))?;
    s.search("startpos", "depth 1", T_REPLY)?;
    silent(s, "after bestmove", |l| l.starts_with("info string"))
}

/// USI-PONDER-008, USI-GAMEOVER-004: `gameover` ends a ponder search.
fn gameover_ends_ponder(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos moves 7g7f");
    s.send("go ponder btime 1000 wtime 1000 byoyomi 1000");
    s.sleep(Duration::from_millis(200));
    s.send("gameover win");
    let lines = s.collect(Duration::from_millis(1500));
    if lines.iter().filter(|l| l.starts_with("bestmove")).count() > 1 {
        return Err("two bestmoves after gameover".into());
    }
    s.send("isready");
    let (_, before) = s.expect_prefix("readyok", T_REPLY)?;
    let late_info = lines
        .iter()
        .chain(&before)
        .skip_while(|l| !l.starts_with("info time"))
        .count();
    if late_info > 0 {
        Err("still searching after gameover".into())
    } else {
        Ok(())
    }
}

/// USI-BESTMOVE-003/005/007.
fn resigns_when_mated(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    let (line, _) = s.search(
        F_MATED,
        "btime 0 wtime 0 byoyomi 1000",
        Duration::from_millis(1000) + GRACE,
    )?;
    if line == "bestmove resign" {
        Ok(())
    } else {
        Err(format!("mated but answered {line:?}"))
    }
}

/// USI-BESTMOVE-004, USI-RULES-001.
fn declares_only_when_valid(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    let (line, _) = s.search(F_DECL_WIN, "btime 0 wtime 0 byoyomi 1000", T_REPLY)?;
    if line != "bestmove win" {
        return Err(format!("valid declaration answered {line:?}"));
    }
    for invalid in [F_DECL_27, F_DECL_9_PIECES] {
        let (line, _) = s.search(invalid, "btime 0 wtime 0 byoyomi 300", T_REPLY)?;
        check_bestmove(&line, invalid)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// §9 info.

const INFO_KEYWORDS: [&str; 13] = [
    "depth",
    "seldepth",
    "time",
    "nodes",
    "pv",
    "multipv",
    "score",
    "currmove",
    "hashfull",
    "nps",
    "string",
    "lowerbound",
    "upperbound",
];

/// Checks one search `info` line against USI-INFO-002..013; `root` validates the pv.
fn check_info(line: &str, root: &Position, last_nodes: &mut u64) -> Result<(), String> {
    let t: Vec<&str> = line.split(' ').collect();
    let mut i = 1;
    let mut seen_depth = false;
    let mut has_time = false;
    while i < t.len() {
        let key = t[i];
        let value = t.get(i + 1).copied().unwrap_or("");
        let int = |what: &str| {
            value
                .parse::<i64>()
                .map_err(|_| format!("{what} {value:?} in {line:?}"))
        };
        match key {
            "depth" => {
                int("depth")?;
                seen_depth = true;
            }
            "seldepth" if !seen_depth => return Err(format!("seldepth without depth: {line:?}")),
            "seldepth" => {
                int("seldepth")?;
            }
            "time" => {
                int("time")?;
                has_time = true;
            }
            "nodes" => {
                let n = int("nodes")? as u64;
                if n < *last_nodes {
                    return Err(format!("nodes went down: {line:?}"));
                }
                *last_nodes = n;
            }
            "nps" | "multipv" => {
                int(key)?;
            }
            "hashfull" if !(0..=1000).contains(&int("hashfull")?) => {
                return Err(format!("hashfull range: {line:?}"));
            }
            "hashfull" => {}
            "score" => {
                let (kind, v) = (value, t.get(i + 2).copied().unwrap_or(""));
                match kind {
                    "cp" if v.parse::<i64>().is_ok() => {}
                    "mate" if v.parse::<i64>().is_ok() || v == "+" || v == "-" => {}
                    _ => return Err(format!("bad score in {line:?}")),
                }
                i += 3;
                if matches!(t.get(i), Some(&("lowerbound" | "upperbound"))) {
                    i += 1;
                }
                continue;
            }
            "string" => return Ok(()),
            "pv" => {
                if !has_time {
                    return Err(format!("pv without time: {line:?}"));
                }
                let mut pos = root.clone();
                for token in &t[i + 1..] {
                    if INFO_KEYWORDS.contains(token) {
                        return Err(format!("{token:?} after pv: {line:?}"));
                    }
                    let m = legal_in(&pos, token).map_err(|e| format!("pv: {e}"))?;
                    pos.play_unchecked(m);
                }
                return Ok(());
            }
            "currmove" => {
                legal_in(root, value)?;
            }
            _ => return Err(format!("field {key:?} GUIs do not parse: {line:?}")),
        }
        i += 2;
    }
    Ok(())
}

/// USI-BESTMOVE-006, USI-INFO-002..005/009/011..013: every `info` of a search parses, and a
/// `pv` line precedes `bestmove`.
fn info_lines(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos moves 7g7f");
    s.send("go btime 0 wtime 0 byoyomi 1000");
    let (_, infos) = s.expect_prefix("bestmove", T_REPLY)?;
    if infos.len() > 200 {
        return Err(format!("{} info lines in a 1 s search", infos.len()));
    }
    let root = position_of("startpos moves 7g7f");
    let mut nodes = 0;
    for line in &infos {
        check_info(line, &root, &mut nodes)?;
    }
    match infos.last() {
        Some(l) if l.contains(" pv ") => Ok(()),
        _ => Err("no final info with pv before bestmove".into()),
    }
}

/// USI-EXT-006: with `USI_OwnBook` on, the book move from the start position comes with
/// `info … pv` (the book line).
fn book_move_reported(s: &mut Session) -> Result<(), String> {
    s.send("usi");
    s.expect_prefix("usiok", T_REPLY)?;
    s.send("setoption name USI_OwnBook value true");
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY)?;
    s.send("position startpos");
    s.send("go btime 0 wtime 0 byoyomi 1000");
    let (line, infos) = s.expect_prefix("bestmove", T_REPLY)?;
    check_bestmove(&line, "startpos")?;
    match infos.iter().find(|l| l.contains(" pv ")) {
        Some(_) => Ok(()),
        None => Err(format!("book move {line:?} without info pv")),
    }
}

/// USI-INFO-006/007: a one-ply mate is `score mate 1` with pv `G*5b`.
fn mate_score(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send(&format!("position {F_MATE1}"));
    s.send("go btime 0 wtime 0 byoyomi 1000");
    let (line, infos) = s.expect_prefix("bestmove", T_REPLY)?;
    if !line.starts_with("bestmove G*5b") {
        return Err(format!("mate in one missed: {line:?}"));
    }
    if infos
        .iter()
        .any(|l| l.contains("score mate 1 ") && l.ends_with("pv G*5b"))
    {
        Ok(())
    } else {
        Err(format!("no `score mate 1 … pv G*5b`: {infos:?}"))
    }
}

// ---------------------------------------------------------------------------------------------
// §10 go mate.

/// The one `checkmate` reply, checked for form (USI-MATE-010) and, for a line, correctness.
fn checkmate_reply(s: &mut Session, position: &str, within: Duration) -> Result<String, String> {
    let (line, before) = s.expect_with("checkmate", within, |l| {
        l.starts_with("checkmate") || l.starts_with("bestmove")
    })?;
    if before.iter().any(|l| !l.starts_with("info")) || line.starts_with("bestmove") {
        return Err(format!("go mate answered {line:?}"));
    }
    let rest = line
        .strip_prefix("checkmate ")
        .ok_or_else(|| format!("bare {line:?}"))?;
    if !matches!(rest, "nomate" | "timeout" | "notimplemented") {
        let mut pos = position_of(position);
        for token in rest.split(' ') {
            let m = legal_in(&pos, token)?;
            pos.play_unchecked(m);
        }
        if !pos.is_checkmate() {
            return Err(format!("{line:?} does not end in mate"));
        }
    }
    if let Some(extra) = s
        .collect(Duration::from_millis(300))
        .iter()
        .find(|l| !l.starts_with("info"))
    {
        return Err(format!("{extra:?} after the checkmate reply"));
    }
    Ok(line)
}

/// USI-MATE-002/003/010 on F-MATE1.
fn go_mate_solves(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send(&format!("position {F_MATE1}"));
    s.send("go mate 1000");
    let line = checkmate_reply(s, F_MATE1, Duration::from_millis(1000) + GRACE)?;
    if line == "checkmate G*5b" {
        Ok(())
    } else {
        Err(format!("expected checkmate G*5b, got {line:?}"))
    }
}

/// USI-MATE-004: the start position has no mate.
fn go_mate_nomate(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos");
    s.send("go mate 1000");
    checkmate_reply(s, "startpos", Duration::from_millis(1000) + GRACE).map(|_| ())
}

/// USI-MATE-004/005: an unresolved search answers `checkmate timeout` at its limit.
fn go_mate_times_out(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send(&format!("position {HARD_MATE}"));
    s.send("go mate 1000");
    let line = checkmate_reply(s, HARD_MATE, Duration::from_millis(1000) + GRACE)?;
    if line == "checkmate timeout" {
        Ok(())
    } else {
        Err(format!("unresolved search answered {line:?}"))
    }
}

/// USI-MATE-007.
fn go_mate_infinite_returns(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send(&format!("position {F_MATE1}"));
    s.send("go mate infinite");
    checkmate_reply(s, F_MATE1, Duration::from_secs(2)).map(|_| ())
}

/// USI-MATE-008.
fn stop_during_go_mate(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send(&format!("position {HARD_MATE}"));
    s.send("go mate infinite");
    s.sleep(Duration::from_millis(300));
    s.send("stop");
    checkmate_reply(s, HARD_MATE, T_STOP).map(|_| ())
}

/// USI-MATE-009: no attacking king.
fn kingless_tsume(s: &mut Session) -> Result<(), String> {
    let position = "sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";
    s.ready()?;
    s.send(&format!("position {position}"));
    s.send("go mate 1000");
    let line = checkmate_reply(s, position, Duration::from_millis(1000) + GRACE)?;
    if line == "checkmate G*5b" {
        Ok(())
    } else {
        Err(format!("kingless tsume answered {line:?}"))
    }
}

/// USI-MATE-009: a kingless tsume replaces the board sent before it, for `go mate` and for a
/// normal `go`.
fn kingless_tsume_replaces_the_board(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos");
    s.send(&format!("position {KINGLESS_TSUME}"));
    s.send("go mate 1000");
    let line = checkmate_reply(s, KINGLESS_TSUME, Duration::from_millis(1000) + GRACE)?;
    if line != "checkmate G*5b" {
        return Err(format!("kingless tsume after startpos answered {line:?}"));
    }
    legal_search(s, KINGLESS_TSUME, "depth 1", T_REPLY).map(|_| ())
}

/// USI-EXT-010: `go nodes N mate infinite` stops at the node budget.
fn go_mate_nodes(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send(&format!("position {HARD_MATE}"));
    s.send("go nodes 2000 mate infinite");
    checkmate_reply(s, HARD_MATE, Duration::from_secs(3)).map(|_| ())
}

// ---------------------------------------------------------------------------------------------
// §11–12 gameover, quit.

/// USI-GAMEOVER-001/002/003/006, USI-READY-005, USI-ROBUST-011, USI-EXT-009.
fn games_in_a_row(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    for result in ["win", "draw", "lose", "unknown"] {
        s.send("usinewgame");
        legal_search(s, "startpos", "depth 1", T_REPLY)?;
        s.send(&format!("gameover {result}"));
        silent(s, "after gameover", |l| l.starts_with("info string"))?;
        s.send("isready");
        s.expect_prefix("readyok", T_REPLY)?;
    }
    // The game after an aborted one (`gameover unknown`).
    s.send("usinewgame");
    legal_search(s, "startpos", "depth 1", T_REPLY).map(|_| ())
}

/// USI-ROBUST-011: the resident memory after the fourth game is within 32 MiB of the first's.
/// Runs on a process (see [`run_check`]): memory is a process's.
fn memory_steady_across_games(s: &mut Session) -> Result<(), String> {
    let rss_kib = |s: &Session| {
        std::fs::read_to_string(format!("/proc/{}/status", s.engine.pid()))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix("VmRSS:"))
                    .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            })
            .ok_or("cannot read the engine's VmRSS")
    };
    s.ready()?;
    let mut samples = Vec::new();
    for _ in 0..4 {
        s.send("usinewgame");
        legal_search(s, "startpos", "depth 1", s.reply_bound())?;
        s.send("gameover draw");
        s.send("isready");
        s.expect_prefix("readyok", s.reply_bound())?;
        samples.push(rss_kib(s)?);
    }
    if samples[3] > samples[0] + 32 * 1024 {
        Err(format!(
            "resident memory grew across games: {samples:?} KiB"
        ))
    } else {
        Ok(())
    }
}

fn exits_cleanly(s: &mut Session, how: &str) -> Result<(), String> {
    exits_cleanly_within(s, how, Duration::from_millis(1500))
}

fn exits_cleanly_within(s: &mut Session, how: &str, within: Duration) -> Result<(), String> {
    match s.wait_exit(within) {
        Some(termination) if termination.is_success() => Ok(()),
        Some(termination) => Err(format!("{how}: engine {termination}")),
        None => Err(format!("{how}: still running after {within:?}")),
    }
}

/// USI-QUIT-001/004, USI-HANDSHAKE-006.
fn quit_after_usiok(s: &mut Session) -> Result<(), String> {
    s.send("usi");
    s.expect_prefix("usiok", T_REPLY)?;
    s.send("quit");
    exits_cleanly(s, "quit")
}

/// USI-QUIT-002.
fn quit_mid_search(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position startpos");
    s.send("go infinite");
    s.sleep(Duration::from_millis(200));
    s.send("quit");
    exits_cleanly(s, "quit during go infinite")
}

/// USI-QUIT-003.
fn eof_exits(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.close_stdin();
    exits_cleanly(s, "stdin closed")
}

// ---------------------------------------------------------------------------------------------
// §13 robustness.

/// USI-ROBUST-001/009/010: unknown commands and `debug` are ignored; stdout carries protocol only.
fn unknown_commands_ignored(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("foobar 1 2 3");
    s.send("debug on");
    s.send("isready");
    let (_, before) = s.expect_prefix("readyok", T_REPLY)?;
    match before.iter().find(|l| !l.starts_with("info string")) {
        Some(l) => Err(format!("non-protocol output {l:?}")),
        None => Ok(()),
    }
}

/// USI-ROBUST-002.
fn extra_blanks(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send("position  startpos   moves  7g7f ");
    s.send("go  btime 0  wtime 0 byoyomi 300");
    let (line, _) = s.expect_prefix("bestmove", T_REPLY)?;
    check_bestmove(&line, "startpos moves 7g7f").map(|_| ())
}

/// USI-ROBUST-003.
fn crlf_input(s: &mut Session) -> Result<(), String> {
    s.send_raw(b"usi\r\n");
    s.expect_prefix("usiok", T_REPLY)?;
    s.send_raw(b"isready\r\n");
    s.expect_prefix("readyok", T_REPLY)?;
    s.send_raw(b"position startpos moves 7g7f\r\ngo btime 0 wtime 0 byoyomi 300\r\n");
    let (line, _) = s.expect_prefix("bestmove", T_REPLY)?;
    check_bestmove(&line, "startpos moves 7g7f").map(|_| ())
}

/// USI-ROBUST-004.
fn blank_lines(s: &mut Session) -> Result<(), String> {
    s.ready()?;
    s.send_raw(b"\n\n\nisready\n");
    let lines = s.collect(T_SILENT);
    if lines == ["readyok"] {
        Ok(())
    } else {
        Err(format!("blank lines then isready gave {lines:?}"))
    }
}

// ---------------------------------------------------------------------------------------------
// The table.

type Check = fn(&mut Session) -> Result<(), String>;

/// Every check that needs no closure, by name.
fn check_named(name: &str) -> Check {
    match name {
        "handshake" => handshake,
        "setoption_survives" => setoption_survives,
        "presses_every_button" => presses_every_button,
        "option_names_case_insensitive" => option_names_case_insensitive,
        "multipv_after_newgame" => multipv_after_newgame,
        "isready_twice" => isready_twice,
        "isready_during_search" => isready_during_search,
        "prepared_at_readyok" => prepared_at_readyok,
        "keep_alive" => keep_alive,
        "go_right_after_newgame" => go_right_after_newgame,
        "initialises_at_isready" => initialises_at_isready,
        "go_without_newgame" => go_without_newgame,
        "sfen_read_as_written" => |s| legal_reply(KING_ON_FILE_9)(s),
        "move_count_optional" => |s| legal_reply(NO_MOVE_COUNT)(s),
        "empty_moves" => |s| legal_reply("startpos moves")(s),
        "two_digit_hand" => |s| legal_reply(TEN_PAWNS)(s),
        "hand_in_any_order" => |s| legal_reply(HAND_OUT_OF_ORDER)(s),
        "white_to_move" => |s| legal_reply(F_HANDI)(s),
        "drop_notation" => drop_notation,
        "non_promotion_applied" => |s| legal_reply(F_NOPROMO)(s),
        "rebuild_every_position" => rebuild_every_position,
        "avoids_fourth_repetition" => avoids_fourth_repetition,
        "avoids_perpetual_check" => avoids_perpetual_check,
        "own_id_name" => own_id_name,
        "entering_king_rule_followed" => entering_king_rule_followed,
        "position_is_silent" => position_is_silent,
        "bad_position_survives" => bad_position_survives,
        "long_game" => long_game,
        "forced_mode" => forced_mode,
        "one_bestmove_per_go" => one_bestmove_per_go,
        "colours_are_absolute" => |s| {
            timed(
                "startpos moves 7g7f",
                "btime 600000 wtime 1000 byoyomi 0",
                1000,
            )(s)
        },
        "byoyomi_respected" => |s| timed("startpos", "btime 0 wtime 0 byoyomi 1000", 1000)(s),
        "byoyomi_with_little_main_time" => {
            |s| timed("startpos", "btime 500 wtime 500 byoyomi 500", 1000)(s)
        }
        "uses_byoyomi" => uses_byoyomi,
        "byoyomi_and_increment" => |s| {
            timed(
                "startpos",
                "btime 1000 wtime 1000 byoyomi 1000 binc 1000 winc 1000",
                2000,
            )(s)
        },
        "early_ponder" => early_ponder,
        "ponderhit_plain" => ponderhit_plain,
        "stochastic_ponder" => stochastic_ponder,
        "increment_respected" => |s| {
            timed(
                "startpos",
                "btime 1000 wtime 1000 binc 1000 winc 1000",
                2000,
            )(s)
        },
        "sudden_death_respected" => |s| timed("startpos", "btime 500 wtime 500 byoyomi 0", 500)(s),
        "movetime_respected" => |s| timed("startpos", "movetime 500", 500)(s),
        "infinite_waits_for_stop" => infinite_waits_for_stop,
        "searchmoves_respected" => searchmoves_respected,
        "node_limit_respected" => node_limit_respected,
        "odd_go_tokens" => odd_go_tokens,
        "bestmove_is_legal" => bestmove_is_legal,
        "ponder_waits" => ponder_waits,
        "ponderhit_starts_clock" => ponderhit_starts_clock,
        "ponder_miss" => ponder_miss,
        "quiet_when_idle" => quiet_when_idle,
        "gameover_ends_ponder" => gameover_ends_ponder,
        "resigns_when_mated" => resigns_when_mated,
        "declares_only_when_valid" => declares_only_when_valid,
        "info_lines" => info_lines,
        "mate_score" => mate_score,
        "book_move_reported" => book_move_reported,
        "go_mate_solves" => go_mate_solves,
        "go_mate_nomate" => go_mate_nomate,
        "go_mate_times_out" => go_mate_times_out,
        "go_mate_infinite_returns" => go_mate_infinite_returns,
        "stop_during_go_mate" => stop_during_go_mate,
        "kingless_tsume" => kingless_tsume,
        "go_mate_nodes" => go_mate_nodes,
        "games_in_a_row" => games_in_a_row,
        "memory_steady_across_games" => memory_steady_across_games,
        "quit_after_usiok" => quit_after_usiok,
        "quit_mid_search" => quit_mid_search,
        "eof_exits" => eof_exits,
        "unknown_commands_ignored" => unknown_commands_ignored,
        "extra_blanks" => extra_blanks,
        "crlf_input" => crlf_input,
        "blank_lines" => blank_lines,
        "pass_never_sent" => pass_never_sent,
        "normal_go_gets_bestmove" => normal_go_gets_bestmove,
        "multipv_lines_in_order" => multipv_lines_in_order,
        "sfen_pv_read_as_written" => sfen_pv_read_as_written,
        "kingless_tsume_replaces_the_board" => kingless_tsume_replaces_the_board,
        "in_check_with_drops" => |s| legal_reply(IN_CHECK_GOLDS)(s),
        other => panic!("no check {other}"),
    }
}

/// Every fault, the check that catches it, and a fragment of the failure it must cause.
#[rustfmt::skip]
const FAULT_CHECKS: &[(&str, &str, &str)] = &[
    ("no-id-name", "handshake", "id name and id author must precede usiok"),
    ("fairy-stockfish-name", "own_id_name", "names itself as Fairy-Stockfish: \"id name Fairy-Stockfish (usicheck reference engine)\""),
    ("no-id-author", "handshake", "id name and id author must precede usiok"),
    ("option-after-usiok", "handshake", "after usiok: unexpected \"option name ClearHash type button\""),
    ("no-usiok", "handshake", "no usiok within"),
    ("startup-banner", "handshake", "non-protocol line before usiok"),
    ("usiok-trailing-blank", "handshake", "terminator is \"usiok \", not exactly usiok"),
    ("slow-usiok", "handshake", "usiok took"),
    ("heavy-init-at-usi", "initialises_at_isready", "initialisation at launch"),
    ("crash-on-button", "setoption_survives", "engine exited with status 1"),
    ("crash-on-second-button", "presses_every_button", "engine exited with status 1"),
    ("option-name-with-space", "handshake", "option line does not parse: \"option name Skill Level type spin default 20 min 0 max 20\""),
    ("option-without-type", "handshake", "Contempt"),
    ("bad-option-type", "handshake", "Contempt: unknown option type \"integer\""),
    ("check-default-uppercase", "handshake", "ShowCurrMove: check default must be true|false"),
    ("button-with-default", "handshake", "ClearHash: button with a default"),
    ("spin-default-out-of-range", "handshake", "MultiPV: spin needs integer min <= default <= max"),
    ("combo-default-not-var", "handshake", "EnteringKingRule: combo default is not one of its vars"),
    ("string-without-default", "handshake", "EngineNote: no default (use <empty>)"),
    ("setoption-blocks-isready", "setoption_survives", "no readyok within"),
    ("crash-on-empty-value", "setoption_survives", "engine exited with status 1"),
    ("case-sensitive-names", "option_names_case_insensitive", "lower-case name rejected: \"info string No such option: multipv\""),
    ("crash-on-unknown-option", "setoption_survives", "engine exited with status 1"),
    ("crash-on-usi-ponder", "setoption_survives", "engine exited with status 1"),
    ("own-book-as-spin", "handshake", "USI_OwnBook must be a check (USI-OPTION-013)"),
    ("missing-multipv", "handshake", "option MultiPV is not advertised"),
    ("missing-threads", "handshake", "option Threads is not advertised"),
    ("missing-usi-hash", "handshake", "option USI_Hash is not advertised"),
    ("missing-usi-ponder", "handshake", "option USI_Ponder is not advertised"),
    ("setoption-after-newgame-ignored", "multipv_after_newgame", "no `multipv 2` line"),
    ("int64-spin-rejected", "setoption_survives", "engine exited with status 1"),
    ("no-readyok", "isready_twice", "no readyok within"),
    ("broken-basics", "isready_twice", "no readyok within"),
    ("double-readyok", "isready_twice", "readyok for 2 isready"),
    ("readyok-after-search", "isready_during_search", "no readyok within"),
    ("lazy-hash-allocation", "prepared_at_readyok", "no bestmove within"),
    ("silent-slow-init", "keep_alive", "of silence during isready"),
    ("heavy-newgame", "go_right_after_newgame", "no bestmove within"),
    ("needs-newgame", "go_without_newgame", "\"resign\" is not a USI move"),
    ("mirrored-sfen", "sfen_read_as_written", " is illegal in "),
    ("mirrored-pv", "sfen_pv_read_as_written", "pv: 1i"),
    ("require-move-count", "move_count_optional", "\"resign\" is not a USI move"),
    ("reject-empty-moves", "empty_moves", "\"resign\" is not a USI move"),
    ("single-digit-hands", "two_digit_hand", "\"resign\" is not a USI move"),
    ("crash-on-hand-order", "hand_in_any_order", "engine exited with status 1"),
    ("ignore-side-to-move", "white_to_move", " is illegal in "),
    ("at-sign-drops", "drop_notation", "\"G@5h\" is not a USI move"),
    ("lowercase-drops", "drop_notation", "\"g*5h\" is not a USI move"),
    ("skip-non-promotions", "non_promotion_applied", " is illegal in "),
    ("assume-continuity", "rebuild_every_position", " is illegal in "),
    ("ignore-history", "avoids_fourth_repetition", "walked into sennichite: \"bestmove 5b5a"),
    ("plays-perpetual-check", "avoids_perpetual_check", "completed a perpetual check: \"bestmove 3b3a"),
    ("search-on-position", "position_is_silent", "after position: unexpected \"info depth"),
    ("exit-on-bad-sfen", "bad_position_survives", "engine exited with status 1"),
    ("hang-on-illegal-move", "bad_position_survives", "no info string error within"),
    ("panic-on-illegal-move", "bad_position_survives", "engine exited with status 101"),
    ("silent-after-bad-position", "bad_position_survives", "no bestmove within"),
    ("hang-on-position", "in_check_with_drops", "no bestmove within"),
    ("stale-after-rejected-sfen", "kingless_tsume_replaces_the_board", "kingless tsume after startpos answered \"checkmate"),
    ("unprompted-bestmove", "forced_mode", "idle: unexpected \"bestmove resign\""),
    ("double-bestmove", "one_bestmove_per_go", "after the last bestmove: unexpected \"bestmove"),
    ("checkmate-for-go", "normal_go_gets_bestmove", "go btime 0 wtime 0 byoyomi 300 answered \"checkmate G*5b\""),
    ("occasional-double-bestmove", "one_bestmove_per_go", "after the last bestmove: unexpected \"bestmove"),
    ("swapped-clocks", "colours_are_absolute", "no bestmove within"),
    ("ignore-byoyomi", "uses_byoyomi", "moved after"),
    ("overrun-byoyomi", "byoyomi_respected", "bestmove after"),
    ("overrun-byoyomi-by-10ms", "byoyomi_respected", "bestmove after"),
    // The engine's first `go` with byoyomi is one it holds (its seeded one in five).
    ("occasional-late-byoyomi", "byoyomi_respected", "bestmove after"),
    ("clock-ignored-below-1s", "byoyomi_with_little_main_time", "bestmove after"),
    ("reject-byoyomi", "byoyomi_respected", "no bestmove within"),
    ("byoyomi-plus-increment", "byoyomi_and_increment", "bestmove after"),
    ("double-increment", "increment_respected", "bestmove after"),
    ("overrun-sudden-death", "sudden_death_respected", "bestmove after"),
    ("infinite-ends-early", "infinite_waits_for_stop", "before stop"),
    ("mated-infinite-resigns", "infinite_waits_for_stop", "before stop"),
    ("ignore-movetime", "movetime_respected", "bestmove after"),
    ("ignore-searchmoves", "searchmoves_respected", "searchmoves 1g1f gave"),
    ("ignore-node-limit", "node_limit_respected", "go nodes 1000 searched"),
    ("crash-on-unknown-go-token", "odd_go_tokens", "engine exited with status 1"),
    ("deaf-while-searching", "isready_during_search", "no readyok within"),
    ("illegal-ponder", "bestmove_is_legal", "ponder: "),
    ("early-ponder-bestmove", "ponder_waits", "while pondering"),
    ("ponder-leaks-bestmove", "ponder_waits", "while pondering"),
    ("ponderhit-ignored", "ponderhit_starts_clock", "no bestmove within"),
    ("ponder-clock-ignored", "ponderhit_plain", "no bestmove within"),
    ("ponderhit-clock-ignored", "early_ponder", "no bestmove within"),
    ("instant-ponderhit", "ponderhit_plain", "the ponder search had finished"),
    ("ponder-stop-silent", "ponder_miss", "no bestmove within"),
    ("self-ponder", "quiet_when_idle", "after bestmove: unexpected \"info depth"),
    ("ponder-ignores-gameover", "gameover_ends_ponder", "still searching after gameover"),
    ("slow-stop", "infinite_waits_for_stop", "no bestmove within"),
    ("no-bestmove-after-stop", "infinite_waits_for_stop", "no bestmove within"),
    ("stop-while-idle-bestmove", "forced_mode", "idle: unexpected \"bestmove resign\""),
    ("ponderhit-while-idle-bestmove", "forced_mode", "idle: unexpected \"bestmove resign\""),
    ("crash-on-ponderhit-args", "ponderhit_starts_clock", "engine exited with status 1"),
    ("bestmove-extra-tokens", "bestmove_is_legal", "bad bestmove line"),
    ("illegal-bestmove", "bestmove_is_legal", " is illegal in "),
    ("move-when-mated", "resigns_when_mated", "mated but answered \"bestmove 5i5h\""),
    ("invalid-win", "declares_only_when_valid", "\"win\" is not a USI move"),
    ("declares-with-nine-pieces", "declares_only_when_valid", "\"win\" is not a USI move"),
    ("entering-king-rule-by-prefix", "entering_king_rule_followed", "declared by the handicap rule under CSARule27: \"bestmove win\""),
    ("never-declares", "declares_only_when_valid", "valid declaration answered"),
    ("ponder-after-resign", "resigns_when_mated", "mated but answered \"bestmove resign ponder 5a4b\""),
    ("no-final-info", "info_lines", "no final info with pv before bestmove"),
    ("none-token", "resigns_when_mated", "mated but answered \"bestmove (none)\""),
    ("info-while-idle", "quiet_when_idle", "after readyok: unexpected \"info depth"),
    ("seldepth-without-depth", "info_lines", "seldepth without depth"),
    ("pv-without-time", "info_lines", "pv without time"),
    ("hashfull-out-of-range", "info_lines", "hashfull range"),
    ("bad-currmove", "info_lines", " is illegal in "),
    ("fractional-score", "info_lines", "bad score in"),
    ("mate-as-cp", "mate_score", "score cp 999999 pv G*5b"),
    ("mate-in-moves", "mate_score", "score mate 2 pv G*5b"),
    ("mate-sign-flipped", "mate_score", "score mate -1 pv G*5b"),
    ("unknown-mate-distance", "mate_score", "score mate + pv G*5b"),
    ("bound-before-score", "info_lines", "bad score in"),
    ("multipv-ignored", "multipv_after_newgame", "no `multipv 2` line"),
    ("multipv-out-of-order", "multipv_lines_in_order", "multipv 3 after multipv 1"),
    ("pv-not-last", "info_lines", "\"nodes\" after pv"),
    ("illegal-pv-move", "info_lines", "pv: "),
    ("string-with-pv", "info_lines", "\"string\" after pv"),
    ("exotic-info-tokens", "info_lines", "GUIs do not parse"),
    ("info-flood", "info_lines", "info lines in a 1 s search"),
    ("mate-limit-as-distance", "go_mate_times_out", "no checkmate within"),
    ("mate-answered-with-bestmove", "go_mate_solves", "go mate answered \"bestmove"),
    ("mate-searched-until-stop", "go_mate_nomate", "no checkmate within"),
    ("double-checkmate", "go_mate_solves", "after the checkmate reply"),
    ("non-mating-checkmate", "go_mate_solves", "does not end in mate"),
    ("illegal-checkmate", "go_mate_solves", " is illegal in "),
    ("nomate-on-mate", "go_mate_solves", "expected checkmate G*5b, got \"checkmate nomate\""),
    ("nomate-on-timeout", "go_mate_times_out", "unresolved search answered \"checkmate nomate\""),
    ("silent-mate-timeout", "go_mate_times_out", "no checkmate within"),
    ("mate-infinite-waits-stop", "go_mate_infinite_returns", "no checkmate within"),
    ("mate-stop-bestmove", "stop_during_go_mate", "go mate answered \"bestmove resign\""),
    ("reject-kingless-tsume", "kingless_tsume", "kingless tsume answered \"checkmate timeout\""),
    ("empty-checkmate", "go_mate_nomate", "\"\" is not a USI move"),
    ("checkmate-none", "go_mate_times_out", "\"none\" is not a USI move"),
    ("mate-nodes-ignored", "go_mate_nodes", "no checkmate within"),
    ("crash-on-gameover-draw", "games_in_a_row", "engine exited with status 1"),
    ("deaf-after-gameover", "games_in_a_row", "no readyok within"),
    ("resigns-after-gameover", "games_in_a_row", "resign"),
    ("gameover-reply", "games_in_a_row", "after gameover: unexpected \"gameover acknowledged\""),
    ("gameover-keeps-searching", "gameover_ends_ponder", "still searching after gameover"),
    ("crash-on-unknown-result", "games_in_a_row", "engine exited with status 1"),
    ("unknown-result-keeps-game", "games_in_a_row", "resign"),
    ("ignore-quit", "quit_after_usiok", "quit: still running after 1.5s"),
    ("quit-needs-stop", "quit_mid_search", "quit during go infinite: still running after 1.5s"),
    ("hang-on-eof", "eof_exits", "stdin closed: still running after 1.5s"),
    ("quit-needs-isready", "quit_after_usiok", "still running"),
    ("nonzero-exit", "quit_after_usiok", "exited with status 3"),
    ("crash-on-unknown-command", "unknown_commands_ignored", "engine exited with status 1"),
    ("unknown-command-reply", "unknown_commands_ignored", "non-protocol output \"Unknown command: foobar 1 2 3\""),
    ("strict-whitespace", "extra_blanks", "no bestmove within"),
    ("carriage-return-kept", "crlf_input", "no usiok within"),
    ("echo-blank-lines", "blank_lines", "gave [\"\", \"\", \"\", \"readyok\"]"),
    ("double-spaced-output", "bestmove_is_legal", "bad bestmove line"),
    ("buffered-output", "handshake", "no usiok within"),
    ("crash-on-bad-number", "odd_go_tokens", "engine exited with status 1"),
    ("long-game-rejected", "long_game", "\"resign\" is not a USI move"),
    ("chatty-stdout", "unknown_commands_ignored", "non-protocol output \"Loading evaluation files... done\""),
    ("crash-on-debug", "unknown_commands_ignored", "engine exited with status 1"),
    ("second-game-crash", "games_in_a_row", "engine exited with status 1"),
    ("crash-at-third-newgame", "games_in_a_row", "engine exited with status 1"),
    ("leak-per-game", "memory_steady_across_games", "resident memory grew across games"),
    ("non-ascii-option-name", "handshake", "option name \"定跡\" is not ASCII (USI-ENCODING-001)"),
    ("shift-jis-author", "handshake", "a handshake line is not UTF-8"),
    ("byte-order-mark", "handshake", "stdout starts with a byte-order mark"),
    ("crash-on-non-ascii-value", "setoption_survives", "engine exited with status 1"),
    ("special-token-mid-pv", "info_lines", "pv: \"rep_draw\" is not a USI move"),
    ("pass-bestmove", "pass_never_sent", "\"pass\" is not a USI move"),
    ("crash-on-extended-time", "odd_go_tokens", "engine exited with status 1"),
    ("book-without-info", "book_move_reported", "without info pv"),
    ("stochastic-ponderhit-untimed", "stochastic_ponder", "no bestmove within"),
];

/// Runs `check` on an engine with `fault` (or none): simulated, but for the memory check,
/// which reads the engine process's resident memory (its bounds are `T_PROCESS`).
fn run_check(check: &str, fault: Option<&str>) -> Result<(), String> {
    let faults: Vec<&str> = fault.into_iter().collect();
    let mut session = match check {
        "memory_steady_across_games" => Session::process(&faults, &[]),
        // A slow `isready`, to watch for keep-alive lines.
        "keep_alive" => Session::simulated(&faults, 2000),
        _ => Session::start(&faults),
    };
    let result = check_named(check)(&mut session);
    match result {
        Err(e) if !session.eof => Err(e),
        Err(e) => match session.wait_exit(Duration::from_millis(500)) {
            Some(termination) => Err(format!("{e} [engine {termination}]")),
            None => Err(e),
        },
        ok => ok,
    }
}

/// USI-EXT-018, USI-BESTMOVE-007: never `bestmove pass`, also when in check.
fn pass_never_sent(s: &mut Session) -> Result<(), String> {
    // White's king is checked by a black gold on 5b and can capture it or step aside.
    let position = "sfen 4k4/4G4/9/9/9/9/9/9/4K4 w - 1";
    s.ready()?;
    legal_search(s, position, "btime 0 wtime 0 byoyomi 300", T_REPLY).map(|_| ())
}

/// Runs jobs on `workers` threads; returns the failures.
/// A job: a check, and the fault to switch on with the failure fragment it must cause.
type Job = (String, Option<(String, String)>);

fn run_pool(jobs: Vec<Job>, workers: usize) -> Vec<String> {
    let jobs = Arc::new(Mutex::new(jobs));
    let failures = Arc::new(Mutex::new(Vec::new()));
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let (jobs, failures) = (jobs.clone(), failures.clone());
            thread::spawn(move || {
                loop {
                    let Some((check, fault)) = jobs.lock().unwrap().pop() else {
                        break;
                    };
                    let result = run_check(&check, fault.as_ref().map(|(f, _)| f.as_str()));
                    let failure = match (&fault, result) {
                        (None, Err(e)) => Some(format!("conformant engine fails {check}: {e}")),
                        (None, Ok(())) => None,
                        (Some((f, _)), Ok(())) => Some(format!("--fault {f} passes {check}")),
                        (Some((f, why)), Err(e)) if !e.contains(why.as_str()) => {
                            Some(format!("--fault {f} fails {check} for another reason: {e}"))
                        }
                        (Some(_), Err(_)) => None,
                    };
                    failures.lock().unwrap().extend(failure);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    Arc::try_unwrap(failures).unwrap().into_inner().unwrap()
}

/// The distinct checks of the table.
fn checks() -> Vec<&'static str> {
    let mut checks: Vec<&str> = FAULT_CHECKS.iter().map(|&(_, c, _)| c).collect();
    checks.sort();
    checks.dedup();
    checks
}

fn assert_no_failures(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_fault_is_in_the_table_once() {
    for f in Fault::ALL {
        assert!(
            FAULT_CHECKS.iter().any(|(n, _, _)| *n == f.name()),
            "fault {f} has no check"
        );
    }
    assert_eq!(
        FAULT_CHECKS.len(),
        Fault::ALL.len(),
        "a fault is listed twice"
    );
}

/// The handshake, isready during `go infinite`, silent `stop` while idle, ponder hit and miss,
/// one bestmove per go, resign on F-MATED, win on F-DECL-WIN but not F-DECL-27, bad position
/// then go, quit mid-search, … : every check passes on the reference engine.
#[test]
fn reference_engine_passes_every_check() {
    let jobs = checks()
        .into_iter()
        .map(|c| (c.to_string(), None))
        .collect();
    assert_no_failures(run_pool(jobs, 4));
}

/// Each fault makes its check fail.
#[test]
fn every_fault_fails_its_check() {
    let jobs = FAULT_CHECKS
        .iter()
        .map(|&(f, c, why)| (c.to_string(), Some((f.to_string(), why.to_string()))))
        .collect();
    assert_no_failures(run_pool(jobs, 8));
}

#[test]
fn list_faults_prints_name_rules_description() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_usicheck"))
        .args(["engine", "--list-faults"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let re =
        Regex::new(r"^[a-z0-9-]+\t((USI-[A-Z0-9]+-\d{3})(,USI-[A-Z0-9]+-\d{3})*)?\t\S.*$").unwrap();
    assert_eq!(text.lines().count(), Fault::ALL.len());
    for line in text.lines() {
        assert!(re.is_match(line), "{line:?}");
    }
}

#[test]
fn unknown_fault_is_a_usage_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_usicheck"))
        .args(["engine", "--fault", "no-such-fault"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-fault"));
}

// ---------------------------------------------------------------------------------------------
// Cross-check with the protocol model: the engine's output parses cleanly with
// `usi::Message::parse`, and line-level faults are diagnosed under the rules they name.

/// Every line of a session that exercises each kind of engine output.
fn output_sample(faults: &[&str]) -> Vec<String> {
    let mut s = Session::start(faults);
    s.send("usi");
    let _ = s.expect_prefix("usiok", T_REPLY);
    s.send("isready");
    let _ = s.expect_prefix("readyok", T_REPLY);
    for (position, go) in [
        ("startpos moves 7g7f", "depth 3"),
        (WHITE_DROP_MATE, "depth 2"),
        (F_MATED, "depth 2"),
        (F_DECL_WIN, "depth 2"),
    ] {
        let _ = s.search(position, go, T_REPLY);
    }
    for (position, go) in [
        (F_MATE1, "go mate 1000"),
        ("startpos", "go mate 1000"),
        (HARD_MATE, "go mate 300"),
    ] {
        s.send(&format!("position {position}"));
        s.send(go);
        let _ = s.expect_prefix("checkmate", Duration::from_millis(1500));
    }
    s.send("quit");
    s.collect(Duration::from_millis(200));
    s.transcript.clone()
}

#[test]
fn reference_output_parses_without_diagnostics() {
    for line in output_sample(&[]) {
        let (message, diags) = usicheck::usi::Message::parse(&line);
        assert!(diags.is_empty(), "{line:?}: {diags:?}");
        assert!(
            !matches!(message, usicheck::usi::Message::Unknown(_)),
            "unknown line {line:?}"
        );
    }
}

/// Faults whose deviation is visible in a single line.
const LINE_FAULTS: &[&str] = &[
    "usiok-trailing-blank",
    "option-name-with-space",
    "option-without-type",
    "bad-option-type",
    "check-default-uppercase",
    "button-with-default",
    "spin-default-out-of-range",
    "combo-default-not-var",
    "string-without-default",
    "own-book-as-spin",
    "non-ascii-option-name",
    "byte-order-mark",
    "at-sign-drops",
    "lowercase-drops",
    "bestmove-extra-tokens",
    "double-spaced-output",
    "ponder-after-resign",
    "none-token",
    "seldepth-without-depth",
    "pv-without-time",
    "hashfull-out-of-range",
    "fractional-score",
    "mate-as-cp",
    "bound-before-score",
    "pv-not-last",
    "string-with-pv",
    "exotic-info-tokens",
    "special-token-mid-pv",
    "empty-checkmate",
    "checkmate-none",
];

#[test]
fn line_faults_are_diagnosed_under_their_rules() {
    let failures = Arc::new(Mutex::new(Vec::new()));
    let queue = Arc::new(Mutex::new(LINE_FAULTS.to_vec()));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (failures, queue) = (failures.clone(), queue.clone());
            thread::spawn(move || {
                while let Some(name) = queue.lock().unwrap().pop() {
                    let fault: Fault = name.parse().unwrap();
                    let mut seen = Vec::new();
                    for line in output_sample(&[name]) {
                        let (_, diags) = usicheck::usi::Message::parse(&line);
                        seen.extend(diags.into_iter().map(|d| d.rule));
                    }
                    if !seen.iter().any(|r| fault.rules().contains(r)) {
                        failures.lock().unwrap().push(format!(
                            "{name}: rules {:?}, diagnosed {seen:?}",
                            fault.rules()
                        ));
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_no_failures(Arc::try_unwrap(failures).unwrap().into_inner().unwrap());
}

/// USI-QUIT-001 and USI-READY-004 together: a slow `isready` sends keep-alive lines and still
/// leaves at once on `quit`. On a process, as the slowness comes from its environment
/// (`USICHECK_ENGINE_INIT_MS`, which only the command line reads): hence `T_PROCESS`, far
/// below the minute of initialisation.
#[test]
fn quit_interrupts_a_slow_isready() {
    let mut s = Session::process(&[], &[("USICHECK_ENGINE_INIT_MS", "60000")]);
    s.send("usi");
    s.expect_prefix("usiok", s.reply_bound()).unwrap();
    s.send("isready");
    s.expect_prefix("info string", T_PROCESS).unwrap();
    s.send("quit");
    exits_cleanly_within(&mut s, "quit during isready", T_PROCESS).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Faults that reproduce real engines' broken basics, shown line by line.

/// `checkmate-for-go`: a mate-only engine answers every normal `go` as it answers `go mate`
/// with that search's budget: a mate, `timeout` when the budget runs out, and `go infinite`
/// and `go ponder` as `go mate infinite`, ended by `stop`. `go mate` itself stays correct.
#[test]
fn checkmate_for_go_answers_every_go_like_go_mate() {
    let mut s = Session::start(&["checkmate-for-go"]);
    s.ready().unwrap();
    s.send(&format!("position {F_MATE1}"));
    s.send("go btime 0 wtime 0 byoyomi 1000");
    let line = terminal_reply(&mut s, Duration::from_millis(1000) + GRACE).unwrap();
    assert_eq!(line, "checkmate G*5b");
    s.send(&format!("position {HARD_MATE}"));
    let start = s.now();
    s.send("go btime 0 wtime 0 byoyomi 500");
    let line = terminal_reply(&mut s, T_REPLY).unwrap();
    assert_eq!(line, "checkmate timeout");
    assert!(s.now() - start <= Duration::from_millis(500) + GRACE);
    for go in [
        "go infinite",
        "go ponder btime 1000 wtime 1000 byoyomi 1000",
    ] {
        s.send(go);
        let early = s.collect(Duration::from_millis(500));
        assert!(
            early.iter().all(|l| l.starts_with("info")),
            "{go}: {early:?}"
        );
        s.send("stop");
        assert_eq!(terminal_reply(&mut s, T_STOP).unwrap(), "checkmate timeout");
    }
    s.send(&format!("position {F_MATE1}"));
    s.send("go mate 1000");
    assert_eq!(
        terminal_reply(&mut s, Duration::from_millis(1000) + GRACE).unwrap(),
        "checkmate G*5b"
    );
    assert!(!s.transcript.iter().any(|l| l.starts_with("bestmove")));
}

/// `reject-byoyomi`: a `go` with `byoyomi` (0 too) gets one line on stderr and no reply; `stop`
/// then finds no search; `isready` and every other `go` form work.
#[test]
fn reject_byoyomi_answers_nothing_and_stays_responsive() {
    let mut s = Session::start(&["reject-byoyomi"]);
    s.ready().unwrap();
    s.send("position startpos");
    s.send("go btime 0 wtime 0 byoyomi 300");
    s.send("go btime 1000 wtime 1000 byoyomi 0");
    s.send("stop");
    silent(&mut s, "after two rejected go and stop", |_| false).unwrap();
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY).unwrap();
    for go in [
        "btime 1000 wtime 1000 binc 100 winc 100",
        "movetime 300",
        "depth 2",
    ] {
        legal_search(&mut s, "startpos", go, T_REPLY).unwrap();
    }
    s.send("go infinite");
    s.sleep(Duration::from_millis(200));
    s.send("stop");
    let (line, _) = s.expect_prefix("bestmove", T_STOP).unwrap();
    check_bestmove(&line, "startpos").unwrap();
    s.send(&format!("position {F_MATE1}"));
    s.send("go mate 1000");
    checkmate_reply(&mut s, F_MATE1, Duration::from_millis(1000) + GRACE).unwrap();
    s.send("quit");
    exits_cleanly(&mut s, "quit").unwrap();
    assert_eq!(
        s.stderr,
        [
            "error: byoyomi is not supported",
            "error: byoyomi is not supported"
        ]
    );
}

/// `stale-after-rejected-sfen`: the kingless tsume is rejected and the board before it is
/// searched, for `go mate` and for `go` (White's mating drop `G*5h`); `reject-kingless-tsume`
/// searches nothing instead.
#[test]
fn stale_after_rejected_sfen_answers_from_the_previous_position() {
    for (fault, mate, best) in [
        (
            "stale-after-rejected-sfen",
            "checkmate G*5h",
            "bestmove G*5h",
        ),
        (
            "reject-kingless-tsume",
            "checkmate timeout",
            "bestmove resign",
        ),
    ] {
        let mut s = Session::start(&[fault]);
        s.ready().unwrap();
        s.send(&format!("position {WHITE_DROP_MATE}"));
        s.send(&format!("position {KINGLESS_TSUME}"));
        let (error, _) = s.expect_prefix("info string error", T_REPLY).unwrap();
        assert!(error.contains("no king"), "{fault}: {error}");
        s.send("go mate 1000");
        let line = terminal_reply(&mut s, Duration::from_millis(1000) + GRACE).unwrap();
        assert_eq!(line, mate, "{fault}");
        s.send("go btime 0 wtime 0 byoyomi 300");
        let line = terminal_reply(&mut s, T_REPLY).unwrap();
        assert_eq!(line, best, "{fault}");
    }
}

/// The move `token` with the file digits of both squares reflected (9 as 1); drops too.
fn mirror_token(token: &str) -> String {
    token
        .char_indices()
        .map(|(i, c)| match c.to_digit(10) {
            Some(file) if i == 0 || i == 2 => char::from_digit(10 - file, 10).unwrap(),
            _ => c,
        })
        .collect()
}

/// `mirrored-pv`: for an SFEN position every `pv` move is the mirror of the true one, the
/// `bestmove` and `ponder` are right; `startpos` is unaffected.
#[test]
fn mirrored_pv_mirrors_only_the_pv_of_sfen_positions() {
    let mut s = Session::start(&["mirrored-pv"]);
    s.ready().unwrap();
    s.send("setoption name USI_Ponder value true");
    // Black's ten pawns against a bare king: the pv has pawn drops and king moves.
    for (position, mirrored) in [
        (TEN_PAWNS, true),
        (KING_ON_FILE_9, true),
        ("startpos", false),
    ] {
        s.send(&format!("position {position}"));
        s.send("go depth 3");
        let (line, infos) = s.expect_prefix("bestmove", T_REPLY).unwrap();
        check_bestmove(&line, position).unwrap();
        let root = position_of(position);
        let pvs: Vec<&String> = infos.iter().filter(|l| l.contains(" pv ")).collect();
        assert!(!pvs.is_empty(), "{position}: {infos:?}");
        for info in pvs {
            let (head, pv) = info.split_once(" pv ").unwrap();
            let shown: Vec<&str> = pv.split(' ').collect();
            let read: Vec<String> = if mirrored {
                shown.iter().map(|t| mirror_token(t)).collect()
            } else {
                shown.iter().map(|t| t.to_string()).collect()
            };
            let true_line = format!("{head} pv {}", read.join(" "));
            check_info(&true_line, &root, &mut 0).unwrap();
            // Black's only piece stands on file 9: as printed, the pv moves it from file 1.
            if position == KING_ON_FILE_9 {
                assert!(shown[0].starts_with("1i"), "{info}");
            }
        }
    }
}

/// `hang-on-position`: a `go` on USI-EXT-018's in-check position is never answered, not even
/// after `stop`; the engine still reads input (`isready`, a second `go` refused) and `quit`
/// ends it. Other positions are searched as usual.
#[test]
fn hang_on_position_never_answers_that_go() {
    let mut s = Session::start(&["hang-on-position"]);
    s.ready().unwrap();
    legal_search(&mut s, "startpos", "btime 0 wtime 0 byoyomi 300", T_REPLY).unwrap();
    // The same board under another move count.
    s.send("position sfen 4k4/9/9/9/4r4/9/9/9/4K4 b 2Gr2b2g4s4n4l18p 31");
    s.send("go btime 0 wtime 0 byoyomi 100");
    silent(&mut s, "the hung search", |_| false).unwrap();
    s.send("isready");
    s.expect_prefix("readyok", T_REPLY).unwrap();
    s.send("stop");
    silent(&mut s, "stop of the hung search", |_| false).unwrap();
    s.send("go depth 1");
    silent(&mut s, "a go during the hung search", |l| {
        l.starts_with("info string")
    })
    .unwrap();
    s.send("quit");
    exits_cleanly(&mut s, "quit during the hung search").unwrap();
}

/// `multipv-out-of-order`: with MultiPV 3 each iteration sends `multipv 1, 3, 2`, so the last
/// lines before `bestmove` read 1, 3, 2, 1; every line is well formed and its pv legal.
#[test]
fn multipv_out_of_order_sends_1_3_2_then_1() {
    let mut s = Session::start(&["multipv-out-of-order"]);
    s.ready().unwrap();
    s.send("setoption name MultiPV value 3");
    s.send("position startpos");
    s.send("go btime 0 wtime 0 byoyomi 300");
    let (line, infos) = s.expect_prefix("bestmove", T_REPLY).unwrap();
    check_bestmove(&line, "startpos").unwrap();
    let root = Position::startpos();
    let mut nodes = 0;
    for info in &infos {
        check_info(info, &root, &mut nodes).unwrap();
    }
    let numbers = multipv_numbers(&infos);
    assert!(numbers.ends_with(&[1, 3, 2, 1]), "{numbers:?}");
    assert!(
        numbers.chunks(3).all(|c| c == [1, 3, 2] || c == [1]),
        "{numbers:?}"
    );
}

/// The `nps` of the last `info` line of a `go btime 0 wtime 0 byoyomi 1000` searched by the
/// engine as a process with `args`.
fn nps_of_a_one_second_search(args: &[&str]) -> u64 {
    use std::io::{BufRead, BufReader, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_usicheck"))
        .arg("engine")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"usi\nisready\nposition startpos\ngo btime 0 wtime 0 byoyomi 1000\n")
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut nps = None;
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("a bestmove within 10 s");
        if let Some(value) = line.split(" nps ").nth(1) {
            nps = value.split_whitespace().next().and_then(|v| v.parse().ok());
        }
        if line.starts_with("bestmove") {
            break;
        }
    }
    let _ = stdin.write_all(b"quit\n");
    let _ = child.wait();
    nps.expect("an info line with nps")
}

#[test]
#[ignore = "slow tier: the engine's node rate against the wall clock"]
fn the_engine_as_a_process_searches_at_the_simulated_node_rate_unless_told_otherwise() {
    let rate = refengine::SIMULATED_NODES_PER_MS * 1000;
    let paced = nps_of_a_one_second_search(&[]);
    // Sleeping overshoots a little, never undershoots.
    assert!(
        (rate / 2..=rate + rate / 20).contains(&paced),
        "{paced} nps, paced at {rate}"
    );
    let free = nps_of_a_one_second_search(&["--nodes-per-ms", "0"]);
    assert!(free > 5 * rate, "{free} nps unpaced");
}
