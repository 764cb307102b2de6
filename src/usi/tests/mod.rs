//! Tests grouped like the spec sections, plus property tests over the whole model.

mod commands;
mod messages;
mod strategies;
