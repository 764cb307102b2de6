//! The rule an engine breaks that is still running after `quit`, whichever driver sent it.

use crate::rules::RuleId;

/// The rule a `quit` the engine did not obey breaks: USI-QUIT-002 when a search was running as
/// it was sent (`searching`, released by `gameover` or not: `quit` needs no `stop`), else
/// USI-QUIT-001. An engine that ignores `quit` when idle as well breaks USI-QUIT-001: the
/// pre-flight's idle `quit` and the fuzzer's idle control show it first, and the search's
/// `quit` is then not reached.
///
/// ```
/// use usicheck::blame::ignored_quit;
/// assert_eq!(ignored_quit(true), usicheck::rule!("USI-QUIT-002"));
/// assert_eq!(ignored_quit(false), usicheck::rule!("USI-QUIT-001"));
/// ```
pub fn ignored_quit(searching: bool) -> RuleId {
    match searching {
        true => crate::rule!("USI-QUIT-002"),
        false => crate::rule!("USI-QUIT-001"),
    }
}
