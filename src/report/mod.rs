//! Reports: one event stream (see [`Event`]), several reporters.

mod aggregate;
mod event;
#[cfg(test)]
mod fixtures;
mod terminal;

pub use aggregate::{
    Aggregate, Certificate, FailOn, Judgement, LevelCount, RuleResult, Run, badness, judged_level,
    level_label,
};
pub use event::{Event, Reporter, RunInfo, ScenarioReport, StepFailure};
pub use terminal::Terminal;
