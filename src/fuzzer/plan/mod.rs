//! Sessions as command lists, generated from a model of the GUI state machine.
//!
//! Each command carries what the GUI knows about it (the position it sets, the search it
//! starts), so the executor can derive what the engine owes after any subset of the list:
//! that is what lets the shrinker drop commands freely.
//!
//! The command model (what each command means to the GUI, and which lists a GUI could send) is
//! in `command.rs`, the limits and pauses of each mix in `pace.rs`, the GUI episodes sessions
//! are made of in `episodes.rs`, and the steering towards unexercised cells and away from known
//! findings in `steer.rs`.

mod command;
mod episodes;
mod pace;
mod steer;

pub use command::{Cmd, Episode, Kind, Search, Trigger, When, raced, synced, well_formed};
pub use episodes::{episodes, session};
pub use pace::Mix;
pub use steer::{Steer, predicted_cells, steered_session};
