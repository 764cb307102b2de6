//! `usicheck certify`: run every bundled scenario that applies to the profile and the engine's
//! claims, then print the per-rule verdict table and the certificate summary.

use super::suite::{self, Planned, SuiteArgs};
use clap::Args;
use std::collections::BTreeMap;
use std::process::ExitCode;
use usicheck::engine::sanitise;
use usicheck::report::ScenarioReport;
use usicheck::rules::{Outcome, Profile, RuleId, Severity, Verdict, catalogue};
use usicheck::scenario::{BUNDLED, load_str};

/// Certify an engine: every applicable bundled scenario, a per-rule verdict table and a summary.
#[derive(Args, Debug)]
pub struct CertifyArgs {
    #[command(flatten)]
    pub suite: SuiteArgs,
}

/// The verdict on one rule over all scenarios: the worst judgement, else a skip.
struct RuleResult<'a> {
    outcome: Outcome,
    verdict: &'a Verdict,
    scenario: &'a str,
}

fn rank(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Fail => 4,
        Outcome::Warn => 3,
        Outcome::Info => 2,
        Outcome::Pass => 1,
        Outcome::Skip => 0,
    }
}

fn aggregate(reports: &[ScenarioReport]) -> BTreeMap<RuleId, RuleResult<'_>> {
    let mut table: BTreeMap<RuleId, RuleResult<'_>> = BTreeMap::new();
    for report in reports {
        for verdict in &report.verdicts {
            let better = table
                .get(&verdict.rule)
                .is_none_or(|old| rank(verdict.outcome) > rank(old.outcome));
            if better {
                table.insert(
                    verdict.rule,
                    RuleResult {
                        outcome: verdict.outcome,
                        verdict,
                        scenario: &report.name,
                    },
                );
            }
        }
    }
    table
}

fn print_table(profile: Profile, reports: &[ScenarioReport]) -> bool {
    let table = aggregate(reports);
    println!();
    println!("Rule verdicts (profile {profile}):");
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut must_total, mut must_pass, mut applicable, mut uncovered) = (0, 0, 0, 0);
    let none = usicheck::rules::Claims::default();
    for rule in catalogue().rules() {
        if !profile.applies(rule) {
            continue;
        }
        applicable += 1;
        let Some(result) = table.get(&rule.rule_id) else {
            uncovered += 1;
            println!("  ----  {:<18} not covered · {}", rule.id, rule.title);
            continue;
        };
        *counts.entry(result.outcome.as_str()).or_default() += 1;
        if profile.primary_severity(rule, &none) == Severity::Fail && result.outcome != Outcome::Skip
        {
            must_total += 1;
            must_pass += usize::from(result.outcome == Outcome::Pass);
        }
        let detail = match result.outcome {
            Outcome::Pass => format!("{} ({})", rule.title, result.scenario),
            _ => format!(
                "{} ({}): {}",
                rule.title,
                result.scenario,
                sanitise(&result.verdict.reason)
            ),
        };
        println!("  {:<4}  {:<18} {}", result.outcome, rule.id, detail);
    }
    let count = |o: Outcome| counts.get(o.as_str()).copied().unwrap_or(0);
    println!();
    println!(
        "Certificate {profile}: {must_pass}/{must_total} FAIL-severity rules pass; {} PASS, {} FAIL, {} WARN, {} INFO, {} SKIP; {} of {applicable} applicable rules judged, {uncovered} not covered",
        count(Outcome::Pass),
        count(Outcome::Fail),
        count(Outcome::Warn),
        count(Outcome::Info),
        count(Outcome::Skip),
        applicable - uncovered,
    );
    count(Outcome::Fail) > 0
}

pub fn run(args: CertifyArgs) -> Result<ExitCode, String> {
    let settings = args.suite.settings()?;
    let mut planned = Vec::new();
    for (name, yaml) in BUNDLED {
        let file = format!("scenarios/{name}.yaml");
        let scenario = load_str(&file, yaml).map_err(|e| e.to_string())?;
        if settings.not_applicable(&scenario).is_none() {
            planned.push(Planned {
                name: (*name).to_owned(),
                file,
                scenario,
            });
        }
    }
    let mut reporter = suite::default_reporter();
    let reports = suite::run_all(&planned, &args.suite, &settings, &mut reporter)?;
    let failed = print_table(settings.profile, &reports);
    let failing: Vec<&ScenarioReport> = reports
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Fail | Outcome::Warn))
        .collect();
    if !failing.is_empty() {
        println!();
        println!("Replay:");
        for report in failing {
            println!("  {}", report.replay);
        }
    }
    Ok(ExitCode::from(if failed {
        super::EXIT_FAIL
    } else {
        super::EXIT_PASS
    }))
}
