//! `usicheck fuzz`: drive an engine with random positions, garbage and interleavings; shrink
//! every failure to a scenario.

use super::color::ColorFlag;
use super::format_flag;
use super::timeout_flags::TimeoutFlags;
use super::{EXIT_FAIL, EXIT_PASS};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use usicheck::engine::sanitise;
use usicheck::fuzzer::{self, Config, plan::Mix};
use usicheck::report::style::{self, BOLD, paint};
use usicheck::report::{FailOn, Format, FuzzReport};
use usicheck::rules::Profile;

/// Fuzz an engine: random legal and illegal positions, malformed lines, protocol interleavings.
#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// Seed of the campaign (printed; repeat a campaign with it). Default: from the clock.
    #[arg(long)]
    seed: Option<u64>,
    /// Number of sessions (default 100 unless --time is given).
    #[arg(long)]
    runs: Option<u64>,
    /// Run for this long, confirming and shrinking included: `90s`, `10m`, `1h`, `500ms`.
    /// Sessions still running then are cut short (the engine killed, nothing charged), and a
    /// finding not yet shrunk is reported as found.
    #[arg(long, value_parser = usicheck::duration::parse)]
    pub time: Option<Duration>,
    /// Sessions at once, each with its own engine under test: here, fuzz sessions (default:
    /// two per core, at most 16, as a fuzz session's pauses are short: it waits less than a
    /// scenario). Whatever the number, one engine per core computes at a time, as in certify.
    #[arg(long, value_parser = super::jobs::parser())]
    pub jobs: Option<u16>,
    /// Directory for findings (scenario YAML and transcript per group).
    #[arg(long, default_value = "usicheck-findings")]
    out: PathBuf,
    /// Also write report.json (docs/fuzz-report.schema.json), junit.xml, summary.md,
    /// annotations.txt and report.html of the campaign into DIR (created if missing), with each finding's
    /// reproducer (findings/) and transcript (transcripts/).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// GUI episodes (position + go, garbage + isready, ponder, …) per session.
    #[arg(long, default_value_t = 20)]
    episodes: usize,
    #[command(flatten)]
    pub timeouts: TimeoutFlags,
    /// Engine option sent in every session's handshake (repeatable), as for `certify`; NAME
    /// alone presses a button.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// Working directory of the engine.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Profile sessions are judged and findings graded under, as for `certify`.
    #[arg(long, value_enum, default_value_t = fuzzer::DEFAULT_PROFILE)]
    pub profile: Profile,
    /// A vendor extension the engine implements, by rule ID (repeatable), as for `certify`.
    #[arg(long = "claim", value_name = "RULE")]
    pub claims: Vec<String>,
    /// MyShogi engine_define.xml naming the engine's extended protocol (default: the one beside
    /// the engine binary, if any).
    #[arg(long, value_name = "FILE")]
    pub engine_define: Option<PathBuf>,
    /// What makes the exit code 1, as for `run` and `certify`: `must` a finding graded FAIL;
    /// `should` also a WARN on a MUST or SHOULD strength part; `any` any FAIL or WARN.
    #[arg(long, value_enum, default_value_t = FailOn::Must, value_name = "LEVEL")]
    pub fail_on: FailOn,
    /// What to print on stdout: human (the seed, then the campaign's counts, coverage table and
    /// findings with their replay commands), or once the campaign ends its report.json
    /// (docs/fuzz-report.schema.json) or summary.md. No junit here: junit.xml quotes the
    /// transcripts of `--report-dir`, where it is written.
    #[arg(long, value_parser = format_flag::supported(format_flag::NO_JUNIT), default_value = "human")]
    pub format: Format,
    #[command(flatten)]
    pub color: ColorFlag,
    /// Only legal positions searched with `go depth 1` (throughput measurement).
    #[arg(long)]
    depth1: bool,
    /// Deviations already known (the certify baseline format: RULE, scenario or `*`, why;
    /// the scenario column does not apply here): counted when met, not reported, and the
    /// sessions go on past them.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Explain the protocol-state coverage table the summary shows, and exit.
    #[arg(long)]
    coverage: bool,
    /// Settings file (default: the nearest usicheck.toml from the current directory up to the
    /// repository root, the first directory holding .git), as for `certify`; the first line of
    /// the output names the file read.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The engine and its arguments (default: the config file's engine).
    #[arg(last = true, value_name = "ENGINE")]
    pub engine: Vec<String>,
}

pub fn run(args: FuzzArgs) -> Result<ExitCode, String> {
    args.color.apply();
    if args.coverage {
        super::stdout::write_stdout(fuzzer::coverage::EXPLANATION);
        return Ok(ExitCode::from(EXIT_PASS));
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    let engine = super::suite::engine_command(&args.engine, args.cwd.as_deref())?;
    let mut config = Config::new(engine);
    config.profile = args.profile;
    config.claims = super::suite::engine_claims(
        std::path::Path::new(&args.engine[0]),
        args.engine_define.as_deref(),
        args.cwd.as_deref(),
        &args.claims,
    )?;
    config.options = args
        .options
        .iter()
        .map(|o| super::suite::option_flag(o))
        .collect::<Result<_, _>>()?;
    config.seed = seed;
    config.runs = args
        .runs
        .or(if args.time.is_some() { None } else { Some(100) });
    config.time = args.time;
    config.jobs = args.jobs.map_or_else(
        || super::jobs::per_core(super::jobs::FUZZ_PER_CORE),
        usize::from,
    );
    // As certify: many sessions at once, one engine per core computing, whatever its threads.
    config.search_slots = Some(super::suite::search_slots());
    config.episodes = args.episodes.max(1);
    config.out = Some(args.out.clone());
    let given = args.timeouts.parsed()?;
    config.timeouts.usiok = given.usiok.unwrap_or(config.timeouts.usiok);
    config.timeouts.ready_idle = given.ready.unwrap_or(config.timeouts.ready_idle);
    config.timeouts.quit = given.quit.unwrap_or(config.timeouts.quit);
    if args.depth1 {
        config.mix = Mix::Depth1;
    }
    if let Some(path) = &args.baseline {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
        let baseline = usicheck::report::Baseline::parse(&file, &text)?;
        config.waived = baseline.waivers.iter().map(|w| w.rule).collect();
    }
    // An unusable report directory is an input error before any engine starts.
    if let Some(dir) = &args.report_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("--report-dir {}: {e}", dir.display()))?;
    }
    let read_from = args.config.as_ref().map_or(String::new(), |path| {
        format!(" · config {}", sanitise(&path.display().to_string()))
    });
    let human = args.format == Format::Human;
    if human {
        outln!(
            "{}: seed {seed} (repeat with --seed {seed}){read_from}",
            paint(BOLD, "usicheck fuzz")
        );
    }
    let bar = progress_bar(config.runs);
    let on_progress = |p: fuzzer::Progress| {
        bar.set_position(p.sessions);
        bar.set_message(format!(
            "{:.0} positions/s, {} positions, {} findings",
            p.positions_per_second(),
            p.positions,
            p.findings
        ));
    };
    let summary = fuzzer::run(&config, &on_progress).map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    let p = summary.progress;
    // A gate that checked nothing must not pass.
    if p.cut_short > 0 && p.sessions == 0 && summary.findings.is_empty() {
        return Err(format!(
            "no session ended within --time {}: nothing was checked; give the run more \
             time than one session takes (the engine's waits: --usiok-timeout, \
             --ready-timeout, the searches' clocks)",
            humantime::format_duration(config.time.unwrap_or_default())
        ));
    }
    let table = summary.coverage.table();
    let coverage_file = config.out.as_ref().and_then(|dir| {
        let path = dir.join("coverage.txt");
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&path, &table))
            .ok()
            .map(|()| path)
    });
    // Each finding carries the grade `usicheck run` gives its reproducer (the fuzzer's
    // profile, the observer's outcome); the same `--fail-on` decides the exit code.
    let report = FuzzReport::new(
        &summary,
        config.profile,
        &config.claims,
        campaign_replay(seed, &args),
        // Replayed from where the command ran, as the terminal's replay commands are.
        |finding| {
            let path = args
                .report_dir
                .as_ref()
                .map_or(finding.into(), |d| d.join(finding));
            replay(&path.display().to_string(), &args)
        },
        super::interrupt::interrupted().is_some(),
    );
    match args.format {
        Format::Human => {
            let mut text = campaign_lines(&summary, &table, coverage_file.as_deref());
            text.push_str(&findings_lines(&report, &args));
            super::stdout::write_styled(&text);
        }
        Format::Json => super::stdout::write_stdout(&(report.json(args.fail_on) + "\n")),
        Format::Markdown => super::stdout::write_stdout(&report.markdown(args.fail_on)),
        Format::Junit => unreachable!("--format junit is refused by its parser"),
    }
    if let Some(dir) = &args.report_dir {
        report
            .write(dir, args.fail_on)
            .map_err(|e| format!("--report-dir {}: {e}", dir.display()))?;
        if human {
            outln!("reports: {}", dir.display());
        }
    }
    let failed = !report.passed(args.fail_on);
    Ok(ExitCode::from(if failed { EXIT_FAIL } else { EXIT_PASS }))
}

/// The campaign in the human output: its counts, what was left out and why, the coverage
/// `table` and the file it was written to.
fn campaign_lines(
    summary: &fuzzer::Summary,
    table: &str,
    coverage_file: Option<&std::path::Path>,
) -> String {
    let p = summary.progress;
    let mut lines = vec![format!(
        "{} sessions, {} positions in {:.1} s ({:.0} positions/s), {} finding groups",
        p.sessions,
        p.positions,
        p.elapsed.as_secs_f64(),
        p.positions_per_second(),
        summary.findings.len()
    )];
    if let Some(signal) = super::interrupt::interrupted() {
        lines.push(format!(
            "interrupted by {signal}: the sessions it cut short are not counted"
        ));
    }
    if p.cut_short > 0 {
        lines.push(format!(
            "the time limit cut {} sessions short: they are not counted",
            p.cut_short
        ));
    }
    if p.unconfirmed > 0 {
        lines.push(format!(
            "{} failures did not repeat when re-run (machine load?) and are not reported",
            p.unconfirmed
        ));
    }
    if p.known > 0 {
        lines.push(format!(
            "{} known findings met again (counted in their groups, not reported again; the \
             sessions went on past them)",
            p.known
        ));
    }
    for ((oracle, rule), count) in &summary.waived {
        lines.push(format!(
            "waived by the baseline: {oracle} {rule}: {count} times"
        ));
    }
    let mut text = lines.join("\n") + "\n" + table;
    if let Some(line) = usicheck::report::ApartFromKnown::of(summary).line() {
        text.push_str(&line);
        text.push('\n');
    }
    if let Some(path) = coverage_file {
        text.push_str(&format!(
            "coverage table: {} (explained by `usicheck fuzz --coverage`)\n",
            path.display()
        ));
    }
    text
}

/// Each finding group in the human output: its grade, rule, counts and what was seen, the
/// reproducer and its replay command.
fn findings_lines(report: &FuzzReport, args: &FuzzArgs) -> String {
    let mut text = String::new();
    for f in &report.findings {
        text.push_str(&format!(
            "{} {} {}: {} sessions, first in session {} (shrunk {} -> {} commands): {}\n",
            paint(style::outcome(f.grade), f.grade),
            f.oracle,
            f.rule,
            f.count,
            f.first_session,
            f.original_len,
            f.shrunk_len,
            sanitise(&f.detail)
        ));
        if f.cut_by_time {
            text.push_str(
                "     (the time limit stopped its confirming and shrinking: replay as found)\n",
            );
        }
        if let Some(path) = &f.out_file {
            text.push_str(&format!(
                "     {path}\n     replay: {}\n",
                replay(path, args)
            ));
        }
    }
    text
}

/// `usicheck run FINDING --option … --profile … -- ENGINE`: the finding with this campaign's
/// engine settings.
fn replay(finding: &str, args: &FuzzArgs) -> String {
    let mut words = vec![
        "usicheck".to_owned(),
        "run".to_owned(),
        super::suite::shell_word(finding),
    ];
    words.extend(engine_words(args));
    words.join(" ")
}

/// The engine flags, the profile if not the default, `--` and the engine: how a replay and a
/// repeated campaign end.
fn engine_words(args: &FuzzArgs) -> Vec<String> {
    let mut words = super::suite::engine_flag_words(
        &args.options,
        &args.claims,
        args.cwd.as_deref(),
        args.engine_define.as_deref(),
    );
    if args.profile != fuzzer::DEFAULT_PROFILE {
        words.extend(["--profile".to_owned(), args.profile.to_string()]);
    }
    words.push("--".to_owned());
    words.extend(args.engine.iter().map(|w| super::suite::shell_word(w)));
    words
}

/// `usicheck fuzz --seed SEED …`: the campaign again, with this one's flags.
fn campaign_replay(seed: u64, args: &FuzzArgs) -> String {
    let mut words: Vec<String> = ["usicheck", "fuzz", "--seed"].map(String::from).into();
    words.push(seed.to_string());
    if let Some(runs) = args.runs {
        words.extend(["--runs".to_owned(), runs.to_string()]);
    }
    if let Some(time) = args.time {
        words.extend(["--time".to_owned(), format!("{}ms", time.as_millis())]);
    }
    words.extend(["--episodes".to_owned(), args.episodes.to_string()]);
    if args.depth1 {
        words.push("--depth1".to_owned());
    }
    words.extend(engine_words(args));
    words.join(" ")
}

/// A bar over the sessions (or a spinner for a timed run), hidden when stderr is no terminal.
fn progress_bar(runs: Option<u64>) -> ProgressBar {
    let bar = match runs {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::new_spinner(),
    };
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let template = if runs.is_some() {
        "{elapsed_precise} [{bar:30}] {pos}/{len} sessions, {msg}"
    } else {
        "{elapsed_precise} {spinner} {pos} sessions, {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
