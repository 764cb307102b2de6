//! Choosing scenarios: by name, section (`01-handshake`) or glob (`06-ponder/*`), by the rules
//! they check (`--rule`), minus exclusions (`--skip`). Shared by `run`, `certify` and `list`.

use super::suite::Planned;
use clap::Args;
use globset::{Glob, GlobMatcher};
use std::path::Path;
use usicheck::rules::RuleId;
use usicheck::scenario::{BUNDLED, load_file, load_str};

/// Selection flags shared by `run`, `certify` and `list`.
#[derive(Args, Debug, Default)]
pub struct SelectArgs {
    /// Only scenarios that check RULE (repeatable; case-insensitive), e.g. USI-READY-006.
    #[arg(long = "rule", value_name = "RULE")]
    pub rules: Vec<String>,
    /// Leave out the bundled scenarios matching PATTERN: a name, a section (`13-robust`) or a
    /// glob (`06-ponder/*`) (repeatable).
    #[arg(long = "skip", value_name = "PATTERN")]
    pub skip: Vec<String>,
}

/// A bundled-scenario pattern: an exact name, a section (every scenario in it) or a glob.
struct Pattern {
    text: String,
    glob: GlobMatcher,
}

impl Pattern {
    fn new(text: &str) -> Result<Pattern, String> {
        let trimmed = text.trim_end_matches(".yaml").trim_end_matches('/');
        let trimmed = trimmed.strip_prefix("scenarios/").unwrap_or(trimmed);
        let section = !trimmed.contains('/') && !trimmed.contains(['*', '?', '[']);
        let source = if section {
            format!("{trimmed}/*")
        } else {
            trimmed.to_owned()
        };
        let glob = Glob::new(&source)
            .map_err(|e| format!("{text}: not a scenario pattern: {e}"))?
            .compile_matcher();
        Ok(Pattern {
            text: trimmed.to_owned(),
            glob,
        })
    }

    fn matches(&self, name: &str) -> bool {
        name == self.text || self.glob.is_match(name)
    }
}

/// Every bundled scenario, in file order.
pub fn bundled() -> Result<Vec<Planned>, String> {
    BUNDLED
        .iter()
        .map(|(name, yaml)| {
            let file = format!("scenarios/{name}.yaml");
            let scenario = load_str(&file, yaml).map_err(|e| e.to_string())?;
            Ok(Planned {
                name: (*name).to_owned(),
                file,
                scenario,
            })
        })
        .collect()
}

/// The scenarios `names` denote (every bundled one when there are none): each a file, or
/// bundled scenarios by name, section or glob. An argument that denotes nothing is an error
/// naming the closest bundled name.
pub fn named(names: &[String]) -> Result<Vec<Planned>, String> {
    let all = bundled()?;
    if names.is_empty() {
        return Ok(all);
    }
    let mut planned: Vec<Planned> = Vec::new();
    for name in names {
        let path = Path::new(name);
        if path.is_file() {
            let scenario = load_file(path).map_err(|e| e.to_string())?;
            planned.push(Planned {
                name: name.clone(),
                file: name.clone(),
                scenario,
            });
            continue;
        }
        let pattern = Pattern::new(name)?;
        let before = planned.len();
        for scenario in all.iter().filter(|p| pattern.matches(&p.name)) {
            if !planned.iter().any(|p| p.name == scenario.name) {
                planned.push(scenario.clone());
            }
        }
        if planned.len() == before && !all.iter().any(|p| pattern.matches(&p.name)) {
            let sections = all
                .iter()
                .filter_map(|p| p.name.split_once('/').map(|s| s.0));
            let hint = usicheck::suggest::hint(
                pattern.text.as_str(),
                all.iter().map(|p| p.name.as_str()).chain(sections),
            );
            return Err(format!(
                "{name}: no such file, and no bundled scenario, section or glob match{hint} \
                 (see `usicheck list`)"
            ));
        }
    }
    Ok(planned)
}

impl SelectArgs {
    /// The `--rule` IDs, checked against the catalogue.
    fn rule_ids(&self) -> Result<Vec<RuleId>, String> {
        self.rules
            .iter()
            .map(|text| {
                text.to_ascii_uppercase()
                    .parse::<RuleId>()
                    .map_err(|e| format!("--rule {text}: {e}"))
            })
            .collect()
    }

    /// Keeps the scenarios that check one of the `--rule`s (all without `--rule`) and match
    /// no `--skip` pattern.
    pub fn filter(&self, planned: Vec<Planned>) -> Result<Vec<Planned>, String> {
        let rules = self.rule_ids()?;
        let skip = self
            .skip
            .iter()
            .map(|p| Pattern::new(p).map_err(|e| format!("--skip {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(planned
            .into_iter()
            .filter(|p| rules.is_empty() || rules.iter().any(|r| p.scenario.rules.contains(r)))
            .filter(|p| !skip.iter().any(|s| s.matches(&p.name)))
            .collect())
    }
}
