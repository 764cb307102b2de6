//! The reference engine behind `usicheck engine`: a conformant USI engine that, with faults
//! switched on, breaks exactly the rules those faults name.

pub mod faults;
pub mod info;
pub mod io;
pub mod mate;
pub mod options;
pub mod search;
pub mod setup;
pub mod timeman;
pub mod tt;
