//! Timing verdicts under load (issue 17): a reply that missed its deadline by less than
//! usicheck itself was held up, or than the engine waited for a CPU, is INFO "not judged:
//! load", never FAIL; the same reply on a quiet machine is judged. The load is real: the tests
//! stop usicheck (SIGSTOP) while a step waits, the engine, in its own process group, going on;
//! or they take the engine's CPU with a real-time busy loop while usicheck runs on another.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

/// A `go btime 0 wtime 0 byoyomi 300` (the engine takes 700 ms) awaited by `expect`.
fn scenario(expect: &str) -> String {
    format!(
        "name: a reply just after its deadline\n\
         rules: [USI-GO-004]\n\
         steps:\n  \
         - handshake: {{}}\n  \
         - send: position startpos\n  \
         - send: go btime 0 wtime 0 byoyomi 300\n  \
         - expect: {expect}\n"
    )
}

/// The step gives the reply 500 ms and judges its own timing.
const STEP_DEADLINE: &str = "{bestmove: legal, within: 500ms, rule: USI-GO-004, untimed: true}";

/// The always-on clock judges the reply against `byoyomi 300` + G.
const CLOCK_DEADLINE: &str = "{bestmove: legal, within: 3s}";

/// Runs the scenario awaiting the reply with `expect`; with `stall`, usicheck is stopped from
/// 250 ms to 250 ms + `stall` after the pre-flight.
fn run(expect: &str, stall: Option<Duration>) -> String {
    let dir = std::env::temp_dir().join(format!("usicheck-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let index = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let file = dir.join(format!("late-{index}.yaml"));
    std::fs::write(&file, scenario(expect)).expect("scenario written");
    let fake = common::fake_engine_path();
    let mut child = Command::new(env!("CARGO_BIN_EXE_usicheck"))
        .arg("run")
        .arg(&file)
        .arg("--")
        .arg(fake)
        .args([
            "usi => say id name Slow; say id author Zoo; say usiok",
            "isready => say readyok",
            PRE_FLIGHT_SEARCHES[0],
            PRE_FLIGHT_SEARCHES[1],
            PRE_FLIGHT_SEARCHES[2],
            "go => sleep 700; say bestmove 7g7f",
        ])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("usicheck starts");
    let stdout = after_pre_flight(&mut child);
    if let Some(stall) = stall {
        let pid = child.id() as i32;
        std::thread::sleep(Duration::from_millis(250));
        // SAFETY: signals to our own child, which is not reaped before `wait`.
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        std::thread::sleep(stall);
        unsafe { libc::kill(pid, libc::SIGCONT) };
    }
    child.wait().expect("usicheck ends");
    let _ = std::fs::remove_file(&file);
    stdout.join().expect("stdout read")
}

/// The fake engine's answers to the pre-flight's searches, at once: its control searches
/// (`byoyomi 100`) and its `go infinite` ended by `stop`. The load is timed from the end of
/// the pre-flight, so these keep it short and clean.
const PRE_FLIGHT_SEARCHES: [&str; 3] = [
    "go btime 0 wtime 0 byoyomi 100 => say bestmove 7g7f",
    "go infinite =>",
    "stop => say bestmove 7g7f",
];

/// Reads usicheck's stdout until the pre-flight's line (it streams one line per session as
/// it ends), so that the load the test makes falls on the scenario, whatever the pre-flight
/// took; the rest is read by a thread that returns everything.
fn after_pre_flight(child: &mut std::process::Child) -> std::thread::JoinHandle<String> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).expect("stdout") == 0 {
            break;
        }
        seen.push_str(&line);
        if line.contains("pre-flight") {
            break;
        }
    }
    std::thread::spawn(move || {
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut reader, &mut rest).expect("stdout");
        seen + &rest
    })
}

const STALL: Duration = Duration::from_millis(700);

#[test]
#[ignore = "slow tier: real load: SIGSTOP and busy loops (chrt -f needs root)"]
fn a_reply_late_by_less_than_usichecks_own_delay_is_not_judged_by_the_step() {
    let loaded = run(STEP_DEADLINE, Some(STALL));
    assert!(loaded.contains("INFO  USI-GO-004"), "{loaded}");
    assert!(loaded.contains("not judged: load."), "{loaded}");
    let quiet = run(STEP_DEADLINE, None);
    assert!(quiet.contains("FAIL  USI-GO-004"), "{quiet}");
    // A clock-rule check waits for the late reply, to tell late from never (USI-GO-002).
    assert!(
        quiet.contains("within 500 ms; got `bestmove 7g7f`, late"),
        "{quiet}"
    );
}

#[test]
#[ignore = "slow tier: real load: SIGSTOP and busy loops (chrt -f needs root)"]
fn a_reply_late_by_less_than_usichecks_own_delay_is_not_judged_by_the_clock() {
    let loaded = run(CLOCK_DEADLINE, Some(STALL));
    assert!(loaded.contains("INFO  USI-GO-004"), "{loaded}");
    assert!(loaded.contains("not judged: load."), "{loaded}");
    let quiet = run(CLOCK_DEADLINE, None);
    assert!(quiet.contains("FAIL  USI-GO-004"), "{quiet}");
    assert!(
        quiet.contains("300 ms after the deadline (btime 0 + byoyomi"),
        "{quiet}"
    );
}

/// Runs `go` (sent about 430 ms after the pre-flight) and awaits its reply for 5 s; the fake
/// engine, pinned to CPU 0, acts out `engine_go` for it. With `hog: Some((at, length))`, a
/// real-time busy loop holds CPU 0 from `at` for `length`. usicheck runs on CPU 1, unstalled.
fn run_pinned(go: &str, engine_go: &str, hog: Option<(Duration, Duration)>) -> String {
    // One busy loop at a time: two on CPU 0 would starve each other's engine.
    static HOG: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = HOG
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = std::env::temp_dir().join(format!("usicheck-starved-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let index = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let file = dir.join(format!("starved-{index}.yaml"));
    let scenario = format!(
        "name: an engine starved of its CPU\n\
         rules: [USI-GO-004]\n\
         steps:\n  \
         - handshake: {{}}\n  \
         - send: position startpos\n  \
         - sleep: 400ms\n  \
         - send: {go}\n  \
         - expect: {{bestmove: legal, within: 5s}}\n"
    );
    std::fs::write(&file, scenario).expect("scenario written");
    let mut child = Command::new("taskset")
        .args(["-c", "1"])
        .arg(env!("CARGO_BIN_EXE_usicheck"))
        .arg("run")
        .arg(&file)
        .args(["--", "taskset", "-c", "0"])
        .arg(common::fake_engine_path())
        .args([
            "usi => say id name Starved; say id author Zoo; say usiok",
            "isready => say readyok",
            PRE_FLIGHT_SEARCHES[0],
            PRE_FLIGHT_SEARCHES[1],
            PRE_FLIGHT_SEARCHES[2],
            &format!("go => {engine_go}"),
        ])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("usicheck starts");
    let stdout = after_pre_flight(&mut child);
    if let Some((at, length)) = hog {
        std::thread::sleep(at);
        // `timeout` stays outside the real-time class: on CPU 0 beside the loop it would never
        // run again to end it.
        let status = Command::new("timeout")
            .args(["-s", "KILL", &format!("{}", length.as_secs_f64())])
            .args(["chrt", "-f", "50", "taskset", "-c", "0"])
            .args(["sh", "-c", "while :; do :; done"])
            .status()
            .expect("timeout, chrt and taskset run");
        // `timeout` ends the loop with SIGKILL, which reaches its own process group too.
        use std::os::unix::process::ExitStatusExt;
        let ended = status.code() == Some(137) || status.signal() == Some(libc::SIGKILL);
        assert!(ended, "the busy loop ran until killed: {status}");
    }
    child.wait().expect("usicheck ends");
    let _ = std::fs::remove_file(&file);
    stdout.join().expect("stdout read")
}

fn two_cores() -> bool {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores < 2 {
        eprintln!("skipped: needs two cores (usicheck on one, the starved engine on the other)");
    }
    cores >= 2
}

/// The engine answers `go` after 100 ms, in time for `byoyomi 300` + G; with the busy loop
/// holding CPU 0 from 250 ms to 1450 ms after the pre-flight it reads its `go` (sent at about 430 ms) only then.
fn run_starved(hog: bool) -> String {
    let hog = hog.then_some((Duration::from_millis(250), Duration::from_millis(1200)));
    run_pinned(
        "go btime 0 wtime 0 byoyomi 300",
        "sleep 100; say bestmove 7g7f",
        hog,
    )
}

#[test]
#[ignore = "slow tier: real load: SIGSTOP and busy loops (chrt -f needs root)"]
fn a_reply_late_by_less_than_the_engine_waited_for_a_cpu_is_not_judged() {
    if !two_cores() {
        return;
    }
    let starved = run_starved(true);
    assert!(starved.contains("INFO  USI-GO-004"), "{starved}");
    assert!(
        starved.contains("the engine waited") && starved.contains("for a CPU meanwhile"),
        "{starved}"
    );
    let quiet = run_starved(false);
    assert!(quiet.contains("PASS  USI-GO-004"), "{quiet}");
}

/// An engine that keeps its time by the wall clock and answers 500 ms after its deadline
/// (byoyomi 2000 ms + G): starved for
/// 800 ms in mid-search (CPU 0 held from 100 ms to 900 ms after `go`), it still answers when
/// its own clock says, so the wait excuses nothing. It announced its search at once (`info`)
/// and waited for no CPU near its deadline: USI-GO-004 FAIL, not "not judged: load".
#[test]
#[ignore = "slow tier: real load: SIGSTOP and busy loops (chrt -f needs root)"]
fn a_wait_in_mid_search_does_not_excuse_an_overrun() {
    if !two_cores() {
        return;
    }
    let hog = Some((Duration::from_millis(530), Duration::from_millis(800)));
    let starved = run_pinned(
        "go btime 0 wtime 0 byoyomi 2000",
        "say info depth 1 score cp 0 pv 7g7f; spin 2600; say bestmove 7g7f",
        hog,
    );
    assert!(starved.contains("FAIL  USI-GO-004"), "{starved}");
    assert!(!starved.contains("not judged: load"), "{starved}");
}
