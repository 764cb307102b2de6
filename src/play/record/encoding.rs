//! The bytes of a record file: Shift_JIS (cp932), as `.kif` files and CSA files without an
//! encoding line are by convention, or UTF-8, as `.kifu` files are.

use encoding_rs::{EncoderResult, SHIFT_JIS, UTF_8};

/// How a KIF record is encoded, and so what its file is called (`--kif-encoding`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Encoding {
    /// Shift_JIS (cp932), in `game-NNN.kif`: what Kifu for Windows, Shogidokoro and
    /// python-shogi expect of `.kif`.
    #[default]
    #[value(name = "shift_jis", alias = "sjis", alias = "cp932")]
    ShiftJis,
    /// UTF-8, in `game-NNN.kifu`.
    #[value(name = "utf-8", alias = "utf8")]
    Utf8,
}

impl Encoding {
    /// The KIF file extension of this encoding.
    pub fn kif_extension(self) -> &'static str {
        match self {
            Encoding::ShiftJis => "kif",
            Encoding::Utf8 => "kifu",
        }
    }

    /// The name in a `#KIF version=2.0 encoding=…` or `'CSA encoding=…` line.
    pub fn label(self) -> &'static str {
        match self {
            Encoding::ShiftJis => "Shift_JIS",
            Encoding::Utf8 => "UTF-8",
        }
    }

    /// `text` in this encoding; a character Shift_JIS has no code for (an emoji in an engine's
    /// name) becomes `?`, where encoding_rs's own encoder would write an HTML numeric
    /// character reference that no record reader undoes.
    ///
    /// ```
    /// use usicheck::play::record::Encoding;
    /// assert_eq!(Encoding::ShiftJis.encode("歩 🐟"), b"\x95\xe0 ?");
    /// assert_eq!(Encoding::Utf8.encode("歩"), "歩".as_bytes());
    /// ```
    pub fn encode(self, text: &str) -> Vec<u8> {
        if self == Encoding::Utf8 {
            return text.as_bytes().to_vec();
        }
        let mut encoder = SHIFT_JIS.new_encoder();
        let mut out = Vec::with_capacity(text.len() + 16);
        let mut rest = text;
        loop {
            let room = encoder
                .max_buffer_length_from_utf8_without_replacement(rest.len())
                .unwrap_or(rest.len() * 2 + 16);
            out.reserve(room);
            let (result, read) =
                encoder.encode_from_utf8_to_vec_without_replacement(rest, &mut out, true);
            rest = &rest[read..];
            match result {
                EncoderResult::InputEmpty => return out,
                EncoderResult::OutputFull => {}
                EncoderResult::Unmappable(_) => out.push(b'?'),
            }
        }
    }
}

/// `bytes` as text: UTF-8 when they start with its byte order mark or the first line names it
/// (`#KIF version=2.0 encoding=UTF-8`, `'CSA encoding=UTF-8`), Shift_JIS when it names that;
/// otherwise `default`, or, when that is Shift_JIS, UTF-8 if the bytes are valid UTF-8 (as
/// pure ASCII and text from a UTF-8 writer are, and Japanese in Shift_JIS practically never
/// is). Bytes the encoding cannot decode are an error naming the line (from 1).
///
/// ```
/// use usicheck::play::record::{Encoding, decode};
/// assert_eq!(decode(b"\x95\xe0", Encoding::ShiftJis).unwrap(), "歩");
/// assert_eq!(decode("歩".as_bytes(), Encoding::ShiftJis).unwrap(), "歩");
/// assert_eq!(decode(b"V2.2\n\x95\xe0", Encoding::Utf8), Err((2, "not valid UTF-8".into())));
/// ```
pub fn decode(bytes: &[u8], default: Encoding) -> Result<String, (usize, String)> {
    let (encoding, body) = match bytes.strip_prefix(b"\xef\xbb\xbf".as_slice()) {
        Some(body) => (Encoding::Utf8, body),
        None => (declared(bytes).unwrap_or(default), bytes),
    };
    let utf8 = std::str::from_utf8(body);
    let (text, named) = match (encoding, utf8) {
        (_, Ok(text)) => return Ok(text.to_owned()),
        (Encoding::Utf8, Err(_)) => (None, UTF_8),
        (Encoding::ShiftJis, Err(_)) => (
            SHIFT_JIS.decode_without_bom_handling_and_without_replacement(body),
            SHIFT_JIS,
        ),
    };
    match text {
        Some(text) => Ok(text.into_owned()),
        None => {
            // The line of the first byte that does not decode: where the replacement shows.
            let (lossy, _) = named.decode_without_bom_handling(body);
            let line = lossy
                .lines()
                .position(|line| line.contains('\u{fffd}'))
                .map_or(1, |i| i + 1);
            Err((line, format!("not valid {}", encoding.label())))
        }
    }
}

/// The encoding the first line names, if it names one.
fn declared(bytes: &[u8]) -> Option<Encoding> {
    let first = bytes.split(|&b| b == b'\n').next()?;
    let first = std::str::from_utf8(first).ok()?.trim().to_ascii_lowercase();
    if !(first.starts_with("#kif") || first.starts_with("'csa")) {
        return None;
    }
    let name = first.split_once("encoding=")?.1.split_whitespace().next()?;
    match name {
        "utf-8" | "utf8" => Some(Encoding::Utf8),
        "shift_jis" | "shift-jis" | "sjis" | "cp932" | "windows-31j" => Some(Encoding::ShiftJis),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_shift_jis_cannot_hold_becomes_a_question_mark() {
        // Hangul, an emoji and a character outside cp932's kanji: each one `?`, nothing else.
        let bytes = Encoding::ShiftJis.encode("先手：한🐟𠮷 engine");
        assert_eq!(
            decode(&bytes, Encoding::ShiftJis).unwrap(),
            "先手：??? engine"
        );
        assert!(!bytes.contains(&b'&'), "no numeric character reference");
    }

    #[test]
    fn a_declared_or_marked_encoding_wins_and_bad_bytes_name_their_line() {
        let sjis = Encoding::ShiftJis.encode("#KIF version=2.0 encoding=Shift_JIS\n手合割：平手\n");
        assert_eq!(declared(&sjis), Some(Encoding::ShiftJis));
        assert!(decode(&sjis, Encoding::Utf8).unwrap().contains("平手"));
        let mut bom = b"\xef\xbb\xbf".to_vec();
        bom.extend_from_slice("手合割：平手".as_bytes());
        assert_eq!(decode(&bom, Encoding::ShiftJis).unwrap(), "手合割：平手");
        let utf8 = "'CSA encoding=UTF-8\nN+歩\n".as_bytes();
        assert_eq!(declared(utf8), Some(Encoding::Utf8));
        let mut broken = b"#KIF version=2.0 encoding=UTF-8\nok\n".to_vec();
        broken.extend_from_slice(&sjis[sjis.len() - 9..]);
        assert_eq!(
            decode(&broken, Encoding::ShiftJis),
            Err((3, "not valid UTF-8".into()))
        );
        // A lone lead byte at the end is no Shift_JIS either.
        assert_eq!(
            decode(b"a\nb\n\x95", Encoding::ShiftJis),
            Err((3, "not valid Shift_JIS".into()))
        );
    }
}
