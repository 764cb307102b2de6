//! The self-test: proof that every check can fail. Each reference-engine fault
//! ([`crate::refengine::faults`]) runs through the bundled scenarios that name its rules, and
//! must make each of them fail; the clean reference engine must pass the same scenarios. The
//! exact sweep runs the whole suite per fault and compares what it flags with the committed
//! gap table ([`crate::refengine::fault_gaps`]).
//!
//! This module plans and judges; running the sessions is the caller's (`usicheck selftest`),
//! with the same scenario runner `certify` uses.

mod exact;
mod pairs;
mod plan;
mod proof;

pub use exact::{ExactResult, exact_result, merge_table};
pub use pairs::{Flags, PairResult, pair_result, sample_pairs};
pub use plan::{Plan, Planned, Target, plan, plan_pairs};
pub use proof::{FaultProof, Observed, RuleProof, clean_report, flagged, judge};
