//! Splitting an engine's output bytes into lines.

/// Which of the engine's output pipes a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// How a line ended on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LineEnd {
    Lf,
    CrLf,
    /// A lone carriage return.
    Cr,
    /// The stream ended without a final line end.
    Eof,
}

/// One line of engine output, time-stamped by the reader thread.
///
/// `text` never contains the line end; NUL and other control characters are kept as they came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub stream: Stream,
    /// Microseconds since the session started, taken when the line end was read.
    pub at_micros: u64,
    /// The text, decoded lossily (invalid sequences become U+FFFD) and cut at the length cap.
    pub text: String,
    pub end: LineEnd,
    /// Bytes the engine sent for this line, line end excluded.
    pub raw_len: u64,
    /// The line was longer than the cap; `text` holds its beginning only.
    pub truncated: bool,
    /// The bytes were not valid UTF-8.
    pub invalid_utf8: bool,
    /// The line's entry number in its session's transcript, once the session read it
    /// (`None` for a line judged outside a session): unique in the session, where many lines
    /// can share a microsecond of simulated time. A verdict names its evidence by it.
    pub entry: Option<u64>,
}

impl Line {
    /// The text as verdicts and failures quote it: capped, saying how many bytes the engine
    /// sent when it was longer (see [`crate::quote`]).
    ///
    /// ```
    /// use usicheck::engine::Line;
    /// assert_eq!(Line::stdout("readyok", 0).quoted(), "readyok");
    /// ```
    pub fn quoted(&self) -> std::borrow::Cow<'_, str> {
        crate::quote::quote_of(&self.text, self.raw_len)
    }

    /// A well-formed stdout line read at `at_micros`, as the reader makes it from `text` and
    /// a line feed (for judging a line that did not come from a pipe).
    ///
    /// ```
    /// use usicheck::engine::{Line, Stream};
    /// let line = Line::stdout("readyok", 7);
    /// assert_eq!((line.stream, line.raw_len, line.at_micros), (Stream::Stdout, 7, 7));
    /// ```
    pub fn stdout(text: &str, at_micros: u64) -> Line {
        Line {
            stream: Stream::Stdout,
            at_micros,
            text: text.to_owned(),
            end: LineEnd::Lf,
            raw_len: text.len() as u64,
            truncated: false,
            invalid_utf8: false,
            entry: None,
        }
    }
}

/// A line as split from the byte stream, before decoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawLine {
    /// The kept bytes: at most the cap.
    pub bytes: Vec<u8>,
    pub end: LineEnd,
    /// Bytes the engine sent for this line, line end excluded.
    pub raw_len: u64,
}

impl RawLine {
    /// Decodes the kept bytes into a [`Line`].
    ///
    /// A multi-byte character cut by truncation is dropped rather than reported as invalid.
    ///
    /// ```
    /// use usicheck::engine::{LineEnd, RawLine, Stream};
    /// let raw = RawLine { bytes: b"ok\xff".to_vec(), end: LineEnd::Lf, raw_len: 3 };
    /// let line = raw.decode(Stream::Stdout, 7);
    /// assert_eq!(line.text, "ok\u{fffd}");
    /// assert!(line.invalid_utf8 && !line.truncated);
    /// ```
    pub fn decode(self, stream: Stream, at_micros: u64) -> Line {
        let truncated = self.raw_len > self.bytes.len() as u64;
        let (text, invalid_utf8) = match String::from_utf8(self.bytes) {
            Ok(text) => (text, false),
            Err(error) => {
                let utf8 = error.utf8_error();
                let mut bytes = error.into_bytes();
                if truncated && utf8.error_len().is_none() {
                    bytes.truncate(utf8.valid_up_to());
                    (String::from_utf8(bytes).unwrap_or_default(), false)
                } else {
                    (String::from_utf8_lossy(&bytes).into_owned(), true)
                }
            }
        };
        Line {
            stream,
            at_micros,
            text,
            end: self.end,
            raw_len: self.raw_len,
            truncated,
            invalid_utf8,
            entry: None,
        }
    }
}

/// Splits a byte stream on LF, CRLF and lone CR, keeping at most `max_line_bytes` of each line.
///
/// A CR that ends one read and an LF that starts the next are one CRLF line end, reported as
/// [`LineEnd::Cr`]: the line is delivered at once rather than held back for the next read.
///
/// ```
/// use usicheck::engine::{LineEnd, LineSplitter};
/// let mut splitter = LineSplitter::new(4);
/// let mut lines = Vec::new();
/// splitter.push(b"usiok\r\nab\rc", |line| lines.push(line));
/// lines.extend(splitter.finish());
/// let texts: Vec<_> = lines.iter().map(|l| (l.bytes.clone(), l.end, l.raw_len)).collect();
/// assert_eq!(texts, [
///     (b"usio".to_vec(), LineEnd::CrLf, 5),
///     (b"ab".to_vec(), LineEnd::Cr, 2),
///     (b"c".to_vec(), LineEnd::Eof, 1),
/// ]);
/// ```
#[derive(Debug)]
pub struct LineSplitter {
    max_line_bytes: usize,
    pending: Vec<u8>,
    pending_raw_len: u64,
    after_cr: bool,
}

impl LineSplitter {
    pub fn new(max_line_bytes: usize) -> Self {
        LineSplitter {
            max_line_bytes,
            pending: Vec::new(),
            pending_raw_len: 0,
            after_cr: false,
        }
    }

    /// Feeds bytes, calling `emit` for every completed line.
    pub fn push(&mut self, mut chunk: &[u8], mut emit: impl FnMut(RawLine)) {
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
            }
        }
        while let Some(at) = memchr::memchr2(b'\n', b'\r', chunk) {
            self.append(&chunk[..at]);
            let (end, rest) = match (chunk[at], chunk.get(at + 1)) {
                (b'\n', _) => (LineEnd::Lf, &chunk[at + 1..]),
                (_, Some(b'\n')) => (LineEnd::CrLf, &chunk[at + 2..]),
                (_, Some(_)) => (LineEnd::Cr, &chunk[at + 1..]),
                (_, None) => {
                    self.after_cr = true;
                    (LineEnd::Cr, &chunk[at + 1..])
                }
            };
            emit(self.take(end));
            chunk = rest;
        }
        self.append(chunk);
    }

    /// Ends the stream: returns the last line if it had no line end.
    pub fn finish(&mut self) -> Option<RawLine> {
        (self.pending_raw_len > 0).then(|| self.take(LineEnd::Eof))
    }

    fn append(&mut self, bytes: &[u8]) {
        self.pending_raw_len += bytes.len() as u64;
        let room = self.max_line_bytes.saturating_sub(self.pending.len());
        self.pending
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn take(&mut self, end: LineEnd) -> RawLine {
        let raw_len = std::mem::take(&mut self.pending_raw_len);
        RawLine {
            bytes: std::mem::take(&mut self.pending),
            end,
            raw_len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_in_chunks(input: &[u8], chunk: usize, cap: usize) -> Vec<RawLine> {
        let mut splitter = LineSplitter::new(cap);
        let mut lines = Vec::new();
        for part in input.chunks(chunk) {
            splitter.push(part, |line| lines.push(line));
        }
        lines.extend(splitter.finish());
        lines
    }

    #[test]
    fn every_chunking_gives_the_same_lines_for_lf_and_lone_cr() {
        let input = b"id name x\nusiok\rreadyok\n\nlast";
        let whole = split_in_chunks(input, input.len(), 64);
        let ends: Vec<_> = whole.iter().map(|l| l.end).collect();
        assert_eq!(
            ends,
            [
                LineEnd::Lf,
                LineEnd::Cr,
                LineEnd::Lf,
                LineEnd::Lf,
                LineEnd::Eof
            ]
        );
        for chunk in 1..input.len() {
            assert_eq!(split_in_chunks(input, chunk, 64), whole, "chunk {chunk}");
        }
    }

    #[test]
    fn crlf_split_across_reads_is_one_line_end() {
        let lines = split_in_chunks(b"a\r\nb\r\n", 2, 64);
        let texts: Vec<_> = lines.iter().map(|l| l.bytes.as_slice()).collect();
        assert_eq!(texts, [b"a".as_slice(), b"b".as_slice()]);
    }

    #[test]
    fn truncation_keeps_the_cap_and_counts_the_rest() {
        let lines = split_in_chunks(&[b'x'; 100], 7, 10);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].bytes.len(), 10);
        assert_eq!(lines[0].raw_len, 100);
        let line = lines[0].clone().decode(Stream::Stdout, 0);
        assert!(line.truncated);
    }

    #[test]
    fn truncation_inside_a_character_is_not_invalid_utf8() {
        let raw = RawLine {
            bytes: "aé".as_bytes()[..2].to_vec(),
            end: LineEnd::Lf,
            raw_len: 3,
        };
        let line = raw.decode(Stream::Stdout, 0);
        assert_eq!(line.text, "a");
        assert!(!line.invalid_utf8 && line.truncated);
    }

    #[test]
    fn nul_bytes_are_kept() {
        let line = split_in_chunks(b"a\0b\n", 4, 64)
            .remove(0)
            .decode(Stream::Stderr, 0);
        assert_eq!(line.text, "a\0b");
    }
}
