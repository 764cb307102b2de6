//! Durations as flags and settings spell them, one grammar for all: `500ms`, `10s`, `2m`,
//! `1h`, a bare number of seconds, or what humantime reads (`1h 30m`, `90sec`).

use std::time::Duration;

/// The longest duration accepted (a year): anything longer is a typo, and would overflow a
/// deadline.
pub const MAX: Duration = Duration::from_secs(365 * 24 * 3600);

/// What a bad duration is told: one line, without the text (the caller names it).
pub const EXPECTED: &str = "expected a duration such as 500ms, 10s, 2m or 1h";

/// `text` as a duration; a bare number is seconds.
///
/// ```
/// use std::time::Duration;
/// use usicheck::duration::parse;
/// assert_eq!(parse("500ms"), Ok(Duration::from_millis(500)));
/// assert_eq!(parse("90"), Ok(Duration::from_secs(90)));
/// assert_eq!(parse("2m"), Ok(Duration::from_secs(120)));
/// assert_eq!(parse("1h 30m"), Ok(Duration::from_secs(5400)));
/// assert!(parse("10x").is_err() && parse("").is_err() && parse("-1s").is_err());
/// assert!(parse("100000h").is_err());
/// ```
pub fn parse(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let duration = match text.parse::<u64>() {
        Ok(seconds) => Duration::from_secs(seconds),
        Err(_) => humantime::parse_duration(text).map_err(|_| EXPECTED.to_owned())?,
    };
    if duration > MAX {
        return Err(format!("{EXPECTED}, at most a year"));
    }
    Ok(duration)
}

/// `text` given to `--FLAG` as a duration; the error is one line naming the flag.
///
/// ```
/// let e = usicheck::duration::flag("time", "soon").unwrap_err();
/// assert_eq!(e, "--time soon: expected a duration such as 500ms, 10s, 2m or 1h");
/// ```
pub fn flag(flag: &str, text: &str) -> Result<Duration, String> {
    parse(text).map_err(|e| format!("--{flag} {text}: {e}"))
}
