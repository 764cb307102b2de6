//! `usicheck rules [ID]`: list the rule catalogue or explain one rule.

use crate::cli::EXIT_PASS;
use clap::{Args, ValueEnum};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;
use usicheck::refengine::fault_gaps::proven_rules;
use usicheck::refengine::faults::Fault;
use usicheck::rules::{
    Claims, Coverage, Profile, Reading, Rule, RuleCoverage, RuleId, Section, Severity, Status,
    catalogue,
};
use usicheck::scenario::bundled_coverage;

/// Arguments of `usicheck rules`.
#[derive(Args, Debug)]
pub struct RulesArgs {
    /// A rule ID (e.g. USI-READY-001) to explain; without it, list all rules.
    pub id: Option<String>,
    /// Only rules this profile applies, with the severity a violation has under it.
    #[arg(long, value_enum)]
    pub profile: Option<Profile>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Serialize)]
struct RuleView<'a> {
    #[serde(flatten)]
    rule: &'a Rule,
    section_title: &'static str,
    profiles: Vec<Profile>,
    status: Status,
    coverage: RuleCoverage,
    /// Severity of a violation of the primary strength part, per profile.
    severity: BTreeMap<&'static str, Severity>,
    readings: Vec<ProfileReading>,
}

#[derive(Serialize)]
struct ProfileReading {
    profile: Profile,
    #[serde(flatten)]
    reading: Reading,
}

fn view<'a>(rule: &'a Rule, coverage: &Coverage) -> RuleView<'a> {
    let none = Claims::default();
    RuleView {
        rule,
        section_title: rule.section.title(),
        profiles: rule.profiles(),
        status: coverage.status(rule.rule_id),
        coverage: coverage.of(rule.rule_id),
        severity: Profile::ALL
            .iter()
            .map(|&p| (p.as_str(), p.primary_severity(rule, &none)))
            .collect(),
        readings: rule
            .ambiguities
            .iter()
            .flat_map(|a| {
                Profile::ALL.iter().filter_map(move |&profile| {
                    let reading = profile.reading(a)?;
                    Some(ProfileReading { profile, reading })
                })
            })
            .collect(),
    }
}

/// The bundled scenarios' coverage, with each reference-engine fault that the fault table
/// shows the suite catching.
fn coverage() -> Coverage {
    let mut coverage = bundled_coverage();
    for &fault in Fault::ALL {
        coverage.add_fault(fault.name(), &proven_rules(fault));
    }
    coverage
}

/// Runs the command; an unknown ID is an input error.
pub fn run(args: RulesArgs) -> Result<ExitCode, String> {
    let coverage = coverage();
    let output = match &args.id {
        Some(id) => {
            let id: RuleId = id
                .to_ascii_uppercase()
                .parse()
                .map_err(|e| format!("{e}"))?;
            let view = view(id.rule(), &coverage);
            match args.format {
                Format::Json => json(&view)?,
                Format::Text => explain(&view),
            }
        }
        None => {
            let rules: Vec<&Rule> = catalogue()
                .rules()
                .iter()
                .filter(|r| args.profile.is_none_or(|p| p.applies(r)))
                .collect();
            match args.format {
                Format::Json => {
                    let views: Vec<RuleView> = rules.iter().map(|r| view(r, &coverage)).collect();
                    json(&views)?
                }
                Format::Text => list(&rules, &coverage, args.profile),
            }
        }
    };
    super::stdout::write_stdout(&output);
    Ok(EXIT_PASS.into())
}

fn json(value: &impl Serialize) -> Result<String, String> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| e.to_string())
}

fn list(rules: &[&Rule], coverage: &Coverage, profile: Option<Profile>) -> String {
    let mut out = String::new();
    let none = Claims::default();
    for section in Section::ALL {
        let in_section: Vec<&&Rule> = rules.iter().filter(|r| r.section == section).collect();
        if in_section.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{}. {}", section.number(), section.title());
        for rule in in_section {
            let verdict = match profile {
                Some(p) => format!("{:<5} ", p.primary_severity(rule, &none).as_str()),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "  {:<18} {:<16} {}{:<16} {}",
                rule.id,
                levels(rule),
                verdict,
                coverage.status(rule.rule_id).as_str(),
                rule.title
            );
        }
    }
    let implemented = rules
        .iter()
        .filter(|r| coverage.status(r.rule_id) == Status::Implemented)
        .count();
    let covered = rules
        .iter()
        .filter(|r| coverage.status(r.rule_id) != Status::NotImplemented)
        .count();
    let _ = writeln!(
        out,
        "{} rules; {covered} covered by a scenario or check, {implemented} proven by a fault",
        rules.len()
    );
    out
}

/// The strength levels of a rule, compact: `MUST/SHOULD` for split strengths.
fn levels(rule: &Rule) -> String {
    let mut levels: Vec<&str> = Vec::new();
    for part in rule.strength.parts() {
        if !levels.contains(&part.level.as_str()) {
            levels.push(part.level.as_str());
        }
    }
    levels.join("/")
}

fn explain(view: &RuleView) -> String {
    let rule = view.rule;
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", rule.id, rule.title);
    let mut field = |name: &str, value: &str| {
        let _ = writeln!(out, "  {name:<10} {value}");
    };
    field(
        "Section:",
        &format!("{}. {}", rule.section.number(), rule.section.title()),
    );
    field("Strength:", &rule.strength.to_string());
    field("Direction:", &rule.direction_text);
    field("Rule:", &rule.statement);
    field("Sources:", &rule.sources);
    field("Check:", &rule.check);
    if let Some(timeout) = &rule.timeout {
        field("Timeout:", timeout);
    }
    let profiles: Vec<String> = Profile::ALL
        .iter()
        .map(|p| format!("{p} {}", view.severity[p.as_str()]))
        .collect();
    field("Profiles:", &profiles.join(", "));
    // One line per distinct reading, naming the profiles that apply it.
    let mut readings: Vec<(&str, &str, Vec<String>)> = Vec::new();
    for r in &view.readings {
        let key = (r.reading.ambiguity, r.reading.text.as_str());
        match readings.iter_mut().find(|(a, t, _)| (*a, *t) == key) {
            Some((.., profiles)) => profiles.push(r.profile.to_string()),
            None => readings.push((key.0, key.1, vec![r.profile.to_string()])),
        }
    }
    for (ambiguity, text, profiles) in readings {
        field(
            "Reading:",
            &format!("{ambiguity} ({}): {text}", profiles.join(", ")),
        );
    }
    let c = &view.coverage;
    let coverage = if view.status == Status::NotImplemented {
        "not implemented".to_owned()
    } else {
        let mut parts = Vec::new();
        if !c.scenarios.is_empty() {
            parts.push(format!("covered by: scenario {}", c.scenarios.join(", ")));
        }
        if !c.checks.is_empty() {
            parts.push(format!("checked by: {}", c.checks.join(", ")));
        }
        parts.push(if c.faults.is_empty() {
            "not yet proven by a fault".to_owned()
        } else {
            format!(
                "proven by fault {} (see it: `usicheck selftest {}`)",
                c.faults.join(", "),
                view.rule.id
            )
        });
        parts.join("; ")
    };
    field("Coverage:", &coverage);
    out
}
