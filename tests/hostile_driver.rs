//! Driver regressions found by the hostile-engine zoo (tests/hostile.rs).

mod common;

use common::{assert_group_gone, assert_within, fake_engine};
use std::time::{Duration, Instant};
use usicheck::engine::{Line, Session, SessionOptions, Unmet};

const WAIT: Duration = Duration::from_millis(500);

/// A matcher slower than the flood (as a runner checking every line is, in a debug build),
/// yet quick enough that the lines queued before the deadline take little time to go through.
fn slow_match(line: &Line, text: &str) -> bool {
    std::thread::sleep(Duration::from_micros(50));
    line.text == text
}

/// A flood the caller cannot keep up with never leaves the queue empty: the waits must still
/// end at their deadlines (they used to run on until the flood stopped).
#[test]
#[ignore = "slow tier: deadlines under a real flood"]
fn waits_end_at_their_deadlines_while_a_flood_keeps_coming() {
    let engine = fake_engine(&["start => flood stdout 1000000000000 100"]);
    let mut session = Session::start(&engine, SessionOptions::default()).expect("starts");
    let pgid = session.pid();

    let started = Instant::now();
    let error = session
        .expect(|line| slow_match(line, "usiok"), WAIT)
        .unwrap_err();
    assert_eq!(error.kind, Unmet::Timeout);
    assert_within(started.elapsed(), WAIT);

    let started = Instant::now();
    let seen = session
        .expect_silence(|line| slow_match(line, "bestmove"), WAIT)
        .expect("no bestmove in a flood of x");
    assert!(seen.total() > 0);
    assert_within(started.elapsed(), WAIT);

    session.quit(Duration::from_millis(100));
    assert_group_gone(pgid);
}
