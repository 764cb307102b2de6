//! The scenario document.

use super::{OptionType, Step};
use crate::rules::{Direction, Profile, RuleId, Section};
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
    /// Run with no other engine of the run beside it, and judge the engine's start-up
    /// (USI-READY-003) there: how long `usiok` and `readyok` take is the engine's own only
    /// when no other engine starts at the same moment (two gpsusi starting together on two
    /// cores took 1.1 s for a `usiok` that takes 0.7 s alone).
    #[serde(default)]
    pub alone: bool,
    /// Run in a process started for this scenario, never in one an earlier scenario left
    /// warm: the scenario tests something a warm process has behind it (its start-up, its
    /// first search, its first game). Scenarios whose steps need one anyway (see
    /// [`Scenario::fresh_process_reason`]) need not say so.
    #[serde(default)]
    pub fresh: bool,
    /// The GUI's rules (USI-STOP-006, …) the scenario breaks on purpose, to see the engine
    /// survive what a GUI must not send; the tests hold each bundled scenario to exactly these
    /// (see [`super::gui_breaches`]).
    #[serde(default)]
    pub gui_deviations: Vec<RuleId>,
    /// Each top-level step as written in the file, with its 1-based line, for failure
    /// messages; empty when the file writes its steps in flow style.
    #[serde(skip)]
    pub step_sources: Vec<StepSource>,
}

/// A top-level step as written in its scenario file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepSource {
    pub line: usize,
    /// The step's lines, re-indented to start at column 1 (`- expect: …`).
    pub text: String,
}

impl Scenario {
    /// Whether the scenario runs under `profile`.
    pub fn applies_to(&self, profile: Profile) -> bool {
        self.profiles.is_empty() || self.profiles.contains(&profile)
    }

    /// The profile the scenario is judged under when it runs once (the self-test, the fault
    /// sweep): `usi2`, which applies every rule, when it can, else the first profile it lists.
    pub fn widest_profile(&self) -> Profile {
        if self.applies_to(Profile::Usi2) {
            Profile::Usi2
        } else {
            self.profiles[0]
        }
    }

    /// The option type the scenario goes through right after its opening handshake
    /// (`for_each_option`), if it does: with no option of that type it has nothing to run.
    ///
    /// ```
    /// use usicheck::scenario::{OptionType, load_str};
    /// let yaml = "name: n\nrules: [USI-OPTION-007]\nsteps:\n  - handshake: {}\n  - for_each_option:\n      type: check\n      steps:\n        - send: isready\n        - expect: {readyok: true, rule: USI-OPTION-007}\n";
    /// let each = load_str("n.yaml", yaml).unwrap().each_option_of_type();
    /// assert_eq!(each, Some(OptionType::Check));
    /// ```
    pub fn each_option_of_type(&self) -> Option<OptionType> {
        match self.steps.as_slice() {
            [Step::Handshake(_), Step::ForEachOption(each), ..] => Some(each.option_type),
            _ => None,
        }
    }

    /// Every rule named by a step's `rule`, `forbid_rule` or `legality_rule` (inside `repeat` and
    /// `for_each_option` too), in order of appearance.
    pub fn step_rules(&self) -> Vec<RuleId> {
        fn walk(steps: &[Step], out: &mut Vec<RuleId>) {
            for step in steps {
                let rules = match step {
                    Step::Expect(e) => vec![e.rule, e.forbid_rule, e.legality_rule],
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

    /// Why the scenario's `rules` do not match its steps: every rule a step names must be
    /// listed, and every listed rule must be named by a step or be one the always-on checks
    /// judge (the scenario provides their traffic).
    pub fn rules_mismatch(&self) -> Option<String> {
        let named = self.step_rules();
        if let Some(rule) = named.iter().find(|r| !self.rules.contains(r)) {
            return Some(format!(
                "`{rule}` is named by a step but not listed in `rules`"
            ));
        }
        let always_on = |rule: &RuleId| crate::observer::ALWAYS_ON_RULES.contains(rule);
        self.rules
            .iter()
            .find(|r| !named.contains(r) && !always_on(r))
            .map(|rule| {
                format!(
                    "`{rule}` is listed in `rules` but no step checks it: give the step that \
                     checks it `rule: {rule}` (a step without `rule` is setup)"
                )
            })
    }
}

/// The clock fields of `go`: a standard GUI sends them with `go ponder` too (USI-PONDER-003).
const CLOCK_FIELDS: &[&str] = &["btime", "wtime", "byoyomi", "binc", "winc"];

impl Scenario {
    /// Why `gui_deviations` is wrong: it may list only the GUI's rules.
    pub fn gui_deviations_mismatch(&self) -> Option<String> {
        let rule = self
            .gui_deviations
            .iter()
            .find(|r| r.rule().direction != Direction::Gui)?;
        Some(format!(
            "`{rule}` in `gui_deviations` binds the engine: list only the GUI's rules the \
             scenario breaks on purpose"
        ))
    }

    /// A line usicheck would send as a GUI no standard GUI sends: a `go ponder` without the
    /// clock (USI-PONDER-003), outside scenarios of early ponder (USI-EXT-015). Returns the
    /// index of the top-level step that holds it, and why.
    pub fn gui_rule_breach(&self) -> Option<(usize, String)> {
        fn bare_go_ponder(steps: &[Step]) -> Option<String> {
            steps.iter().find_map(|step| match step {
                Step::Send(line) => {
                    let text = line.to_string();
                    let words: Vec<&str> = text.split_whitespace().collect();
                    let bare = words.first() == Some(&"go")
                        && words.contains(&"ponder")
                        && !words.iter().any(|w| CLOCK_FIELDS.contains(w));
                    bare.then_some(text)
                }
                Step::Repeat(r) => bare_go_ponder(&r.steps),
                Step::ForEachOption(each) => bare_go_ponder(&each.steps),
                _ => None,
            })
        }
        if self.rules.contains(&crate::rule!("USI-EXT-015")) {
            return None;
        }
        self.steps.iter().enumerate().find_map(|(index, step)| {
            bare_go_ponder(std::slice::from_ref(step)).map(|line| {
                (
                    index,
                    format!(
                        "`{line}` has no clock: a standard GUI always sends the times with \
                         `go ponder` (USI-PONDER-003); list USI-EXT-015 in `rules` to test \
                         early ponder, or use `send_raw` for a deliberately odd line"
                    ),
                )
            })
        })
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

impl Requirements {
    /// What the engine lacks of `options` and `ponder`, given the option names it advertised
    /// (compared case-insensitively), as the reason to skip; `None` when it has them all.
    ///
    /// ```
    /// use usicheck::scenario::Requirements;
    /// let ponder = Requirements { ponder: true, ..Requirements::default() };
    /// assert_eq!(ponder.unmet(&["Ponder".to_owned()]), None);
    /// assert_eq!(ponder.unmet(&[]).unwrap(), "the engine does not advertise USI_Ponder");
    /// ```
    pub fn unmet(&self, advertised: &[String]) -> Option<String> {
        let has = |name: &str| advertised.iter().any(|o| o.eq_ignore_ascii_case(name));
        let mut missing: Vec<&str> = (self.options.iter().map(String::as_str))
            .filter(|name| !has(name))
            .collect();
        if self.ponder && !has("USI_Ponder") && !has("Ponder") {
            missing.push("USI_Ponder");
        }
        (!missing.is_empty())
            .then(|| format!("the engine does not advertise {}", missing.join(", ")))
    }
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
