//! `report.json` of `certify`, `run` and `selftest`: [`CertifyReport`], schema
//! `usicheck-report/2` (docs/report.schema.json, generated from these types). Adding fields
//! keeps the version; renaming or removing one, or changing a meaning, bumps it.
//!
//! The report is proportionate: the PASS verdicts of the always-on checks (every line of
//! every session, about 30 per scenario) are counted, not listed; every other verdict is.

use super::aggregate::{
    Aggregate, AlwaysOnFinding, FailOn, Judgement, LevelCount, Run, judged_level,
};
use super::event::{EngineCpu, ScenarioReport, StepFailure};
use super::timeline::Timeline;
use crate::observer::TimedSearch;
use crate::rules::{Level, Outcome, Profile, Reading, RuleId, Verdict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `schema` field of every report.
pub const SCHEMA: &str = "usicheck-report/2";

/// Written by `usicheck certify|run|selftest --report-dir DIR` as DIR/report.json and by
/// `--format json` on stdout: one entry in `runs` per profile certified. Fields may be added
/// within a version; renaming or removing one, or changing its meaning, bumps the version in
/// `schema`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "usicheck report (report.json)")]
pub struct CertifyReport {
    /// `usicheck-report/2`.
    #[schemars(extend("const" = SCHEMA))]
    pub schema: String,
    pub usicheck_version: String,
    pub fail_on: FailOn,
    /// `false` when some verdict fails the `fail_on` gate (exit code 1).
    pub passed: bool,
    pub runs: Vec<RunReport>,
}

/// One profile's run.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct RunReport {
    pub profile: Profile,
    /// RFC 3339 UTC start time.
    pub started_at: String,
    pub duration_ms: Option<u64>,
    /// The CPU time the engine processes used and the cores they shared (`null` for engines
    /// simulated in usicheck's process): `ms / cores` is the shortest the run could take.
    pub engine_cpu: Option<EngineCpu>,
    /// The signal that cut the run short (`SIGINT`, `SIGTERM`), if one did: scenarios it cut
    /// are SKIP "interrupted", those not started are absent.
    pub interrupted: Option<String>,
    /// `--baseline` waivers that no violation used although their rule was judged; each fails
    /// the gate (remove the line).
    pub stale_waivers: Vec<String>,
    /// The engine command line (argv).
    pub engine: Vec<String>,
    /// The engine's `id name`, raw.
    pub engine_name: Option<String>,
    /// The engine's `id author`, raw.
    pub engine_author: Option<String>,
    /// `--option NAME=VALUE` settings sent before `isready`.
    pub options: Vec<EngineOption>,
    /// Scenarios run at once.
    pub jobs: usize,
    /// How many scenarios a selection ran (`run`, `certify --rule/--skip`); null for the
    /// profile's whole suite. A selection's certificate counts only the rules it judged.
    pub selected_scenarios: Option<usize>,
    /// `false` when some verdict of this run fails the gate.
    pub passed: bool,
    /// Per primary strength level: the rules the profile applies that bind the engine (the
    /// GUI's own rules are not counted) and their worst outcome.
    pub certificate: Vec<LevelEntry>,
    /// Every judged rule with its worst outcome (FAIL > WARN > INFO > PASS > SKIP) and each
    /// scenario's judgement.
    pub rules: Vec<RuleEntry>,
    /// The always-on checks' violations (FAIL, WARN, INFO), once per rule: the worst outcome
    /// over the sessions, its first evidence, and every scenario whose session showed it.
    pub always_on: Vec<AlwaysOnFinding>,
    pub scenarios: Vec<ScenarioEntry>,
    /// Every verdict of every scenario, except the always-on checks' PASSes (counted in
    /// `always_on_passed`). Engine text in reasons is quoted at most 200 characters at a time
    /// (with its length noted), a reason at most 2000.
    pub verdicts: Vec<VerdictEntry>,
}

/// An engine option as set.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct EngineOption {
    pub name: String,
    pub value: String,
}

/// The certificate's counts for one strength level.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct LevelEntry {
    pub level: Level,
    #[serde(flatten)]
    pub count: LevelCount,
}

/// A rule over the run.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct RuleEntry {
    pub rule: RuleId,
    pub title: String,
    /// The full strength text, e.g. `MUST (canonical) / SHOULD (any order)`.
    pub strength: String,
    /// The primary strength level.
    pub level: Level,
    /// The worst outcome.
    pub outcome: Outcome,
    /// Each scenario's judgement, except the always-on checks' PASSes (counted in
    /// `always_on_passed`).
    pub judged_by: Vec<Judgement>,
    /// Scenarios whose session this rule's always-on check passed on.
    pub always_on_passed: usize,
}

/// One scenario's result.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct ScenarioEntry {
    pub name: String,
    /// The scenario file (bundled scenarios: their path inside `scenarios/`).
    pub file: String,
    /// The rules the scenario lists; its outcome counts its own verdicts and the always-on
    /// verdicts on these.
    pub rules: Vec<RuleId>,
    pub outcome: Outcome,
    pub duration_ms: u64,
    /// Why the scenario was skipped, when it was.
    pub skipped: Option<String>,
    /// The step that failed, when one did.
    pub failure: Option<StepFailure>,
    /// The scenario's full transcript, relative to the report directory
    /// (`transcripts/<scenario>.log`); null without `--report-dir` or when no engine ran.
    pub transcript: Option<String>,
    /// The transcript lines around the evidence of a failure or warning, raw, each cut to 200
    /// characters with its length noted; empty when the scenario showed none.
    pub transcript_tail: Vec<String>,
    /// A shell command replaying this scenario.
    pub replay: String,
    /// Always-on checks that passed on this scenario's session (not in `verdicts`).
    pub always_on_passed: usize,
    /// Every search with a clock in the scenario's sessions, in order, the first 500: the
    /// time-use chart of report.html.
    pub timed_searches: Vec<TimedSearch>,
    /// Timed searches past the first 500, counted.
    pub timed_searches_omitted: u64,
    /// The transcript as report.html draws it, bounded; null when no engine ran.
    pub timeline: Option<Timeline>,
}

/// One verdict.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct VerdictEntry {
    pub rule: RuleId,
    pub outcome: Outcome,
    /// The strength level of the part judged.
    pub level: Level,
    /// The strength part's qualifier, for split strengths.
    pub part: Option<String>,
    /// Expected vs actual, or why the rule was skipped.
    pub reason: String,
    /// The appendix A readings the profile applied to this rule.
    pub readings: Vec<Reading>,
    pub profile: Profile,
    pub scenario: String,
    pub file: String,
    pub duration_ms: u64,
    /// The scenario's transcript, as in `scenarios[].transcript`.
    pub transcript: Option<String>,
    /// Judged by the always-on checks (every line of every session) rather than by a step of
    /// the scenario.
    pub always_on: bool,
    /// Whether this verdict fails the `fail_on` gate.
    pub fails_gate: bool,
    /// Why the `--baseline` accepts this violation, if it does (it then fails no gate).
    pub waived: Option<String>,
}

/// A PASS of an always-on check: counted in the report, not listed.
fn is_counted(verdict: &Verdict) -> bool {
    verdict.always_on && verdict.outcome == Outcome::Pass
}

fn transcript(scenario: &ScenarioReport) -> Option<String> {
    scenario
        .transcript_path
        .as_ref()
        .map(|p| p.display().to_string())
}

impl CertifyReport {
    /// The report of `aggregate`'s runs under the gate `fail_on`.
    pub fn new(aggregate: &Aggregate, fail_on: FailOn) -> CertifyReport {
        CertifyReport {
            schema: SCHEMA.to_owned(),
            usicheck_version: env!("CARGO_PKG_VERSION").to_owned(),
            fail_on,
            passed: !aggregate.fails(fail_on),
            runs: aggregate
                .runs
                .iter()
                .map(|run| RunReport::new(run, fail_on))
                .collect(),
        }
    }

    /// The report as report.json holds it: pretty-printed JSON.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("report values serialise");
        text.push('\n');
        text
    }
}

impl RunReport {
    fn new(run: &Run, fail_on: FailOn) -> RunReport {
        let profile = run.info.profile;
        RunReport {
            profile,
            started_at: run.info.started_at.clone(),
            duration_ms: run.duration_ms,
            engine_cpu: run.engine_cpu,
            interrupted: run.interrupted.clone(),
            stale_waivers: run.stale_waivers.clone(),
            engine: run.info.engine.clone(),
            engine_name: run.engine_name().map(str::to_owned),
            engine_author: run.engine_author().map(str::to_owned),
            options: run
                .info
                .options
                .iter()
                .map(|(name, value)| EngineOption {
                    name: name.clone(),
                    value: value.clone(),
                })
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
            rules: run.rules().into_iter().map(RuleEntry::new).collect(),
            always_on: run.always_on(),
            scenarios: run.scenarios.iter().map(ScenarioEntry::new).collect(),
            verdicts: run
                .verdicts()
                .filter(|(_, v)| !is_counted(v))
                .map(|(s, v)| VerdictEntry::new(s, v, profile, fail_on))
                .collect(),
        }
    }
}

impl RuleEntry {
    fn new(result: super::aggregate::RuleResult) -> RuleEntry {
        let rule = result.rule.rule();
        let (passes, judged_by): (Vec<Judgement>, Vec<Judgement>) = result
            .judged_by
            .into_iter()
            .partition(|j| j.always_on && j.outcome == Outcome::Pass);
        RuleEntry {
            rule: result.rule,
            title: rule.title.clone(),
            strength: rule.strength.to_string(),
            level: rule.strength.primary().level,
            outcome: result.outcome,
            judged_by,
            always_on_passed: passes.len(),
        }
    }
}

impl ScenarioEntry {
    fn new(s: &ScenarioReport) -> ScenarioEntry {
        ScenarioEntry {
            name: s.name.clone(),
            file: s.file.clone(),
            rules: s.rules.clone(),
            outcome: s.outcome,
            duration_ms: s.duration.as_millis() as u64,
            skipped: s.skipped.clone(),
            failure: s.failure.clone(),
            transcript: transcript(s),
            transcript_tail: s.transcript_tail.clone(),
            replay: s.replay.clone(),
            always_on_passed: s.verdicts.iter().filter(|v| is_counted(v)).count(),
            timed_searches: s.timed_searches.kept.clone(),
            timed_searches_omitted: s.timed_searches.omitted,
            timeline: s.timeline.clone(),
        }
    }
}

impl VerdictEntry {
    fn new(s: &ScenarioReport, v: &Verdict, profile: Profile, fail_on: FailOn) -> VerdictEntry {
        VerdictEntry {
            rule: v.rule,
            outcome: v.outcome,
            level: judged_level(v),
            part: v.part.clone(),
            reason: v.reason.clone(),
            readings: v.readings.clone(),
            profile,
            scenario: s.name.clone(),
            file: s.file.clone(),
            duration_ms: s.duration.as_millis() as u64,
            transcript: transcript(s),
            always_on: v.always_on,
            fails_gate: fail_on.fails(v),
            waived: v.waived.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::{HOSTILE, failing_run, passing_run};
    use crate::report::schema::{ReportKind, schema_errors};
    use serde_json::Value;

    fn report(events: &[crate::report::Event]) -> Value {
        let text = CertifyReport::new(&Aggregate::from_events(events), FailOn::Must).to_json();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn validates_against_the_generated_schema() {
        for events in [failing_run(), passing_run()] {
            let errors = schema_errors(ReportKind::Certify, &report(&events));
            assert!(errors.is_empty(), "{errors:#?}");
        }
        let mut wrong = report(&passing_run());
        wrong["runs"][0]["verdicts"][0]["outcome"] = "MAYBE".into();
        assert!(
            !schema_errors(ReportKind::Certify, &wrong).is_empty(),
            "the schema constrains outcomes"
        );
        wrong["runs"][0]["verdicts"][0]["outcome"] = "FAIL".into();
        wrong["runs"][0]["engine_nmae"] = "typo".into();
        assert!(
            !schema_errors(ReportKind::Certify, &wrong).is_empty(),
            "the schema allows no field usicheck does not write"
        );
    }

    /// What report.json holds reads back into the type that wrote it, unchanged.
    #[test]
    fn the_text_reads_back_into_the_same_report() {
        let report = CertifyReport::new(&Aggregate::from_events(&failing_run()), FailOn::Must);
        let text = report.to_json();
        let back: CertifyReport = serde_json::from_str(&text).expect("report.json reads back");
        assert_eq!(back.to_json(), text);
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
