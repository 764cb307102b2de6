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

impl TranscriptEntry {
    /// The entry as reports quote it: its text [capped](crate::quote), time and direction kept.
    ///
    /// ```
    /// use usicheck::engine::{Direction, TranscriptEntry};
    /// let entry = TranscriptEntry { at_micros: 2_500, direction: Direction::FromEngine, text: "x".repeat(300) };
    /// assert!(entry.quoted().starts_with("0.002500 < xxx"));
    /// assert!(entry.quoted().ends_with("… (300 bytes, first 200 shown)"));
    /// ```
    pub fn quoted(&self) -> String {
        let text = crate::quote::quote(&self.text);
        format!(
            "{}",
            TranscriptEntry {
                text: text.into_owned(),
                ..*self
            }
        )
    }
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

/// Bytes a transcript file receives as entries arrive. A flooding engine could otherwise fill
/// the disk: past this, the file stops growing until [`Transcript::flush`] appends the entries
/// still in memory (the tail, itself within [`LogLimits`]) after a note of what was left out.
pub const TRANSCRIPT_FILE_HEAD_BYTES: u64 = 8 << 20;

/// A transcript kept in memory within [`LogLimits`], and streamed to a file if asked: in full,
/// or for a flood its first [`TRANSCRIPT_FILE_HEAD_BYTES`] and its in-memory tail.
#[derive(Debug)]
pub struct Transcript {
    kept: BoundedLog<TranscriptEntry>,
    file: Option<BufWriter<File>>,
    file_error: Option<io::Error>,
    /// Bytes and entries streamed to the file so far.
    file_bytes: u64,
    file_entries: u64,
}

impl Transcript {
    /// An in-memory transcript.
    pub fn in_memory(limits: LogLimits) -> Self {
        Transcript {
            kept: BoundedLog::new(limits, |entry| entry.text.len() + 32),
            file: None,
            file_error: None,
            file_bytes: 0,
            file_entries: 0,
        }
    }

    /// A transcript also streamed, complete, to `path` (created or truncated).
    pub fn to_file(limits: LogLimits, path: &Path) -> io::Result<Self> {
        let mut transcript = Transcript::in_memory(limits);
        transcript.file = Some(BufWriter::new(File::create(path)?));
        Ok(transcript)
    }

    /// A transcript streamed to the end of `path` (created if missing), after the entries of
    /// an earlier session there: one file for a report whose checks took several processes.
    pub fn appended_to(limits: LogLimits, path: &Path) -> io::Result<Self> {
        let mut transcript = Transcript::in_memory(limits);
        let file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)?;
        transcript.file = Some(BufWriter::new(file));
        Ok(transcript)
    }

    pub fn record(&mut self, at_micros: u64, direction: Direction, text: impl Into<String>) {
        let entry = TranscriptEntry {
            at_micros,
            direction,
            text: text.into(),
        };
        if let Some(file) = &mut self.file
            && self.file_entries == self.kept.total()
        {
            let line = format!("{entry}\n");
            if self.file_bytes + line.len() as u64 <= TRANSCRIPT_FILE_HEAD_BYTES {
                if let Err(error) = file.write_all(line.as_bytes()) {
                    // A full disk must not end the session: stop streaming and report it later.
                    self.file_error = Some(error);
                    self.file = None;
                }
                self.file_bytes += line.len() as u64;
                self.file_entries += 1;
            }
        }
        self.kept.push(entry);
    }

    /// The entries kept in memory: the beginning and the most recent ones.
    pub fn entries(&self) -> &BoundedLog<TranscriptEntry> {
        &self.kept
    }

    /// Entries dropped from memory (a file keeps them unless a flood reached its cap).
    pub fn omitted(&self) -> u64 {
        self.kept.omitted()
    }

    /// Flushes the file, returning the first write error met, if any. When the file stopped
    /// growing at [`TRANSCRIPT_FILE_HEAD_BYTES`], the entries still in memory are appended first, and the
    /// file is then closed.
    pub fn flush(&mut self) -> io::Result<()> {
        let total = self.kept.total();
        if self.file_entries < total
            && let Some(mut file) = self.file.take()
        {
            let tail: Vec<&TranscriptEntry> = self.kept.tail().collect();
            let first_kept = total - tail.len() as u64;
            let skip = self.file_entries.saturating_sub(first_kept) as usize;
            let omitted = first_kept.saturating_sub(self.file_entries);
            let note = if omitted > 0 {
                writeln!(
                    file,
                    "# ... {omitted} entries omitted from this file (past {TRANSCRIPT_FILE_HEAD_BYTES} bytes) ..."
                )
            } else {
                Ok(())
            };
            let appended = note
                .and_then(|()| tail[skip..].iter().try_for_each(|e| writeln!(file, "{e}")))
                .and_then(|()| file.flush());
            self.file_entries = total;
            return appended;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_keeps_the_file_to_its_head_and_the_tail_in_memory() {
        let path = std::env::temp_dir().join(format!("usicheck-flood-{}.log", std::process::id()));
        let limits = LogLimits {
            head_entries: 10,
            head_bytes: 1 << 20,
            tail_entries: 100,
            tail_bytes: 1 << 20,
        };
        let mut transcript = Transcript::to_file(limits, &path).unwrap();
        transcript.record(0, Direction::ToEngine, "usi");
        let line = "info string ".to_owned() + &"x".repeat(100);
        let lines = 2 * TRANSCRIPT_FILE_HEAD_BYTES / line.len() as u64;
        for i in 1..=lines {
            transcript.record(i, Direction::FromEngine, format!("{line} {i}"));
        }
        transcript.flush().unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(
            written.len() as u64 <= TRANSCRIPT_FILE_HEAD_BYTES + 100 * 200,
            "{}",
            written.len()
        );
        assert!(written.starts_with("0.000000 > usi\n"));
        assert!(written.contains(" entries omitted from this file "));
        assert!(written.ends_with(&format!(" < {line} {lines}\n")));
        let numbers: Vec<u64> = written
            .lines()
            .filter_map(|l| l.rsplit(' ').next()?.parse().ok())
            .collect();
        assert!(numbers.windows(2).all(|w| w[0] < w[1]), "entries in order");
        assert_eq!(numbers.len(), written.lines().count() - 2);
    }

    #[test]
    fn a_short_session_is_written_whole() {
        let path = std::env::temp_dir().join(format!("usicheck-whole-{}.log", std::process::id()));
        let limits = LogLimits {
            head_entries: 1,
            head_bytes: 100,
            tail_entries: 1,
            tail_bytes: 100,
        };
        let mut transcript = Transcript::to_file(limits, &path).unwrap();
        for i in 0..5 {
            transcript.record(i, Direction::FromEngine, format!("line {i}"));
        }
        transcript.flush().unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(written.lines().count(), 5, "{written}");
        assert_eq!(transcript.omitted(), 3, "memory kept only head and tail");
    }
}
