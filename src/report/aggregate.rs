//! What every reporter summarises: runs, their scenarios, each rule's worst verdict, the
//! certificate counts per strength level, and the `--fail-on` gate.

use super::event::{EngineCpu, Event, Reporter, RunInfo, ScenarioReport};
use crate::rules::{Level, Outcome, Profile, RuleId, Verdict, catalogue};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What makes a run fail (exit code 1), from `--fail-on`.
///
/// - `must`: any FAIL verdict (a violated MUST, or whatever the profile counts as FAIL:
///   DE-FACTO rules noted as FAIL, claimed extensions, SHOULD and DE-FACTO under `strict`).
/// - `should`: as `must`, plus any WARN verdict on a MUST or SHOULD strength part.
/// - `any`: any FAIL or WARN verdict, DE-FACTO conventions included.
///
/// SKIP (not checked) and INFO (observed, not judged: MAY rules, unclaimed extensions) never
/// fail a run.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// Any FAIL verdict.
    #[default]
    Must,
    /// Any FAIL, or a WARN on a MUST or SHOULD strength part.
    Should,
    /// Any FAIL or WARN.
    Any,
}

impl FailOn {
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Must => "must",
            FailOn::Should => "should",
            FailOn::Any => "any",
        }
    }

    /// Whether `verdict` fails the run under this gate.
    ///
    /// ```
    /// use usicheck::report::FailOn;
    /// use usicheck::rules::{Claims, Profile, RuleId, Verdict};
    /// let stop: RuleId = "USI-STOP-002".parse().unwrap(); // SHOULD: a violation is a WARN
    /// let warn = Verdict::violation(Profile::Shogidokoro, stop, None, &Claims::default(), "late").unwrap();
    /// assert!(!FailOn::Must.fails(&warn));
    /// assert!(FailOn::Should.fails(&warn));
    /// ```
    pub fn fails(self, verdict: &Verdict) -> bool {
        verdict.waived.is_none() && self.fails_at(verdict.outcome, judged_level(verdict))
    }

    /// Whether a verdict graded `outcome` on a part of strength `level` fails the run under
    /// this gate (not waived).
    ///
    /// ```
    /// use usicheck::report::FailOn;
    /// use usicheck::rules::{Level, Outcome};
    /// assert!(FailOn::Should.fails_at(Outcome::Warn, Level::Should));
    /// assert!(!FailOn::Should.fails_at(Outcome::Warn, Level::DeFacto));
    /// assert!(!FailOn::Any.fails_at(Outcome::Info, Level::May));
    /// ```
    pub fn fails_at(self, outcome: Outcome, level: Level) -> bool {
        match outcome {
            Outcome::Fail => true,
            Outcome::Warn => match self {
                FailOn::Must => false,
                FailOn::Should => matches!(level, Level::Must | Level::Should),
                FailOn::Any => true,
            },
            Outcome::Pass | Outcome::Skip | Outcome::Info => false,
        }
    }
}

/// The strength level of the part a verdict judged (the primary part when unnamed).
pub fn judged_level(verdict: &Verdict) -> Level {
    let rule = verdict.rule.rule();
    let strength = &rule.strength;
    verdict
        .part
        .as_deref()
        .and_then(|q| rule.part(q))
        .unwrap_or(strength.primary())
        .level
}

/// How bad an outcome is, for picking a rule's worst verdict: FAIL, WARN, INFO, PASS, SKIP.
/// (A rule checked once and skipped elsewhere passed; an observed INFO outranks a PASS.)
pub fn badness(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Skip => 0,
        Outcome::Pass => 1,
        Outcome::Info => 2,
        Outcome::Warn => 3,
        Outcome::Fail => 4,
    }
}

/// One scenario's verdict on a rule.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Judgement {
    pub scenario: String,
    pub outcome: Outcome,
    /// Expected vs actual, or why the rule was skipped.
    pub reason: String,
    /// Judged by the always-on observer (see [`Verdict::always_on`]); not in report.json.
    #[serde(skip)]
    pub always_on: bool,
}

/// A rule over a whole run: its worst outcome and every scenario that judged it.
#[derive(Clone, Debug, Serialize)]
pub struct RuleResult {
    pub rule: RuleId,
    pub outcome: Outcome,
    pub judged_by: Vec<Judgement>,
}

impl RuleResult {
    /// Up to `limit` distinct scenarios that gave the worst outcome (the ones to look at), and
    /// how many other scenarios judged the rule.
    pub fn worst_scenarios(&self, limit: usize) -> (Vec<&str>, usize) {
        let mut worst: Vec<&str> = Vec::new();
        let mut all: Vec<&str> = Vec::new();
        for judgement in &self.judged_by {
            let name = judgement.scenario.as_str();
            if !all.contains(&name) {
                all.push(name);
            }
            if judgement.outcome == self.outcome && !worst.contains(&name) {
                worst.push(name);
            }
        }
        worst.truncate(limit);
        let more = all.len() - worst.len();
        (worst, more)
    }

    /// The reason given by the first scenario with the worst outcome.
    pub fn reason(&self) -> &str {
        self.judged_by
            .iter()
            .find(|j| j.outcome == self.outcome)
            .map_or("", |j| j.reason.as_str())
    }
}

/// An always-on violation over a whole run, reported once: the first evidence, and the
/// sessions (scenarios) it appeared in.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct AlwaysOnFinding {
    pub rule: RuleId,
    /// The worst outcome over the sessions.
    pub outcome: Outcome,
    /// The first session's evidence for that outcome (engine text, raw).
    pub evidence: String,
    /// The scenario that gave it (its transcript and replay show the line).
    pub first_scenario: String,
    /// Every scenario whose session showed the violation, in run order.
    pub scenarios: Vec<String>,
}

/// Per strength level: how many rules the profile applies and what became of them (each rule
/// counted once, by its worst outcome).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LevelCount {
    /// Rules of this primary strength level the profile applies (the engine's rules only).
    pub applicable: usize,
    pub pass: usize,
    pub fail: usize,
    pub warn: usize,
    pub info: usize,
    pub skip: usize,
    /// Applicable rules no scenario judged (of a selection: only the rules it judged count).
    pub unchecked: usize,
}

/// The certificate of one run: counts per primary strength level under its profile.
#[derive(Clone, Debug, Serialize)]
pub struct Certificate {
    pub profile: Profile,
    /// For a selection (see [`RunInfo::selection`]), how many scenarios it ran; the levels
    /// then count only the rules they judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selected_scenarios: Option<usize>,
    pub levels: BTreeMap<Level, LevelCount>,
}

impl Certificate {
    /// One line, e.g. `shogidokoro: 97/103 MUST, 10/12 SHOULD pass (the engine's rules; …); 4
    /// WARN, 2 not checked`.
    pub fn summary(&self) -> String {
        let passed: Vec<String> = self
            .levels
            .iter()
            .filter(|(_, c)| c.applicable > 0)
            .map(|(level, c)| format!("{}/{} {}", c.pass, c.applicable, level_label(*level)))
            .collect();
        let total = |f: fn(&LevelCount) -> usize| self.levels.values().map(f).sum::<usize>();
        let mut tail = Vec::new();
        for (n, word) in [
            (total(|c| c.fail), "FAIL"),
            (total(|c| c.warn), "WARN"),
            (total(|c| c.info), "INFO"),
            (total(|c| c.skip), "SKIP"),
            (total(|c| c.unchecked), "not checked"),
        ] {
            if n > 0 {
                tail.push(format!("{n} {word}"));
            }
        }
        let scope = match self.selected_scenarios {
            Some(1) => " (1 scenario selected)".to_owned(),
            Some(n) => format!(" ({n} scenarios selected)"),
            None => String::new(),
        };
        let mut line = format!(
            "{}{scope}: {} pass ({ENGINE_RULES_ONLY})",
            self.profile,
            passed.join(", ")
        );
        if !tail.is_empty() {
            line.push_str("; ");
            line.push_str(&tail.join(", "));
        }
        line
    }
}

/// What a certificate counts: the rules an engine can break, not the GUI's own (what the GUI
/// sends, how it referees), which usicheck keeps as the GUI.
pub const ENGINE_RULES_ONLY: &str = "the engine's rules; the GUI's are not counted";

/// A short name for a level in summaries (`extension` for `EXTENSION-USI2.0`).
pub fn level_label(level: Level) -> &'static str {
    match level {
        Level::Extension => "extension",
        other => other.as_str(),
    }
}

/// One run (one `RunStarted` … `RunFinished`): what was certified and what happened.
#[derive(Clone, Debug)]
pub struct Run {
    pub info: RunInfo,
    pub scenarios: Vec<ScenarioReport>,
    pub duration_ms: Option<u64>,
    /// See [`Event::RunFinished`].
    pub engine_cpu: Option<EngineCpu>,
    /// See [`Event::RunFinished`].
    pub interrupted: Option<String>,
    /// See [`Event::RunFinished`].
    pub stale_waivers: Vec<String>,
}

impl Run {
    /// The engine's `id name`: from the run info, else the first scenario that saw one.
    pub fn engine_name(&self) -> Option<&str> {
        self.info
            .engine_name
            .as_deref()
            .or_else(|| self.scenarios.iter().find_map(|s| s.engine_name.as_deref()))
    }

    /// The engine's `id author`, found like [`Run::engine_name`].
    pub fn engine_author(&self) -> Option<&str> {
        self.info.engine_author.as_deref().or_else(|| {
            self.scenarios
                .iter()
                .find_map(|s| s.engine_author.as_deref())
        })
    }

    /// Every verdict of the run, with the scenario that gave it.
    pub fn verdicts(&self) -> impl Iterator<Item = (&ScenarioReport, &Verdict)> {
        self.scenarios
            .iter()
            .flat_map(|s| s.verdicts.iter().map(move |v| (s, v)))
    }

    /// The always-on checks' violations (FAIL, WARN, INFO), once per rule, in catalogue
    /// order.
    pub fn always_on(&self) -> Vec<AlwaysOnFinding> {
        let mut findings: BTreeMap<RuleId, AlwaysOnFinding> = BTreeMap::new();
        for (scenario, verdict) in self.verdicts() {
            if !verdict.always_on || badness(verdict.outcome) <= badness(Outcome::Pass) {
                continue;
            }
            let finding = findings
                .entry(verdict.rule)
                .or_insert_with(|| AlwaysOnFinding {
                    rule: verdict.rule,
                    outcome: verdict.outcome,
                    evidence: verdict.reason.clone(),
                    first_scenario: scenario.name.clone(),
                    scenarios: Vec::new(),
                });
            if badness(verdict.outcome) > badness(finding.outcome) {
                finding.outcome = verdict.outcome;
                finding.evidence = verdict.reason.clone();
                finding.first_scenario = scenario.name.clone();
            }
            finding.scenarios.push(scenario.name.clone());
        }
        findings.into_values().collect()
    }

    /// Each judged rule with its worst outcome, in catalogue order.
    pub fn rules(&self) -> Vec<RuleResult> {
        let mut rules: BTreeMap<RuleId, RuleResult> = BTreeMap::new();
        for (scenario, verdict) in self.verdicts() {
            let entry = rules.entry(verdict.rule).or_insert_with(|| RuleResult {
                rule: verdict.rule,
                outcome: verdict.outcome,
                judged_by: Vec::new(),
            });
            if badness(verdict.outcome) > badness(entry.outcome) {
                entry.outcome = verdict.outcome;
            }
            entry.judged_by.push(Judgement {
                scenario: scenario.name.clone(),
                outcome: verdict.outcome,
                reason: verdict.reason.clone(),
                always_on: verdict.always_on,
            });
        }
        rules.into_values().collect()
    }

    /// Counts per primary strength level of the rules the profile applies that bind the
    /// engine (of a selection: of those its scenarios judged).
    pub fn certificate(&self) -> Certificate {
        let profile = self.info.profile;
        let selection = self.info.selection;
        let judged: BTreeMap<RuleId, Outcome> = self
            .rules()
            .into_iter()
            .map(|r| (r.rule, r.outcome))
            .collect();
        let mut levels: BTreeMap<Level, LevelCount> = BTreeMap::new();
        for rule in catalogue().rules() {
            // The GUI's own rules are usicheck's to keep, not the engine's to pass.
            if !rule.binds_engine()
                || !profile.applies(rule)
                || (selection && !judged.contains_key(&rule.rule_id))
            {
                continue;
            }
            let count = levels.entry(rule.strength.primary().level).or_default();
            count.applicable += 1;
            match judged.get(&rule.rule_id) {
                None => count.unchecked += 1,
                Some(Outcome::Pass) => count.pass += 1,
                Some(Outcome::Fail) => count.fail += 1,
                Some(Outcome::Warn) => count.warn += 1,
                Some(Outcome::Info) => count.info += 1,
                Some(Outcome::Skip) => count.skip += 1,
            }
        }
        // Verdicts on rules the profile does not apply (e.g. a claimed extension) still count.
        for (rule, outcome) in &judged {
            if !profile.applies(rule.rule()) && *outcome != Outcome::Skip {
                let count = levels
                    .entry(rule.rule().strength.primary().level)
                    .or_default();
                count.applicable += 1;
                match outcome {
                    Outcome::Pass => count.pass += 1,
                    Outcome::Fail => count.fail += 1,
                    Outcome::Warn => count.warn += 1,
                    Outcome::Info | Outcome::Skip => count.info += 1,
                }
            }
        }
        Certificate {
            profile,
            selected_scenarios: selection.then_some(self.info.scenarios),
            levels,
        }
    }

    /// Whether the run fails under `fail_on`: a verdict fails the gate, or a waiver of the
    /// baseline is stale.
    pub fn fails(&self, fail_on: FailOn) -> bool {
        !self.stale_waivers.is_empty() || self.verdicts().any(|(_, v)| fail_on.fails(v))
    }
}

/// Collects the event stream into runs; the document reporters (JSON, JUnit, Markdown) render
/// from it when the stream ends.
#[derive(Clone, Debug, Default)]
pub struct Aggregate {
    pub runs: Vec<Run>,
}

impl Aggregate {
    /// Whether any run fails under `fail_on`.
    pub fn fails(&self, fail_on: FailOn) -> bool {
        self.runs.iter().any(|r| r.fails(fail_on))
    }

    /// Builds an aggregate from a finished stream.
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a Event>) -> Aggregate {
        let mut aggregate = Aggregate::default();
        for event in events {
            aggregate.record(event);
        }
        aggregate
    }

    /// Adds one event. A scenario before any `RunStarted` opens a run with default info, so a
    /// partial stream still reports what it has.
    pub fn record(&mut self, event: &Event) {
        match event {
            Event::RunStarted(info) => self.runs.push(Run {
                info: info.clone(),
                scenarios: Vec::new(),
                duration_ms: None,
                engine_cpu: None,
                interrupted: None,
                stale_waivers: Vec::new(),
            }),
            Event::ScenarioStarted { .. } => {}
            Event::ScenarioFinished(report) => self.current().scenarios.push((**report).clone()),
            Event::RunFinished {
                duration_ms,
                engine_cpu,
                interrupted,
                stale_waivers,
            } => {
                let run = self.current();
                run.duration_ms = Some(*duration_ms);
                run.engine_cpu = *engine_cpu;
                run.interrupted.clone_from(interrupted);
                run.stale_waivers.clone_from(stale_waivers);
            }
        }
    }

    fn current(&mut self) -> &mut Run {
        if self.runs.is_empty() {
            self.runs.push(Run {
                info: RunInfo::unknown(),
                scenarios: Vec::new(),
                duration_ms: None,
                engine_cpu: None,
                interrupted: None,
                stale_waivers: Vec::new(),
            });
        }
        self.runs.last_mut().expect("a run was just ensured")
    }
}

impl Reporter for Aggregate {
    fn event(&mut self, event: &Event) -> std::io::Result<()> {
        self.record(event);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::{failing_run, passing_run};
    use crate::rules::Claims;

    #[test]
    fn a_rule_gets_its_worst_verdict_and_every_judge() {
        let aggregate = Aggregate::from_events(&failing_run());
        let rules = aggregate.runs[0].rules();
        let ready = rules
            .iter()
            .find(|r| r.rule == crate::rule!("USI-READY-001"))
            .unwrap();
        assert_eq!(ready.outcome, Outcome::Fail);
        let judges: Vec<_> = ready
            .judged_by
            .iter()
            .map(|j| j.scenario.as_str())
            .collect();
        assert_eq!(judges, ["handshake", "isready-twice"]);
        assert!(ready.reason().starts_with("got `Evil"));
        assert_eq!(ready.worst_scenarios(3), (vec!["isready-twice"], 1));
        assert_eq!(ready.worst_scenarios(0), (vec![], 2));
    }

    #[test]
    fn badness_orders_fail_warn_info_pass_skip() {
        let order = [
            Outcome::Fail,
            Outcome::Warn,
            Outcome::Info,
            Outcome::Pass,
            Outcome::Skip,
        ];
        assert!(order.windows(2).all(|w| badness(w[0]) > badness(w[1])));
    }

    #[test]
    fn certificate_counts_applicable_rules_per_level() {
        let aggregate = Aggregate::from_events(&failing_run());
        let certificate = aggregate.runs[0].certificate();
        let must = &certificate.levels[&Level::Must];
        let should = &certificate.levels[&Level::Should];
        assert_eq!((must.pass, must.fail), (1, 1)); // HANDSHAKE-001 passed, READY-001 failed
        assert_eq!(should.warn, 1);
        let applicable = catalogue()
            .rules()
            .iter()
            .filter(|r| Profile::Shogidokoro.applies(r) && r.binds_engine())
            .count();
        let counted: usize = certificate.levels.values().map(|c| c.applicable).sum();
        assert_eq!(counted, applicable, "the GUI's own rules are not counted");
        assert!(certificate.summary().contains(ENGINE_RULES_ONLY));
        for c in certificate.levels.values() {
            assert_eq!(
                c.applicable,
                c.pass + c.fail + c.warn + c.info + c.skip + c.unchecked
            );
        }
        let line = certificate.summary();
        assert!(
            line.starts_with(&format!("shogidokoro: 1/{} MUST", must.applicable)),
            "{line}"
        );
        assert!(line.contains("1 FAIL, 1 WARN"), "{line}");
    }

    #[test]
    fn certificate_of_a_selection_counts_only_the_rules_it_judged() {
        let mut events = failing_run();
        for event in &mut events {
            if let Event::RunStarted(info) = event {
                info.selection = true;
            }
        }
        let certificate = Aggregate::from_events(&events).runs[0].certificate();
        let must = &certificate.levels[&Level::Must];
        assert_eq!((must.applicable, must.pass, must.fail), (2, 1, 1));
        assert!(certificate.levels.values().all(|c| c.unchecked == 0));
        let line = certificate.summary();
        assert!(
            line.starts_with("shogidokoro (3 scenarios selected): 1/2 MUST, 0/1 SHOULD pass"),
            "{line}"
        );
        assert!(!line.contains("not checked"), "{line}");
    }

    #[test]
    fn fail_on_must_should_any() {
        let p = Profile::Shogidokoro;
        let none = Claims::default();
        let violation = |rule: RuleId| Verdict::violation(p, rule, None, &none, "x").unwrap();
        let must = violation(crate::rule!("USI-READY-001")); // MUST → FAIL
        let should = violation(crate::rule!("USI-STOP-002")); // SHOULD → WARN
        let de_facto = violation(crate::rule!("USI-ENCODING-003")); // DE-FACTO → WARN
        let may = violation(crate::rule!("USI-GO-009")); // MAY → INFO
        let skip = Verdict::skip(p, crate::rule!("USI-READY-001"), "not run");
        let table = [
            (FailOn::Must, [true, false, false, false, false]),
            (FailOn::Should, [true, true, false, false, false]),
            (FailOn::Any, [true, true, true, false, false]),
        ];
        for (gate, expected) in table {
            let got = [&must, &should, &de_facto, &may, &skip].map(|v| gate.fails(v));
            assert_eq!(got, expected, "{gate:?}");
        }
        assert!(Aggregate::from_events(&failing_run()).fails(FailOn::Must));
        assert!(!Aggregate::from_events(&passing_run()).fails(FailOn::Any));
    }

    #[test]
    fn scenarios_without_run_started_still_count() {
        let events: Vec<Event> = failing_run().into_iter().skip(1).collect();
        let aggregate = Aggregate::from_events(&events);
        assert_eq!(aggregate.runs.len(), 1);
        assert_eq!(aggregate.runs[0].scenarios.len(), 3);
    }
}
