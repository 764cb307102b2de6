//! The scenario runner: executes a [`Scenario`](super::Scenario) against a fresh engine process
//! and judges every rule it names, plus the always-on checks every engine line goes through.
//!
//! Policy: one engine process per scenario, so scenarios are independent and `--jobs N` runs
//! them in parallel. Deadlines come from the profile's §0.3 timeouts (with command-line
//! overrides); the current position follows every `position` line sent, so "legal" means
//! legal where the engine was asked to search.

mod board;
mod captures;
mod execute;
mod flood;
mod judge;
mod line_check;
mod protocol;
mod settings;
mod timing;

pub use board::{Board, append_moves, resolve};
pub use captures::Captures;
pub use execute::run_scenario;
pub use flood::{FloodMeter, MAX_INFO_PER_SECOND};
pub use judge::{Judge, worst};
pub use line_check::{check_line, illegal_in_sequence};
pub use protocol::{GoKind, Protocol};
pub use settings::RunSettings;
pub use timing::ReplyClock;
