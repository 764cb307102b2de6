//! Scripted scenarios: the YAML format (documented in `scenarios/README.md`), its loader and
//! its JSON Schema, and the [`runner`] that executes scenarios against an engine.

mod bundled;
mod deadline;
mod expect;
mod fresh_process;
mod gui_conduct;
mod loader;
mod model;
mod pattern;
mod required_wait;
pub mod runner;
mod schema;
mod step;
mod template;
mod writer;

pub use bundled::{BUNDLED, bundled_coverage};
pub use deadline::{Deadline, DeadlineBase, NamedTimeout, ParseDeadlineError};
pub use expect::{BestmoveCheck, CheckmateCheck, Expect, InfoCheck, Matcher, PonderCheck, PvCheck};
pub use gui_conduct::{GUI_CONDUCT_RULES, GuiBreach, gui_breaches};
pub use loader::{LoadError, load_file, load_str};
pub use model::{ExtensionRule, Requirements, Scenario, StepSource};
pub use pattern::Pattern;
pub use schema::schema_json;
pub use step::{
    ExitStatus, ExpectExit, ForEachOption, Handshake, OptionSettings, OptionType, Repeat, Silence,
    Step, readyok_sync,
};
pub use template::{Capture, ParseTemplateError, Segment, Template};
pub use writer::to_yaml;
