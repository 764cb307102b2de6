//! The rule an engine breaks that is alive but does not read its input: a line could not be
//! written to it before the send deadline (its pipe is full). The rule is the same whichever
//! driver's write it blocked, and whatever the engine was doing.

use crate::rules::RuleId;

/// USI-GO-012: the engine must process its input at all times, during a search too (TR
/// §5.1, "must always be able to process input from stdin, even while thinking").
///
/// ```
/// assert_eq!(usicheck::blame::unread(), usicheck::rule!("USI-GO-012"));
/// ```
pub fn unread() -> RuleId {
    crate::rule!("USI-GO-012")
}
