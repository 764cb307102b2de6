//! The `perft`, `moves` and `validate` subcommands: output formats and exit codes.

use assert_cmd::Command;

fn usicheck() -> Command {
    Command::cargo_bin("usicheck").unwrap()
}

fn stdout_of(args: &[&str], stdin: &str, code: i32) -> String {
    let out = usicheck()
        .args(args)
        .write_stdin(stdin)
        .assert()
        .code(code)
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

fn stderr_of(args: &[&str], stdin: &str) -> String {
    let out = usicheck()
        .args(args)
        .write_stdin(stdin)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn perft_prints_the_count() {
    assert_eq!(
        stdout_of(&["perft", "--sfen", "startpos", "--depth", "3"], "", 0),
        "25470\n"
    );
    let sfen = "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1";
    assert_eq!(
        stdout_of(&["perft", "--sfen", sfen, "--depth", "2"], "", 0),
        "28684\n"
    );
}

#[test]
fn perft_divide_prints_sorted_moves_then_total() {
    let out = stdout_of(
        &["perft", "--sfen", "startpos", "--depth", "2", "--divide"],
        "",
        0,
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 31);
    assert_eq!(lines[0], "1g1f 30");
    assert_eq!(lines[30], "total 900");
}

#[test]
fn perft_suite_passes_and_fails() {
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/data/perft/public.tsv");
    let out = stdout_of(&["perft", "--suite", suite, "--max-nodes", "100000"], "", 0);
    assert!(out.contains("PASS startpos depth 3 nodes 25470\n"), "{out}");
    assert!(out.lines().last().unwrap().starts_with("total: "), "{out}");
    let dir = std::env::temp_dir().join(format!("usicheck-suite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.tsv");
    std::fs::write(&bad, "name\tsfen\tcounts\nwrong\tstartpos\t30,901\n").unwrap();
    let out = stdout_of(&["perft", "--suite", bad.to_str().unwrap()], "", 1);
    assert_eq!(
        out,
        "PASS wrong depth 1 nodes 30\nFAIL wrong (line 2) depth 2 expected 901 got 900\ntotal: 1 passed, 1 failed, 0 skipped\n"
    );
    let broken = dir.join("broken.tsv");
    std::fs::write(&broken, "x\tnot an sfen\t1\n").unwrap();
    let err = stderr_of(&["perft", "--suite", broken.to_str().unwrap()], "");
    assert!(err.contains("broken.tsv:1: bad SFEN at column"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn perft_stdin_batches() {
    let out = stdout_of(
        &["perft", "--stdin"],
        "startpos\t2\n4k4/9/9/9/9/9/9/9/4K4 b P 1\t1\n",
        0,
    );
    assert_eq!(
        out,
        "startpos\t2\t900\n4k4/9/9/9/9/9/9/9/4K4 b P 1\t1\t76\n"
    );
    let err = stderr_of(&["perft", "--stdin"], "startpos\t2\nstartpos\n");
    assert_eq!(
        err,
        "usicheck: error: stdin line 2: expected sfen<TAB>depth\n"
    );
}

#[test]
fn moves_prints_sorted_legal_moves() {
    assert_eq!(
        stdout_of(&["moves", "--sfen", "4k4/9/9/9/9/9/9/9/4K4 b - 1"], "", 0),
        "5i4h 5i4i 5i5h 5i6h 5i6i\n"
    );
    let out = stdout_of(
        &["moves", "--stdin"],
        "4k4/9/9/9/9/9/4s4/4g4/4K4 b 2r2b3g3s4n4l18p 1\n",
        0,
    );
    assert_eq!(out, "4k4/9/9/9/9/9/4s4/4g4/4K4 b 2r2b3g3s4n4l18p 1\t\n");
}

#[test]
fn validate_exit_codes_and_reasons() {
    assert_eq!(
        stdout_of(&["validate", "--sfen", "startpos"], "", 0),
        "legal\n"
    );
    let out = stdout_of(
        &["validate", "--sfen", "P3k4/9/9/9/9/9/9/9/4K4 b 18P 1"],
        "",
        1,
    );
    assert_eq!(
        out,
        "P on 9a can never move (dead piece)\n19 pieces of kind P in total, at most 18 exist\n"
    );
    let tsume = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";
    stdout_of(&["validate", "--sfen", tsume], "", 1);
    assert_eq!(
        stdout_of(&["validate", "--lenient", "--sfen", tsume], "", 0),
        "legal\n"
    );
    let out = stdout_of(
        &["validate", "--stdin"],
        "startpos\n4k4/9/9/9/9/9/9/9/4K2KK b - 1\n",
        1,
    );
    assert_eq!(
        out,
        "startpos\tlegal\n4k4/9/9/9/9/9/9/9/4K2KK b - 1\tillegal: black has 3 kings\n"
    );
}

#[test]
fn bad_input_is_one_line_and_exit_two() {
    for args in [
        vec!["perft", "--sfen", "4k4/9/9 b - 1", "--depth", "1"],
        vec!["moves", "--sfen", "4k4/9/9/9/9/9/9/9/4K4 q - 1"],
        vec!["validate", "--sfen", "4k4/9/9/9/9/9/9/9/4+K4 b - 1"],
    ] {
        let err = stderr_of(&args, "");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("usicheck: error: --sfen: bad SFEN at column "),
            "{err}"
        );
    }
    let err = stderr_of(&["moves", "--stdin"], "startpos\n\u{1b}[31m\n");
    assert!(
        err.starts_with("usicheck: error: stdin line 2: bad SFEN"),
        "{err}"
    );
}
