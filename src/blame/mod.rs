//! Blame: the one place a symptom whose cause must be worked out becomes a rule.
//!
//! A check that sees a breach of its own rule (a grammar check, a legality check, a clock)
//! names that rule itself. What is decided here is the rest: which rule a failed scenario step
//! is charged to ([`charge`]), which rule an engine's death breaks ([`death`]), which a
//! search reply that never came breaks ([`missing_reply`]), which a live engine that does not
//! read its input breaks ([`unread`]) and which one still running after `quit`
//! ([`ignored_quit`]), for the scenario runner, the fuzzer and `play` alike, so that one
//! symptom gets one rule whichever command saw it. The session [`Facts`] the pre-flight
//! establishes are here too: each broken [`Fact`] names its rule, in the same words wherever
//! a check that needs it is not reached.

mod death;
mod facts;
#[cfg(test)]
mod guard;
mod quit;
mod reply;
mod session;
mod step;
mod unread;

pub use death::{Death, death};
pub use facts::{Fact, Facts, UnansweredSearch};
pub use quit::ignored_quit;
pub use reply::{Missed, Owed, missing_reply, never_answered, no_usiok};
pub use session::{AfterRelease, after_release, late_search, one_line, runs_on_after_gameover};
pub use step::{Charge, Symptom, charge};
pub use unread::unread;
