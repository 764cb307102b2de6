//! The scenario document.

use super::Step;
use crate::rules::{Profile, RuleId, Section};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// A scripted session against one fresh engine process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name shown in reports.
    pub name: String,
    /// What the scenario shows and why, for reports.
    #[serde(default)]
    pub description: String,
    /// The rules this scenario checks (non-empty); feeds the coverage registry.
    #[serde(deserialize_with = "non_empty")]
    pub rules: Vec<RuleId>,
    /// Profiles the scenario applies to; empty means all.
    #[serde(default)]
    pub profiles: Vec<Profile>,
    /// Preconditions; when unmet the runner reports SKIP with the reason.
    #[serde(default)]
    pub requires: Requirements,
    #[serde(deserialize_with = "non_empty")]
    pub steps: Vec<Step>,
}

impl Scenario {
    /// Whether the scenario runs under `profile`.
    pub fn applies_to(&self, profile: Profile) -> bool {
        self.profiles.is_empty() || self.profiles.contains(&profile)
    }

    /// Every rule named by a step's `rule` or `legality_rule` (inside `repeat` and
    /// `for_each_option` too), in order of appearance.
    pub fn step_rules(&self) -> Vec<RuleId> {
        fn walk(steps: &[Step], out: &mut Vec<RuleId>) {
            for step in steps {
                let rules = match step {
                    Step::Expect(e) => vec![e.rule, e.legality_rule],
                    Step::ExpectSilence(s) => vec![s.rule],
                    Step::ExpectExit(x) => vec![x.rule],
                    Step::Repeat(r) => {
                        walk(&r.steps, out);
                        Vec::new()
                    }
                    Step::ForEachOption(each) => {
                        walk(&each.steps, out);
                        Vec::new()
                    }
                    _ => Vec::new(),
                };
                for rule in rules.into_iter().flatten() {
                    if !out.contains(&rule) {
                        out.push(rule);
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.steps, &mut out);
        out
    }

    /// The rules a failed step is charged to: its own `rule`, else all of the scenario's.
    pub fn blamed_rules(&self, step_rule: Option<RuleId>) -> Vec<RuleId> {
        step_rule.map_or_else(|| self.rules.clone(), |id| vec![id])
    }
}

/// What the engine must offer for the scenario to run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Requirements {
    /// Option names the engine must advertise (compared case-insensitively).
    #[serde(default)]
    pub options: Vec<String>,
    /// §15 extension rules the engine must claim (MyShogi `engine_define.xml` or the command
    /// line).
    #[serde(default)]
    pub extensions: Vec<ExtensionRule>,
    /// The engine advertises `USI_Ponder` or `Ponder`.
    #[serde(default)]
    pub ponder: bool,
    /// The engine implements `go mate` (it has not answered `checkmate notimplemented`).
    #[serde(default)]
    pub mate: bool,
}

/// A rule ID of §15 (USI 2.0 and vendor extensions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct ExtensionRule(pub RuleId);

impl<'de> Deserialize<'de> for ExtensionRule {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = RuleId::deserialize(deserializer)?;
        if id.rule().section == Section::Ext {
            Ok(ExtensionRule(id))
        } else {
            Err(serde::de::Error::custom(format!(
                "`{id}` is not an extension rule (USI-EXT-NNN)"
            )))
        }
    }
}

fn non_empty<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let items = Vec::<T>::deserialize(deserializer)?;
    if items.is_empty() {
        Err(serde::de::Error::custom("must not be empty"))
    } else {
        Ok(items)
    }
}
