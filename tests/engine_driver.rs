//! The engine driver against the scriptable fake engine: deadlines hold, nothing leaks,
//! memory stays bounded, output arrives in order and intact.

mod common;

use std::time::{Duration, Instant};

use common::{assert_group_gone, assert_within, fake_engine, rss_bytes};
use usicheck::engine::{
    Direction, EngineCommand, Escalation, Event, LineEnd, Patience, SendError, Session,
    SessionOptions, StartError, Stream, Termination, Unmet,
};

const SHORT: Duration = Duration::from_millis(300);
const LONG: Duration = Duration::from_secs(5);

fn start(rules: &[&str]) -> Session {
    Session::start(&fake_engine(rules), fast_options()).expect("fake engine starts")
}

fn fast_options() -> SessionOptions {
    SessionOptions {
        term_grace: SHORT,
        kill_grace: SHORT,
        send_timeout: SHORT,
        ..SessionOptions::default()
    }
}

fn stdout_texts(events: &usicheck::engine::Seen) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::Line(line) if line.stream == Stream::Stdout => Some(line.text.clone()),
            _ => None,
        })
        .collect()
}

mod starting {
    use super::*;

    #[test]
    fn a_session_can_move_to_another_thread() {
        fn assert_send<T: Send>() {}
        assert_send::<Session>();
    }

    fn start_error(command: EngineCommand) -> StartError {
        Session::start(&command, SessionOptions::default()).expect_err("must not start")
    }

    #[test]
    fn a_missing_binary_cannot_start() {
        let error = start_error(EngineCommand::new("/nonexistent/usicheck-engine"));
        assert!(matches!(error, StartError::NotFound { .. }), "{error}");
    }

    #[test]
    fn a_non_executable_file_cannot_start() {
        let path = std::env::temp_dir().join(format!("usicheck-noexec-{}", std::process::id()));
        std::fs::write(&path, "not a program").unwrap();
        let error = start_error(EngineCommand::new(&path));
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(error, StartError::NotExecutable { .. }), "{error}");
    }

    #[test]
    fn a_directory_cannot_start() {
        let error = start_error(EngineCommand::new(std::env::temp_dir()));
        assert!(matches!(error, StartError::IsDirectory { .. }), "{error}");
    }

    #[test]
    fn a_missing_working_directory_cannot_start() {
        let command = fake_engine(&[]).current_dir("/nonexistent/usicheck-dir");
        let error = start_error(command);
        assert!(
            matches!(error, StartError::BadWorkingDirectory { .. }),
            "{error}"
        );
    }

    #[test]
    fn argv_environment_and_working_directory_reach_the_engine() {
        let command = EngineCommand::new("/bin/sh")
            .args(["-c", "echo \"$USICHECK_TEST_VAR $0\"; pwd", "argv-zero"])
            .env("USICHECK_TEST_VAR", "a value with spaces")
            .current_dir("/");
        let mut session = Session::start(&command, fast_options()).unwrap();
        let found = session.expect(|line| line.text == "/", LONG).unwrap();
        assert_eq!(stdout_texts(&found.seen), ["a value with spaces argv-zero"]);
    }
}

mod lines {
    use super::*;

    #[test]
    fn lf_crlf_and_lone_cr_all_end_lines_and_the_last_line_needs_no_newline() {
        let mut session = start(&["start => raw a\\r\\nb\\rc\\nd; exit 0"]);
        let found = session.expect(|line| line.text == "d", LONG).unwrap();
        let mut ends: Vec<_> = found
            .seen
            .iter()
            .filter_map(|event| match event {
                Event::Line(line) => Some((line.text.clone(), line.end)),
                _ => None,
            })
            .collect();
        ends.push((found.line.text.clone(), found.line.end));
        assert_eq!(
            ends,
            [
                ("a".to_string(), LineEnd::CrLf),
                ("b".to_string(), LineEnd::Cr),
                ("c".to_string(), LineEnd::Lf),
                ("d".to_string(), LineEnd::Eof),
            ]
        );
    }

    #[test]
    fn invalid_utf8_is_decoded_lossily_and_flagged_and_nul_is_kept() {
        let mut session = start(&["start => raw id name \\xff\\xfeX\\0Y\\n"]);
        let found = session
            .expect(|line| line.text.starts_with("id name"), LONG)
            .unwrap();
        assert_eq!(found.line.text, "id name \u{fffd}\u{fffd}X\0Y");
        assert!(found.line.invalid_utf8);
    }

    #[test]
    fn a_100_mb_line_is_truncated_to_the_cap_and_counted() {
        let mut session = start(&["start => flood stdout 100000000 0; say after"]);
        let found = session
            .expect(|line| line.text.starts_with('x'), LONG)
            .unwrap();
        assert!(found.line.truncated);
        assert_eq!(found.line.text.len(), 1 << 20);
        assert_eq!(found.line.raw_len, 100_000_000 + "after".len() as u64);
        session.quit(SHORT);
        let notes = session
            .transcript()
            .entries()
            .iter()
            .any(|entry| entry.text == "line truncated: kept 1048576 of 100000005 bytes");
        assert!(notes, "{}", session.transcript());
    }

    #[test]
    fn output_trickled_byte_by_byte_is_one_line() {
        let mut session = start(&["start => trickle 5 readyok\\n"]);
        let found = session.expect(|line| line.text == "readyok", LONG).unwrap();
        assert_eq!(stdout_texts(&found.seen), Vec::<String>::new());
    }

    #[test]
    fn stderr_lines_are_events_but_never_match_an_expectation() {
        let mut session = start(&["start => err usiok; exit 0"]);
        let error = session
            .expect(|line| line.text == "usiok", LONG)
            .unwrap_err();
        assert_eq!(error.kind, Unmet::Exited(Termination::Exited(0)));
        assert!(error.seen.iter().any(|event| matches!(
            event,
            Event::Line(line) if line.stream == Stream::Stderr && line.text == "usiok"
        )));
    }
}

mod expecting {
    use super::*;

    #[test]
    fn events_arrive_in_order_with_monotonic_timestamps() {
        let mut session = start(&["isready => say 1; say 2; say 3; say 4; say readyok"]);
        session.send("isready").unwrap();
        let found = session.expect(|line| line.text == "readyok", LONG).unwrap();
        assert_eq!(stdout_texts(&found.seen), ["1", "2", "3", "4"]);
        let stamps: Vec<u64> = found.seen.iter().map(Event::at_micros).collect();
        assert!(stamps.windows(2).all(|pair| pair[0] <= pair[1]));
        assert!(found.line.at_micros >= *stamps.last().unwrap());
    }

    #[test]
    #[ignore = "slow tier: wall-clock deadline bounds of a real process"]
    fn a_silent_engine_times_out_at_the_deadline() {
        let mut session = start(&["start => hang"]);
        let start = Instant::now();
        let error = session.expect(|_| true, SHORT).unwrap_err();
        assert_eq!(error.kind, Unmet::Timeout);
        assert!(start.elapsed() >= SHORT);
        assert_within(start.elapsed(), SHORT);
    }

    #[test]
    fn a_crash_is_reported_with_its_signal_after_the_output_before_it() {
        let mut session = start(&["isready => say info string dying; signal 11"]);
        session.send("isready").unwrap();
        let error = session
            .expect(|line| line.text == "readyok", LONG)
            .unwrap_err();
        assert!(
            matches!(
                error.kind,
                Unmet::Exited(Termination::Signalled { signal: 11, .. })
            ),
            "{error}"
        );
        assert_eq!(stdout_texts(&error.seen), ["info string dying"]);
    }

    #[test]
    fn an_exit_status_is_reported() {
        let mut session = start(&["usi => exit 3"]);
        session.send("usi").unwrap();
        let error = session.expect(|_| true, LONG).unwrap_err();
        assert_eq!(error.kind, Unmet::Exited(Termination::Exited(3)));
    }

    #[test]
    fn a_keep_alive_wait_is_restarted_by_every_line() {
        let slow_ready = "isready => sleep 200; say info string loading; sleep 200; \
                          say info string loading; sleep 200; say readyok";
        let keep_alive = Patience::KeepAlive {
            idle: Duration::from_millis(450),
            cap: LONG,
        };
        let mut session = start(&[slow_ready]);
        session.send("isready").unwrap();
        let found = session.expect(|line| line.text == "readyok", keep_alive);
        assert!(found.is_ok(), "{:?}", found.err());

        let mut session = start(&[slow_ready]);
        session.send("isready").unwrap();
        let error = session
            .expect(|line| line.text == "readyok", Duration::from_millis(450))
            .unwrap_err();
        assert_eq!(error.kind, Unmet::Timeout);
    }

    #[test]
    #[ignore = "slow tier: wall-clock deadline bounds of a real process"]
    fn a_keep_alive_wait_stops_at_its_cap() {
        // A line every 200 ms for 3 s: without the cap the wait would last over 3 s.
        let chatty =
            "isready => trickle 100 a\\nb\\nc\\nd\\ne\\nf\\ng\\nh\\ni\\nj\\nk\\nl\\nm\\nn\\no\\n";
        let mut session = start(&[chatty]);
        session.send("isready").unwrap();
        let cap = Duration::from_millis(250);
        let keep_alive = Patience::KeepAlive {
            idle: Duration::from_millis(300),
            cap,
        };
        let start = Instant::now();
        let error = session
            .expect(|line| line.text == "readyok", keep_alive)
            .unwrap_err();
        assert_eq!(error.kind, Unmet::Timeout);
        assert_within(start.elapsed(), cap);
    }

    #[test]
    #[ignore = "slow tier: wall-clock deadline bounds of a real process"]
    fn closing_stdout_while_running_is_eof_not_a_hang() {
        let mut session = start(&["start => close-stdout; hang"]);
        let start = Instant::now();
        let error = session.expect(|_| true, LONG).unwrap_err();
        assert_eq!(error.kind, Unmet::Eof);
        assert!(start.elapsed() < LONG);
    }

    #[test]
    #[ignore = "slow tier: wall-clock deadline bounds of a real process"]
    fn an_exit_is_reported_even_when_a_grandchild_holds_stdout_open() {
        let mut session = start(&["usi => fork-holder; exit 0"]);
        let pgid = session.pid();
        session.send("usi").unwrap();
        let start = Instant::now();
        let error = session.expect(|_| true, LONG).unwrap_err();
        assert_eq!(error.kind, Unmet::Exited(Termination::Exited(0)));
        assert!(start.elapsed() < LONG, "waited for an EOF that never comes");
        assert!(!session.stdout_closed());
        let report = session.quit(SHORT);
        assert_eq!(report.escalation, Escalation::None);
        assert_group_gone(pgid);
    }

    #[test]
    #[ignore = "slow tier: wall-clock deadline bounds of a real process"]
    fn silence_holds_for_its_duration_and_breaks_on_a_matching_line() {
        let mut session = start(&["isready => say readyok", "go => say bestmove resign"]);
        session.send("isready").unwrap();
        let start = Instant::now();
        let seen = session
            .expect_silence(|line| line.text.starts_with("bestmove"), SHORT)
            .unwrap();
        assert!(start.elapsed() >= SHORT);
        assert_eq!(stdout_texts(&seen), ["readyok"]);
        session.send("go").unwrap();
        let broken = session
            .expect_silence(|line| line.text.starts_with("bestmove"), LONG)
            .unwrap_err();
        assert_eq!(broken.line.text, "bestmove resign");
    }

    #[test]
    #[ignore = "slow tier: wall-clock deadline bounds of a real process"]
    fn drain_returns_what_arrived_without_waiting() {
        let mut session = start(&["isready => say readyok", "ping => say pong"]);
        session.send("isready").unwrap();
        session.send("ping").unwrap();
        session.expect(|line| line.text == "pong", LONG).unwrap();
        let start = Instant::now();
        assert!(session.drain().is_empty());
        assert!(start.elapsed() < SHORT);
    }
}

mod sending {
    use super::*;

    #[test]
    #[ignore = "slow tier: wall-clock deadline bounds of a real process"]
    fn a_write_to_an_engine_that_does_not_read_times_out() {
        let mut session = start(&["start => hang"]);
        let line = "x".repeat(64 * 1024);
        let start = Instant::now();
        let error = loop {
            if let Err(error) = session.send(&line) {
                break error;
            }
            assert!(start.elapsed() < LONG, "pipe never filled");
        };
        assert!(matches!(error, SendError::Timeout { .. }), "{error}");
        assert_within(start.elapsed(), SHORT);
    }

    #[test]
    fn raw_bytes_are_sent_as_given_and_noted_in_the_transcript() {
        let mut session = start(&["isready => say readyok"]);
        session.send_raw(b"isready\r\n").unwrap();
        session.expect(|line| line.text == "readyok", LONG).unwrap();
        let noted = session
            .transcript()
            .entries()
            .iter()
            .any(|entry| entry.text == "previous line sent raw: 9 bytes, no newline added");
        assert!(noted, "{}", session.transcript());
    }

    #[test]
    fn a_write_to_an_exited_engine_fails_as_closed() {
        let mut session = start(&["start => exit 0"]);
        session.expect(|_| true, LONG).unwrap_err();
        let error = session.send("isready").unwrap_err();
        assert_eq!(error, SendError::Closed);
    }
}

mod quitting {
    use super::*;

    #[test]
    fn an_engine_that_obeys_quit_exits_without_signals() {
        let mut session = start(&[]);
        let pgid = session.pid();
        let report = session.quit(LONG);
        assert_eq!(report.escalation, Escalation::None);
        assert_eq!(report.termination, Some(Termination::Exited(0)));
        assert_group_gone(pgid);
    }

    #[test]
    fn a_crash_on_quit_is_reported_without_escalation() {
        let mut session = start(&["quit => signal 6"]);
        let report = session.quit(LONG);
        assert_eq!(report.escalation, Escalation::None);
        assert!(
            matches!(
                report.termination,
                Some(Termination::Signalled { signal: 6, .. })
            ),
            "{report:?}"
        );
    }

    #[test]
    #[ignore = "slow tier: wall-clock deadline bounds of a real process"]
    fn an_engine_ignoring_quit_gets_sigterm() {
        let mut session = start(&["quit =>"]);
        let pgid = session.pid();
        let report = session.quit(SHORT);
        assert_eq!(report.escalation, Escalation::Sigterm);
        assert_eq!(
            report.termination,
            Some(Termination::Signalled {
                signal: libc::SIGTERM,
                core_dumped: false
            })
        );
        assert_within(report.elapsed, SHORT * 2);
        assert_group_gone(pgid);
    }

    #[test]
    #[ignore = "slow tier: wall-clock deadline bounds of a real process"]
    fn an_engine_ignoring_quit_and_sigterm_gets_sigkill_with_its_grandchildren() {
        let mut session = start(&["start => ignore-term; fork-holder", "quit =>"]);
        let pgid = session.pid();
        let report = session.quit(SHORT);
        assert_eq!(report.escalation, Escalation::Sigkill);
        assert_within(report.elapsed, SHORT * 3);
        assert_group_gone(pgid);
        let transcript = session.transcript().to_string();
        assert!(transcript.contains("# sent SIGTERM to process group"));
        assert!(transcript.contains("# killed by signal 9 (SIGKILL)"));
    }

    #[test]
    #[ignore = "slow tier: wall-clock deadline bounds of a real process"]
    fn dropping_a_session_kills_the_whole_group() {
        let session = start(&["start => fork-holder; ignore-term; hang"]);
        let pgid = session.pid();
        std::thread::sleep(Duration::from_millis(50));
        let start = Instant::now();
        drop(session);
        assert_within(start.elapsed(), Duration::ZERO);
        assert_group_gone(pgid);
    }
}

mod flooding {
    use super::*;

    const GIB: u64 = 1 << 30;

    fn assert_memory_bounded_under_flood(stream: &str) {
        let rules = format!("start => flood {stream} {GIB} 1000");
        let mut session = start(&[&rules]);
        let pgid = session.pid();
        let before = rss_bytes();
        let error = session
            .expect(|line| line.text == "readyok", Duration::from_secs(2))
            .unwrap_err();
        let grown = rss_bytes().saturating_sub(before);
        eprintln!(
            "{stream} flood: {} lines in 2 s, RSS grew by {} KiB",
            error.seen.total(),
            grown >> 10
        );
        assert_eq!(error.kind, Unmet::Timeout);
        assert!(
            error.seen.total() > 10_000,
            "flood too slow to test anything"
        );
        assert!(error.seen.omitted() > 0);
        assert!(session.transcript().omitted() > 0);
        assert!(grown < 150 << 20, "memory grew by {grown} bytes");
        session.quit(SHORT);
        assert_group_gone(pgid);
    }

    #[test]
    #[ignore = "slow tier: a flood's rate and memory on this machine"]
    fn a_stdout_flood_keeps_memory_bounded_and_deadlines_hold() {
        assert_memory_bounded_under_flood("stdout");
    }

    #[test]
    #[ignore = "slow tier: a flood's rate and memory on this machine"]
    fn a_stderr_flood_keeps_memory_bounded_and_deadlines_hold() {
        assert_memory_bounded_under_flood("stderr");
    }

    /// A flood read to the end ends with the exit, not a timeout. (It does not reliably hit
    /// the stall when the reader thread held a partial line as the session started waiting:
    /// src/engine/queue.rs's unit test forces that race.)
    #[test]
    fn a_flood_is_read_to_the_end_without_stalling() {
        let mut session = start(&["start => flood stdout 30000000 1000; exit 0"]);
        let error = session
            .expect(|line| line.text == "readyok", Duration::from_secs(60))
            .unwrap_err();
        assert_eq!(error.kind, Unmet::Exited(Termination::Exited(0)));
        assert_eq!(error.seen.total(), 30_000 + 3);
    }

    /// Reads a whole gigabyte to the end: slow in debug builds, hence ignored by default. It
    /// was the only test to hit the partial-line stall reliably; the default-run
    /// `a_partial_line_the_reader_held_as_the_session_began_waiting_arrives_promptly` (in
    /// src/engine/queue.rs) now forces that race deterministically.
    #[test]
    #[ignore = "slow tier: a gigabyte through a pipe, timed"]
    fn a_whole_gigabyte_is_read_to_the_end_in_bounded_memory() {
        let rules = format!("start => flood stdout {GIB} 1000; exit 0");
        let mut session = start(&[&rules]);
        let before = rss_bytes();
        let start = Instant::now();
        let error = session
            .expect(|line| line.text == "readyok", Duration::from_secs(300))
            .unwrap_err();
        let elapsed = start.elapsed();
        let grown = rss_bytes().saturating_sub(before);
        eprintln!(
            "1 GiB in {elapsed:?} ({:.0} MB/s), {} lines, RSS grew by {} KiB",
            GIB as f64 / 1e6 / elapsed.as_secs_f64(),
            error.seen.total(),
            grown >> 10
        );
        assert_eq!(error.kind, Unmet::Exited(Termination::Exited(0)));
        assert_eq!(error.seen.total(), GIB / 1000 + 1 + 3);
        assert!(grown < 150 << 20, "memory grew by {grown} bytes");
    }
}

mod transcript {
    use super::*;

    #[test]
    fn every_direction_and_process_event_is_recorded_in_order() {
        let mut session = start(&["usi => say id name Fake; err warming up; say usiok"]);
        session.send("usi").unwrap();
        session.expect(|line| line.text == "usiok", LONG).unwrap();
        session.quit(LONG);
        let kept: Vec<(Direction, String)> = session
            .transcript()
            .entries()
            .iter()
            .map(|entry| (entry.direction, entry.text.clone()))
            .collect();
        let position = |direction, text: &str| {
            kept.iter()
                .position(|(d, t)| *d == direction && t == text)
                .unwrap_or_else(|| panic!("{text} missing from {kept:?}"))
        };
        let order = [
            position(Direction::ToEngine, "usi"),
            position(Direction::FromEngine, "id name Fake"),
            position(Direction::FromEngine, "usiok"),
            position(Direction::ToEngine, "quit"),
            position(Direction::Note, "exited with status 0"),
        ];
        assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{kept:?}");
        position(Direction::Stderr, "warming up");
        let rendered = session.transcript().to_string();
        assert!(rendered.contains(" > usi\n"), "{rendered}");
        assert!(rendered.contains(" < id name Fake\n"), "{rendered}");
        assert!(rendered.contains(" ! warming up\n"), "{rendered}");
    }

    #[test]
    fn the_full_transcript_is_streamed_to_a_file() {
        let path =
            std::env::temp_dir().join(format!("usicheck-transcript-{}.log", std::process::id()));
        let options = SessionOptions {
            transcript_path: Some(path.clone()),
            ..fast_options()
        };
        let mut session =
            Session::start(&fake_engine(&["isready => say readyok"]), options).unwrap();
        session.send("isready").unwrap();
        session.expect(|line| line.text == "readyok", LONG).unwrap();
        session.quit(LONG);
        let written = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(written, session.transcript().to_string());
        assert!(written.lines().any(|line| line.ends_with(" < readyok")));
    }
}
