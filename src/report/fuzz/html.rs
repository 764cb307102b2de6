//! The campaign's `report.html`: one page in certify's style, to read the findings and the
//! coverage table in a browser.

use super::FuzzReport;
use crate::report::aggregate::FailOn;
use crate::report::html::{STYLE, attr, badge, esc};
use crate::report::junit::transcript_excerpt;
use std::fmt::Write as _;
use std::path::Path;

impl FuzzReport {
    /// `report.html`: one self-contained page in certify's style (no script), engine text
    /// escaped, the coverage table as a table; transcripts quoted from their files in `dir`.
    pub fn html(&self, fail_on: FailOn, dir: &Path) -> String {
        let passed = self.passed(fail_on);
        let mut out = format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"generator\" content=\"usicheck {}\">\n\
             <title>usicheck fuzz: seed {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
             <h1 class=\"gate\">usicheck fuzz {} <span class=\"muted\">with --fail-on {}</span></h1>\n\
             <p>seed {} · replay <code>{}</code> · profile {}</p>\n<p>{}</p>\n",
            env!("CARGO_PKG_VERSION"),
            self.seed,
            badge(if passed { "PASS" } else { "FAIL" }),
            fail_on.as_str(),
            self.seed,
            esc(&self.replay),
            self.profile,
            esc(&self.numbers())
        );
        let side = self.side_counts();
        if !side.is_empty() {
            out.push_str("<ul>\n");
            for line in side {
                let _ = writeln!(out, "<li>{}</li>", esc(&line));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("<h2>Findings</h2>\n");
        if self.findings.is_empty() {
            out.push_str("<p>No findings.</p>\n");
        }
        for f in &self.findings {
            let _ = write!(
                out,
                "<h3>{} {} {} <span class=\"muted\">[{}] {}</span></h3>\n\
                 <p>{}</p>\n<p>{} sessions, first in session {}; shrunk {} → {} commands{}</p>\n\
                 <p>reproducer <a href=\"{}\"><code>{}</code></a> · replay <code>{}</code></p>\n",
                badge(f.grade.as_str()),
                f.oracle,
                f.rule,
                esc(&f.strength),
                esc(f.title),
                esc(&f.detail),
                f.count,
                f.first_session,
                f.original_len,
                f.shrunk_len,
                if f.cut_by_time {
                    " (the time limit stopped its shrinking)"
                } else {
                    ""
                },
                attr(&f.reproducer),
                esc(&f.reproducer),
                esc(&f.replay)
            );
            if let Some(transcript) = &f.transcript {
                let text = transcript_excerpt(&dir.join(transcript))
                    .unwrap_or_else(|_| f.transcript_text.clone());
                let lines: Vec<String> = text.lines().map(esc).collect();
                let _ = writeln!(
                    out,
                    "<details><summary>transcript (<a href=\"{}\">{}</a>)</summary>\
                     <pre><code>{}</code></pre></details>",
                    attr(transcript),
                    esc(transcript),
                    lines.join("\n")
                );
            }
        }
        let _ = write!(
            out,
            "<h2>Protocol-state coverage: {}/{} reachable cells</h2>\n\
             <p class=\"muted\">Commands sent, by the engine's state, the command and the time \
             since the previous command; · a reachable cell not exercised, blank an unreachable \
             one (<code>usicheck fuzz --coverage</code>).</p>\n\
             <table class=\"counts coverage\">\n<thead><tr><th>state</th><th>command</th>",
            self.coverage.exercised, self.coverage.reachable
        );
        if let Some(line) = self.coverage.apart_from_known.line() {
            let _ = writeln!(out, "<p>{}</p>", esc(&line));
        }
        for gap in &self.coverage.gaps {
            let _ = write!(out, "<th>{}</th>", esc(gap));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for row in &self.coverage.rows {
            let _ = write!(out, "<tr><th>{}</th><th>{}</th>", row.state, row.command);
            for count in &row.counts {
                match count {
                    Some(0) => out.push_str("<td class=\"muted\">·</td>"),
                    Some(n) => {
                        let _ = write!(out, "<td>{n}</td>");
                    }
                    None => out.push_str("<td></td>"),
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n</body>\n</html>\n");
        out
    }
}
