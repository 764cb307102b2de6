//! Which sessions the self-test runs: per fault, the bundled scenarios that name its rules.

use crate::refengine::faults::Fault;
use crate::rules::{Profile, RuleId};
use crate::scenario::runner::RunSettings;
use crate::scenario::{BUNDLED, Scenario, load_str};

/// One bundled scenario under the profile it is judged with.
#[derive(Clone, Debug)]
pub struct Target {
    /// The bundled name (`01-handshake/id-name`), what `usicheck run` takes.
    pub name: String,
    pub scenario: Scenario,
    pub profile: Profile,
}

/// One engine of the self-test (a fault, or none for the clean engine) and the targets it runs.
#[derive(Clone, Debug)]
pub struct Planned {
    pub fault: Option<Fault>,
    /// The second fault of a pair (see [`super::plan_pairs`]), switched on with `fault`.
    pub partner: Option<Fault>,
    /// The rules this fault is expected to break (its named rules, restricted to the rules
    /// asked for); empty for the clean engine.
    pub rules: Vec<RuleId>,
    /// Indices into [`Plan::targets`], in suite order.
    pub targets: Vec<usize>,
}

/// Everything the self-test runs.
#[derive(Clone, Debug)]
pub struct Plan {
    pub targets: Vec<Target>,
    /// The faults, then the clean engine over every target a fault runs.
    pub engines: Vec<Planned>,
}

/// Plans the self-test of `faults` (all when empty) on the rules `only` (all when empty).
/// With `whole_suite` (the exact sweep) every fault runs every bundled scenario; otherwise
/// only the scenarios that list one of the rules it names (asked for or not). `settings` says which scenarios apply (the
/// reference engine's claims); each runs under its widest profile.
///
/// ```
/// use usicheck::engine::EngineCommand;
/// use usicheck::refengine::faults::Fault;
/// use usicheck::rules::Profile;
/// use usicheck::scenario::runner::RunSettings;
/// let settings = RunSettings::new(EngineCommand::new("engine"), Profile::Usi2);
/// let plan = usicheck::selftest::plan(&[Fault::NoIdName], &[], false, &settings);
/// let fault = &plan.engines[0];
/// assert!(fault.targets.iter().all(|&t| plan.targets[t].scenario.rules.contains(&fault.rules[0])));
/// assert_eq!(plan.engines[1].fault, None); // the clean engine runs the same scenarios
/// ```
pub fn plan(faults: &[Fault], only: &[RuleId], whole_suite: bool, settings: &RunSettings) -> Plan {
    let targets: Vec<Target> = BUNDLED
        .iter()
        .map(|(name, yaml)| {
            let scenario = load_str(name, yaml).expect("bundled scenarios load (unit test)");
            let profile = scenario.widest_profile();
            Target {
                name: (*name).to_owned(),
                scenario,
                profile,
            }
        })
        .filter(|t| {
            let mut under = settings.clone();
            under.profile = t.profile;
            under.not_applicable(&t.scenario).is_none()
        })
        .collect();
    let faults = if faults.is_empty() {
        Fault::ALL
    } else {
        faults
    };
    let mut engines: Vec<Planned> = faults
        .iter()
        .map(|&fault| {
            let named = fault.rules();
            let rules: Vec<RuleId> = named
                .iter()
                .copied()
                .filter(|r| only.is_empty() || only.contains(r))
                .collect();
            // The scenarios of all its named rules, even when only some are asked for: the
            // always-on checks judge a rule in the scenarios of the fault's other rules (the
            // `bestmove` a fault sends for an idle `stop` breaks USI-GO-001 in a STOP scenario).
            // A combination of faults runs them all: each of its broken basics keeps some of
            // the others' scenarios from their checks (`broken-basics` rejects the `byoyomi`
            // the mirrored-board checks search with; `go mate` shows the mirrored board).
            let every = whole_suite || !fault.parts().is_empty();
            let targets = (0..targets.len())
                .filter(|&t| every || targets[t].scenario.rules.iter().any(|r| named.contains(r)))
                .collect();
            Planned {
                fault: Some(fault),
                partner: None,
                rules,
                targets,
            }
        })
        // A quality fault (no rule) is swept whole, where it must flag nothing.
        .filter(|p| !p.rules.is_empty() || (whole_suite && only.is_empty()))
        .collect();
    let mut clean: Vec<usize> = engines.iter().flat_map(|p| p.targets.clone()).collect();
    clean.sort_unstable();
    clean.dedup();
    engines.push(Planned {
        fault: None,
        partner: None,
        rules: Vec::new(),
        targets: clean,
    });
    Plan { targets, engines }
}

/// Plans `pairs`: the whole suite against each fault of them alone (what a pair is judged
/// against; with `every_fault`, against every fault alone: the exact sweep), against each
/// pair, and against the clean engine.
pub fn plan_pairs(pairs: &[(Fault, Fault)], every_fault: bool, settings: &RunSettings) -> Plan {
    let mut alone: Vec<Fault> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    if every_fault {
        alone = Fault::ALL.to_vec();
    }
    alone.sort_unstable_by_key(|f| *f as usize);
    alone.dedup();
    let mut plan = plan(&alone, &[], true, settings);
    let clean = plan
        .engines
        .pop()
        .expect("the clean engine is planned last");
    // Rule-less (quality) faults are swept alone too: they must flag nothing.
    let whole: Vec<usize> = (0..plan.targets.len()).collect();
    plan.engines.extend(pairs.iter().map(|&(a, b)| Planned {
        fault: Some(a),
        partner: Some(b),
        rules: Vec::new(),
        targets: whole.clone(),
    }));
    plan.engines.push(clean);
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineCommand;

    /// The reference engine's settings: `usi2` and its vendor-extension claims.
    fn settings() -> RunSettings {
        let mut settings = RunSettings::new(EngineCommand::new("engine"), Profile::Usi2);
        for claim in crate::refengine::CLAIMS {
            settings.claims.add_rule(*claim).unwrap();
        }
        settings
    }

    /// A rule a fault names is run through a scenario that lists it, unless the gap table
    /// says the suite misses it or the always-on checks judge it in the fault's other
    /// scenarios.
    #[test]
    fn every_fault_rule_has_a_scenario_that_lists_it() {
        let plan = plan(&[], &[], false, &settings());
        for planned in plan.engines.iter().filter(|p| p.fault.is_some()) {
            let gap = crate::refengine::fault_gaps::gap_of(planned.fault.unwrap());
            for rule in &planned.rules {
                let always_on = crate::observer::ALWAYS_ON_RULES.contains(rule);
                if gap.is_some_and(|g| g.missed.contains(rule))
                    || (always_on && !planned.targets.is_empty())
                {
                    continue;
                }
                assert!(
                    planned
                        .targets
                        .iter()
                        .any(|&t| plan.targets[t].scenario.rules.contains(rule)),
                    "{}: no applicable scenario lists {rule}",
                    planned.fault.unwrap().name()
                );
            }
        }
    }

    #[test]
    fn rules_asked_for_narrow_the_faults_and_their_scenarios() {
        let ready = crate::rule!("USI-READY-001");
        let plan = plan(&[], &[ready], false, &settings());
        let faults: Vec<_> = plan.engines.iter().filter_map(|p| p.fault).collect();
        assert!(!faults.is_empty());
        assert!(faults.iter().all(|f| f.rules().contains(&ready)));
        for planned in &plan.engines[..faults.len()] {
            assert_eq!(planned.rules, [ready]);
        }
    }

    /// `selftest USI-STOP-002` runs `stop-while-idle-bestmove` through the scenarios of its
    /// other rule too (a `stop` after a finished search, where the always-on USI-STOP-003 sees
    /// the same fault).
    #[test]
    fn a_fault_runs_the_scenarios_of_all_its_rules_when_one_is_asked_for() {
        let idle = crate::rule!("USI-STOP-002");
        let plan = plan(&[Fault::StopWhileIdleBestmove], &[idle], false, &settings());
        assert_eq!(plan.engines[0].rules, [idle]);
        let names: Vec<&str> = plan.engines[0]
            .targets
            .iter()
            .map(|&t| plan.targets[t].name.as_str())
            .collect();
        assert!(names.contains(&"07-stop/late-and-double-stop"), "{names:?}");
    }

    #[test]
    fn the_exact_sweep_runs_every_applicable_scenario() {
        let plan = plan(&[Fault::NoIdName], &[], true, &settings());
        assert_eq!(plan.engines[0].targets.len(), plan.targets.len());
        assert!(plan.targets.len() > 90);
    }
}
