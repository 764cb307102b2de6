//! `report.json`: the machine-readable report, schema `usicheck-report/2`
//! (docs/report.schema.json). Adding fields keeps the version; renaming or removing one, or
//! changing a meaning, bumps it.
//!
//! The report is proportionate: the PASS verdicts of the always-on checks (every line of
//! every session, about 30 per scenario) are counted, not listed; every other verdict is.

use super::aggregate::{Aggregate, FailOn, Judgement, Run, judged_level};
use super::event::{ScenarioReport, StepFailure};
use crate::rules::{Level, Outcome, Profile, Reading, RuleId};
use serde::Serialize;

/// The `schema` field of every report.
pub const SCHEMA: &str = "usicheck-report/2";

/// The whole report: one entry in `runs` per profile certified.
#[derive(Serialize)]
struct Report<'a> {
    schema: &'static str,
    usicheck_version: &'static str,
    fail_on: FailOn,
    /// `false` when some verdict fails the `fail_on` gate (exit code 1).
    passed: bool,
    runs: Vec<JsonRun<'a>>,
}

#[derive(Serialize)]
struct JsonRun<'a> {
    profile: Profile,
    started_at: &'a str,
    duration_ms: Option<u64>,
    /// The signal that cut the run short, if one did.
    interrupted: Option<&'a str>,
    /// Baseline waivers no violation used (each fails the gate).
    stale_waivers: &'a [String],
    engine: &'a [String],
    engine_name: Option<&'a str>,
    engine_author: Option<&'a str>,
    options: Vec<EngineOption<'a>>,
    jobs: usize,
    /// How many scenarios a selection ran (`run`, `certify --rule/--skip`); null for the
    /// profile's whole suite. A selection's certificate counts only the rules it judged.
    selected_scenarios: Option<usize>,
    passed: bool,
    certificate: Vec<LevelEntry>,
    rules: Vec<RuleEntry<'a>>,
    /// The always-on checks' violations, once per rule.
    always_on: Vec<super::aggregate::AlwaysOnFinding>,
    scenarios: Vec<ScenarioEntry<'a>>,
    verdicts: Vec<VerdictEntry<'a>>,
}

#[derive(Serialize)]
struct EngineOption<'a> {
    name: &'a str,
    value: &'a str,
}

#[derive(Serialize)]
struct LevelEntry {
    level: Level,
    #[serde(flatten)]
    count: super::aggregate::LevelCount,
}

#[derive(Serialize)]
struct RuleEntry<'a> {
    rule: RuleId,
    title: &'a str,
    strength: String,
    level: Level,
    outcome: Outcome,
    /// Every judgement but the always-on checks' PASSes, which are counted.
    judged_by: Vec<Judgement>,
    always_on_passed: usize,
}

#[derive(Serialize)]
struct ScenarioEntry<'a> {
    name: &'a str,
    file: &'a str,
    /// The rules the scenario lists; its outcome counts its own verdicts and the always-on
    /// verdicts on these.
    rules: &'a [RuleId],
    outcome: Outcome,
    duration_ms: u64,
    skipped: Option<&'a str>,
    failure: Option<&'a StepFailure>,
    transcript: Option<String>,
    transcript_tail: &'a [String],
    replay: &'a str,
    /// Always-on checks that passed on this scenario's session (not in `verdicts`).
    always_on_passed: usize,
    /// Every search with a clock and how its reply met it (the first 500).
    timed_searches: &'a [crate::observer::TimedSearch],
    /// Timed searches past the first 500, counted.
    timed_searches_omitted: u64,
    /// The transcript as report.html draws it, bounded; null when no engine ran.
    timeline: Option<&'a super::Timeline>,
}

#[derive(Serialize)]
struct VerdictEntry<'a> {
    rule: RuleId,
    outcome: Outcome,
    /// The strength level of the part judged.
    level: Level,
    part: Option<&'a str>,
    reason: &'a str,
    readings: &'a [Reading],
    profile: Profile,
    scenario: &'a str,
    file: &'a str,
    duration_ms: u64,
    transcript: Option<String>,
    /// Judged by the always-on checks rather than by one of the scenario's steps.
    always_on: bool,
    /// Whether this verdict fails the `fail_on` gate.
    fails_gate: bool,
    /// Why the baseline accepts this violation, if it does.
    waived: Option<&'a str>,
}

/// A PASS of an always-on check: counted in the report, not listed.
fn is_counted(verdict: &crate::rules::Verdict) -> bool {
    verdict.always_on && verdict.outcome == Outcome::Pass
}

fn transcript(scenario: &ScenarioReport) -> Option<String> {
    scenario
        .transcript_path
        .as_ref()
        .map(|p| p.display().to_string())
}

fn run_entry(run: &Run, fail_on: FailOn) -> JsonRun<'_> {
    let profile = run.info.profile;
    JsonRun {
        profile,
        started_at: &run.info.started_at,
        duration_ms: run.duration_ms,
        interrupted: run.interrupted.as_deref(),
        stale_waivers: &run.stale_waivers,
        engine: &run.info.engine,
        engine_name: run.engine_name(),
        engine_author: run.engine_author(),
        options: run
            .info
            .options
            .iter()
            .map(|(name, value)| EngineOption { name, value })
            .collect(),
        jobs: run.info.jobs,
        selected_scenarios: run.info.selection.then_some(run.info.scenarios),
        passed: !run.fails(fail_on),
        certificate: run
            .certificate()
            .levels
            .into_iter()
            .map(|(level, count)| LevelEntry { level, count })
            .collect(),
        rules: run
            .rules()
            .into_iter()
            .map(|r| {
                let rule = r.rule.rule();
                let (passes, judged_by): (Vec<Judgement>, Vec<Judgement>) = r
                    .judged_by
                    .into_iter()
                    .partition(|j| j.always_on && j.outcome == Outcome::Pass);
                RuleEntry {
                    rule: r.rule,
                    title: &rule.title,
                    strength: rule.strength.to_string(),
                    level: rule.strength.primary().level,
                    outcome: r.outcome,
                    judged_by,
                    always_on_passed: passes.len(),
                }
            })
            .collect(),
        always_on: run.always_on(),
        scenarios: run
            .scenarios
            .iter()
            .map(|s| ScenarioEntry {
                name: &s.name,
                file: &s.file,
                rules: &s.rules,
                outcome: s.outcome,
                duration_ms: s.duration.as_millis() as u64,
                skipped: s.skipped.as_deref(),
                failure: s.failure.as_ref(),
                transcript: transcript(s),
                transcript_tail: &s.transcript_tail,
                replay: &s.replay,
                always_on_passed: s.verdicts.iter().filter(|v| is_counted(v)).count(),
                timed_searches: &s.timed_searches.kept,
                timed_searches_omitted: s.timed_searches.omitted,
                timeline: s.timeline.as_ref(),
            })
            .collect(),
        verdicts: run
            .verdicts()
            .filter(|(_, v)| !is_counted(v))
            .map(|(s, v)| VerdictEntry {
                rule: v.rule,
                outcome: v.outcome,
                level: judged_level(v),
                part: v.part.as_deref(),
                reason: &v.reason,
                readings: &v.readings,
                profile,
                scenario: &s.name,
                file: &s.file,
                duration_ms: s.duration.as_millis() as u64,
                transcript: transcript(s),
                always_on: v.always_on,
                fails_gate: fail_on.fails(v),
                waived: v.waived.as_deref(),
            })
            .collect(),
    }
}

/// Renders the report as pretty-printed JSON.
pub fn render(aggregate: &Aggregate, fail_on: FailOn) -> String {
    let report = Report {
        schema: SCHEMA,
        usicheck_version: env!("CARGO_PKG_VERSION"),
        fail_on,
        passed: !aggregate.fails(fail_on),
        runs: aggregate
            .runs
            .iter()
            .map(|run| run_entry(run, fail_on))
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&report).expect("report values serialise");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::{HOSTILE, failing_run, passing_run};
    use serde_json::Value;

    fn report(events: &[crate::report::Event]) -> Value {
        serde_json::from_str(&render(&Aggregate::from_events(events), FailOn::Must)).unwrap()
    }

    #[test]
    fn validates_against_the_checked_in_schema() {
        let schema: Value =
            serde_json::from_str(include_str!("../../docs/report.schema.json")).unwrap();
        let validator = jsonschema::validator_for(&schema).expect("the schema is valid");
        for events in [failing_run(), passing_run()] {
            let report = report(&events);
            let errors: Vec<String> = validator
                .iter_errors(&report)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{errors:#?}");
        }
        let mut wrong = report(&passing_run());
        wrong["runs"][0]["verdicts"][0]["outcome"] = "MAYBE".into();
        assert!(
            !validator.is_valid(&wrong),
            "the schema constrains outcomes"
        );
    }

    #[test]
    fn every_verdict_names_rule_profile_scenario_timing_and_transcript() {
        let report = report(&failing_run());
        assert_eq!(report["schema"], SCHEMA);
        assert_eq!(report["passed"], false);
        let run = &report["runs"][0];
        assert_eq!(run["profile"], "shogidokoro");
        let verdicts = run["verdicts"].as_array().unwrap();
        assert_eq!(verdicts.len(), 4);
        let failed = verdicts.iter().find(|v| v["outcome"] == "FAIL").unwrap();
        assert_eq!(failed["rule"], crate::rule!("USI-READY-001").as_str());
        assert_eq!(failed["scenario"], "isready-twice");
        assert_eq!(failed["profile"], "shogidokoro");
        assert_eq!(failed["duration_ms"], 12);
        assert_eq!(
            failed["transcript"],
            "/tmp/usicheck-fixture/isready-twice.log"
        );
        assert_eq!(failed["fails_gate"], true);
        assert_eq!(
            run["engine_name"], HOSTILE,
            "engine text survives JSON intact"
        );
    }

    #[test]
    fn certificate_names_engine_version_date_options_and_counts_per_level() {
        let report = report(&failing_run());
        assert_eq!(report["usicheck_version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(report["fail_on"], "must");
        let run = &report["runs"][0];
        assert_eq!(run["started_at"], "2026-11-22T16:00:00Z");
        assert_eq!(
            run["options"],
            serde_json::json!([{"name": "USI_Hash", "value": "16"}])
        );
        let levels: Vec<&Value> = run["certificate"].as_array().unwrap().iter().collect();
        let level = |name: &str| *levels.iter().find(|l| l["level"] == name).unwrap();
        assert_eq!(
            (
                level("MUST")["pass"].as_u64(),
                level("MUST")["fail"].as_u64()
            ),
            (Some(1), Some(1))
        );
        assert_eq!(level("SHOULD")["warn"], 1);
        assert!(level("EXTENSION-USI2.0")["applicable"].as_u64().unwrap() > 0);
    }

    #[test]
    fn rules_carry_their_worst_outcome() {
        let report = report(&failing_run());
        let rules = report["runs"][0]["rules"].as_array().unwrap();
        let ready = rules
            .iter()
            .find(|r| r["rule"] == crate::rule!("USI-READY-001").as_str())
            .unwrap();
        assert_eq!(ready["outcome"], "FAIL");
        assert_eq!(ready["judged_by"].as_array().unwrap().len(), 2);
    }
}
