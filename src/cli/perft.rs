//! `usicheck perft`: leaf counts for one position, a TSV suite, or a batch on stdin.

use super::{EXIT_FAIL, EXIT_PASS, read_position};
use clap::Args;
use std::io::{BufRead, Write};
use std::process::ExitCode;
use usicheck::shogi::{Position, divide, perft};

/// Count the leaves of the legal-move tree (perft).
///
/// Prints the counts as perft tools do, one per line (tab-separated with `--stdin`), for
/// scripts to compare as they are, so no `--format`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Position: `startpos` or SFEN fields (optionally prefixed with `sfen`).
    #[arg(long, conflicts_with_all = ["suite", "stdin"])]
    sfen: Option<String>,
    /// Depth in plies.
    #[arg(long)]
    depth: Option<u32>,
    /// Print `move count` per legal move, then `total N`.
    #[arg(long, requires = "sfen")]
    divide: bool,
    /// Run a TSV suite (name, sfen, comma-separated counts per depth, ...) and print PASS/FAIL.
    #[arg(long, value_name = "FILE", conflicts_with = "stdin")]
    suite: Option<std::path::PathBuf>,
    /// With --suite: skip rows whose expected count exceeds this.
    #[arg(long, requires = "suite")]
    max_nodes: Option<u64>,
    /// Read `sfen<TAB>depth` lines, print `sfen<TAB>depth<TAB>nodes`.
    #[arg(long)]
    stdin: bool,
    /// Check an engine's `go perft N` against the reference (default depth 3, position
    /// startpos) and bisect any mismatch down to the missing and extra moves.
    #[arg(long, requires = "engine_command", conflicts_with_all = ["divide", "stdin"])]
    engine: bool,
    /// With --engine: seconds allowed for one `go perft`.
    #[arg(long, default_value_t = 60, requires = "engine")]
    timeout: u64,
    /// The engine and its arguments (after `--`).
    #[arg(last = true, value_name = "ENGINE")]
    engine_command: Vec<String>,
}

pub fn run(args: PerftArgs) -> Result<ExitCode, String> {
    if args.engine {
        return run_engine(&args);
    }
    if !args.engine_command.is_empty() {
        return Err("an engine command needs --engine".into());
    }
    if let Some(path) = &args.suite {
        return run_suite(path, args.max_nodes.unwrap_or(u64::MAX));
    }
    if args.stdin {
        return run_stdin();
    }
    let (Some(sfen), Some(depth)) = (&args.sfen, args.depth) else {
        return Err("perft needs --sfen and --depth, --suite FILE, or --stdin".into());
    };
    let pos = read_position(sfen, "--sfen")?;
    let mut out = std::io::stdout().lock();
    if args.divide {
        let mut rows: Vec<(String, u64)> = divide(&pos, depth.max(1))
            .into_iter()
            .map(|(m, n)| (m.to_string(), n))
            .collect();
        rows.sort();
        for (m, n) in &rows {
            writeln!(out, "{m} {n}").map_err(|e| e.to_string())?;
        }
        writeln!(out, "total {}", rows.iter().map(|r| r.1).sum::<u64>())
            .map_err(|e| e.to_string())?;
    } else {
        writeln!(out, "{}", perft(&pos, depth)).map_err(|e| e.to_string())?;
    }
    Ok(ExitCode::from(EXIT_PASS))
}

struct SuiteRow {
    line: usize,
    name: String,
    pos: Position,
    counts: Vec<Option<u64>>,
}

fn parse_suite(path: &std::path::Path) -> Result<Vec<SuiteRow>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = format!("{}:{}", path.display(), i + 1);
        if line.trim().is_empty() || line.starts_with('#') || line.starts_with("name\t") {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 {
            return Err(format!(
                "{at}: expected name<TAB>sfen<TAB>counts, found {} columns",
                cols.len()
            ));
        }
        let pos = Position::from_sfen(cols[1]).map_err(|e| format!("{at}: {e}"))?;
        let counts = cols[2]
            .split(',')
            .map(|c| match c.trim() {
                "" => Ok(None),
                n => n
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("{at}: bad count {n:?}")),
            })
            .collect::<Result<_, _>>()?;
        rows.push(SuiteRow {
            line: i + 1,
            name: cols[0].to_string(),
            pos,
            counts,
        });
    }
    Ok(rows)
}

fn run_suite(path: &std::path::Path, max_nodes: u64) -> Result<ExitCode, String> {
    let rows = parse_suite(path)?;
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut out = std::io::stdout().lock();
    for row in rows {
        for (i, expected) in row.counts.iter().enumerate() {
            let Some(expected) = *expected else { continue };
            let depth = i as u32 + 1;
            if expected > max_nodes {
                skipped += 1;
                continue;
            }
            let got = perft(&row.pos, depth);
            let line = if got == expected {
                passed += 1;
                format!("PASS {} depth {depth} nodes {got}", row.name)
            } else {
                failed += 1;
                format!(
                    "FAIL {} (line {}) depth {depth} expected {expected} got {got}",
                    row.name, row.line
                )
            };
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
    }
    writeln!(
        out,
        "total: {passed} passed, {failed} failed, {skipped} skipped"
    )
    .map_err(|e| e.to_string())?;
    Ok(ExitCode::from(if failed == 0 {
        EXIT_PASS
    } else {
        EXIT_FAIL
    }))
}

fn run_stdin() -> Result<ExitCode, String> {
    let mut out = std::io::stdout().lock();
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.map_err(|e| format!("stdin line {}: {e}", i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("stdin line {}", i + 1);
        let (sfen, depth) = line
            .split_once('\t')
            .ok_or(format!("{at}: expected sfen<TAB>depth"))?;
        let depth: u32 = depth
            .trim()
            .parse()
            .map_err(|_| format!("{at}: bad depth {:?}", depth.trim()))?;
        let pos = read_position(sfen, &at)?;
        writeln!(out, "{sfen}\t{depth}\t{}", perft(&pos, depth)).map_err(|e| e.to_string())?;
    }
    Ok(ExitCode::from(EXIT_PASS))
}

/// `--engine`: the positions of `--sfen` or `--suite` (default startpos), checked at `--depth`.
fn run_engine(args: &PerftArgs) -> Result<ExitCode, String> {
    let positions = match (&args.sfen, &args.suite) {
        (Some(sfen), _) => vec![(sfen.clone(), read_position(sfen, "--sfen")?)],
        (None, Some(path)) => parse_suite(path)?
            .into_iter()
            .map(|row| (row.name, row.pos))
            .collect(),
        (None, None) => vec![("startpos".to_string(), Position::startpos())],
    };
    let (program, rest) = args
        .engine_command
        .split_first()
        .ok_or("--engine needs the engine command after `--`")?;
    let command = usicheck::engine::EngineCommand::new(program).args(rest);
    let depth = args.depth.unwrap_or(3).max(1);
    super::engine_perft::run(
        &command,
        &positions,
        depth,
        std::time::Duration::from_secs(args.timeout),
    )
}
