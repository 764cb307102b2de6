//! Reports: one event stream (see [`Event`]), several reporters.

mod event;

pub use event::{Event, Reporter, RunInfo, ScenarioReport, StepFailure};
