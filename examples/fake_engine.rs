//! A scriptable fake engine for usicheck's own tests: it misbehaves exactly as told.
//!
//! Every argument is a rule `TRIGGER => ACTION; ACTION; ...`. Triggers: `start` (at startup),
//! `eof` (stdin closed), `*` (any line), a word (a line whose first token it is), or several
//! words (a line starting with them, e.g. `go infinite`). The first
//! matching rule runs; a line no rule matches is ignored, except `quit` and stdin EOF, which
//! exit 0 unless a rule says otherwise (an empty action list ignores them).
//!
//! Actions:
//! - `say TEXT` — TEXT and a newline to stdout; `err TEXT` — the same to stderr
//! - `raw TEXT` — TEXT only (escapes `\n \r \t \0 \e \\ \xNN` work in all texts)
//! - `echo` — the received line back
//! - `sleep MS`, `hang` (sleep forever, reading nothing more), `exit CODE`, `signal NUMBER`
//! - `spin MS` — compute until MS ms have passed by the wall clock, as a search keeps its time
//! - `flood stdout|stderr BYTES LINE_BYTES` — BYTES of `x` lines (LINE_BYTES 0: a single line,
//!   no newline)
//! - `trickle MS TEXT` — TEXT one byte at a time, MS apart
//! - `ignore-term` — ignore SIGTERM; `close-stdout` — close fd 1 and carry on
//! - `fork-holder` — fork a grandchild that keeps the pipes open and sleeps forever
//! - `repeat COUNT ACTION` — ACTION COUNT times, `{n}` in it replaced by 1, 2, …
//!
//! With `FAKE_ENGINE_PID_FILE` set, the engine appends its pid (its process group, when run by
//! usicheck) to that file at startup, so tests can check that nothing of the group survives.
//!
//! Example: `fake_engine 'usi => say id name Fake; say usiok' 'isready => sleep 50; say readyok'`

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

struct Rule {
    trigger: String,
    actions: Vec<String>,
}

fn main() {
    let rules: Vec<Rule> = std::env::args()
        .skip(1)
        .map(|arg| parse_rule(&arg))
        .collect();
    if let Some(path) = std::env::var_os("FAKE_ENGINE_PID_FILE") {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("pid file");
        // One write: engines started in parallel append to the same file.
        file.write_all(format!("{}\n", std::process::id()).as_bytes())
            .expect("pid file write");
    }
    run_trigger(&rules, "start", "");
    let mut stdin = std::io::stdin().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match stdin.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => {
                if !run_trigger(&rules, "eof", "") {
                    std::process::exit(0);
                }
                hang();
            }
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        let word = text.split_whitespace().next().unwrap_or("");
        if !run_trigger(&rules, word, text) && word == "quit" {
            std::process::exit(0);
        }
    }
}

fn parse_rule(arg: &str) -> Rule {
    let (trigger, actions) = arg
        .split_once("=>")
        .unwrap_or_else(|| panic!("rule without `=>`: {arg}"));
    Rule {
        trigger: trigger.trim().to_string(),
        actions: actions
            .split(';')
            .map(str::trim)
            .filter(|action| !action.is_empty())
            .map(String::from)
            .collect(),
    }
}

/// Runs the first rule for `trigger` (or `*` for a received line); false if none matched.
fn run_trigger(rules: &[Rule], trigger: &str, received: &str) -> bool {
    let is_line = !matches!(trigger, "start" | "eof");
    let Some(rule) = rules.iter().find(|rule| {
        rule.trigger == trigger
            || (is_line
                && (rule.trigger == "*"
                    || (rule.trigger.contains(' ') && received.starts_with(&rule.trigger))))
    }) else {
        return false;
    };
    for action in &rule.actions {
        run_action(action, received);
    }
    true
}

fn run_action(action: &str, received: &str) {
    let (verb, rest) = action.split_once(' ').unwrap_or((action, ""));
    let number = |text: &str| -> u64 {
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("bad number in `{action}`"))
    };
    match verb {
        "say" => write_fd(1, &[unescape(rest), b"\n".to_vec()].concat()),
        "err" => write_fd(2, &[unescape(rest), b"\n".to_vec()].concat()),
        "raw" => write_fd(1, &unescape(rest)),
        "echo" => write_fd(1, format!("{received}\n").as_bytes()),
        "sleep" => std::thread::sleep(Duration::from_millis(number(rest))),
        "spin" => {
            let until = Instant::now() + Duration::from_millis(number(rest));
            while Instant::now() < until {
                std::hint::spin_loop();
            }
        }
        "hang" => hang(),
        "exit" => {
            let _ = std::io::stdout().flush();
            std::process::exit(number(rest) as i32)
        }
        // SAFETY: raising a signal on ourselves is the point.
        "signal" => unsafe {
            libc::signal(number(rest) as i32, libc::SIG_DFL);
            libc::raise(number(rest) as i32);
        },
        "flood" => {
            let mut words = rest.split_whitespace();
            let fd = match words.next() {
                Some("stdout") => 1,
                Some("stderr") => 2,
                _ => panic!("flood needs stdout or stderr: `{action}`"),
            };
            let total = number(words.next().unwrap_or(""));
            let line_bytes = number(words.next().unwrap_or("")) as usize;
            flood(fd, total, line_bytes);
        }
        "trickle" => {
            let (millis, text) = rest.split_once(' ').unwrap_or((rest, ""));
            for byte in unescape(text) {
                write_fd(1, &[byte]);
                std::thread::sleep(Duration::from_millis(number(millis)));
            }
        }
        // SAFETY: changes this process's own signal disposition.
        "ignore-term" => unsafe {
            libc::signal(libc::SIGTERM, libc::SIG_IGN);
        },
        // SAFETY: closes our own stdout; later writes to it fail and are ignored.
        "close-stdout" => unsafe {
            libc::close(1);
        },
        // SAFETY: the child only sleeps, async-signal-safe.
        "fork-holder" => unsafe {
            if libc::fork() == 0 {
                loop {
                    libc::sleep(1000);
                }
            }
        },
        "repeat" => {
            let (count, repeated) = rest.split_once(' ').unwrap_or((rest, ""));
            for n in 1..=number(count) {
                run_action(&repeated.replace("{n}", &n.to_string()), received);
            }
        }
        _ => panic!("unknown action `{action}`"),
    }
}

fn hang() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(1000));
    }
}

fn flood(fd: i32, total: u64, line_bytes: usize) {
    let mut chunk = vec![b'x'; 64 * 1024];
    assert!(line_bytes <= chunk.len(), "flood lines are at most 64 KiB");
    if line_bytes > 0 {
        for (index, byte) in chunk.iter_mut().enumerate() {
            if index % line_bytes == line_bytes - 1 {
                *byte = b'\n';
            }
        }
    }
    let mut left = total;
    while left > 0 {
        let count = left.min(chunk.len() as u64) as usize;
        let start = (total - left) as usize % line_bytes.max(1);
        let count = count.min(chunk.len() - start);
        write_fd(fd, &chunk[start..start + count]);
        left -= count as u64;
    }
}

/// Writes everything unbuffered; exits quietly when the reader is gone.
fn write_fd(fd: i32, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: writes from a valid slice.
        let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if written < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            // Stdout closed on purpose (`close-stdout`) or the reader is gone: carry on.
            return;
        }
        bytes = &bytes[written as usize..];
    }
}

fn unescape(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(byte) = bytes.next() {
        if byte != b'\\' {
            out.push(byte);
            continue;
        }
        match bytes.next() {
            Some(b'n') => out.push(b'\n'),
            Some(b'r') => out.push(b'\r'),
            Some(b't') => out.push(b'\t'),
            Some(b'0') => out.push(0),
            Some(b'e') => out.push(0x1b),
            Some(b'x') => {
                let hex: Vec<u8> = bytes.by_ref().take(2).collect();
                let hex = std::str::from_utf8(&hex).expect("ascii hex");
                out.push(u8::from_str_radix(hex, 16).expect("two hex digits after \\x"));
            }
            Some(other) => out.push(other),
            None => out.push(b'\\'),
        }
    }
    out
}
