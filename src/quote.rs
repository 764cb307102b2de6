//! Quoting engine text in verdicts, failures and reports: every quote is capped and says how
//! long the original was, so a report stays small whatever the engine prints; the transcript
//! file keeps the full text.

use std::borrow::Cow;

/// Characters of engine text one quote shows.
pub const QUOTE_CHARS: usize = 200;

/// Characters of a whole reason (expected, actual, verdict reason) kept, quotes included.
pub const REASON_CHARS: usize = 2000;

/// `text` cut to [`QUOTE_CHARS`] characters; when cut, it says how many bytes the engine sent
/// (`original_len`, which may exceed `text` when the driver already cut the line).
///
/// ```
/// use usicheck::quote::quote_of;
/// let long = "x".repeat(1000);
/// assert_eq!(quote_of("readyok", 7), "readyok");
/// let quoted = quote_of(&long, 104_857_600);
/// assert!(quoted.ends_with("x… (104,857,600 bytes, first 200 shown)"));
/// ```
pub fn quote_of(text: &str, original_len: u64) -> Cow<'_, str> {
    cut(text, QUOTE_CHARS, original_len)
}

/// [`quote_of`] for text that was not cut before.
pub fn quote(text: &str) -> Cow<'_, str> {
    quote_of(text, text.len() as u64)
}

/// `reason` with every backtick-quoted span longer than a [quote] cut like one, and the
/// whole held to [`REASON_CHARS`]: the backstop that bounds every verdict and failure, whatever
/// its author quoted.
///
/// ```
/// use usicheck::quote::bound_reason;
/// let reason = format!("got `{}`, expected `readyok`", "y".repeat(5000));
/// let bounded = bound_reason(reason);
/// assert!(bounded.starts_with("got `yyy"));
/// assert!(bounded.ends_with("y… (5,000 bytes, first 200 shown)`, expected `readyok`"));
/// ```
pub fn bound_reason(reason: String) -> String {
    // A quote already cut is QUOTE_CHARS plus its note; leave it alone.
    const SPAN_CHARS: usize = QUOTE_CHARS + 60;
    if reason.len() <= SPAN_CHARS {
        return reason;
    }
    let mut out = String::with_capacity(REASON_CHARS.min(reason.len()));
    let mut parts = reason.split('`');
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    for (index, part) in parts.enumerate() {
        out.push('`');
        // After the first part, the even-indexed ones sit inside a pair of backticks.
        if index % 2 == 0 && part.chars().nth(SPAN_CHARS).is_some() {
            out.push_str(&quote(part));
        } else {
            out.push_str(part);
        }
    }
    cut(&out, REASON_CHARS, out.len() as u64).into_owned()
}

/// `text` cut to `chars` characters, with a note of `original_len` when cut.
fn cut(text: &str, chars: usize, original_len: u64) -> Cow<'_, str> {
    match text.char_indices().nth(chars) {
        None if original_len <= text.len() as u64 => text.into(),
        None => format!(
            "{text}… ({} bytes, first {} shown)",
            thousands(original_len),
            text.chars().count()
        )
        .into(),
        Some((end, _)) => format!(
            "{}… ({} bytes, first {chars} shown)",
            &text[..end],
            thousands(original_len)
        )
        .into(),
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_and_reasons_pass_unchanged() {
        assert_eq!(quote("bestmove 7g7f"), "bestmove 7g7f");
        let reason = "got `bestmove 7g7f` after `stop`".to_owned();
        assert_eq!(bound_reason(reason.clone()), reason);
    }

    #[test]
    fn a_line_the_driver_cut_reports_the_bytes_the_engine_sent() {
        let text = "z".repeat(150);
        assert_eq!(
            quote_of(&text, 2_000_000),
            format!("{text}… (2,000,000 bytes, first 150 shown)")
        );
    }

    #[test]
    fn cuts_respect_character_boundaries() {
        let text = "将".repeat(500);
        let quoted = quote(&text);
        assert!(quoted.starts_with(&"将".repeat(200)));
        assert!(quoted.ends_with("… (1,500 bytes, first 200 shown)"));
    }

    #[test]
    fn a_reason_without_quotes_is_held_to_its_cap() {
        let bounded = bound_reason("w".repeat(1_000_000));
        assert!(
            bounded.chars().count() < REASON_CHARS + 60,
            "{}",
            bounded.len()
        );
        assert!(bounded.ends_with("… (1,000,000 bytes, first 2000 shown)"));
    }

    #[test]
    fn already_quoted_spans_are_not_cut_again() {
        let once = format!("got `{}`", quote(&"q".repeat(10_000)));
        assert_eq!(bound_reason(once.clone()), once);
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(104_857_600), "104,857,600");
    }
}
