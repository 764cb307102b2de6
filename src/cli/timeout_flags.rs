//! `--usiok-timeout`, `--ready-timeout` and `--quit-timeout`: one spelling, one parser, for
//! every command that starts an engine (run, certify, fuzz, init) and for usicheck.toml's
//! `[timeouts]`, which stands in for them.

use super::suite::duration_flag;
use clap::Args;
use std::time::Duration;

/// The three handshake and exit timeouts, as given (a `[timeouts]` value fills one not given).
#[derive(Args, Debug, Clone, Default)]
pub struct TimeoutFlags {
    /// T-USIOK: how long `usi` may take to answer (default 10s; 2s under `strict`).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub usiok_timeout: Option<String>,
    /// T-READY: silence allowed while `isready` is pending, restarted by any line (default
    /// 30s).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub ready_timeout: Option<String>,
    /// T-QUIT: how long the engine may take to exit after `quit` before usicheck signals it
    /// (default 5s).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub quit_timeout: Option<String>,
}

/// The timeouts given, parsed; `None` leaves the command's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub usiok: Option<Duration>,
    pub ready: Option<Duration>,
    pub quit: Option<Duration>,
}

impl TimeoutFlags {
    /// Each timeout given as a positive duration, or a one-line error naming its flag.
    pub fn parsed(&self) -> Result<Parsed, String> {
        let parse = |flag: &str, text: &Option<String>| {
            text.as_deref()
                .map(|text| duration_flag(flag, text))
                .transpose()
        };
        Ok(Parsed {
            usiok: parse("usiok-timeout", &self.usiok_timeout)?,
            ready: parse("ready-timeout", &self.ready_timeout)?,
            quit: parse("quit-timeout", &self.quit_timeout)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_flag_parses_alone_and_a_bad_one_is_named() {
        let flags = TimeoutFlags {
            usiok_timeout: Some("2s".into()),
            ready_timeout: None,
            quit_timeout: Some("500ms".into()),
        };
        assert_eq!(
            flags.parsed().unwrap(),
            Parsed {
                usiok: Some(Duration::from_secs(2)),
                ready: None,
                quit: Some(Duration::from_millis(500)),
            }
        );
        let bad = TimeoutFlags {
            ready_timeout: Some("5".into()),
            ..TimeoutFlags::default()
        };
        assert!(bad.parsed().unwrap_err().starts_with("--ready-timeout 5: "));
    }
}
