//! How a scenario is run: which engine, profile, claims, options and timeouts.

use crate::blame::{Fact, Facts};
use crate::engine::EngineCommand;
use crate::engine::SearchSlots;
use crate::rules::{Claims, ExtensionKind, Profile, RuleId, Timeouts};
use crate::scenario::{OptionSettings, Scenario};
use std::path::PathBuf;
use std::sync::Arc;

/// Everything a run needs besides the scenario.
#[derive(Clone, Debug)]
pub struct RunSettings {
    pub engine: EngineCommand,
    pub profile: Profile,
    /// Extensions the engine claims (MyShogi `engine_define.xml`).
    pub claims: Claims,
    /// `--option NAME=VALUE`, sent by every handshake before the scenario's own options.
    pub options: OptionSettings,
    /// The profile's §0.3 timeouts, with command-line overrides applied.
    pub timeouts: Timeouts,
    /// Where the session streams its full transcript (`--report-dir`); none keeps it in memory.
    pub transcript_path: Option<PathBuf>,
    /// Append to the transcript, this note first, instead of starting it: a later session of
    /// the same report (the pre-flight's controls in fresh processes).
    pub transcript_continues: Option<String>,
    /// What the pre-flight established about the engine (see [`Facts`]): a check whose
    /// precondition it showed broken is SKIP "not reached".
    pub facts: Facts,
    /// Shared by the scenarios run at once: how many of their engines may search at a time
    /// (none: no limit).
    pub search_slots: Option<Arc<SearchSlots>>,
    /// Whether a scenario may run in a process an earlier one left warm (see
    /// [`super::WarmProcess`]); false starts a process for every scenario.
    pub reuse_processes: bool,
}

impl RunSettings {
    /// Settings with the profile's default timeouts and no claims or options.
    pub fn new(engine: EngineCommand, profile: Profile) -> RunSettings {
        RunSettings {
            engine,
            profile,
            claims: Claims::default(),
            options: OptionSettings::default(),
            timeouts: profile.timeouts(),
            transcript_path: None,
            transcript_continues: None,
            facts: Facts::default(),
            search_slots: None,
            reuse_processes: true,
        }
    }

    /// Whether the engine counts as claiming extension `rule`: claimed explicitly, or USI 2.0
    /// proper under the `usi2` profile.
    pub fn claims(&self, rule: RuleId) -> bool {
        self.claims.claims(rule)
            || (self.profile == Profile::Usi2
                && rule.rule().strength.extension_kind() == Some(ExtensionKind::Usi2))
    }

    /// Whether `scenario` may run in a process an earlier scenario left warm, and leave its
    /// own to a later one: processes are reused, the engine answers `isready` (which settles
    /// a process), and the scenario needs no fresh process
    /// ([`Scenario::fresh_process_reason`]).
    pub fn may_share(&self, scenario: &Scenario) -> bool {
        self.reuse_processes && !self.facts.no_readyok && scenario.fresh_process_reason().is_none()
    }

    /// Why `scenario` does not run under these settings, if it does not: the engine never
    /// shook hands, the profile or the claims leave it out, or the pre-flight's handshake
    /// showed a requirement unmet or no option of the type the scenario goes through (no
    /// process need start to learn that).
    ///
    /// ```
    /// use usicheck::engine::EngineCommand;
    /// use usicheck::rules::Profile;
    /// use usicheck::scenario::{BUNDLED, load_str};
    /// use usicheck::scenario::runner::RunSettings;
    /// let (name, yaml) = BUNDLED.iter().find(|(n, _)| n.starts_with("10-mate")).unwrap();
    /// let mate = load_str(name, yaml).unwrap();
    /// let usi1 = RunSettings::new(EngineCommand::new("engine"), Profile::Usi1);
    /// assert!(usi1.not_applicable(&mate).is_some());
    /// ```
    pub fn not_applicable(&self, scenario: &Scenario) -> Option<String> {
        if self.facts.no_usiok {
            return Some(Fact::NoUsiok.not_reached(None));
        }
        if !scenario.applies_to(self.profile) {
            return Some(format!("does not apply to profile {}", self.profile));
        }
        let unclaimed: Vec<&str> = scenario
            .requires
            .extensions
            .iter()
            .filter(|ext| !self.claims(ext.0))
            .map(|ext| ext.0.as_str())
            .collect();
        if !unclaimed.is_empty() {
            return Some(format!(
                "the engine does not claim {} (engine_define.xml)",
                unclaimed.join(", ")
            ));
        }
        let advertised = self.facts.advertised_options.as_deref()?;
        let names: Vec<String> = advertised.iter().map(|o| o.name.clone()).collect();
        scenario.requires.unmet(&names).or_else(|| {
            let each = scenario.each_option_of_type()?;
            let none = !advertised.iter().any(|o| o.kind.type_name() == each.name());
            none.then(|| each.none_advertised())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::RunSettings;
    use crate::engine::EngineCommand;
    use crate::rules::Profile;
    use crate::scenario::{BUNDLED, load_str};
    use crate::usi::{OptionDecl, OptionKind};

    /// Why the bundled button probe does not run for an engine whose pre-flight advertised
    /// `kind` only.
    fn button_probe_against(kind: OptionKind) -> Option<String> {
        let name = "01-handshake/button-probe";
        let (_, yaml) = BUNDLED.iter().find(|(n, _)| *n == name).unwrap();
        let probe = load_str(name, yaml).unwrap();
        let mut settings = RunSettings::new(EngineCommand::new("engine"), Profile::Shogidokoro);
        let name = "Option".to_owned();
        settings.facts.advertised_options = Some(vec![OptionDecl { name, kind }]);
        settings.not_applicable(&probe)
    }

    #[test]
    fn a_scenario_through_options_of_a_type_none_has_needs_no_process() {
        let check = OptionKind::Check { default: None };
        assert_eq!(
            button_probe_against(check).as_deref(),
            Some("the engine advertises no `type button` option")
        );
        assert_eq!(button_probe_against(OptionKind::Button), None);
    }
}
