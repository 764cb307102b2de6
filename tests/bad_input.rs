//! Bad input to usicheck (issue 8): every malformed scenario, SFEN, rule ID, flag or path is
//! answered with exactly one line naming the place (file:line:column, or the flag), exit code 2,
//! and no panic. Table-driven: each row names the mistake and the place the error must name.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Row {
    mistake: &'static str,
    /// Files written to the row's scratch directory first.
    files: &'static [(&'static str, &'static str)],
    /// Arguments; `{dir}` stands for the scratch directory.
    args: &'static [&'static str],
    /// What the one error line must contain (`{dir}` as above).
    names: &'static str,
}

const fn row(
    mistake: &'static str,
    files: &'static [(&'static str, &'static str)],
    args: &'static [&'static str],
    names: &'static str,
) -> Row {
    Row {
        mistake,
        files,
        args,
        names,
    }
}

/// A scenario file named `s.yaml` with the usual head and one bad step line (line 4).
macro_rules! scenario_step {
    ($step:literal) => {
        &[(
            "s.yaml",
            concat!("name: x\nrules: [USI-READY-001]\nsteps:\n", $step, "\n"),
        )]
    };
}

const CHECK: &[&str] = &["scenario-check", "{dir}/s.yaml"];

const ROWS: &[Row] = &[
    // Scenario files: syntax, schema, semantics.
    row(
        "YAML syntax error",
        &[("s.yaml", "name: x\nrules: [USI-READY-001\nsteps: []\n")],
        CHECK,
        "{dir}/s.yaml:3:",
    ),
    row(
        "tab indentation",
        &[(
            "s.yaml",
            "name: x\nrules: [USI-READY-001]\nsteps:\n\t- send: usi\n",
        )],
        CHECK,
        "{dir}/s.yaml:4:",
    ),
    row(
        "unknown step kind",
        scenario_step!("  - sned: usi"),
        CHECK,
        "{dir}/s.yaml:4:5: unknown step `sned`",
    ),
    row(
        "two steps in one item",
        scenario_step!("  - {send: usi, expect: usiok}"),
        CHECK,
        "{dir}/s.yaml:4:",
    ),
    row(
        "unknown top-level key",
        &[("s.yaml", "name: x\nrules: [USI-READY-001]\nstep: []\n")],
        CHECK,
        "{dir}/s.yaml:3:",
    ),
    row(
        "missing steps",
        &[("s.yaml", "name: x\nrules: [USI-READY-001]\n")],
        CHECK,
        "{dir}/s.yaml",
    ),
    row(
        "wrong type: count is not a number",
        scenario_step!("  - repeat: {count: many, steps: [{send: usi}]}"),
        CHECK,
        "{dir}/s.yaml:4:",
    ),
    row(
        "wrong type: send is a list",
        scenario_step!("  - send: [usi, isready]"),
        CHECK,
        "{dir}/s.yaml:4:",
    ),
    row(
        "bad regex",
        scenario_step!("  - expect: {line: '(unclosed', within: 1s}"),
        CHECK,
        "{dir}/s.yaml:4:20: bad regex",
    ),
    row(
        "bad duration",
        scenario_step!("  - expect: {readyok: true, within: soon}"),
        CHECK,
        "{dir}/s.yaml:4:",
    ),
    row(
        "unknown capture",
        scenario_step!("  - send: 'position ${nope}'"),
        CHECK,
        "{dir}/s.yaml:4:",
    ),
    row(
        "unknown rule ID in a scenario",
        &[(
            "s.yaml",
            "name: x\nrules: [USI-NOPE-001]\nsteps: [{send: usi}]\n",
        )],
        CHECK,
        "{dir}/s.yaml:2:9: unknown rule ID `USI-NOPE-001`",
    ),
    row(
        "terminal escapes in a scenario key",
        &[("s.yaml", "name: x\n\u{1b}[31m: 1\n")],
        CHECK,
        "{dir}/s.yaml:2:",
    ),
    row(
        "not UTF-8",
        &[("s.yaml", "name: \u{0}x\n")],
        CHECK,
        "{dir}/s.yaml",
    ),
    row(
        "unreadable file (a directory)",
        &[],
        &["scenario-check", "{dir}"],
        "{dir}: cannot read",
    ),
    row(
        "missing scenario file",
        &[],
        &["scenario-check", "{dir}/none.yaml"],
        "{dir}/none.yaml: cannot read",
    ),
    row(
        "run: scenario that is neither a file nor bundled",
        &[],
        &["run", "{dir}/none.yaml", "--", "/bin/true"],
        "{dir}/none.yaml: no such file",
    ),
    row(
        "run: malformed scenario",
        scenario_step!("  - sned: usi"),
        &["run", "{dir}/s.yaml", "--", "/bin/true"],
        "{dir}/s.yaml:4:5:",
    ),
    // Rule IDs, SFEN and moves on the command line.
    row(
        "unknown rule ID",
        &[],
        &["rules", "USI-NOPE-001"],
        "`USI-NOPE-001`",
    ),
    row(
        "perft: bad SFEN",
        &[],
        &["perft", "--sfen", "xyz", "--depth", "1"],
        "--sfen",
    ),
    row(
        "moves: truncated SFEN",
        &[],
        &["moves", "--sfen", "lnsgkgsnl/9 b - 1"],
        "--sfen",
    ),
    row(
        "validate: bad SFEN",
        &[],
        &["validate", "--sfen", "9/9 x"],
        "--sfen",
    ),
    row(
        "perft: unreadable suite",
        &[],
        &["perft", "--suite", "{dir}/none.tsv", "--depth", "1"],
        "{dir}/none.tsv",
    ),
    // Contradictory, missing and malformed flags.
    row(
        "perft: --suite with --sfen",
        &[],
        &[
            "perft", "--suite", "x.tsv", "--sfen", "startpos", "--depth", "1",
        ],
        "'--suite <FILE>' cannot be used with '--sfen <SFEN>'",
    ),
    row(
        "perft: --max-nodes without --suite",
        &[],
        &["perft", "--max-nodes", "5", "--depth", "1"],
        "--suite",
    ),
    row("validate: no --sfen", &[], &["validate"], "--sfen"),
    row(
        "unknown subcommand",
        &[],
        &["frobnicate"],
        "unrecognized subcommand 'frobnicate'",
    ),
    row(
        "unknown profile",
        &[],
        &["certify", "--profile", "nope"],
        "'--profile <PROFILE>'",
    ),
    row(
        "jobs out of range",
        &[],
        &["certify", "--jobs", "0"],
        "'--jobs <JOBS>'",
    ),
    row(
        "claim of a rule that is not a vendor extension",
        &[],
        &["certify", "--claim", "USI-GO-004"],
        "--claim USI-GO-004",
    ),
    row(
        "selftest of an unknown rule",
        &[],
        &["selftest", "USI-NOPE-001"],
        "USI-NOPE-001",
    ),
    row(
        "selftest of an unknown fault",
        &[],
        &["selftest", "--fault", "no-such-fault"],
        "--fault no-such-fault",
    ),
    row(
        "mistyped bundled scenario",
        &[],
        &["run", "01-handshake/fast-usok"],
        "did you mean `01-handshake/fast-usiok`?",
    ),
    row(
        "mistyped section",
        &[],
        &["list", "01-handshak"],
        "did you mean `01-handshake`?",
    ),
    row(
        "mistyped rule to select by",
        &[],
        &["certify", "--rule", "USI-READY-06"],
        "--rule USI-READY-06: unknown rule ID `USI-READY-06`; did you mean `USI-READY-006`?",
    ),
    row(
        "malformed skip pattern",
        &[],
        &["certify", "--skip", "06-ponder/[p"],
        "--skip 06-ponder/[p",
    ),
    row(
        "a selection that leaves nothing",
        &[],
        &[
            "certify",
            "--rule",
            "USI-HANDSHAKE-008",
            "--skip",
            "01-handshake",
        ],
        "no scenario left to run",
    ),
    row(
        "mistyped subcommand",
        &[],
        &["certfy"],
        "similar subcommands exist: 'perft', 'certify'",
    ),
    row(
        "baseline with a mistyped rule",
        &[("b.tsv", "# accepted\nUSI-QUIT-02\t*\twhy\n")],
        &["run", "12-quit/quit-when-idle", "--baseline", "{dir}/b.tsv"],
        "b.tsv:2: unknown rule ID `USI-QUIT-02`; did you mean `USI-QUIT-002`?",
    ),
    row(
        "baseline waiver without a reason",
        &[("b.tsv", "USI-QUIT-002\t*\t\n")],
        &["certify", "--baseline", "{dir}/b.tsv"],
        "b.tsv:1: USI-QUIT-002: say why the deviation is accepted",
    ),
    row(
        "fuzz option with a space in its name",
        &[],
        &["fuzz", "--option", "bad name=1", "--", "engine"],
        "--option bad name=1",
    ),
    row(
        "fuzz with a mistyped claim",
        &[],
        &["fuzz", "--claim", "USI-EXT-15", "--", "engine"],
        "--claim USI-EXT-15: unknown rule ID",
    ),
    row(
        "fuzz in a missing directory",
        &[],
        &["fuzz", "--cwd", "{dir}/nowhere", "--", "engine"],
        "--cwd {dir}/nowhere: not a directory",
    ),
    row(
        "selftest of a rule no fault breaks",
        &[],
        &["selftest", "USI-RULES-003"],
        "USI-RULES-003",
    ),
    row(
        "zero usiok timeout",
        &[],
        &["certify", "--usiok-timeout", "0s"],
        "--usiok-timeout 0s",
    ),
    row(
        "negative ready timeout",
        &[],
        &["certify", "--ready-timeout", "-3s"],
        "--ready-timeout -3s",
    ),
    row(
        "negative usiok timeout",
        &[],
        &["run", "12-quit/quit-when-idle", "--usiok-timeout", "-1s"],
        "--usiok-timeout -1s",
    ),
    row(
        "negative quit timeout",
        &[],
        &["certify", "--quit-timeout", "-3s"],
        "--quit-timeout -3s",
    ),
    row(
        "zero quit timeout",
        &[],
        &["certify", "--quit-timeout=0ms"],
        "--quit-timeout 0ms",
    ),
    row(
        "timeout without a unit",
        &[],
        &["certify", "--ready-timeout", "30"],
        "--ready-timeout 30",
    ),
    row(
        "timeout flag without a value",
        &[],
        &["certify", "--usiok-timeout"],
        "--usiok-timeout",
    ),
    row(
        "fuzz quit timeout that is not a duration",
        &[],
        &[
            "fuzz",
            "--runs",
            "1",
            "--quit-timeout",
            "soon",
            "--",
            "{dir}/engine",
        ],
        "--quit-timeout soon",
    ),
    row(
        "option without a name",
        &[],
        &["certify", "--option", "=5"],
        "--option =5",
    ),
    row(
        "working directory that does not exist",
        &[],
        &["certify", "--cwd", "{dir}/none"],
        "--cwd {dir}/none",
    ),
    row(
        "missing engine_define.xml",
        &[],
        &["certify", "--engine-define", "{dir}/none.xml"],
        "{dir}/none.xml",
    ),
    // Engines that cannot be started.
    row(
        "nonexistent engine path",
        &[],
        &["certify", "--", "{dir}/no-engine"],
        "cannot start engine {dir}/no-engine: no such file",
    ),
    row(
        "engine path is a directory",
        &[],
        &["certify", "--", "{dir}"],
        "cannot start engine {dir}: it is a directory",
    ),
    row(
        "engine is not executable",
        &[("engine.sh", "#!/bin/sh\n")],
        &["certify", "--", "{dir}/engine.sh"],
        "cannot start engine {dir}/engine.sh: not executable",
    ),
    row(
        "bare engine name that is only in the current directory",
        &[("my-engine", "#!/bin/sh\n")],
        &["certify", "--", "my-engine"],
        "cannot start engine my-engine: not found on PATH; for the file in the current \
         directory, write ./my-engine",
    ),
    row(
        "bare engine name found nowhere",
        &[],
        &["certify", "--", "usicheck-no-such-engine"],
        "cannot start engine usicheck-no-such-engine: not found on PATH",
    ),
    row(
        "a simulated engine without a node rate",
        &[],
        &[
            "certify",
            "--simulate",
            "--",
            "usicheck",
            "engine",
            "--nodes-per-ms",
            "0",
        ],
        "--simulate: `--nodes-per-ms`: a simulated search needs a rate of at least one node per millisecond",
    ),
];

fn scratch(index: usize) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("usicheck-bad-input-{}-{index}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn check_row(index: usize, row: &Row) -> Result<(), String> {
    let dir = scratch(index);
    let fill = |text: &str| text.replace("{dir}", &dir.display().to_string());
    for (name, content) in row.files {
        let content = if row.mistake == "not UTF-8" {
            vec![b'n', b':', b' ', 0xff, 0xfe, b'\n']
        } else {
            content.as_bytes().to_vec()
        };
        std::fs::write(dir.join(name), content).expect("write");
    }
    let args: Vec<String> = row.args.iter().map(|a| fill(a)).collect();
    let output = Command::new(env!("CARGO_BIN_EXE_usicheck"))
        .args(&args)
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("usicheck runs");
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    let names = fill(row.names);
    if output.status.code() != Some(2) {
        return Err(format!(
            "exit {:?}, expected 2; stderr {stderr:?}",
            output.status
        ));
    }
    if stderr.contains("panicked") || lines.len() != 1 || !stderr.ends_with('\n') {
        return Err(format!("expected one error line, got {stderr:?}"));
    }
    if !lines[0].contains(&names) {
        return Err(format!("`{}` does not name `{names}`", lines[0]));
    }
    if let Some(c) = lines[0].chars().find(|c| c.is_control()) {
        return Err(format!("raw control character {c:?} in `{}`", lines[0]));
    }
    Ok(())
}

#[test]
fn every_bad_input_gets_one_line_naming_the_place_and_exit_2() {
    let failures: Vec<String> = ROWS
        .iter()
        .enumerate()
        .filter_map(|(index, row)| {
            check_row(index, row)
                .err()
                .map(|e| format!("{}: {e}", row.mistake))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Any value a scenario field could hold, for random YAML documents.
#[derive(Clone, Debug)]
enum Value {
    Scalar(String),
    List(Vec<Value>),
    Map(Vec<(String, Value)>),
}

impl Value {
    /// Flow-style YAML (JSON-like, with plain scalars when safe).
    fn render(&self, out: &mut String) {
        match self {
            Value::Scalar(text) => out.push_str(&format!("{text:?}")),
            Value::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.render(out);
                }
                out.push(']');
            }
            Value::Map(entries) => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&format!("{key:?}: "));
                    value.render(out);
                }
                out.push('}');
            }
        }
    }
}

/// Words a scenario is made of, and some that are near misses.
const WORDS: &[&str] = &[
    "name",
    "rules",
    "steps",
    "send",
    "send_raw",
    "expect",
    "expect_silence",
    "sleep",
    "handshake",
    "repeat",
    "count",
    "close_stdin",
    "expect_exit",
    "within",
    "rule",
    "forbid",
    "usiok",
    "readyok",
    "bestmove",
    "checkmate",
    "line",
    "info",
    "ponder",
    "legal",
    "status",
    "success",
    "options",
    "requires",
    "profiles",
    "USI-READY-001",
    "USI-NOPE-001",
    "T-USIOK",
    "T-READY + G",
    "500ms",
    "2s",
    "-1s",
    "usi",
    "isready",
    "position startpos",
    "position startpos moves 7g7f",
    "position sfen 9/9 b - 1",
    "${bestmove.move}",
    "${nope}",
    "(",
    "^id name",
    "true",
    "0",
    "4294967296",
    "~",
    "",
    "\u{1b}[31m",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(WORDS).prop_map(str::to_owned),
        1 => "[ -~]{0,12}",
    ]
}

fn value() -> impl Strategy<Value = Value> {
    word()
        .prop_map(Value::Scalar)
        .prop_recursive(4, 48, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::List),
                proptest::collection::vec((word(), inner), 0..5).prop_map(Value::Map),
            ]
        })
}

/// A document shaped like a scenario: mostly the right keys, random values.
fn document() -> impl Strategy<Value = String> {
    proptest::collection::vec((word(), value()), 0..5).prop_map(|entries| {
        let mut out = String::new();
        for (key, value) in entries {
            out.push_str(&format!("{key:?}: "));
            value.render(&mut out);
            out.push('\n');
        }
        out
    })
}

/// A load error is one line that starts by naming the file, with no raw control characters.
fn assert_one_line(
    result: Result<usicheck::scenario::Scenario, usicheck::scenario::LoadError>,
    file: &str,
) {
    if let Err(err) = result {
        let text = err.to_string();
        assert!(text.starts_with(&format!("{file}:")), "{text}");
        assert!(!text.contains(char::is_control), "{text:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_yaml_documents_load_or_fail_in_one_line(text in document()) {
        assert_one_line(usicheck::scenario::load_str("f.yaml", &text), "f.yaml");
    }

    #[test]
    fn random_bytes_in_a_file_load_or_fail_in_one_line(
        bytes in proptest::collection::vec(any::<u8>(), 0..256)
    ) {
        let path = std::env::temp_dir().join(format!(
            "usicheck-random-{}-{:?}.yaml",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&path, &bytes).expect("write");
        let file = path.display().to_string();
        assert_one_line(usicheck::scenario::load_file(Path::new(&path)), &file);
        let _ = std::fs::remove_file(&path);
    }
}
