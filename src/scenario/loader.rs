//! Loading scenario files, with every error on one line as `file:line:col: message`.

use super::Scenario;
use regex::Regex;
use std::fmt;
use std::path::Path;
use std::sync::LazyLock;

/// Largest scenario file accepted (1 MiB): bounds memory on hostile input.
const MAX_BYTES: u64 = 1 << 20;

/// A scenario that could not be loaded.
///
/// ```
/// let err = usicheck::scenario::load_str("s.yaml", "name: x\nrules: [USI-NOPE-001]\nsteps: []\n")
///     .unwrap_err();
/// assert!(err.to_string().starts_with("s.yaml:2:"), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: String,
    /// 1-based line and column, when known.
    pub position: Option<(u64, u64)>,
    /// One line, control characters escaped.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, column)) => write!(f, "{}:{line}:{column}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for LoadError {}

/// Escapes control characters so a message is one safe terminal line.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

static LOCATION_SUFFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r" at line \d+, column \d+$").expect("static regex"));

/// Parses and validates a scenario from `text`; `file` names it in errors.
///
/// ```
/// let yaml = "name: ready twice\nrules: [USI-READY-001]\nsteps:\n  - handshake: {}\n  - send: isready\n  - expect: readyok\n";
/// let scenario = usicheck::scenario::load_str("ready.yaml", yaml).unwrap();
/// assert_eq!(scenario.rules[0].as_str(), "USI-READY-001");
/// ```
pub fn load_str(file: &str, text: &str) -> Result<Scenario, LoadError> {
    let mut scenario = parse(file, text)?;
    let sources = step_sources(text);
    if sources.len() == scenario.steps.len() {
        scenario.step_sources = sources;
    }
    if let Some(message) = scenario.rules_mismatch() {
        return Err(LoadError {
            file: one_line(file),
            position: Some(key_position(text, "rules")),
            message: one_line(&message),
        });
    }
    if let Some(message) = scenario.gui_deviations_mismatch() {
        return Err(LoadError {
            file: one_line(file),
            position: Some(key_position(text, "gui_deviations")),
            message: one_line(&message),
        });
    }
    if let Some((step, message)) = scenario.gui_rule_breach() {
        return Err(LoadError {
            file: one_line(file),
            position: scenario.step_sources.get(step).map(|s| (s.line as u64, 1)),
            message: one_line(&message),
        });
    }
    Ok(scenario)
}

fn parse(file: &str, text: &str) -> Result<Scenario, LoadError> {
    serde_saphyr::from_str::<Scenario>(text).map_err(|err| {
        let message = err.without_snippet().to_string();
        let message = LOCATION_SUFFIX.replace(&message, "");
        LoadError {
            file: one_line(file),
            position: err
                .location()
                .map(|l| (l.line(), l.column()))
                .or_else(|| Some(duplicate_key_position(text, &message))),
            message: one_line(&message),
        }
    })
}

/// The top-level steps of a block-style `steps:` list as written: each item from its `- ` to
/// the next item or top-level key, comments and blank lines at its end left out.
fn step_sources(text: &str) -> Vec<super::model::StepSource> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().position(|l| l.trim_end() == "steps:") else {
        return Vec::new();
    };
    let indent_of = |line: &str| line.len() - line.trim_start().len();
    let mut items: Vec<(usize, Vec<&str>)> = Vec::new();
    let mut item_indent = None;
    for (index, line) in lines.iter().enumerate().skip(start + 1) {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            if let Some((_, body)) = items.last_mut() {
                body.push(line);
            }
            continue;
        }
        let indent = indent_of(line);
        if indent == 0 && !trimmed.starts_with('-') {
            break; // the next top-level key
        }
        let starts_item = trimmed.starts_with("- ") || trimmed == "-";
        match item_indent {
            None if starts_item => item_indent = Some(indent),
            None => return Vec::new(),
            Some(_) => {}
        }
        if starts_item && Some(indent) == item_indent {
            items.push((index + 1, vec![line]));
        } else if let Some((_, body)) = items.last_mut() {
            body.push(line);
        }
    }
    let base = item_indent.unwrap_or(0);
    items
        .into_iter()
        .map(|(line, mut body)| {
            while body
                .last()
                .is_some_and(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
            {
                body.pop();
            }
            let text: Vec<&str> = body
                .iter()
                .map(|l| l.get(base..).unwrap_or(l.trim_start()))
                .collect();
            super::model::StepSource {
                line,
                text: text.join("\n"),
            }
        })
        .collect()
}

/// Where an error the YAML parser reports without a place (a duplicate field) happened: the
/// last line that starts with that key, else the start of the file.
fn duplicate_key_position(text: &str, message: &str) -> (u64, u64) {
    let key = message
        .split('`')
        .nth(1)
        .filter(|_| message.starts_with("duplicate field"));
    key.map_or((1, 1), |key| key_position(text, key))
}

/// The line and column of the last line that starts a `key:` field, else the file's start.
fn key_position(text: &str, key: &str) -> (u64, u64) {
    let field = format!("{key}:");
    text.lines()
        .enumerate()
        .filter_map(|(index, line)| Some((index as u64 + 1, line.find(&field)? as u64 + 1)))
        .last()
        .unwrap_or((1, 1))
}

/// Reads and loads a scenario file (at most 1 MiB of UTF-8).
pub fn load_file(path: &Path) -> Result<Scenario, LoadError> {
    let file = path.display().to_string();
    let fail = |message: String| LoadError {
        file: one_line(&file),
        position: None,
        message: one_line(&message),
    };
    // Read through `take` rather than trusting metadata: pipes and devices report length 0.
    let file_handle = std::fs::File::open(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file_handle, MAX_BYTES + 1),
        &mut bytes,
    )
    .map_err(|e| fail(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(fail(format!(
            "file is larger than {MAX_BYTES} bytes, the limit for scenarios"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    load_str(&file, &text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn error(yaml: &str) -> String {
        load_str("t.yaml", yaml).unwrap_err().to_string()
    }

    const HEAD: &str = "name: t\nrules: [USI-READY-001]\nsteps:\n";

    #[test]
    fn duplicate_fields_point_at_the_second_one() {
        // Found by the `scenario` fuzz target: the parser gives this error no location.
        let err =
            load_str("d.yaml", "name: a\n!p2\t\tname: b\nrules: []\nsteps: []\n").unwrap_err();
        assert_eq!(err.position, Some((2, 6)), "{err}");
    }

    #[test]
    fn semantic_errors_point_at_the_value() {
        let cases = [
            (
                "  - expect: {line: '(', within: 1s}\n",
                "t.yaml:4:",
                "bad regex",
            ),
            (
                "  - expect: {bestmove: legal, within: 5}\n",
                "t.yaml:4:",
                "needs a unit",
            ),
            (
                "  - expect: {bestmove: legal, within: 2 s}\n",
                "t.yaml:4:",
                "bad duration",
            ),
            (
                "  - expect: redyok\n",
                "t.yaml:4:",
                "unknown matcher `redyok`",
            ),
            (
                "  - expect: {bestmove: legl, within: 1s}\n",
                "t.yaml:4:",
                "legl",
            ),
            (
                "  - expect: {bestmove: legal}\n",
                "t.yaml:4:",
                "`within` is required",
            ),
            (
                "  - expect: {readyok: true, rule: USI-READY-099}\n",
                "t.yaml:4:",
                "unknown rule ID",
            ),
            (
                "  - expect: {readyok: true, usiok: true}\n",
                "t.yaml:4:",
                "exactly one matcher",
            ),
            (
                "  - handshake: {}\n  - send: go ponder\n",
                "t.yaml:5:1:",
                "`go ponder` has no clock: a standard GUI always sends the times",
            ),
            (
                "  - expect: {readyok: true, untimed: true}\n",
                "t.yaml:4:",
                "`untimed` needs a `bestmove` or `checkmate` matcher",
            ),
            (
                "  - expect: {readyok: true, keep_alive: false}\n",
                "t.yaml:4:",
                "`keep_alive: false` is meaningless",
            ),
            (
                "  - expect: {readyok: true, rule: USI-READY-001, part: x}\n",
                "t.yaml:4:",
                "no strength part",
            ),
            (
                "  - send: position ${bestmove.mvoe}\n",
                "t.yaml:4:",
                "unknown capture",
            ),
            ("  - sned: usi\n", "t.yaml:4:", "unknown step `sned`"),
            ("  - handshake\n", "t.yaml:4:", "write `handshake: {}`"),
            (
                "  - {send: usi, expect: readyok}\n",
                "t.yaml:4:",
                "one step per list item",
            ),
            (
                "  - repeat: {count: 0, steps: [close_stdin]}\n",
                "t.yaml:4:",
                "outside 1..=10000",
            ),
            (
                "  - expect_silence: {for: 1x}\n",
                "t.yaml:4:",
                "bad duration",
            ),
        ];
        for (step, place, what) in cases {
            let err = error(&format!("{HEAD}{step}"));
            assert!(err.starts_with(place) && err.contains(what), "{err}");
            assert!(!err.contains('\n'), "{err}");
        }
        let err = error("name: t\nrules: [USI-NOPE-001]\nsteps: [close_stdin]\n");
        assert!(
            err.starts_with("t.yaml:2:") && err.contains("unknown rule ID"),
            "{err}"
        );
        let err = error("name: t\nrules: []\nsteps: [close_stdin]\n");
        assert!(
            err.starts_with("t.yaml:2:") && err.contains("must not be empty"),
            "{err}"
        );
        let err = error(
            "name: t\nrules: [USI-READY-001]\nrequires: {extensions: [USI-GO-001]}\nsteps: [close_stdin]\n",
        );
        assert!(
            err.starts_with("t.yaml:3:") && err.contains("not an extension rule"),
            "{err}"
        );
        let err =
            error("name: t\nrules: [USI-READY-001]\nprofiles: [usi3]\nsteps: [close_stdin]\n");
        assert!(
            err.starts_with("t.yaml:3:") && err.contains("usi3"),
            "{err}"
        );
    }

    #[test]
    fn steps_keep_their_text_and_line_for_failure_messages() {
        let yaml = "name: t\nrules: [USI-READY-001]\nsteps:\n  - handshake: {}\n  # why\n  - send: isready\n  - expect:\n      readyok: true\n      within: 1s\n\nprofiles: [usi1]\n";
        let scenario = load_str("t.yaml", yaml).unwrap();
        let sources: Vec<(usize, &str)> = scenario
            .step_sources
            .iter()
            .map(|s| (s.line, s.text.as_str()))
            .collect();
        assert_eq!(
            sources,
            [
                (4, "- handshake: {}"),
                (6, "- send: isready"),
                (7, "- expect:\n    readyok: true\n    within: 1s"),
            ]
        );
        let flow = load_str(
            "t.yaml",
            "name: t\nrules: [USI-READY-001]\nsteps: [close_stdin]\n",
        );
        assert!(flow.unwrap().step_sources.is_empty());
    }

    #[test]
    fn gui_deviations_list_only_the_guis_rules() {
        let engine_rule = error(
            "name: t\nrules: [USI-STOP-002]\ngui_deviations: [USI-STOP-002]\nsteps:\n  - send: stop\n  - expect_silence: {for: 1s, rule: USI-STOP-002}\n",
        );
        assert!(
            engine_rule.starts_with("t.yaml:3:1:")
                && engine_rule.contains("`USI-STOP-002` in `gui_deviations` binds the engine"),
            "{engine_rule}"
        );
    }

    #[test]
    fn rules_must_match_the_steps_that_check_them() {
        let unlisted = error(
            "name: t\nrules: [USI-READY-001]\nsteps:\n  - expect: {usiok: true, rule: USI-HANDSHAKE-001}\n",
        );
        assert!(
            unlisted.starts_with("t.yaml:2:1:")
                && unlisted.contains("`USI-HANDSHAKE-001` is named by a step but not listed"),
            "{unlisted}"
        );
        let unchecked = error(
            "name: t\nrules: [USI-STOP-002]\nsteps:\n  - send: stop\n  - expect_silence: 1s\n",
        );
        assert!(
            unchecked.starts_with("t.yaml:2:1:")
                && unchecked.contains("`USI-STOP-002` is listed in `rules` but no step checks it"),
            "{unchecked}"
        );
        // An always-on rule may be listed without a step: the scenario provides its traffic.
        load_str(
            "t.yaml",
            "name: t\nrules: [USI-OPTION-002]\nsteps:\n  - handshake: {}\n",
        )
        .unwrap();
    }

    #[test]
    fn every_step_kind_loads_into_runnable_types() {
        use crate::scenario::*;
        let yaml = r#"
name: all steps
rules: [USI-READY-001, USI-POSITION-004]
profiles: [usi1, strict]
requires: {options: [MultiPV], extensions: [USI-EXT-004], ponder: true, mate: true}
steps:
  - handshake: {options: {USI_Hash: 64, USI_Ponder: true, Clear_Hash: null, BookFile: "a b.bin"}, usinewgame: false}
  - send: position ${position} moves $${x}
  - send_raw: "isready\r\n"
  - expect: readyok
  - expect: {bestmove: legal, ponder: legal-if-present, within: 1000ms + G, rule: USI-POSITION-004, part: any order}
  - expect: {checkmate: valid, within: T-STOP, forbid: '^bestmove'}
  - expect: {info: {pv: legal, multipv: 2, score_mate: -3}, within: 2s}
  - expect: {line: '^id name (?P<name>.+)$', within: T-USIOK}
  - expect_silence: 500ms
  - expect_silence: {for: T-SILENT, pattern: '^bestmove', ignore: '^info string', rule: USI-READY-001}
  - sleep: 1s
  - repeat: {count: 3, steps: [{send: isready}, {expect: readyok}]}
  - close_stdin
  - expect_exit: {}
  - expect_exit: {within: 2s, status: success}
"#;
        let s = load_str("all.yaml", yaml).unwrap();
        assert_eq!(
            s.profiles,
            [crate::rules::Profile::Usi1, crate::rules::Profile::Strict]
        );
        assert_eq!(s.requires.extensions[0].0, crate::rule!("USI-EXT-004"));
        assert_eq!(s.steps.len(), 15);
        let Step::Handshake(h) = &s.steps[0] else {
            panic!()
        };
        let options: Vec<_> = h
            .options
            .0
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_deref()))
            .collect();
        assert_eq!(
            options,
            [
                ("USI_Hash", Some("64")),
                ("USI_Ponder", Some("true")),
                ("Clear_Hash", None),
                ("BookFile", Some("a b.bin"))
            ]
        );
        assert!(h.isready && !h.usinewgame);
        let expanded = h.expand(&OptionSettings::default());
        let sent: Vec<String> = expanded
            .iter()
            .filter_map(|s| match s {
                Step::Send(t) => Some(t.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(
            sent,
            [
                "usi",
                "setoption name USI_Hash value 64",
                "setoption name USI_Ponder value true",
                "setoption name Clear_Hash",
                "setoption name BookFile value a b.bin",
                "isready"
            ]
        );
        let Step::Send(t) = &s.steps[1] else { panic!() };
        assert_eq!(t.captures().collect::<Vec<_>>(), [Capture::Position]);
        assert_eq!(
            t.render(|_| Some("position startpos".into())).unwrap(),
            "position position startpos moves ${x}"
        );
        assert_eq!(s.steps[2], Step::SendRaw("isready\r\n".into()));
        let Step::Expect(e) = &s.steps[3] else {
            panic!()
        };
        assert_eq!(e.matcher, Matcher::Readyok);
        assert_eq!(e.within, Deadline::named(NamedTimeout::Ready));
        let Step::Expect(e) = &s.steps[4] else {
            panic!()
        };
        assert_eq!(
            e.matcher,
            Matcher::Bestmove {
                bestmove: BestmoveCheck::Legal,
                ponder: Some(PonderCheck::LegalIfPresent)
            }
        );
        assert_eq!(e.part.as_deref(), Some("any order"));
        let Step::Expect(e) = &s.steps[6] else {
            panic!()
        };
        let Matcher::Info(info) = &e.matcher else {
            panic!()
        };
        assert_eq!(
            (info.pv, info.multipv, info.score_mate),
            (Some(PvCheck::Legal), Some(2), Some(-3))
        );
        let Step::ExpectSilence(q) = &s.steps[9] else {
            panic!()
        };
        assert!(q.ignore.as_ref().unwrap().is_match("info string hello"));
        let Step::Repeat(r) = &s.steps[11] else {
            panic!()
        };
        assert_eq!((r.count, r.steps.len()), (3, 2));
        assert_eq!(s.steps[12], Step::CloseStdin);
        let Step::ExpectExit(x) = &s.steps[13] else {
            panic!()
        };
        assert_eq!(
            (x.within, x.status),
            (Deadline::named(NamedTimeout::Quit), ExitStatus::Any)
        );
    }

    #[test]
    fn control_characters_in_errors_are_escaped() {
        let err = error("name: t\n\u{1b}[31m: 1\n");
        assert!(!err.contains('\u{1b}'), "{err}");
    }

    #[test]
    fn missing_and_oversized_files_are_errors() {
        let err = load_file(Path::new("/nonexistent/s.yaml")).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("/nonexistent/s.yaml: cannot read")
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn never_panics_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = load_str("f.yaml", &String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn never_panics_on_yamlish_text(
            text in r"((name|rules|steps|send|expect|within|repeat|count|handshake|options|[a-z_]{1,8}|USI-READY-001|\$\{bestmove\.move\}|[0-9]{1,3}(ms|s)?|T-STOP|&a|\*a|!!str|\[|\]|\{|\}|-|:|,|'|\x22| |\n  |\n    |\n)){0,60}"
        ) {
            let _ = load_str("f.yaml", &text);
        }
    }
}

#[cfg(test)]
mod hostile_input {
    use super::*;

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let brackets = "[".repeat(100_000);
        assert!(load_str("deep.yaml", &brackets).is_err());
        let mut repeats = String::from("name: t\nrules: [USI-READY-001]\nsteps:\n");
        for depth in 0..2_000 {
            let indent = "  ".repeat(depth + 1);
            repeats.push_str(&format!(
                "{indent}- repeat:\n{indent}    count: 1\n{indent}    steps:\n"
            ));
        }
        assert!(load_str("deep.yaml", &repeats).is_err());
        let flow = format!(
            "name: t\nrules: [USI-READY-001]\nsteps: {}close_stdin{}",
            "[{repeat: {count: 1, steps: ".repeat(5_000),
            "}}]".repeat(5_000)
        );
        assert!(load_str("deep.yaml", &flow).is_err());
    }

    #[test]
    fn alias_bombs_are_bounded() {
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let prev = i - 1;
            bomb.push_str(&format!(
                "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
            ));
        }
        bomb.push_str("name: t\n");
        assert!(load_str("bomb.yaml", &bomb).is_err());
    }
}
