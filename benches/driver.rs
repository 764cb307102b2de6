//! isready/readyok round trips per second: through the driver, and over raw pipes.
//!
//! Both measurements talk to the same trivial echo engine (this binary re-run with
//! `USICHECK_BENCH_ECHO=1`), alternating, so the ratio is taken under the same machine load.
//! Usage: `cargo bench --bench driver [-- ROUND_TRIPS]`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use usicheck::engine::{EngineCommand, Session, SessionOptions};

const ECHO_ENV: &str = "USICHECK_BENCH_ECHO";

fn main() {
    if std::env::var_os(ECHO_ENV).is_some() {
        echo_engine();
        return;
    }
    let round_trips = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(20_000u32);
    let mut best_raw = 0.0f64;
    let mut best_driver = 0.0f64;
    for _ in 0..3 {
        best_raw = best_raw.max(raw_pipe_rate(round_trips));
        best_driver = best_driver.max(driver_rate(round_trips));
    }
    println!("round trips per run: {round_trips} (best of 3 runs each)");
    println!("raw pipe ping-pong : {best_raw:>10.0} round trips/s");
    println!("usicheck driver    : {best_driver:>10.0} round trips/s");
    println!("ratio driver/raw   : {:>10.2}x", best_driver / best_raw);
}

/// The trivial engine: `readyok` for every `isready`, exit on `quit` or EOF.
fn echo_engine() {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        match line.as_deref() {
            Ok("isready") => {
                stdout.write_all(b"readyok\n").unwrap();
                stdout.flush().unwrap();
            }
            Ok("quit") | Err(_) => return,
            Ok(_) => {}
        }
    }
}

fn echo_command() -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env(ECHO_ENV, "1");
    command
}

fn raw_pipe_rate(round_trips: u32) -> f64 {
    let mut child = echo_command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut reply = String::new();
    let start = Instant::now();
    for _ in 0..round_trips {
        stdin.write_all(b"isready\n").unwrap();
        reply.clear();
        stdout.read_line(&mut reply).unwrap();
        assert_eq!(reply, "readyok\n");
    }
    let rate = f64::from(round_trips) / start.elapsed().as_secs_f64();
    drop(stdin);
    child.wait().unwrap();
    rate
}

fn driver_rate(round_trips: u32) -> f64 {
    let command = EngineCommand::new(std::env::current_exe().unwrap()).env(ECHO_ENV, "1");
    let mut session = Session::start(&command, SessionOptions::default()).unwrap();
    let start = Instant::now();
    for _ in 0..round_trips {
        session.send("isready").unwrap();
        session
            .expect(|line| line.text == "readyok", Duration::from_secs(10))
            .unwrap();
    }
    let rate = f64::from(round_trips) / start.elapsed().as_secs_f64();
    session.quit(Duration::from_secs(5));
    rate
}
