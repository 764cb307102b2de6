//! The terminal reporter: one line per scenario as it finishes, details for each failure
//! (rule, expected vs actual, transcript tail, replay command), then the per-rule table and the
//! certificate. Colour goes through `anstream`, which drops it for `NO_COLOR` and non-terminals
//! unless its global choice (the CLI's `--color`) says otherwise; engine text is sanitised so it
//! cannot move the cursor or recolour the screen.

use super::aggregate::{Aggregate, FailOn, Run, badness, level_label};
use super::event::{Event, Reporter, ScenarioReport};
use super::style::{BOLD, DIM, outcome as outcome_style};
use crate::engine::sanitise;
use crate::rules::Outcome;
use anstream::stream::{AsLockedWrite, RawStream};
use anstream::{AutoStream, ColorChoice};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, Write};

/// How many transcript lines a failure shows at most.
const TRANSCRIPT_LINES: usize = 12;

/// Scenarios named per rule in the rule table (the rest are counted).
const SCENARIOS_PER_RULE: usize = 3;

/// Runs with fewer scenarios finish before a progress bar helps.
const PROGRESS_MIN_SCENARIOS: usize = 5;

/// Streams a human-readable report to a terminal (or any writer).
pub struct Terminal<W: RawStream + AsLockedWrite> {
    out: AutoStream<W>,
    aggregate: Aggregate,
    fail_on: FailOn,
    progress: Option<ProgressBar>,
    show_progress: bool,
}

impl Terminal<io::Stdout> {
    /// Reports on stdout, coloured as anstream's global choice says (by default when stdout is
    /// a terminal and `NO_COLOR` is unset), with a progress bar on stderr when stderr is a
    /// terminal.
    pub fn stdout(fail_on: FailOn) -> Terminal<io::Stdout> {
        let mut terminal = Terminal::new(io::stdout(), ColorChoice::Auto, fail_on);
        terminal.show_progress = true;
        terminal
    }
}

impl<W: RawStream + AsLockedWrite> Terminal<W> {
    /// Reports on `raw` with the given colour choice and no progress bar.
    pub fn new(raw: W, color: ColorChoice, fail_on: FailOn) -> Terminal<W> {
        Terminal {
            out: AutoStream::new(raw, color),
            aggregate: Aggregate::default(),
            fail_on,
            progress: None,
            show_progress: false,
        }
    }

    /// The underlying writer, once the run is reported.
    pub fn into_inner(self) -> W {
        self.out.into_inner()
    }

    /// Writes through the progress bar, so lines do not tear it.
    fn print(&mut self, text: &str) -> io::Result<()> {
        match &self.progress {
            Some(bar) => bar.suspend(|| self.out.write_all(text.as_bytes())),
            None => self.out.write_all(text.as_bytes()),
        }
    }

    fn start_progress(&mut self, scenarios: usize) {
        if !self.show_progress || scenarios < PROGRESS_MIN_SCENARIOS {
            return;
        }
        // indicatif draws nothing when stderr is not a terminal.
        let bar =
            ProgressBar::with_draw_target(Some(scenarios as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}") {
            bar.set_style(style);
        }
        self.progress = Some(bar);
    }
}

impl<W: RawStream + AsLockedWrite> Reporter for Terminal<W> {
    fn event(&mut self, event: &Event) -> io::Result<()> {
        self.aggregate.record(event);
        match event {
            Event::RunStarted(info) => {
                let mut text = format!(
                    "{}usicheck {}{} · profile {} · engine {}",
                    BOLD.render(),
                    info.usicheck_version,
                    BOLD.render_reset(),
                    info.profile,
                    sanitise(&info.engine.join(" ")),
                );
                if !info.options.is_empty() {
                    let options: Vec<String> = info
                        .options
                        .iter()
                        .map(|(name, value)| format!("{name}={value}"))
                        .collect();
                    text.push_str(&format!(" · options {}", sanitise(&options.join(" "))));
                }
                if let Some(config) = &info.config {
                    text.push_str(&format!(" · config {}", sanitise(config)));
                }
                text.push('\n');
                self.print(&text)?;
                self.start_progress(info.scenarios);
            }
            Event::ScenarioStarted { name, .. } => {
                if let Some(bar) = &self.progress {
                    bar.set_message(sanitise(name).into_owned());
                }
            }
            Event::ScenarioFinished(report) => {
                let text = scenario_text(report);
                self.print(&text)?;
                if let Some(bar) = &self.progress {
                    bar.inc(1);
                }
            }
            Event::RunFinished { .. } => {
                if let Some(bar) = self.progress.take() {
                    bar.finish_and_clear();
                }
                let run = self
                    .aggregate
                    .runs
                    .last()
                    .expect("RunFinished records a run");
                let text = run_summary(run, self.fail_on);
                self.print(&text)?;
            }
        }
        self.out.flush()
    }
}

fn outcome_tag(outcome: Outcome) -> String {
    let style = outcome_style(outcome);
    format!("{}{:<4}{}", style.render(), outcome, style.render_reset())
}

fn millis(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms >= 1000 {
        format!("{:.1} s", d.as_secs_f64())
    } else {
        format!("{ms} ms")
    }
}

/// One line for the scenario, plus the details when something went wrong.
fn scenario_text(report: &ScenarioReport) -> String {
    let mut text = format!(
        "  {}  {} {}({}){}\n",
        outcome_tag(report.outcome),
        sanitise(&report.name),
        DIM.render(),
        millis(report.duration),
        DIM.render_reset(),
    );
    if let Some(reason) = report
        .skipped
        .as_ref()
        .filter(|_| report.outcome == Outcome::Skip)
    {
        text.push_str(&format!("        skipped: {}\n", sanitise(reason)));
    }
    let mut notable: Vec<_> = report
        .counted_verdicts()
        .filter(|v| matches!(v.outcome, Outcome::Fail | Outcome::Warn | Outcome::Info))
        .collect();
    // A scenario not reached says why in one line; its transcript is in the file.
    if notable.is_empty() && (report.failure.is_none() || report.outcome == Outcome::Skip) {
        return text;
    }
    notable.sort_by_key(|v| std::cmp::Reverse(badness(v.outcome)));
    for verdict in notable {
        let rule = verdict.rule.rule();
        // A part outside the rule's own strength (a GUI rule's engine-side advisory) is named.
        let strength = match verdict.part.as_deref().and_then(|q| {
            let part = rule.part(q)?;
            rule.strength.part(q).is_none().then_some((part.level, q))
        }) {
            Some((level, qualifier)) => format!("{}; {level} ({qualifier})", rule.strength),
            None => rule.strength.to_string(),
        };
        text.push_str(&format!(
            "        {} {}{}{} [{}] {}\n",
            outcome_tag(verdict.outcome),
            BOLD.render(),
            rule.id,
            BOLD.render_reset(),
            strength,
            rule.title,
        ));
        if !verdict.reason.is_empty() {
            text.push_str(&format!("             {}\n", sanitise(&verdict.reason)));
        }
        if let Some(why) = &verdict.waived {
            text.push_str(&format!(
                "             waived (--baseline): {}\n",
                sanitise(why)
            ));
        }
    }
    if let Some(failure) = &report.failure {
        let place = match failure.line {
            Some(line) => format!(" ({}:{line})", sanitise(&report.file)),
            None => String::new(),
        };
        text.push_str(&format!("        step {}{place}:\n", failure.step));
        for line in failure.step_text.lines() {
            text.push_str(&format!("          {}\n", sanitise(line)));
        }
        text.push_str(&format!(
            "        expected: {}\n        actual:   {}\n",
            sanitise(&failure.expected),
            sanitise(&failure.actual),
        ));
    }
    let tail = &report.transcript_tail;
    if !tail.is_empty() {
        let shown = &tail[tail.len().saturating_sub(TRANSCRIPT_LINES)..];
        text.push_str(&format!(
            "        {}transcript:{}\n",
            DIM.render(),
            DIM.render_reset()
        ));
        for line in shown {
            text.push_str(&format!("          {}\n", sanitise(line)));
        }
    }
    if let Some(path) = &report.transcript_path {
        text.push_str(&format!(
            "        full transcript: {}\n",
            sanitise(&path.display().to_string())
        ));
    }
    if !report.replay.is_empty() {
        text.push_str(&format!("        replay: {}\n", sanitise(&report.replay)));
    }
    text
}

/// The always-on checks' violations, once each: rule, first evidence, how many sessions
/// showed it, and where to see it.
fn always_on_text(run: &Run) -> String {
    let findings = run.always_on();
    if findings.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "\n{}Always-on checks{} (every line of every session; each violation once)\n",
        BOLD.render(),
        BOLD.render_reset()
    );
    for finding in &findings {
        let rule = finding.rule.rule();
        text.push_str(&format!(
            "  {} {}{}{} [{}] {}\n        {}\n",
            outcome_tag(finding.outcome),
            BOLD.render(),
            rule.id,
            BOLD.render_reset(),
            rule.strength,
            rule.title,
            sanitise(&finding.evidence),
        ));
        let sessions = finding.scenarios.len();
        let others = if sessions > 1 {
            format!(" (and {} other sessions)", sessions - 1)
        } else {
            String::new()
        };
        text.push_str(&format!(
            "        seen in: {}{others}\n",
            sanitise(&finding.first_scenario)
        ));
        if let Some(first) = run
            .scenarios
            .iter()
            .find(|s| s.name == finding.first_scenario)
        {
            if let Some(path) = &first.transcript_path {
                text.push_str(&format!(
                    "        full transcript: {}\n",
                    sanitise(&path.display().to_string())
                ));
            }
            if !first.replay.is_empty() {
                text.push_str(&format!("        replay: {}\n", sanitise(&first.replay)));
            }
        }
    }
    text
}

/// The always-on violations, the per-rule table, the certificate line and the gate's result.
fn run_summary(run: &Run, fail_on: FailOn) -> String {
    let rules = run.rules();
    let mut text = always_on_text(run);
    if !rules.is_empty() {
        text.push_str(&format!(
            "\n{}Rules{} (worst verdict over the scenarios that judged each)\n",
            BOLD.render(),
            BOLD.render_reset()
        ));
    }
    for rule in &rules {
        let catalogued = rule.rule.rule();
        let (worst, more) = rule.worst_scenarios(SCENARIOS_PER_RULE);
        let mut scenarios = worst.join(", ");
        if more > 0 {
            scenarios.push_str(&format!(" +{more} more"));
        }
        let of_rule = || run.verdicts().filter(|(_, v)| v.rule == rule.rule);
        if of_rule().any(|(_, v)| v.waived.is_some()) && !of_rule().any(|(_, v)| fail_on.fails(v)) {
            scenarios.push_str("; waived by the baseline");
        }
        text.push_str(&format!(
            "  {}  {:<18} {:<9} {} {}({}){}\n",
            outcome_tag(rule.outcome),
            catalogued.id,
            level_label(catalogued.strength.primary().level),
            catalogued.title,
            DIM.render(),
            sanitise(&scenarios),
            DIM.render_reset(),
        ));
    }
    let waived = run.verdicts().filter(|(_, v)| v.waived.is_some()).count();
    if waived > 0 {
        text.push_str(&format!(
            "\n{waived} verdicts waived by the baseline (shown above; they do not fail the gate)\n"
        ));
    }
    for stale in &run.stale_waivers {
        text.push_str(&format!(
            "{} {}\n",
            outcome_tag(Outcome::Fail),
            sanitise(stale)
        ));
    }
    let certificate = run.certificate();
    let failed = run.fails(fail_on);
    let verdict = if failed { Outcome::Fail } else { Outcome::Pass };
    if let Some(signal) = &run.interrupted {
        text.push_str(&format!(
            "\n{}interrupted by {}{}: the verdicts cover only the {} scenarios that finished",
            BOLD.render(),
            sanitise(signal),
            BOLD.render_reset(),
            run.scenarios
                .iter()
                .filter(|s| !s.was_interrupted())
                .count(),
        ));
    }
    match &run.interrupted {
        // Exit code 128 + signal: no gate result for a partial run.
        Some(signal) => text.push_str(&format!(
            "\n{}\n{}INTERRUPTED{} by {}, no verdict under --fail-on {}",
            certificate.summary(),
            BOLD.render(),
            BOLD.render_reset(),
            sanitise(signal),
            fail_on.as_str()
        )),
        None => text.push_str(&format!(
            "\n{}\n{} with --fail-on {}",
            certificate.summary(),
            outcome_tag(verdict),
            fail_on.as_str()
        )),
    }
    match run.engine_name() {
        Some(name) => text.push_str(&format!(" · engine {}", sanitise(name))),
        None => text.push_str(" · no engine `id name`"),
    }
    text.push_str(&format!(
        " · usicheck {} · {}",
        sanitise(&run.info.usicheck_version),
        sanitise(&run.info.started_at)
    ));
    if run.info.options.is_empty() {
        text.push_str(" · default options");
    } else {
        let options: Vec<String> = run
            .info
            .options
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        text.push_str(&format!(" · options {}", sanitise(&options.join(" "))));
    }
    if let Some(ms) = run.duration_ms {
        text.push_str(&format!(
            " · {}",
            millis(std::time::Duration::from_millis(ms))
        ));
    }
    // What the run cannot go below: a slow certify of an engine that computes a lot is the
    // engine's, not the schedule's.
    if let Some(cpu) = run.engine_cpu {
        text.push_str(&format!(
            " · engine CPU {} on {} cores",
            millis(std::time::Duration::from_millis(cpu.ms)),
            cpu.cores
        ));
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::{HOSTILE, failing_run, nameless_run, passing_run};

    fn render(events: &[Event], color: ColorChoice) -> String {
        let mut terminal = Terminal::new(Vec::new(), color, FailOn::Must);
        for event in events {
            terminal.event(event).unwrap();
        }
        String::from_utf8(terminal.into_inner()).unwrap()
    }

    #[test]
    fn an_always_on_violation_is_printed_once() {
        let text = render(
            &crate::report::fixtures::always_on_run(),
            ColorChoice::Never,
        );
        assert_eq!(text.matches("trailing blank").count(), 2, "{text}");
        assert!(text.contains("PASS  isready-twice"), "{text}");
        assert!(text.contains("FAIL  option-grammar"), "{text}");
        assert!(text.contains("Always-on checks"), "{text}");
        assert!(
            text.contains("seen in: isready-twice (and 2 other sessions)"),
            "{text}"
        );
    }

    #[test]
    fn failure_shows_rule_expected_actual_transcript_and_replay() {
        let text = render(&failing_run(), ColorChoice::Never);
        for wanted in [
            "FAIL  isready-twice",
            "USI-READY-001 [MUST] Every `isready` gets exactly one `readyok`",
            "step 4 (scenarios/isready-twice.yaml:9):\n          expect: {line: readyok, within: 1s}",
            "expected: readyok within 1 s",
            "actual:   Evil\\x1b[2J",
            "0.001 > isready",
            "full transcript: /tmp/usicheck-fixture/isready-twice.log",
            "replay: usicheck run scenarios/isready-twice.yaml -- ./engine",
            "WARN  stop-late",
        ] {
            assert!(text.contains(wanted), "missing {wanted:?} in\n{text}");
        }
    }

    #[test]
    fn ends_with_rule_table_certificate_and_gate() {
        let text = render(&failing_run(), ColorChoice::Never);
        let table = text
            .split("Rules (worst verdict")
            .nth(1)
            .expect("rule table");
        assert!(
            table.contains("FAIL  USI-READY-001      MUST      Every"),
            "{table}"
        );
        assert!(table.contains("(isready-twice +1 more)"), "{table}");
        assert!(table.contains("shogidokoro: 1/"), "{table}");
        assert!(table.contains("1 FAIL, 1 WARN"), "{table}");
        let last = table.lines().last().unwrap();
        assert!(
            last.starts_with("FAIL with --fail-on must · engine Evil\\x1b[2J"),
            "{last}"
        );
        assert!(
            last.ends_with(
                " · usicheck 0.1.0 · 2026-11-22T16:00:00Z · options USI_Hash=16 · 1.2 s"
            ),
            "{last}"
        );
        let text = render(&passing_run(), ColorChoice::Never);
        assert!(text.contains("PASS with --fail-on must"), "{text}");
        assert!(text.contains("skipped: engine lacks USI 2.0"), "{text}");
        let text = render(&nameless_run(), ColorChoice::Never);
        assert!(text.contains(" · no engine `id name` · "), "{text}");
    }

    #[test]
    fn the_summary_ends_with_what_the_engine_processes_computed() {
        let mut events = failing_run();
        let Some(Event::RunFinished { engine_cpu, .. }) = events.last_mut() else {
            panic!("the fixture ends with RunFinished");
        };
        *engine_cpu = Some(crate::report::EngineCpu { ms: 2460, cores: 2 });
        let text = render(&events, ColorChoice::Never);
        let last = text.lines().last().unwrap();
        assert!(
            last.ends_with(" · 1.2 s · engine CPU 2.5 s on 2 cores"),
            "{last}"
        );
    }

    #[test]
    fn engine_text_cannot_reach_the_terminal_raw() {
        for color in [ColorChoice::Never, ColorChoice::Always] {
            let text = render(&failing_run(), color);
            assert!(!text.contains(HOSTILE));
            assert!(!text.contains('\0') && !text.contains('\u{7}'));
            // The only escape sequences left are usicheck's own colours (SGR: ESC [ … m).
            for (i, _) in text.match_indices('\u{1b}') {
                let sgr = text[i + 1..].strip_prefix('[').and_then(|rest| {
                    let end = rest.find(|c: char| !c.is_ascii_digit() && c != ';')?;
                    (rest.as_bytes()[end] == b'm').then_some(())
                });
                assert!(sgr.is_some(), "foreign escape at {i}: {:?}", &text[i..]);
            }
        }
    }

    #[test]
    fn colour_only_when_asked() {
        assert!(!render(&failing_run(), ColorChoice::Never).contains('\u{1b}'));
        assert!(render(&failing_run(), ColorChoice::Always).contains("\u{1b}["));
    }
}
