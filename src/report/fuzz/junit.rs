//! The campaign's `junit.xml`: a testcase per finding group, so that CI lists each as a test.

use super::FuzzReport;
use crate::report::aggregate::FailOn;
use crate::report::junit::{transcript_excerpt, xml_lines, xml_text};
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

impl FuzzReport {
    /// `junit.xml`: a testcase per finding group, failed when the gate counts it (else passing
    /// with the finding in `system-out`, as certify lists a WARN under `--fail-on must`); a
    /// clean campaign is one passing testcase. Transcripts are quoted from their files in `dir`.
    pub fn junit(&self, fail_on: FailOn, dir: &Path) -> String {
        let mut suite = TestSuite::new("usicheck fuzz");
        for f in &self.findings {
            let status = if fail_on.fails(&f.verdict) {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status
                    .set_type(f.rule.as_str())
                    .set_message(xml_text(&format!(
                        "{} {} [{}] {}: {}",
                        f.grade, f.rule, f.strength, f.title, f.detail
                    )));
                status
            } else {
                TestCaseStatus::success()
            };
            let mut out = format!(
                "{} {} {} [{}] {}: {}\n{} sessions, first in session {} (shrunk {} -> {} \
                 commands)\nreproducer: {}\nreplay: {}\n",
                f.grade,
                f.oracle,
                f.rule,
                f.strength,
                f.title,
                f.detail,
                f.count,
                f.first_session,
                f.original_len,
                f.shrunk_len,
                f.reproducer,
                f.replay
            );
            if let Some(transcript) = &f.transcript {
                let _ = write!(out, "transcript: {transcript}\n\n");
                out.push_str(
                    &transcript_excerpt(&dir.join(transcript))
                        .unwrap_or_else(|_| f.transcript_text.clone()),
                );
            }
            let mut case = TestCase::new(format!("{} {}", f.oracle, f.rule), status);
            case.set_classname("usicheck.fuzz")
                .set_system_out(xml_lines(&out))
                .add_property(Property::new("grade", f.grade.as_str()))
                .add_property(Property::new("count", f.count.to_string()));
            suite.add_test_case(case);
        }
        if self.findings.is_empty() {
            let mut case = TestCase::new(
                format!("campaign seed {}", self.seed),
                TestCaseStatus::success(),
            );
            case.set_classname("usicheck.fuzz")
                .set_time(Duration::from_secs_f64(self.seconds))
                .set_system_out(xml_lines(&format!(
                    "{} sessions, {} positions, no findings\nreplay: {}\n",
                    self.sessions, self.positions, self.replay
                )));
            suite.add_test_case(case);
        }
        let mut junit = Report::new("usicheck");
        junit.add_test_suite(suite);
        junit.to_string().expect("quick-junit writes into a String")
    }
}
