//! usicheck: certifies shogi engines for the USI protocol.
//!
//! Data flows one way: [`shogi`] (the reference rules) ← [`usi`] (the protocol model) ←
//! [`engine`] (the process driver) ← scenario runner and fuzzer → reports.

pub mod blame;
pub mod duration;
pub mod engine;
pub mod fuzzer;
pub mod harness;
pub mod observer;
pub mod play;
pub mod pool;
pub mod quote;
pub mod refengine;
pub mod report;
pub mod rules;
pub mod scenario;
pub mod selftest;
pub mod shogi;
pub mod sim;
pub mod suggest;
pub mod usi;
