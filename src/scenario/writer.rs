//! Writing a scenario as the YAML the loader reads: serialised, not formatted by hand.

use super::{Requirements, Scenario, Step};
use crate::rules::{Profile, RuleId};
use serde::Serialize;
use serde_saphyr::{FlowMap, FlowSeq};

/// The document as written: the top-level keys in block style, lists of rules and each step's
/// body in flow style (one line per step, as the bundled scenarios write them), and the keys
/// left at their defaults left out.
#[derive(Serialize)]
struct Document<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    rules: FlowSeq<&'a [RuleId]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    profiles: Option<FlowSeq<&'a [Profile]>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requires: Option<FlowMap<&'a Requirements>>,
    steps: Vec<FlowMap<&'a Step>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    alone: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    fresh: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    gui_deviations: Option<FlowSeq<&'a [RuleId]>>,
}

/// `scenario` as YAML that [`super::load_str`] reads back as `scenario` (apart from
/// `step_sources`, which loading fills in from the text).
///
/// ```
/// use usicheck::scenario::{load_str, to_yaml};
/// let yaml = "name: ready\nrules: [USI-READY-001]\nsteps:\n  - handshake: {}\n  - send: isready\n  - expect: {readyok: true, rule: USI-READY-001}\n";
/// let scenario = load_str("ready.yaml", yaml).unwrap();
/// let again = load_str("again.yaml", &to_yaml(&scenario)).unwrap();
/// assert_eq!(again.steps, scenario.steps);
/// ```
pub fn to_yaml(scenario: &Scenario) -> String {
    // Destructured so that a new field of `Scenario` cannot be left out of the document.
    let Scenario {
        name,
        description,
        rules,
        profiles,
        requires,
        steps,
        alone,
        fresh,
        gui_deviations,
        step_sources: _,
    } = scenario;
    let document = Document {
        name,
        description,
        rules: FlowSeq(rules),
        profiles: (!profiles.is_empty()).then_some(FlowSeq(profiles)),
        requires: (*requires != Requirements::default()).then_some(FlowMap(requires)),
        steps: steps.iter().map(FlowMap).collect(),
        alone: *alone,
        fresh: *fresh,
        gui_deviations: (!gui_deviations.is_empty()).then_some(FlowSeq(gui_deviations)),
    };
    // Strings stay on one line, quoted and escaped where they need it, rather than becoming
    // block scalars: `send_raw` bytes (CR LF, trailing blanks) remain visible. Steps are
    // indented under `steps:` as the bundled scenarios write them.
    let options = serde_saphyr::ser_options! {
        prefer_block_scalars: false,
        compact_list_indent: false,
    };
    serde_saphyr::to_string_with_options(&document, options)
        .expect("a scenario is strings, numbers and booleans, which YAML writes")
}
