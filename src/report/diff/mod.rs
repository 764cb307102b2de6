//! `usicheck diff`: what changed between two reports of one command (certify, fuzz or play),
//! the question a release gate asks of a candidate against the last release.
//!
//! A change is per rule (per profile for certify, per oracle for fuzz): newly failing, fixed,
//! or changed otherwise (FAIL to WARN, judged to not reached, …), each with the evidence and
//! the replay command of the report where it shows. The new report is *worse* when a rule
//! fails the `--fail-on` gate there and did not in the old one, or when the engine lost more
//! games by its own fault.

mod read;
mod render;

pub use read::Report;
pub use render::{render_human, render_json, render_markdown};

use super::FailOn;
use crate::rules::{Level, Outcome, Profile, RuleId};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Schema of `usicheck diff --format json`.
pub const DIFF_SCHEMA: &str = "usicheck-diff/1";

/// A scenario's time changed by more than this (ms) and [`TIMING_RATIO`]: beyond noise.
const TIMING_MS: u64 = 1000;
const TIMING_RATIO: f64 = 0.5;
/// Timing shifts listed at most (the largest first).
const TIMING_LISTED: usize = 10;

/// The comparison of two reports.
#[derive(Debug, Serialize)]
pub struct Diff {
    /// `certify`, `fuzz` or `play`.
    pub command: &'static str,
    pub fail_on: FailOn,
    pub old: Side,
    pub new: Side,
    /// Rules whose outcome changed, by rule.
    pub changes: Vec<Change>,
    /// `play`: the match results, old then new.
    pub games: Option<[Tally; 2]>,
    /// `certify`: scenarios whose time changed beyond noise, the largest first.
    pub timing: Vec<TimingShift>,
    /// Whether the new report is worse under `fail_on` (exit code 1).
    pub worse: bool,
}

/// One report as compared.
#[derive(Debug, Serialize)]
pub struct Side {
    /// The file as given on the command line.
    pub file: String,
    pub engine_name: Option<String>,
    pub seconds: Option<f64>,
}

/// A rule whose outcome differs between the reports.
#[derive(Debug, Serialize)]
pub struct Change {
    pub rule: RuleId,
    /// The profile (certify) or the oracle (fuzz) it was judged under; empty for play.
    pub within: String,
    pub title: String,
    /// The strength judged (in the new report when it judged the rule).
    pub level: Level,
    pub kind: ChangeKind,
    pub old: Judged,
    pub new: Judged,
}

/// How a rule changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// A FAIL or WARN where there was none.
    NewlyFailing,
    /// A PASS where there was a FAIL or WARN.
    Fixed,
    /// Any other change: FAIL to WARN, judged to not reached or not run, …
    Changed,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::NewlyFailing => "newly failing",
            ChangeKind::Fixed => "fixed",
            ChangeKind::Changed => "changed",
        }
    }
}

/// A rule as one report judged it.
#[derive(Debug, Default, Serialize)]
pub struct Judged {
    /// `None`: not judged (certify), no finding (fuzz), not broken (play).
    pub outcome: Option<Outcome>,
    pub fails_gate: bool,
    /// Where it shows: a scenario (certify), a finding's first detail (fuzz), a game (play).
    pub evidence: Option<String>,
    pub replay: Option<String>,
    /// fuzz: how often the finding was met.
    pub count: Option<u64>,
}

/// A match's results for the engine under test.
#[derive(Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    pub win: usize,
    pub draw: usize,
    pub lose: usize,
    pub unfinished: usize,
    /// Games lost by the engine's own fault (time, illegal move, crash, …), by reason.
    pub faults: BTreeMap<String, usize>,
    /// Score, Elo and LOS as the report gives them.
    pub estimate: Option<crate::play::stats::Estimate>,
}

impl Tally {
    fn fault_losses(&self) -> usize {
        self.faults.values().sum()
    }
}

/// A scenario whose duration changed beyond noise.
#[derive(Debug, Serialize)]
pub struct TimingShift {
    pub profile: Profile,
    pub scenario: String,
    pub old_ms: u64,
    pub new_ms: u64,
}

/// Compares `old` with `new` (read from `files`), gated by `fail_on`; an error when they are
/// reports of different commands or profiles.
pub fn compare(
    files: [&str; 2],
    old: &Report,
    new: &Report,
    fail_on: FailOn,
) -> Result<Diff, String> {
    let mut diff = Diff {
        command: new.command(),
        fail_on,
        old: side(files[0], old),
        new: side(files[1], new),
        changes: Vec::new(),
        games: None,
        timing: Vec::new(),
        worse: false,
    };
    match (old, new) {
        (Report::Certify(old), Report::Certify(new)) => {
            let profiles = |r: &read::CertifyReport| -> BTreeSet<Profile> {
                r.runs.iter().map(|run| run.profile).collect()
            };
            if profiles(old) != profiles(new) {
                return Err(format!(
                    "{} certifies {}, {} {}: compare reports of the same profiles",
                    files[0],
                    names(&profiles(old)),
                    files[1],
                    names(&profiles(new))
                ));
            }
            for old_run in &old.runs {
                // Both reports certify the same profiles (checked above).
                if let Some(new_run) = new.runs.iter().find(|r| r.profile == old_run.profile) {
                    certify_changes(old_run, new_run, fail_on, &mut diff);
                }
            }
        }
        (Report::Fuzz(old), Report::Fuzz(new)) => fuzz_changes(old, new, fail_on, &mut diff),
        (Report::Play(old), Report::Play(new)) => play_changes(old, new, fail_on, &mut diff),
        _ => {
            return Err(format!(
                "{} is a {} report and {} a {} report: compare reports of one command",
                files[0],
                old.command(),
                files[1],
                new.command()
            ));
        }
    }
    diff.changes
        .sort_by(|a, b| (a.kind, a.rule, &a.within).cmp(&(b.kind, b.rule, &b.within)));
    let newly_gated = diff
        .changes
        .iter()
        .any(|c| c.new.fails_gate && !c.old.fails_gate);
    let more_fault_losses = diff
        .games
        .as_ref()
        .is_some_and(|[old, new]| new.fault_losses() > old.fault_losses());
    diff.worse = newly_gated || more_fault_losses;
    Ok(diff)
}

fn names(profiles: &BTreeSet<Profile>) -> String {
    let names: Vec<String> = profiles.iter().map(|p| p.to_string()).collect();
    names.join(", ")
}

fn side(file: &str, report: &Report) -> Side {
    let (engine_name, seconds) = match report {
        Report::Certify(r) => (
            r.runs.first().and_then(|run| run.engine_name.clone()),
            r.runs
                .iter()
                .map(|run| run.duration_ms)
                .sum::<Option<u64>>()
                .map(|ms| ms as f64 / 1000.0),
        ),
        Report::Fuzz(r) => (None, Some(r.seconds)),
        Report::Play(r) => (r.engine_name.clone(), Some(r.seconds)),
    };
    Side {
        file: file.to_owned(),
        engine_name,
        seconds,
    }
}

fn is_violation(outcome: Option<Outcome>) -> bool {
    matches!(outcome, Some(Outcome::Fail | Outcome::Warn))
}

/// The kind of change from `old` to `new`; `None` when the outcome is the same.
fn kind_of(old: Option<Outcome>, new: Option<Outcome>) -> Option<ChangeKind> {
    if old == new {
        return None;
    }
    Some(if is_violation(new) && !is_violation(old) {
        ChangeKind::NewlyFailing
    } else if is_violation(old) && new == Some(Outcome::Pass) {
        ChangeKind::Fixed
    } else {
        ChangeKind::Changed
    })
}

/// The strength a rule is graded at when a report does not say (its primary part).
fn primary_level(rule: RuleId) -> Level {
    rule.rule().strength.primary().level
}

fn push_change(diff: &mut Diff, rule: RuleId, within: String, level: Level, sides: [Judged; 2]) {
    let [old, new] = sides;
    let changed_gate = old.fails_gate != new.fails_gate;
    let Some(kind) =
        kind_of(old.outcome, new.outcome).or(changed_gate.then_some(ChangeKind::Changed))
    else {
        return;
    };
    diff.changes.push(Change {
        rule,
        within,
        title: rule.rule().title.clone(),
        level,
        kind,
        old,
        new,
    });
}

fn certify_changes(
    old: &read::CertifyRun,
    new: &read::CertifyRun,
    fail_on: FailOn,
    diff: &mut Diff,
) {
    let judged = |run: &read::CertifyRun, rule: RuleId| -> (Judged, Option<Level>) {
        let Some(entry) = run.rules.iter().find(|r| r.rule == rule) else {
            return (Judged::default(), None);
        };
        let verdicts = run.verdicts.iter().filter(|v| v.rule == rule);
        let fails_gate = verdicts
            .clone()
            .any(|v| v.waived.is_none() && fail_on.fails_at(v.outcome, v.level));
        let shown = verdicts
            .clone()
            .find(|v| v.outcome == entry.outcome)
            .or(verdicts.clone().next());
        let replay = shown.and_then(|v| {
            run.scenarios
                .iter()
                .find(|s| s.name == v.scenario)
                .map(|s| s.replay.clone())
        });
        let judged = Judged {
            outcome: Some(entry.outcome),
            fails_gate,
            evidence: shown.map(|v| format!("{}: {}", v.scenario, v.reason)),
            replay,
            count: None,
        };
        (judged, Some(entry.level))
    };
    let rules: BTreeSet<RuleId> = old.rules.iter().chain(&new.rules).map(|r| r.rule).collect();
    for rule in rules {
        let (old_judged, old_level) = judged(old, rule);
        let (new_judged, new_level) = judged(new, rule);
        let level = new_level
            .or(old_level)
            .unwrap_or_else(|| primary_level(rule));
        push_change(
            diff,
            rule,
            old.profile.to_string(),
            level,
            [old_judged, new_judged],
        );
    }
    for scenario in &new.scenarios {
        let Some(before) = old.scenarios.iter().find(|s| s.name == scenario.name) else {
            continue;
        };
        let (old_ms, new_ms) = (before.duration_ms, scenario.duration_ms);
        let change = old_ms.abs_diff(new_ms);
        if change > TIMING_MS && change as f64 > TIMING_RATIO * old_ms.min(new_ms).max(1) as f64 {
            diff.timing.push(TimingShift {
                profile: new.profile,
                scenario: scenario.name.clone(),
                old_ms,
                new_ms,
            });
        }
    }
    diff.timing
        .sort_by_key(|s| std::cmp::Reverse(s.old_ms.abs_diff(s.new_ms)));
    diff.timing.truncate(TIMING_LISTED);
}

fn fuzz_changes(old: &read::FuzzReport, new: &read::FuzzReport, fail_on: FailOn, diff: &mut Diff) {
    let judged = |report: &read::FuzzReport, oracle: &str, rule: RuleId| {
        let Some(finding) = report
            .findings
            .iter()
            .find(|f| f.oracle == oracle && f.rule == rule)
        else {
            return Judged::default();
        };
        Judged {
            outcome: Some(finding.grade),
            fails_gate: fail_on.fails_at(finding.grade, primary_level(rule)),
            evidence: Some(finding.detail.clone()),
            replay: Some(finding.replay.clone()),
            count: Some(finding.count),
        }
    };
    let keys: BTreeSet<(RuleId, &str)> = old
        .findings
        .iter()
        .chain(&new.findings)
        .map(|f| (f.rule, f.oracle.as_str()))
        .collect();
    for (rule, oracle) in keys {
        let sides = [judged(old, oracle, rule), judged(new, oracle, rule)];
        push_change(diff, rule, oracle.to_owned(), primary_level(rule), sides);
    }
}

fn play_changes(old: &read::PlayReport, new: &read::PlayReport, fail_on: FailOn, diff: &mut Diff) {
    let judged = |report: &read::PlayReport, rule: RuleId| {
        let Some(violation) = report.violations.iter().find(|v| v.verdict.rule == rule) else {
            return Judged::default();
        };
        let outcome = violation.verdict.outcome;
        Judged {
            outcome: Some(outcome),
            fails_gate: fail_on.fails_at(outcome, primary_level(rule)),
            evidence: Some(format!(
                "game {}: {}",
                violation.game, violation.verdict.reason
            )),
            replay: None,
            count: None,
        }
    };
    let rules: BTreeSet<RuleId> = old
        .violations
        .iter()
        .chain(&new.violations)
        .map(|v| v.verdict.rule)
        .collect();
    for rule in rules {
        let sides = [judged(old, rule), judged(new, rule)];
        push_change(diff, rule, String::new(), primary_level(rule), sides);
    }
    diff.games = Some([tally(old), tally(new)]);
}

fn tally(report: &read::PlayReport) -> Tally {
    let mut tally = Tally {
        estimate: report.estimate,
        ..Tally::default()
    };
    for game in &report.games {
        match game.engine_result() {
            "win" => tally.win += 1,
            "draw" => tally.draw += 1,
            "unfinished" => tally.unfinished += 1,
            _ => {
                tally.lose += 1;
                if game.reason.is_fault() {
                    *tally
                        .faults
                        .entry(game.reason.as_str().to_owned())
                        .or_default() += 1;
                }
            }
        }
    }
    tally
}
