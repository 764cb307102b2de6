//! Splitting protocol lines into whitespace-separated tokens without allocating.

/// Removes the line terminator: any trailing run of `\r` and `\n` (LF, CRLF or a lone CR).
///
/// ```
/// use usicheck::usi::strip_line_ending;
/// assert_eq!(strip_line_ending("isready\r\n"), "isready");
/// assert_eq!(strip_line_ending("usiok\r"), "usiok");
/// ```
pub fn strip_line_ending(line: &str) -> &str {
    line.trim_end_matches(['\r', '\n'])
}

/// Protocol whitespace: USI allows arbitrary blanks between tokens (USI-ROBUST-002).
#[inline]
pub(crate) fn is_blank(b: u8) -> bool {
    b.is_ascii_whitespace() || b == 0x0b
}

fn is_blank_char(c: char) -> bool {
    c.is_ascii() && is_blank(c as u8)
}

/// A cursor over the tokens of one line. `Copy`, so a parser can look ahead by copying it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tokens<'a> {
    line: &'a str,
    pos: usize,
}

impl<'a> Tokens<'a> {
    pub(crate) fn new(line: &'a str) -> Tokens<'a> {
        Tokens { line, pos: 0 }
    }

    fn skip_blanks(&mut self) {
        let bytes = self.line.as_bytes();
        while self.pos < bytes.len() && is_blank(bytes[self.pos]) {
            self.pos += 1;
        }
    }

    /// The next token without consuming it.
    pub(crate) fn peek(&self) -> Option<&'a str> {
        self.clone().next()
    }

    /// Byte offset of the next token (or of the end of the line).
    pub(crate) fn offset(&self) -> usize {
        let mut probe = *self;
        probe.skip_blanks();
        probe.pos
    }

    /// Everything from the next token to the end of the line, trailing blanks removed; consumes it.
    pub(crate) fn rest(&mut self) -> &'a str {
        self.skip_blanks();
        let rest = self.line[self.pos..].trim_end_matches(is_blank_char);
        self.pos = self.line.len();
        rest
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        self.skip_blanks();
        let bytes = self.line.as_bytes();
        if self.pos >= bytes.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < bytes.len() && !is_blank(bytes[self.pos]) {
            self.pos += 1;
        }
        Some(&self.line[start..self.pos])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_any_run_of_blanks() {
        let toks: Vec<_> = Tokens::new("  go \t btime  0  ").collect();
        assert_eq!(toks, ["go", "btime", "0"]);
    }

    #[test]
    fn rest_keeps_inner_blanks_and_drops_trailing_ones() {
        let mut t = Tokens::new("info string  a  b  ");
        t.next();
        t.next();
        assert_eq!(t.rest(), "a  b");
        assert_eq!(t.next(), None);
    }

    #[test]
    fn non_ascii_is_never_split_inside_a_character() {
        let toks: Vec<_> = Tokens::new("id name 将棋\u{3000}エンジン x").collect();
        assert_eq!(toks, ["id", "name", "将棋\u{3000}エンジン", "x"]);
    }
}
