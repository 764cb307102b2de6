//! The campaign's `summary.md`: the verdict, the numbers and the findings, for a job summary.

use super::FuzzReport;
use crate::report::aggregate::FailOn;
use crate::report::markdown::escape;
use std::fmt::Write as _;

impl FuzzReport {
    /// `summary.md`: the verdict, the numbers, a table of findings, the coverage table.
    pub fn markdown(&self, fail_on: FailOn) -> String {
        let mut out = format!(
            "# usicheck fuzz: {} with --fail-on {}\n\n- seed {}: {}\n- profile {}\n- {}\n",
            if self.passed(fail_on) { "PASS" } else { "FAIL" },
            fail_on.as_str(),
            self.seed,
            escape(&self.replay),
            self.profile,
            self.numbers()
        );
        for line in self.side_counts() {
            let _ = writeln!(out, "- {}", escape(&line));
        }
        if self.findings.is_empty() {
            out.push_str("\nNo findings.\n");
        } else {
            out.push_str(
                "\n| grade | oracle | rule | sessions | first | shrunk | evidence | reproducer |\n\
                 |---|---|---|---|---|---|---|---|\n",
            );
            for f in &self.findings {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} [{}] {} | {} | {} | {} -> {} | {} | {} |",
                    f.grade,
                    f.oracle,
                    f.rule,
                    f.strength,
                    escape(f.title),
                    f.count,
                    f.first_session,
                    f.original_len,
                    f.shrunk_len,
                    escape(&f.detail),
                    escape(&f.reproducer)
                );
            }
            out.push('\n');
            for f in &self.findings {
                let _ = writeln!(
                    out,
                    "- {} {}: replay {}; transcript {}",
                    f.oracle,
                    f.rule,
                    escape(&f.replay),
                    escape(f.transcript.as_deref().unwrap_or("none"))
                );
            }
        }
        let _ = write!(
            out,
            "\n## Protocol-state coverage\n\n```\n{}```\n",
            self.coverage.table
        );
        if let Some(line) = self.coverage.apart_from_known.line() {
            let _ = writeln!(out, "\n{line}");
        }
        out
    }
}
