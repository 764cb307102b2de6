//! The standard tester timeouts of RULES.md §0.3.

use std::time::Duration;

use super::session::Patience;

/// Tester timeouts; [`Timeouts::default`] is the standard profile of RULES.md §0.3.
///
/// ```
/// use std::time::Duration;
/// use usicheck::engine::{Patience, Timeouts};
/// let standard = Timeouts::default();
/// assert_eq!(standard.usiok, Duration::from_secs(10));
/// assert_eq!(Timeouts::strict().usiok, Duration::from_secs(2));
/// assert_eq!(
///     standard.ready(),
///     Patience::KeepAlive { idle: Duration::from_secs(30), cap: Duration::from_secs(300) }
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timeouts {
    /// T-USIOK: `usi` → `usiok`.
    pub usiok: Duration,
    /// T-READY: `isready` → `readyok`, restarted by any line from the engine…
    pub ready_idle: Duration,
    /// …up to this hard cap.
    pub ready_cap: Duration,
    /// T-STOP: `stop` (or `ponderhit`) → `bestmove` / `checkmate`.
    pub stop: Duration,
    /// T-QUIT: `quit` → process exit.
    pub quit: Duration,
    /// T-SILENT: window in which no output is expected.
    pub silent: Duration,
    /// G: added to every time-control bound.
    pub grace: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            usiok: Duration::from_secs(10),
            ready_idle: Duration::from_secs(30),
            ready_cap: Duration::from_secs(300),
            stop: Duration::from_millis(1000),
            quit: Duration::from_secs(5),
            silent: Duration::from_millis(500),
            grace: Duration::from_millis(100),
        }
    }
}

impl Timeouts {
    /// The strict profile: `usiok` within 2 s.
    pub fn strict() -> Self {
        Timeouts {
            usiok: Duration::from_secs(2),
            ..Timeouts::default()
        }
    }

    /// The T-READY wait, as a keep-alive.
    pub fn ready(&self) -> Patience {
        Patience::KeepAlive {
            idle: self.ready_idle,
            cap: self.ready_cap,
        }
    }
}
