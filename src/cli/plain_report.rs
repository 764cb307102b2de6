//! A plain-text reporter: one line per finished scenario, expected vs actual and the replay
//! command for failures.

use std::io::Write;
use usicheck::engine::sanitise;
use usicheck::report::{Event, Reporter};
use usicheck::rules::Outcome;

pub struct PlainReporter<W: Write> {
    out: W,
}

impl<W: Write> PlainReporter<W> {
    pub fn new(out: W) -> Self {
        PlainReporter { out }
    }
}

impl<W: Write> Reporter for PlainReporter<W> {
    fn event(&mut self, event: &Event) -> std::io::Result<()> {
        match event {
            Event::RunStarted(info) => writeln!(
                self.out,
                "usicheck {} · profile {} · {} scenario(s), {} job(s) · engine: {}",
                info.usicheck_version,
                info.profile,
                info.scenarios,
                info.jobs,
                sanitise(&info.engine.join(" "))
            )?,
            Event::ScenarioStarted { .. } => {}
            Event::ScenarioFinished(report) => {
                writeln!(
                    self.out,
                    "{:<4} {} ({}) {:.1} s",
                    report.outcome,
                    sanitise(&report.name),
                    report.file,
                    report.duration.as_secs_f64()
                )?;
                if let Some(reason) = &report.skipped {
                    writeln!(self.out, "     skipped: {}", sanitise(reason))?;
                }
                for verdict in &report.verdicts {
                    if matches!(verdict.outcome, Outcome::Fail | Outcome::Warn | Outcome::Info) {
                        writeln!(
                            self.out,
                            "     {} {}: {}",
                            verdict.outcome,
                            verdict.rule,
                            sanitise(&verdict.reason)
                        )?;
                    }
                }
                if let Some(failure) = &report.failure {
                    writeln!(self.out, "     step {}: {}", failure.step, sanitise(&failure.step_text))?;
                    writeln!(self.out, "       expected: {}", sanitise(&failure.expected))?;
                    writeln!(self.out, "       actual:   {}", sanitise(&failure.actual))?;
                }
                if matches!(report.outcome, Outcome::Fail | Outcome::Warn) {
                    writeln!(self.out, "     replay: {}", report.replay)?;
                    for line in &report.transcript_tail {
                        writeln!(self.out, "       | {}", sanitise(line))?;
                    }
                }
            }
            Event::RunFinished { duration_ms } => {
                writeln!(self.out, "finished in {:.1} s", *duration_ms as f64 / 1000.0)?
            }
        }
        self.out.flush()
    }
}
