//! `usicheck perft --engine`: compare an engine's `go perft N` with the reference and bisect a
//! mismatch with per-move counts down to the position where moves are missing or extra.

use super::{EXIT_FAIL, EXIT_PASS, EXIT_USAGE};
use regex::Regex;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;
use usicheck::engine::{EngineCommand, Session, SessionOptions, Timeouts, sanitise};
use usicheck::fuzzer::positions::line_with_moves;
use usicheck::shogi::{Move, Position, divide};

/// What the engine said for one `go perft`.
struct Answer {
    total: u64,
    /// `MOVE: COUNT` lines, by move text (empty if the engine prints only the total).
    divide: BTreeMap<String, u64>,
}

/// Why a `go perft` got no usable answer.
enum Refusal {
    Unsupported(String),
    Dead(String),
}

struct Engine {
    session: Session,
    timeout: Duration,
    total: Regex,
    row: Regex,
}

impl Engine {
    /// Plays the handshake; `Err` says how the engine failed it.
    fn handshake(mut session: Session, timeout: Duration) -> Result<Engine, String> {
        let timeouts = Timeouts::default();
        let mut step = |line: &str, reply: &str, wait: Duration| -> Result<(), String> {
            session.send(line).map_err(|e| format!("`{line}`: {e}"))?;
            session
                .expect(|l| l.text.trim() == reply, wait)
                .map(|_| ())
                .map_err(|e| format!("no `{reply}` after `{line}`: {e}"))
        };
        step("usi", "usiok", timeouts.usiok)?;
        step("isready", "readyok", timeouts.ready_idle)?;
        Ok(Engine {
            session,
            timeout,
            total: Regex::new(
                r"(?i)^\s*(?:nodes(?:\s+searched)?|total(?:\s+nodes)?|perft)\b\D*(\d+)\s*$",
            )
            .expect("valid regex"),
            row: Regex::new(r"^\s*(\S+)\s*:\s*(\d+)\s*$").expect("valid regex"),
        })
    }

    fn perft(&mut self, line: &str, depth: u32) -> Result<Answer, Refusal> {
        let send = |s: &mut Session, text: &str| {
            s.send(text)
                .map_err(|e| Refusal::Dead(format!("`{text}`: {e}")))
        };
        send(&mut self.session, line)?;
        send(&mut self.session, &format!("go perft {depth}"))?;
        let mut divide = BTreeMap::new();
        let (total_re, row_re) = (&self.total, &self.row);
        let found = self.session.expect(
            |l| {
                if let Some(c) = row_re.captures(&l.text)
                    && let Ok(n) = c[2].parse()
                {
                    divide.insert(c[1].to_string(), n);
                }
                total_re.is_match(&l.text) || searching(&l.text)
            },
            self.timeout,
        );
        match found {
            Ok(f) if searching(&f.line.text) => Err(Refusal::Unsupported(format!(
                "answered `go perft {depth}` with `{}`",
                sanitise(&f.line.text)
            ))),
            Ok(f) => {
                let total = self.total.captures(&f.line.text).expect("matched")[1]
                    .parse()
                    .map_err(|_| {
                        Refusal::Dead(format!("bad total `{}`", sanitise(&f.line.text)))
                    })?;
                // A total line with a colon can also look like a divide row.
                divide.retain(|m, _| m.parse::<Move>().is_ok());
                Ok(Answer { total, divide })
            }
            Err(e) => {
                let _ = self.session.send("stop");
                match e.kind {
                    usicheck::engine::Unmet::Timeout if divide.is_empty() => {
                        Err(Refusal::Unsupported(format!(
                            "no perft total within {} s",
                            self.timeout.as_secs()
                        )))
                    }
                    kind => Err(Refusal::Dead(format!("`go perft {depth}`: {kind}"))),
                }
            }
        }
    }
}

/// A line of a normal search: the engine took `go perft` for a plain `go`.
fn searching(line: &str) -> bool {
    line.starts_with("bestmove") || (line.starts_with("info ") && !line.starts_with("info string"))
}

/// Where the engine's count first goes wrong.
struct Mismatch {
    path: Vec<Move>,
    depth: u32,
    engine: u64,
    reference: u64,
    missing: Vec<String>,
    extra: Vec<String>,
}

/// Follows wrong counts down the tree until a position where whole moves differ (or, without
/// divide output and at depth 1, only the count can be shown).
fn bisect(engine: &mut Engine, base: &Position, depth: u32) -> Result<Option<Mismatch>, Refusal> {
    let mut path: Vec<Move> = Vec::new();
    let mut depth = depth;
    let mut first: Option<(u64, u64)> = None;
    loop {
        let mut pos = base.clone();
        for &m in &path {
            pos.play_unchecked(m);
        }
        let reference: BTreeMap<String, (Move, u64)> = divide(&pos, depth)
            .into_iter()
            .map(|(m, n)| (m.to_string(), (m, n)))
            .collect();
        let reference_total: u64 = reference.values().map(|v| v.1).sum();
        let answer = engine.perft(&line_with_moves(base, &path), depth)?;
        if first.is_none() {
            if answer.total == reference_total {
                return Ok(None);
            }
            first = Some((answer.total, reference_total));
        }
        let mismatch = |missing, extra| Mismatch {
            path: path.clone(),
            depth,
            engine: answer.total,
            reference: reference_total,
            missing,
            extra,
        };
        let next = if answer.divide.is_empty() {
            if depth == 1 {
                return Ok(Some(mismatch(Vec::new(), Vec::new())));
            }
            let mut wrong = None;
            for (m, n) in reference.values() {
                let mut child = path.clone();
                child.push(*m);
                if engine
                    .perft(&line_with_moves(base, &child), depth - 1)?
                    .total
                    != *n
                {
                    wrong = Some(*m);
                    break;
                }
            }
            wrong
        } else {
            let missing: Vec<String> = reference
                .keys()
                .filter(|m| !answer.divide.contains_key(*m))
                .cloned()
                .collect();
            let extra: Vec<String> = answer
                .divide
                .keys()
                .filter(|m| !reference.contains_key(*m))
                .cloned()
                .collect();
            if !missing.is_empty() || !extra.is_empty() || depth == 1 {
                return Ok(Some(mismatch(missing, extra)));
            }
            reference
                .iter()
                .find(|(text, (_, n))| answer.divide.get(*text) != Some(n))
                .map(|(_, (m, _))| *m)
        };
        match next {
            Some(m) => {
                path.push(m);
                depth -= 1;
            }
            None => return Ok(Some(mismatch(Vec::new(), Vec::new()))),
        }
    }
}

/// Checks each `(name, position)` at `depth`; prints PASS/FAIL and the bisection.
pub fn run(
    command: &EngineCommand,
    positions: &[(String, Position)],
    depth: u32,
    timeout: Duration,
) -> Result<ExitCode, String> {
    // An engine that cannot be started is an input error; one that fails the handshake or
    // dies during `go perft` is a failed engine.
    let session = Session::start(command, SessionOptions::default()).map_err(|e| e.to_string())?;
    let mut engine = match Engine::handshake(session, timeout) {
        Ok(engine) => engine,
        Err(why) => {
            outln!("FAIL: the engine failed the handshake: {why}");
            return Ok(ExitCode::from(EXIT_FAIL));
        }
    };
    let mut failed = 0;
    for (name, pos) in positions {
        match bisect(&mut engine, pos, depth) {
            Ok(None) => outln!("PASS {name} depth {depth}"),
            Ok(Some(m)) => {
                failed += 1;
                print_mismatch(name, pos, depth, &m);
            }
            Err(Refusal::Unsupported(why)) => {
                outln!("UNSUPPORTED: the engine does not implement `go perft` ({why})");
                let _ = engine.session.quit(Duration::from_secs(2));
                return Ok(ExitCode::from(EXIT_USAGE));
            }
            Err(Refusal::Dead(why)) => {
                outln!("FAIL {name} depth {depth}: {why}");
                let _ = engine.session.quit(Duration::from_secs(2));
                return Ok(ExitCode::from(EXIT_FAIL));
            }
        }
    }
    let _ = engine.session.quit(Duration::from_secs(2));
    outln!(
        "total: {} passed, {failed} failed",
        positions.len() - failed
    );
    Ok(ExitCode::from(if failed == 0 {
        EXIT_PASS
    } else {
        EXIT_FAIL
    }))
}

fn print_mismatch(name: &str, base: &Position, depth: u32, m: &Mismatch) {
    outln!("FAIL {name} depth {depth}");
    outln!(
        "  at: {} (depth {}): engine {}, reference {}",
        line_with_moves(base, &m.path),
        m.depth,
        m.engine,
        m.reference
    );
    let list = |v: &[String]| {
        if v.is_empty() {
            "(none)".to_string()
        } else {
            v.iter()
                .map(|s| sanitise(s).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    outln!("  missing: {}", list(&m.missing));
    outln!("  extra: {}", list(&m.extra));
}
