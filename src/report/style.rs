//! The styles of the human output, as ANSI codes in the text: the writer (anstream) keeps them
//! for a terminal or `--color always` and strips them otherwise, so the renderers never ask
//! whether colour is on.

use crate::rules::Outcome;
use anstyle::{AnsiColor, Style};
use std::fmt::Display;

/// Headings and the names a line is about.
pub const BOLD: Style = Style::new().bold();

/// What is there for reference: durations, SKIP.
pub const DIM: Style = Style::new().dimmed();

/// A verdict's colour: PASS green, FAIL red, WARN yellow, INFO cyan, SKIP dim.
pub fn outcome(outcome: Outcome) -> Style {
    let color = match outcome {
        Outcome::Pass => AnsiColor::Green,
        Outcome::Fail => AnsiColor::Red,
        Outcome::Warn => AnsiColor::Yellow,
        Outcome::Info => AnsiColor::Cyan,
        Outcome::Skip => return DIM,
    };
    Style::new().fg_color(Some(color.into())).bold()
}

/// A gate's verdict, coloured as [`outcome`] colours PASS or FAIL.
pub fn gate(passed: bool) -> String {
    match passed {
        true => paint(outcome(Outcome::Pass), "PASS"),
        false => paint(outcome(Outcome::Fail), "FAIL"),
    }
}

/// `text` in `style`.
///
/// ```
/// use usicheck::report::style::{BOLD, paint};
/// assert_eq!(paint(BOLD, "usicheck"), "\u{1b}[1musicheck\u{1b}[0m");
/// ```
pub fn paint(style: Style, text: impl Display) -> String {
    format!("{}{text}{}", style.render(), style.render_reset())
}
