//! The scenario runner: executes a [`Scenario`](super::Scenario) against an engine process
//! and judges every rule it names, plus the always-on checks every engine line goes through.
//!
//! Policy: each scenario has an engine process to itself, so scenarios are independent and
//! `--jobs N` runs them in parallel: one started for it, or, where the scenario allows it, the
//! process the worker's last scenario left idle and settled ([`WarmProcess`]), as a GUI keeps one
//! process for many games. Deadlines come from the profile's §0.3 timeouts (with command-line
//! overrides); the current position follows every `position` line sent, so "legal" means
//! legal where the engine was asked to search.

mod awaiting;
mod captures;
mod ending;
mod engine_io;
mod execute;
mod game_rules;
mod matchers;
mod owed;
mod pre_flight;
mod preconditions;
mod settings;
mod silence;
mod warm;

pub use captures::Captures;
pub use execute::run_scenario;
pub use game_rules::{ENTERING_KING_RULE, MAX_MOVES_TO_DRAW, game_rule_settings};
pub use pre_flight::{pre_flight_scenario, run_pre_flight};
pub use settings::RunSettings;
pub use warm::{WARM_NOTE, WarmProcess};
