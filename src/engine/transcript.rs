//! The session transcript: every line in both directions, stderr and process events.
//!
//! Rendered one entry per line as `<seconds>.<micros> <sigil> <text>`, with the sigils
//! `>` (sent to the engine), `<` (engine stdout), `!` (engine stderr) and `#` (a note: process
//! events, truncation, signals sent). Text is written as received; use [`sanitise`] before
//! showing it on a terminal.

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::bounded::{BoundedLog, LogLimits};

/// Who produced a transcript entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Sent by usicheck to the engine's stdin.
    ToEngine,
    /// Read from the engine's stdout.
    FromEngine,
    /// Read from the engine's stderr.
    Stderr,
    /// Written by usicheck: process events and diagnostics.
    Note,
}

impl Direction {
    pub fn sigil(self) -> char {
        match self {
            Direction::ToEngine => '>',
            Direction::FromEngine => '<',
            Direction::Stderr => '!',
            Direction::Note => '#',
        }
    }
}

/// One transcript line.
///
/// ```
/// use usicheck::engine::{Direction, TranscriptEntry};
/// let entry = TranscriptEntry { at_micros: 1_500_042, direction: Direction::ToEngine, text: "usi".into() };
/// assert_eq!(entry.to_string(), "1.500042 > usi");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranscriptEntry {
    pub at_micros: u64,
    pub direction: Direction,
    pub text: String,
}

impl fmt::Display for TranscriptEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:06} {} {}",
            self.at_micros / 1_000_000,
            self.at_micros % 1_000_000,
            self.direction.sigil(),
            self.text
        )
    }
}

/// A transcript kept in memory within [`LogLimits`], and streamed in full to a file if asked.
#[derive(Debug)]
pub struct Transcript {
    kept: BoundedLog<TranscriptEntry>,
    file: Option<BufWriter<File>>,
    file_error: Option<io::Error>,
}

impl Transcript {
    /// An in-memory transcript.
    pub fn in_memory(limits: LogLimits) -> Self {
        Transcript {
            kept: BoundedLog::new(limits, |entry| entry.text.len() + 32),
            file: None,
            file_error: None,
        }
    }

    /// A transcript also streamed, complete, to `path` (created or truncated).
    pub fn to_file(limits: LogLimits, path: &Path) -> io::Result<Self> {
        let mut transcript = Transcript::in_memory(limits);
        transcript.file = Some(BufWriter::new(File::create(path)?));
        Ok(transcript)
    }

    pub fn record(&mut self, at_micros: u64, direction: Direction, text: impl Into<String>) {
        let entry = TranscriptEntry {
            at_micros,
            direction,
            text: text.into(),
        };
        if let Some(file) = &mut self.file
            && let Err(error) = writeln!(file, "{entry}")
        {
            // A full disk must not end the session: stop streaming and report it later.
            self.file_error = Some(error);
            self.file = None;
        }
        self.kept.push(entry);
    }

    /// The entries kept in memory: the beginning and the most recent ones.
    pub fn entries(&self) -> &BoundedLog<TranscriptEntry> {
        &self.kept
    }

    /// Entries dropped from memory (they are still in the file, if there is one).
    pub fn omitted(&self) -> u64 {
        self.kept.omitted()
    }

    /// Flushes the file, returning the first write error met, if any.
    pub fn flush(&mut self) -> io::Result<()> {
        if let Some(file) = &mut self.file
            && let Err(error) = file.flush()
        {
            self.file = None;
            return Err(error);
        }
        match self.file_error.take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Writes the kept entries, with a note where entries were omitted.
    pub fn write_to(&self, mut out: impl Write) -> io::Result<()> {
        for entry in self.kept.head() {
            writeln!(out, "{entry}")?;
        }
        if self.kept.omitted() > 0 {
            writeln!(
                out,
                "# ... {} entries omitted from memory ...",
                self.kept.omitted()
            )?;
        }
        for entry in self.kept.tail() {
            writeln!(out, "{entry}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Transcript {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut bytes = Vec::new();
        self.write_to(&mut bytes).map_err(|_| fmt::Error)?;
        f.write_str(&String::from_utf8_lossy(&bytes))
    }
}

/// Makes engine text safe for a terminal: control characters (C0, DEL, C1, so every escape
/// sequence), bidirectional overrides and backslashes are written as visible escapes.
///
/// ```
/// use usicheck::engine::sanitise;
/// assert_eq!(sanitise("id name \u{1b}[31mred\0"), "id name \\x1b[31mred\\x00");
/// assert_eq!(sanitise("tab\there \\ \u{202e}"), "tab\\there \\\\ \\u{202e}");
/// assert_eq!(sanitise("bestmove 7g7f"), "bestmove 7g7f");
/// ```
pub fn sanitise(text: &str) -> std::borrow::Cow<'_, str> {
    let needs_escape = |c: char| {
        c.is_control()
            || c == '\\'
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.contains(needs_escape) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_ascii_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.into()
}
