//! `usicheck rules [ID]`: list the rule catalogue or explain one rule; `--format markdown`
//! writes the catalogue a reader gets without the workspace (docs/rules.md).

use super::color::ColorFlag;
use super::format_flag;
use crate::cli::EXIT_PASS;
use clap::Args;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;
use usicheck::refengine::fault_gaps::proven_rules;
use usicheck::refengine::faults::Fault;
use usicheck::report::Format;
use usicheck::report::style::{BOLD, paint};
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
    /// human (`text`): one line per rule, or one rule explained; json: everything the catalogue
    /// says, with coverage and per-profile severities; markdown: the catalogue as a document
    /// (docs/rules.md is this output for all rules).
    #[arg(long, value_parser = format_flag::supported(format_flag::NO_JUNIT), default_value = "human")]
    pub format: Format,
    #[command(flatten)]
    pub color: ColorFlag,
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
    args.color.apply();
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
                Format::Markdown => markdown_rule(&view),
                Format::Human => explain(&view),
                Format::Junit => unreachable!("--format junit is refused by its parser"),
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
                Format::Markdown => markdown(&rules, &coverage, args.profile),
                Format::Human => list(&rules, &coverage, args.profile),
                Format::Junit => unreachable!("--format junit is refused by its parser"),
            }
        }
    };
    match args.format {
        Format::Human => super::stdout::write_styled(&output),
        _ => super::stdout::write_stdout(&output),
    }
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
        let heading = format!("{}. {}", section.number(), section.title());
        let _ = writeln!(out, "{}", paint(BOLD, heading));
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
    let _ = writeln!(out, "{}", summary(rules, coverage));
    out
}

/// How many of `rules` bind the engine, how many of those are covered and proven, and how
/// many of the GUI's own usicheck is checked to keep, in one line.
fn summary(rules: &[&Rule], coverage: &Coverage) -> String {
    let count = |keep: &dyn Fn(Status) -> bool| {
        rules
            .iter()
            .filter(|r| keep(coverage.status(r.rule_id)))
            .count()
    };
    let gui = count(&|s| s == Status::Gui);
    let own: Vec<&str> = rules
        .iter()
        .filter(|r| coverage.status(r.rule_id) == Status::NoCheckOfItsOwn)
        .map(|r| r.id.as_str())
        .collect();
    let kept = rules
        .iter()
        .filter(|r| coverage.status(r.rule_id) == Status::Gui)
        .filter(|r| !coverage.of(r.rule_id).checks.is_empty())
        .count();
    let implemented = count(&|s| s == Status::Implemented);
    let covered = count(&|s| matches!(s, Status::Implemented | Status::Unproven));
    let mut line = format!(
        "{} rules: {} bind the engine, {covered} of them covered by a scenario or check, \
         {implemented} proven by a fault; {gui} are the GUI's, {kept} of them checked on \
         usicheck as the GUI",
        rules.len(),
        rules.len() - gui - own.len()
    );
    if !own.is_empty() {
        line.push_str(&format!(
            "; {} leave the engine nothing of their own to break ({})",
            own.len(),
            own.join(", ")
        ));
    }
    line
}

/// The catalogue as Markdown: a short key, then every rule per section.
fn markdown(rules: &[&Rule], coverage: &Coverage, profile: Option<Profile>) -> String {
    let mut out = String::new();
    let command = match profile {
        Some(p) => format!("usicheck rules --profile {p} --format markdown"),
        None => "usicheck rules --format markdown".to_owned(),
    };
    let _ = write!(
        out,
        "# The usicheck rule catalogue\n\n\
         <!-- Generated by `{command}` from src/rules/catalogue.tsv; do not edit. -->\n\n\
         {}.\n\n\
         - **Strength**: a violation of a MUST rule is a FAIL, of a SHOULD or DE-FACTO rule a \
         WARN (FAIL where the rule notes it, and under the `strict` profile), of a MAY rule INFO; \
         an EXTENSION rule is INFO unless the engine claims the extension (`--claim`), then FAIL \
         (the `usi2` profile counts USI 2.0 proper as claimed).\n\
         - **Profiles**: what a violation counts as under each profile, no extension claimed \
         (`n/a`: the profile does not apply the rule).\n\
         - **usicheck**: `implemented` (a scenario or check covers the rule, and a fault of the \
         built-in engine proves that the check can fail), `unproven` (covered, not yet proven \
         by a fault) or `not implemented`; `the GUI's` for the GUI's own rules, which an engine \
         cannot break, and `none of its own` for a rule that leaves the engine nothing of its \
         own to break (`usicheck rules ID` says why); `usicheck rules ID` names the scenarios, \
         checks and faults.\n\
         - **Source**: tags such as `[TR]` (Romstad's USI draft), `[SD]` (Shogidokoro) and \
         `[U2]` (USI 2.0) name the sources; T- names (T-USIOK, …) are the tester timeouts, F- \
         names the fixture positions of the checks.\n",
        summary(rules, coverage)
    );
    for section in Section::ALL {
        let in_section: Vec<&&Rule> = rules.iter().filter(|r| r.section == section).collect();
        if in_section.is_empty() {
            continue;
        }
        let _ = write!(out, "\n## {}. {}\n", section.number(), section.title());
        for rule in in_section {
            out.push('\n');
            out.push_str(&markdown_rule(&view(rule, coverage)));
        }
    }
    out
}

/// One rule as a Markdown heading and list; the texts are Markdown already (from RULES.md).
fn markdown_rule(view: &RuleView) -> String {
    let rule = view.rule;
    let mut out = String::new();
    let _ = writeln!(out, "### {} — {}\n", rule.id, literal_angles(&rule.title));
    let mut field = |name: &str, value: &str| {
        let _ = writeln!(out, "- **{name}:** {}", literal_angles(value));
    };
    field("Strength", &rule.strength.to_string());
    field("Direction", &rule.direction_text);
    // Extension rules have no statement of their own: it repeats the title.
    if rule.statement != rule.title {
        field("Rule", &rule.statement);
    }
    field("Check", &rule.check);
    if let Some(timeout) = &rule.timeout {
        field("Timeout", timeout);
    }
    field("Source", &rule.sources);
    field("Profiles", &profile_severities(view));
    match rule.no_engine_check_of_its_own() {
        Some(why) => field("usicheck", &format!("{}: {why}", view.status.as_str())),
        None => field("usicheck", view.status.as_str()),
    }
    out
}

/// `text` with `<` outside code spans escaped: a quoted `<empty>` would otherwise render as an
/// HTML tag, and vanish.
fn literal_angles(text: &str) -> String {
    let mut in_code = false;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '<' if !in_code => out.push_str("&lt;"),
            _ => out.push(c),
        }
    }
    out
}

/// The severity of a violation under each profile: `usi1 FAIL, shogidokoro FAIL, …`.
fn profile_severities(view: &RuleView) -> String {
    let severities: Vec<String> = Profile::ALL
        .iter()
        .map(|p| format!("{p} {}", view.severity[p.as_str()]))
        .collect();
    severities.join(", ")
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
    let heading = format!("{} — {}", rule.id, rule.title);
    let _ = writeln!(out, "{}", paint(BOLD, heading));
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
    field("Profiles:", &profile_severities(view));
    // One line per distinct reading, naming the profiles that apply it.
    let mut readings: Vec<(&str, &str, Vec<String>)> = Vec::new();
    for r in &view.readings {
        let key = (r.reading.ambiguity.as_ref(), r.reading.text.as_str());
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
    let coverage = if view.status == Status::Gui {
        match view.coverage.checks.as_slice() {
            [] => "the GUI's rule: an engine cannot break it, and usicheck, which referees \
                   no game, does not act on it"
                .to_owned(),
            checks => format!(
                "the GUI's rule: an engine cannot break it; checked by: {}",
                checks.join(", ")
            ),
        }
    } else if let Some(why) = view.rule.no_engine_check_of_its_own() {
        format!("no check of its own: {why}")
    } else if view.status == Status::NotImplemented {
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
