//! `junit.xml`: one `<testsuite>` per run (profile) and one `<testcase>` per scenario, because a
//! scenario is what has a transcript and a replay command. A testcase fails when one of its
//! verdicts fails the `--fail-on` gate; its `<failure>` names the rule(s) in `type` and
//! `message`, and `system-out` holds the transcript (from its file, bounded to its beginning
//! and end; the in-memory tail when there is no file), the transcript path and the replay
//! command. Verdicts that do not fail the gate (WARN under `must`, INFO) are listed in
//! `system-out` of a passing testcase. Scenarios skipped as a whole are `<skipped>`.

use super::aggregate::{Aggregate, FailOn, Run};
use super::event::ScenarioReport;
use crate::engine::sanitise;
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// Most transcript bytes quoted in one failing testcase: CI pages stay readable and a flooding
/// engine cannot bloat junit.xml; the transcript file has the rest.
const TRANSCRIPT_HEAD_BYTES: u64 = 16 * 1024;
const TRANSCRIPT_TAIL_BYTES: u64 = 48 * 1024;

/// Engine text made safe for XML 1.0: escapes and control characters made visible (as on the
/// terminal, rather than silently dropped), and the non-characters U+FFFE/U+FFFF, which XML
/// forbids, written as escapes. Markup characters and `]]>` are escaped by the XML writer.
pub(super) fn xml_text(text: &str) -> String {
    sanitise(text)
        .chars()
        .map(|c| match c {
            '\u{fffe}' | '\u{ffff}' => format!("\\u{{{:x}}}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

/// Multi-line text for `system-out`: each line made safe by [`xml_text`], line breaks kept.
pub(super) fn xml_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Not `lines()`: a carriage return the engine sent stays visible as `\r`.
    for line in text.split_terminator('\n') {
        out.push_str(&xml_text(line));
        out.push('\n');
    }
    out
}

/// The transcript file's text: whole when short, else its first and last lines within the
/// byte bounds, with a note of what was left out.
pub(super) fn transcript_excerpt(path: &Path) -> io::Result<String> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    let mut bytes = Vec::new();
    if size <= TRANSCRIPT_HEAD_BYTES + TRANSCRIPT_TAIL_BYTES {
        file.take(size).read_to_end(&mut bytes)?;
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    (&mut file)
        .take(TRANSCRIPT_HEAD_BYTES)
        .read_to_end(&mut bytes)?;
    let head_end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(head_end);
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(size - TRANSCRIPT_TAIL_BYTES))?;
    file.take(TRANSCRIPT_TAIL_BYTES).read_to_end(&mut tail)?;
    let tail_start = tail.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1);
    let omitted = size - bytes.len() as u64 - (tail.len() - tail_start) as u64;
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    text.push_str(&format!("# ... {omitted} bytes omitted here ...\n"));
    text.push_str(&String::from_utf8_lossy(&tail[tail_start..]));
    Ok(text)
}

fn system_out(scenario: &ScenarioReport, fail_on: FailOn, report_dir: Option<&Path>) -> String {
    let mut out = String::new();
    for verdict in scenario.counted_verdicts() {
        if !fail_on.fails(verdict) && verdict.outcome != crate::rules::Outcome::Pass {
            out.push_str(&format!(
                "{} {} {}: {}\n",
                verdict.outcome,
                verdict.rule,
                verdict.rule.rule().title,
                verdict.reason
            ));
        }
    }
    if let Some(failure) = &scenario.failure {
        let place = failure
            .line
            .map_or_else(String::new, |line| format!(" ({}:{line})", scenario.file));
        out.push_str(&format!(
            "step {}{place}:\n{}\nexpected: {}\nactual:   {}\n",
            failure.step, failure.step_text, failure.expected, failure.actual
        ));
    }
    let failing = scenario.counted_verdicts().any(|v| fail_on.fails(v));
    let quoted = scenario
        .transcript_path
        .as_deref()
        .filter(|_| failing)
        .map(|path| report_dir.map_or(path.to_path_buf(), |dir| dir.join(path)))
        .and_then(|path| transcript_excerpt(&path).ok());
    if let Some(transcript) = quoted {
        out.push_str("transcript:\n");
        for line in transcript.lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    } else if failing && !scenario.transcript_tail.is_empty() {
        out.push_str("transcript (last lines):\n");
        for line in &scenario.transcript_tail {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    if let Some(path) = &scenario.transcript_path {
        out.push_str(&format!("full transcript: {}\n", path.display()));
    }
    if !scenario.replay.is_empty() {
        out.push_str(&format!("replay: {}\n", scenario.replay));
    }
    out
}

fn test_case(
    run: &Run,
    scenario: &ScenarioReport,
    fail_on: FailOn,
    report_dir: Option<&Path>,
) -> TestCase {
    let failing: Vec<_> = scenario
        .counted_verdicts()
        .filter(|v| fail_on.fails(v))
        .collect();
    let status = if !failing.is_empty() {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        let rules: Vec<&str> = failing.iter().map(|v| v.rule.as_str()).collect();
        let message: Vec<String> = failing
            .iter()
            .map(|v| {
                format!(
                    "{} {} [{}] {}: {}",
                    v.outcome,
                    v.rule,
                    v.rule.rule().strength,
                    v.rule.rule().title,
                    v.reason
                )
            })
            .collect();
        status
            .set_type(rules.join(" "))
            .set_message(xml_text(&message.join("; ")));
        status
    } else if scenario.outcome == crate::rules::Outcome::Skip {
        let mut status = TestCaseStatus::skipped();
        let reason = scenario
            .skipped
            .as_deref()
            .unwrap_or("not exercised: nothing the scenario checks was judged");
        status.set_message(xml_text(reason));
        status
    } else {
        TestCaseStatus::success()
    };
    let mut case = TestCase::new(xml_text(&scenario.name), status);
    case.set_classname(format!("usicheck.{}", run.info.profile))
        .set_time(scenario.duration)
        .set_system_out(xml_lines(&system_out(scenario, fail_on, report_dir)))
        .add_property(Property::new("file", xml_text(&scenario.file)))
        .add_property(Property::new("outcome", scenario.outcome.as_str()));
    case
}

/// One testcase for the always-on checks of the whole run: each violation once, with its
/// first evidence and the sessions that showed it.
fn always_on_case(run: &Run, fail_on: FailOn) -> TestCase {
    let findings = run.always_on();
    let mut out = String::new();
    for finding in &findings {
        let rule = finding.rule.rule();
        out.push_str(&format!(
            "{} {} [{}] {}: {}\n  seen in {} session(s), first: {}\n",
            finding.outcome,
            finding.rule,
            rule.strength,
            rule.title,
            finding.evidence,
            finding.scenarios.len(),
            finding.first_scenario
        ));
        if let Some(first) = run
            .scenarios
            .iter()
            .find(|s| s.name == finding.first_scenario)
        {
            if let Some(path) = &first.transcript_path {
                out.push_str(&format!("  full transcript: {}\n", path.display()));
            }
            out.push_str(&format!("  replay: {}\n", first.replay));
        }
    }
    let failing: Vec<_> = findings
        .iter()
        .filter(|f| {
            run.verdicts()
                .any(|(_, v)| v.always_on && v.rule == f.rule && fail_on.fails(v))
        })
        .collect();
    let status = if failing.is_empty() {
        TestCaseStatus::success()
    } else {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        let rules: Vec<&str> = failing.iter().map(|f| f.rule.as_str()).collect();
        let message: Vec<String> = failing
            .iter()
            .map(|f| format!("{} {}: {}", f.outcome, f.rule, f.evidence))
            .collect();
        status
            .set_type(rules.join(" "))
            .set_message(xml_text(&message.join("; ")));
        status
    };
    let mut case = TestCase::new("always-on checks", status);
    case.set_classname(format!("usicheck.{}", run.info.profile))
        .set_system_out(xml_lines(&out));
    case
}

fn test_suite(run: &Run, fail_on: FailOn, report_dir: Option<&Path>) -> TestSuite {
    let mut suite = TestSuite::new(format!("usicheck {}", run.info.profile));
    suite.add_properties([
        Property::new("profile", run.info.profile.as_str()),
        Property::new("usicheck_version", xml_text(&run.info.usicheck_version)),
        Property::new("engine", xml_text(&run.info.engine.join(" "))),
        Property::new("engine_name", xml_text(run.engine_name().unwrap_or(""))),
        Property::new("started_at", xml_text(&run.info.started_at)),
        Property::new("fail_on", fail_on.as_str()),
        Property::new("certificate", xml_text(&run.certificate().summary())),
    ]);
    if let Some(signal) = &run.interrupted {
        suite.add_property(Property::new("interrupted", xml_text(signal)));
    }

    for (name, value) in &run.info.options {
        suite.add_property(Property::new(
            xml_text(&format!("option {name}")),
            xml_text(value),
        ));
    }
    suite.add_test_cases(
        run.scenarios
            .iter()
            .map(|s| test_case(run, s, fail_on, report_dir)),
    );
    suite.add_test_case(always_on_case(run, fail_on));
    if !run.stale_waivers.is_empty() {
        // A CI reads testcases: a stale waiver must fail one.
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status
            .set_type("stale-waiver")
            .set_message(xml_text(&run.stale_waivers.join("; ")));
        let mut case = TestCase::new("baseline", status);
        case.set_classname(format!("usicheck.{}", run.info.profile));
        suite.add_test_case(case);
    }
    if let Some(ms) = run.duration_ms {
        suite.set_time(std::time::Duration::from_millis(ms));
    }
    suite
}

/// Renders the JUnit XML report; transcript paths are relative to `report_dir` when given.
pub fn render(aggregate: &Aggregate, fail_on: FailOn, report_dir: Option<&Path>) -> String {
    let mut report = Report::new("usicheck");
    report.add_test_suites(
        aggregate
            .runs
            .iter()
            .map(|run| test_suite(run, fail_on, report_dir)),
    );
    report
        .to_string()
        .expect("quick-junit writes into a String")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::{failing_run, passing_run};
    use quick_xml::escape::resolve_predefined_entity;
    use quick_xml::events::Event as Xml;
    use quick_xml::{Reader, XmlVersion};

    /// An element: name, attributes, text content.
    type Element = (String, Vec<(String, String)>, String);

    /// Parses the whole document, returning its elements in order.
    fn parse(xml: &str) -> Vec<Element> {
        let mut reader = Reader::from_str(xml);
        let mut items = Vec::new();
        loop {
            match reader.read_event().expect("junit.xml is well-formed XML") {
                Xml::Eof => break,
                Xml::Start(e) | Xml::Empty(e) => {
                    let attributes = e
                        .attributes()
                        .map(|a| {
                            let a = a.expect("well-formed attribute");
                            let value = a
                                .normalized_value(XmlVersion::Implicit1_0)
                                .expect("valid escapes");
                            (
                                String::from_utf8_lossy(a.key.as_ref()).into_owned(),
                                value.into_owned(),
                            )
                        })
                        .collect();
                    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                    items.push((name, attributes, String::new()));
                }
                Xml::Text(t) => {
                    if let Some(last) = items.last_mut() {
                        last.2.push_str(&t.decode().expect("valid text"));
                    }
                }
                Xml::GeneralRef(r) => {
                    let name = r.decode().expect("valid reference");
                    let text = match r.resolve_char_ref().expect("valid character reference") {
                        Some(c) => c.to_string(),
                        None => resolve_predefined_entity(&name)
                            .expect("only predefined entities")
                            .to_owned(),
                    };
                    if let Some(last) = items.last_mut() {
                        last.2.push_str(&text);
                    }
                }
                Xml::CData(t) => {
                    if let Some(last) = items.last_mut() {
                        last.2.push_str(&String::from_utf8_lossy(&t));
                    }
                }
                _ => {}
            }
        }
        items
    }

    fn attr<'a>(item: &'a Element, key: &str) -> &'a str {
        item.1
            .iter()
            .find(|(k, _)| k == key)
            .map_or("", |(_, v)| v.as_str())
    }

    #[test]
    fn failing_rule_is_a_junit_failure_naming_it() {
        let xml = render(&Aggregate::from_events(&failing_run()), FailOn::Must, None);
        let items = parse(&xml);
        let cases: Vec<_> = items.iter().filter(|i| i.0 == "testcase").collect();
        assert_eq!(cases.len(), 4, "three scenarios and the always-on checks");
        let failures: Vec<_> = items.iter().filter(|i| i.0 == "failure").collect();
        assert_eq!(failures.len(), 1, "the WARN does not fail --fail-on must");
        assert_eq!(
            attr(failures[0], "type"),
            crate::rule!("USI-READY-001").as_str()
        );
        assert!(attr(failures[0], "message").starts_with("FAIL USI-READY-001 [MUST] Every"));
        let out = items
            .iter()
            .find(|i| i.0 == "system-out" && i.2.contains("isready"))
            .unwrap();
        assert!(
            out.2
                .contains("replay: usicheck run scenarios/isready-twice.yaml"),
            "{}",
            out.2
        );
        assert!(out.2.contains("0.001 > isready"), "{}", out.2);
        let warn_out = items
            .iter()
            .any(|i| i.0 == "system-out" && i.2.contains("WARN USI-STOP-002"));
        assert!(warn_out, "non-gating verdicts are listed");
        let should = render(
            &Aggregate::from_events(&failing_run()),
            FailOn::Should,
            None,
        );
        assert_eq!(
            parse(&should).iter().filter(|i| i.0 == "failure").count(),
            2
        );
    }

    #[test]
    fn an_always_on_violation_fails_one_testcase_and_the_scenario_listing_it() {
        let xml = render(
            &Aggregate::from_events(&crate::report::fixtures::always_on_run()),
            FailOn::Must,
            None,
        );
        let items = parse(&xml);
        let failing: Vec<&str> = items
            .iter()
            .enumerate()
            .filter(|(_, i)| i.0 == "failure")
            .map(|(n, _)| {
                let case = items[..n].iter().rev().find(|i| i.0 == "testcase").unwrap();
                attr(case, "name")
            })
            .collect();
        assert_eq!(failing, ["option-grammar", "always-on checks"]);
        let out = items
            .iter()
            .find(|i| i.0 == "system-out" && i.2.contains("seen in 3 session(s)"))
            .expect("the always-on testcase counts the sessions");
        assert!(out.2.contains("FAIL USI-OPTION-002"), "{}", out.2);
    }

    #[test]
    fn hostile_engine_text_is_escaped_not_lost() {
        let xml = render(&Aggregate::from_events(&failing_run()), FailOn::Must, None);
        for forbidden in ['\0', '\u{1b}', '\u{7}', '\u{fffe}'] {
            assert!(!xml.contains(forbidden), "{forbidden:?} in XML");
        }
        let items = parse(&xml);
        let out = items
            .iter()
            .find(|i| i.0 == "system-out" && i.2.contains("Evil"))
            .unwrap();
        for visible in [
            "\\x1b[2J",
            "\\x00",
            "\\x07",
            "\\u{fffe}",
            "\u{fffd}",
            "]]>",
            "<script>",
        ] {
            assert!(out.2.contains(visible), "{visible:?} lost from {}", out.2);
        }
    }

    #[test]
    fn failing_testcase_quotes_its_transcript_file_bounded() {
        let dir = std::env::temp_dir().join(format!("usicheck-junit-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("transcripts")).unwrap();
        let mut events = failing_run();
        let mut flood = String::from("0.000001 > usi\n");
        for i in 0..20_000 {
            flood.push_str(&format!("0.{i:06} < info string flood {i}\n"));
        }
        flood.push_str("0.999999 # exited with status 0\n");
        std::fs::write(dir.join("transcripts/isready-twice.log"), &flood).unwrap();
        for event in &mut events {
            if let crate::report::Event::ScenarioFinished(report) = event {
                report.transcript_path = Some("transcripts/isready-twice.log".into());
            }
        }
        let xml = render(&Aggregate::from_events(&events), FailOn::Must, Some(&dir));
        let items = parse(&xml);
        let outs: Vec<&str> = items
            .iter()
            .filter(|i| i.0 == "system-out")
            .map(|i| i.2.as_str())
            .collect();
        let failing = outs.iter().find(|o| o.contains("> usi\n")).unwrap();
        assert!(failing.contains("\n  0.000001 > usi\n"), "line breaks kept");
        assert!(failing.contains("flood 0\n") && failing.contains("flood 19999\n"));
        assert!(failing.contains("bytes omitted here"));
        assert!(failing.contains("exited with status 0"));
        let budget = (TRANSCRIPT_HEAD_BYTES + TRANSCRIPT_TAIL_BYTES) as usize;
        assert!(
            failing.len() < budget + budget / 8,
            "{} bytes",
            failing.len()
        );
        assert!(
            !outs
                .iter()
                .filter(|o| *o != failing)
                .any(|o| o.contains("> usi")),
            "passing testcases name their transcript without quoting it"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn skipped_scenario_is_skipped() {
        let xml = render(&Aggregate::from_events(&passing_run()), FailOn::Any, None);
        let items = parse(&xml);
        assert_eq!(items.iter().filter(|i| i.0 == "skipped").count(), 1);
        assert_eq!(items.iter().filter(|i| i.0 == "failure").count(), 0);
        let suite = items.iter().find(|i| i.0 == "testsuite").unwrap();
        assert_eq!(attr(suite, "name"), "usicheck shogidokoro");
    }
}
