//! Output into a pipe its reader closed (`usicheck rules | head -1`) ends quietly: exit 0 and
//! no panic message, whichever subcommand prints.

use std::process::{Command, Stdio};

/// Runs `usicheck ARGS` with its stdout closed by the reader before it writes anything.
fn into_closed_pipe(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_usicheck"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("usicheck starts");
    drop(child.stdout.take());
    child.wait_with_output().expect("usicheck ends")
}

#[test]
fn listings_into_a_closed_pipe_end_quietly() {
    for args in [
        &["engine", "--list-faults"][..],
        &["rules"],
        &["list"],
        &["scenario-schema"],
        &["report-schema", "play"],
    ] {
        let output = into_closed_pipe(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "usicheck {args:?}: {:?}\n{stderr}",
            output.status
        );
        assert!(!stderr.contains("panicked"), "usicheck {args:?}:\n{stderr}");
    }
}
