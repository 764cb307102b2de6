//! The guard of the two test tiers (README "Set up", .config/nextest.toml).
//!
//! The default tier, `cargo test --release`, must pass on a bare machine with the same results
//! every run: no test in it may read the wall clock, run a Debian engine or a browser, or need
//! root. Such a test belongs to the slow tier, `#[ignore = "slow tier: …"]`, which CI runs
//! with `cargo nextest run --release --profile slow`. Every other `#[ignore]` names the command
//! that runs it.
//!
//! The check is textual and deliberately simple. Each function of tests/ and of src/'s test
//! code is read with its attributes and its body (strings and comments blanked). A function
//! *needs the slow tier* when its body names one of [`SLOW_MARKERS`] or calls, by name, a
//! function of the same file or of tests/common and tests/suite that needs it. Every test that
//! needs it must be ignored with a "slow tier" reason; [`CLOCK_THAT_DECIDES_NOTHING`] lists the
//! few functions whose clock reads decide nothing. The ignored tests that no tier runs are the
//! ones .config/nextest.toml's slow profile leaves out, by name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What makes a test real-time or machine-dependent.
const SLOW_MARKERS: &[&str] = &[
    "Instant::now",
    ".elapsed",
    "assert_within",
    "SystemTime::now",
    "/usr/games/",
    "chromium",
    "chrt",
];

/// The reason of every slow-tier test starts so.
const SLOW_TIER: &str = "slow tier";

/// Functions whose clock reads decide nothing, by file and name, with why: a wait bounded for
/// something that must happen anyway (a grace for the kernel, a hang guard), or a fixed origin
/// for timestamps the test makes up itself.
const CLOCK_THAT_DECIDES_NOTHING: &[(&str, &str, &str)] = &[
    (
        "tests/common/mod.rs",
        "assert_groups_gone",
        "polls /proc until a killed group is reaped: a grace for the kernel",
    ),
    (
        "src/refengine/search.rs",
        "job",
        "the start stamp of a search that its depth ends",
    ),
    (
        "src/observer/mod.rs",
        "a_late_reply_within_the_host_delay_is_not_judged",
        "an origin an hour ahead for made-up times",
    ),
    (
        "src/engine/stall.rs",
        "the_worst_overrun_inside_the_window_counts",
        "an origin an hour ahead for made-up times",
    ),
    (
        "src/engine/cpu_wait.rs",
        "a_watch_adds_the_wait_before_the_first_line_to_the_wait_since_late",
        "stamps of made-up CPU waits",
    ),
    (
        "src/harness/pipes.rs",
        "lines_arrive_split_stamped_and_followed_by_the_exit",
        "a hang guard on lines that come at once",
    ),
    (
        "src/harness/pipes.rs",
        "a_loop_that_ignores_quit_and_eof_is_counted_until_it_returns",
        "a hang guard on a loop that returns at once",
    ),
];

/// One function: where it is, its attributes and its body (as written, and with strings and
/// comments blanked).
struct Function {
    file: String,
    name: String,
    attributes: String,
    body: String,
    blanked_body: String,
}

impl Function {
    fn is_test(&self) -> bool {
        self.attributes.contains("#[test]")
    }

    fn is_slow_tier(&self) -> bool {
        self.ignore_reason()
            .is_some_and(|r| r.starts_with(&format!("#[ignore = \"{SLOW_TIER}:")))
    }

    fn ignore_reason(&self) -> Option<&str> {
        let at = self.attributes.find("#[ignore")?;
        let rest = &self.attributes[at..];
        let end = rest.find(']')?;
        Some(&rest[..end])
    }
}

/// `text` with the contents of string and character literals and of comments replaced by
/// blanks (line breaks kept), so that braces and names in them do not count.
fn blanked(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    // Byte for byte, so that offsets in the result are offsets in `text`.
    let blank = |c: char| {
        if c == '\n' {
            "\n".to_owned()
        } else {
            " ".repeat(c.len_utf8())
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push_str(&blank(chars[i]));
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push_str(&blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && matches!(next, Some('"') | Some('#'))
            && !is_ident(chars.get(i.wrapping_sub(1)))
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.push('r');
            out.extend(std::iter::repeat_n('#', hashes));
            out.push('"');
            j += 1;
            while j < chars.len() {
                if chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')) {
                    break;
                }
                out.push_str(&blank(chars[j]));
                j += 1;
            }
            out.push('"');
            out.extend(std::iter::repeat_n('#', hashes));
            i = j + 1 + hashes;
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push_str(&blank(chars[i]));
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && !is_ident(chars.get(i.wrapping_sub(1))) {
            // A character literal ('x', '\n', '\u{7b}'), or a lifetime ('a), left as it is.
            let close = if next == Some('\\') {
                (i + 2..chars.len().min(i + 12)).find(|&j| chars[j] == '\'')
            } else {
                (chars.get(i + 2) == Some(&'\'')).then_some(i + 2)
            };
            match close {
                Some(end) => {
                    chars[i..=end].iter().for_each(|&c| out.push_str(&blank(c)));
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// Every `fn` of `original` with a body, with the attributes just above it; `text` is
/// `original` [`blanked`].
fn functions(file: &str, original: &str, text: &str) -> Vec<Function> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(at) = text[search..].find("fn ").map(|at| search + at) {
        search = at + 3;
        if at > 0 && is_ident(text[..at].chars().last().as_ref()) {
            continue;
        }
        let name: String = text[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body starts at the first `{` not inside the signature's parentheses or angle
        // brackets; a `;` first means a declaration without a body.
        let mut depth = 0i32;
        let mut open = None;
        for (offset, &b) in bytes[at..].iter().enumerate() {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b'{' if depth == 0 => {
                    open = Some(at + offset);
                    break;
                }
                b';' if depth == 0 => break,
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut braces = 0i32;
        let mut close = text.len();
        for (offset, &b) in bytes[open..].iter().enumerate() {
            match b {
                b'{' => braces += 1,
                b'}' => {
                    braces -= 1;
                    if braces == 0 {
                        close = open + offset + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        found.push(Function {
            file: file.to_owned(),
            name,
            attributes: attributes_above(original, at),
            body: original[open..close].to_owned(),
            blanked_body: text[open..close].to_owned(),
        });
    }
    found
}

/// The attribute lines right above the line of the `fn` at `at` (blank lines and the
/// function's own qualifiers allowed between).
fn attributes_above(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let mut attributes = Vec::new();
    for line in text[..line_start].lines().rev() {
        let line = line.trim();
        if line.starts_with("#[") || line.ends_with(")]") || line.ends_with("\"]") {
            attributes.push(line.to_owned());
        } else if line.is_empty() {
            continue;
        } else {
            break;
        }
    }
    attributes.reverse();
    attributes.join("\n")
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The functions of the test code: every function of tests/, and of src/ those from the first
/// `#[cfg(test)]` of a file on (test modules close their files) and every function of a file
/// named tests.rs.
fn test_code() -> Vec<Function> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("tests"), &mut files);
    rust_files(&root.join("src"), &mut files);
    let mut all = Vec::new();
    for path in files {
        let relative = path.strip_prefix(root).unwrap().display().to_string();
        if relative == "tests/tiers.rs" {
            continue; // the guard names what it looks for
        }
        let original = std::fs::read_to_string(&path).unwrap();
        let text = blanked(&original);
        let from = if relative.starts_with("src/") && !relative.ends_with("/tests.rs") {
            match text.find("#[cfg(test)]") {
                Some(at) => at,
                None => continue,
            }
        } else {
            0
        };
        all.extend(functions(&relative, &original[from..], &text[from..]));
    }
    all
}

/// Whether `body` calls a function named `name` (`name(`, `.name(`, `::name(`).
fn calls(body: &str, name: &str) -> bool {
    body.match_indices(name).any(|(at, _)| {
        !is_ident(body[..at].chars().last().as_ref())
            && body[at + name.len()..].trim_start().starts_with('(')
    })
}

/// The functions that need the slow tier, by file and name, with the marker or call that
/// makes them so.
fn needing_slow_tier(code: &[Function]) -> BTreeMap<(String, String), String> {
    let shared = |file: &str| file.starts_with("tests/common/") || file.starts_with("tests/suite/");
    let exempt = |f: &Function| {
        CLOCK_THAT_DECIDES_NOTHING
            .iter()
            .any(|(file, name, _)| f.file == *file && f.name == *name)
    };
    let mut slow: BTreeMap<(String, String), String> = BTreeMap::new();
    for f in code.iter().filter(|f| !exempt(f)) {
        if let Some(marker) = SLOW_MARKERS.iter().find(|m| f.body.contains(*m)) {
            slow.insert((f.file.clone(), f.name.clone()), format!("`{marker}`"));
        }
    }
    loop {
        let mut grew = false;
        for f in code.iter().filter(|f| !exempt(f)) {
            let key = (f.file.clone(), f.name.clone());
            if slow.contains_key(&key) || f.ignore_reason().is_some() {
                continue;
            }
            let callee = slow.keys().find(|(file, name)| {
                (*file == f.file || (shared(file) && f.file.starts_with("tests/")))
                    && calls(&f.blanked_body, name)
            });
            if let Some((file, name)) = callee {
                let why = format!("calls {name} ({file})");
                slow.insert(key, why);
                grew = true;
            }
        }
        if !grew {
            return slow;
        }
    }
}

#[test]
fn no_default_tier_test_reads_the_clock_or_runs_a_real_engine_or_browser() {
    let code = test_code();
    let slow = needing_slow_tier(&code);
    let mut wrong: Vec<String> = code
        .iter()
        .filter(|f| f.is_test() && f.ignore_reason().is_none())
        .filter_map(|f| {
            let why = slow.get(&(f.file.clone(), f.name.clone()))?;
            Some(format!("{}: {} ({why})", f.file, f.name))
        })
        .collect();
    wrong.sort();
    assert!(
        wrong.is_empty(),
        "tests of the default tier that need the slow tier (mark them \
         #[ignore = \"{SLOW_TIER}: …\"], or check the bound in simulated time):\n{}",
        wrong.join("\n")
    );
}

/// The names in the slow profile's `default-filter`: the ignored tests no tier runs.
fn left_out_of_the_slow_tier() -> BTreeSet<String> {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join(".config/nextest.toml");
    let text = std::fs::read_to_string(config).unwrap();
    let value: toml::Value = toml::from_str(&text).unwrap();
    let filter = value["profile"]["slow"]["default-filter"].as_str().unwrap();
    let names = filter
        .split_once("(^|::)(")
        .and_then(|(_, rest)| rest.split_once(")$/)"))
        .expect("default-filter = \"not test(/(^|::)(a|b|…)$/)\"")
        .0;
    names.split('|').map(str::to_owned).collect()
}

#[test]
fn every_ignored_test_names_what_runs_it() {
    let left_out = left_out_of_the_slow_tier();
    let mut wrong = Vec::new();
    let mut ignored_by_hand = BTreeSet::new();
    for f in test_code().iter().filter(|f| f.is_test()) {
        match f.ignore_reason() {
            None => {}
            Some(_) if f.is_slow_tier() && left_out.contains(&f.name) => {
                wrong.push(format!(
                    "{}: {} is left out of the slow tier",
                    f.file, f.name
                ));
            }
            Some(_) if f.is_slow_tier() => {}
            Some(reason) => {
                if !reason.contains("cargo ") {
                    wrong.push(format!("{}: {} names no command: {reason}", f.file, f.name));
                }
                if !left_out.contains(&f.name) {
                    wrong.push(format!(
                        "{}: {} runs in the slow tier: list it in .config/nextest.toml",
                        f.file, f.name
                    ));
                }
                ignored_by_hand.insert(f.name.clone());
            }
        }
    }
    for name in left_out.difference(&ignored_by_hand) {
        wrong.push(format!(
            ".config/nextest.toml leaves out {name}, not an ignored test"
        ));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_exceptions_name_functions_that_exist() {
    let code = test_code();
    let names: BTreeSet<(&str, &str)> = code
        .iter()
        .map(|f| (f.file.as_str(), f.name.as_str()))
        .collect();
    for (file, name, _) in CLOCK_THAT_DECIDES_NOTHING {
        assert!(
            names.contains(&(*file, *name)),
            "{file}: no function {name}"
        );
    }
}

#[test]
fn the_scanner_finds_functions_with_attributes_and_follows_calls() {
    let original = "#[test]\n#[ignore = \"slow tier: x\"]\nfn a() { b(); }\n\
         // fn commented() { Instant::now() }\n\
         fn b() -> char { let _ = '{'; std::time::Instant::now(); '}' }\n\
         #[test]\nfn c() { let s = \"{\"; b() }\n\
         #[test]\nfn d() { let s = \"b()\"; }\n";
    let found = functions("tests/x.rs", original, &blanked(original));
    let names: Vec<&str> = found.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
    assert!(found[0].is_test() && !found[1].is_test());
    assert_eq!(
        found[0].ignore_reason(),
        Some("#[ignore = \"slow tier: x\"")
    );
    let slow: Vec<String> = needing_slow_tier(&found)
        .into_keys()
        .map(|(_, name)| name)
        .collect();
    assert_eq!(slow, ["b", "c"]);
}
