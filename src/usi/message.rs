//! Engine → GUI messages.

use super::bestmove::BestMove;
use super::checkmate::Checkmate;
use super::info::Info;
use super::lex::{Tokens, is_blank, strip_line_ending};
use super::option::OptionDecl;
use super::{Diagnostic, rule};
use std::fmt;

/// The state word of `copyprotection` and `registration`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Checking,
    Ok,
    Error,
}

impl Status {
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Checking => "checking",
            Status::Ok => "ok",
            Status::Error => "error",
        }
    }

    fn from_word(word: Option<&str>) -> Option<Status> {
        match word? {
            "checking" => Some(Status::Checking),
            "ok" => Some(Status::Ok),
            "error" => Some(Status::Error),
            _ => None,
        }
    }
}

/// A line the engine sends to the GUI.
///
/// [`Message::parse`] extracts what a lenient GUI would and reports every deviation from the
/// catalogue as a [`Diagnostic`]. It never fails: a line that is not a protocol message is
/// [`Message::Unknown`], without a diagnostic, because whether such a line is tolerated depends
/// on when it arrives (USI-HANDSHAKE-008, USI-ROBUST-009). `Display` writes the canonical form.
///
/// ```
/// use usicheck::usi::{Message, rule};
/// let (msg, diags) = Message::parse("usiok ");
/// assert_eq!(msg, Message::UsiOk);
/// assert_eq!(diags[0].rule, rule::HANDSHAKE_004);
/// let (msg, diags) = Message::parse("id name Lesserkai 1.5\r\n");
/// assert_eq!(msg, Message::IdName("Lesserkai 1.5".into()));
/// assert!(diags.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Message {
    IdName(String),
    IdAuthor(String),
    UsiOk,
    ReadyOk,
    Option(OptionDecl),
    BestMove(BestMove),
    Checkmate(Checkmate),
    Info(Info),
    CopyProtection(Status),
    Registration(Status),
    /// Any other line, verbatim without its line terminator (banners, keep-alive blank lines).
    Unknown(String),
}

const BOM: char = '\u{feff}';

impl Message {
    /// Parses one line and collects its diagnostics.
    pub fn parse(line: &str) -> (Message, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let message = Message::parse_into(line, &mut diags);
        (message, diags)
    }

    /// Like [`Message::parse`], appending diagnostics to a caller-owned buffer (no allocation
    /// for clean lines).
    pub fn parse_into(line: &str, diags: &mut Vec<Diagnostic>) -> Message {
        let verbatim = strip_line_ending(line);
        let mut line = verbatim;
        if let Some(rest) = line.strip_prefix(BOM) {
            diags.push(Diagnostic::new(
                rule::ENCODING_003,
                "line starts with a UTF-8 byte-order mark",
            ));
            line = rest;
        }
        let mut tokens = Tokens::new(line);
        // Unknown lines keep their BOM: without it, their text would parse differently.
        let unknown = || Message::Unknown(verbatim.to_string());
        let Some(head) = tokens.next() else {
            return unknown();
        };
        // Where free text starts: it is exempt from the ASCII and spacing checks.
        let mut free_text_at = line.len();
        let message = match head {
            "usiok" | "readyok" => {
                let message = if head == "usiok" {
                    Message::UsiOk
                } else {
                    Message::ReadyOk
                };
                if line != head {
                    let rule = if head == "usiok" {
                        rule::HANDSHAKE_004
                    } else {
                        rule::ROBUST_005
                    };
                    diags.push(Diagnostic::new(
                        rule,
                        format!("`{head}` line is not exactly `{head}`: {line:?}"),
                    ));
                }
                return message;
            }
            "id" => {
                let kind = tokens.next();
                free_text_at = tokens.offset();
                let text = tokens.rest().to_string();
                let message = match kind {
                    Some("name") => Message::IdName(text),
                    Some("author") => Message::IdAuthor(text),
                    _ => {
                        diags.push(Diagnostic::new(
                            rule::HANDSHAKE_002,
                            "`id` not followed by `name` or `author`",
                        ));
                        return unknown();
                    }
                };
                if matches!(&message, Message::IdName(t) | Message::IdAuthor(t) if t.is_empty()) {
                    diags.push(Diagnostic::new(
                        rule::HANDSHAKE_002,
                        format!("empty `id {}`", kind.unwrap_or("")),
                    ));
                }
                message
            }
            "option" => match OptionDecl::parse_args(tokens, diags) {
                Some(option) => Message::Option(option),
                None => return unknown(),
            },
            "bestmove" => match BestMove::parse_args(tokens, diags) {
                Some(best) => Message::BestMove(best),
                None => return unknown(),
            },
            "checkmate" => Message::Checkmate(Checkmate::parse_args(tokens, diags)),
            "info" => {
                free_text_at = string_field_offset(tokens);
                Message::Info(Info::parse_args(tokens, diags))
            }
            "copyprotection" | "registration" => match Status::from_word(tokens.next()) {
                Some(status) => {
                    if status == Status::Error {
                        diags.push(Diagnostic::new(
                            rule::ROBUST_010,
                            format!("`{head} error`: GUIs do not support it"),
                        ));
                    }
                    if head == "copyprotection" {
                        Message::CopyProtection(status)
                    } else {
                        Message::Registration(status)
                    }
                }
                None => return unknown(),
            },
            _ => return unknown(),
        };
        check_protocol_text(
            &line[..free_text_at],
            free_text_at < line.len(),
            !matches!(message, Message::Option(_)),
            diags,
        );
        if line.ends_with(|c: char| c.is_ascii() && is_blank(c as u8)) {
            diags.push(Diagnostic::new(rule::ROBUST_005, "trailing blank"));
        }
        message
    }
}

/// Offset of the text after `string` in an info line (the end of the line if there is none).
fn string_field_offset(mut tokens: Tokens<'_>) -> usize {
    while let Some(tok) = tokens.next() {
        if tok == "string" {
            return tokens.offset();
        }
    }
    tokens.offset()
}

/// Spacing (USI-ROBUST-005) and, unless the parser checked its own tokens, 7-bit ASCII
/// (USI-ENCODING-001) over the protocol part of a line. When free text follows, exactly one
/// space must separate it from the protocol part.
fn check_protocol_text(
    text: &str,
    free_text_follows: bool,
    check_ascii: bool,
    diags: &mut Vec<Diagnostic>,
) {
    let body = if free_text_follows {
        text.strip_suffix(' ').unwrap_or(text)
    } else {
        // Trailing blanks of the whole line are reported on their own.
        text.trim_end_matches(|c: char| c.is_ascii() && is_blank(c as u8))
    };
    let bytes = body.as_bytes();
    let irregular = bytes.first().is_some_and(|&b| is_blank(b))
        || bytes.last().is_some_and(|&b| is_blank(b))
        || bytes
            .windows(2)
            .any(|w| is_blank(w[0]) && (w[0] != b' ' || is_blank(w[1])));
    if irregular {
        diags.push(Diagnostic::new(
            rule::ROBUST_005,
            "tokens not separated by single spaces",
        ));
    }
    if check_ascii && !bytes.is_ascii() {
        diags.push(Diagnostic::new(
            rule::ENCODING_001,
            "non-ASCII character in a protocol token",
        ));
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::IdName(name) => write!(f, "id name {name}"),
            Message::IdAuthor(author) => write!(f, "id author {author}"),
            Message::UsiOk => f.write_str("usiok"),
            Message::ReadyOk => f.write_str("readyok"),
            Message::Option(option) => write!(f, "{option}"),
            Message::BestMove(best) => write!(f, "{best}"),
            Message::Checkmate(checkmate) => write!(f, "{checkmate}"),
            Message::Info(info) => write!(f, "{info}"),
            Message::CopyProtection(status) => write!(f, "copyprotection {}", status.as_str()),
            Message::Registration(status) => write!(f, "registration {}", status.as_str()),
            Message::Unknown(line) => f.write_str(line),
        }
    }
}
