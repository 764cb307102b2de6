//! A record file read as openings: which format its extension says (`.kif`, `.kifu`, `.csa`),
//! which encoding its bytes are in, and errors that name the file and line.

use super::csa_read::read_csa;
use super::encoding::{Encoding, decode};
use super::kif_read::read_kif;
use crate::play::Opening;
use std::fmt;
use std::path::Path;

/// What is wrong with a record, and on which line (from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    pub line: usize,
    pub message: String,
}

impl ReadError {
    pub(super) fn at(line: usize, message: String) -> ReadError {
        ReadError { line, message }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ReadError {}

/// The record formats, by file extension (any case).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// `.kif`: Shift_JIS unless it says or proves to be UTF-8.
    Kif,
    /// `.kifu`: UTF-8.
    Kifu,
    /// `.csa`: one or more games, ASCII with Shift_JIS or UTF-8 names.
    Csa,
}

fn format_of(path: &Path) -> Option<Format> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "kif" => Some(Format::Kif),
        "kifu" => Some(Format::Kifu),
        "csa" => Some(Format::Csa),
        _ => None,
    }
}

/// Whether `path` names a game record (`.kif`, `.kifu`, `.csa`) rather than an openings list.
///
/// ```
/// use usicheck::play::record::is_record;
/// assert!(is_record("games/game-001.KIF".as_ref()) && is_record("a.csa".as_ref()));
/// assert!(!is_record("openings.sfen".as_ref()));
/// ```
pub fn is_record(path: &Path) -> bool {
    format_of(path).is_some()
}

/// The openings of the record file at `path`: one for a KIF record, one per game of a CSA
/// file. Errors name the file and the line: `FILE:LINE: what`.
pub fn read_record(path: &Path) -> Result<Vec<Opening>, String> {
    let shown = path.display();
    let format = format_of(path).ok_or(format!("{shown}: not a .kif, .kifu or .csa file"))?;
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    let default = match format {
        Format::Kifu => Encoding::Utf8,
        Format::Kif | Format::Csa => Encoding::ShiftJis,
    };
    let at = |e: ReadError| format!("{shown}:{}: {}", e.line, e.message);
    let text =
        decode(&bytes, default).map_err(|(line, message)| at(ReadError { line, message }))?;
    match format {
        Format::Kif | Format::Kifu => read_kif(&text).map(|opening| vec![opening]),
        Format::Csa => read_csa(&text),
    }
    .map_err(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file named `name` in a fresh directory, holding `bytes`.
    fn file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("usicheck-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn each_extension_reads_in_its_encoding() {
        let kif = "手合割：角落ち\n   1 ３四歩(33)\n   2 投了\n";
        let expected = [Opening {
            base: "sfen lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1".into(),
            moves: vec!["3c3d".into()],
        }];
        let shift_jis = Encoding::ShiftJis.encode(kif);
        for (name, bytes) in [
            ("sjis.kif", &shift_jis[..]),
            ("utf8.kif", kif.as_bytes()),
            ("utf8.KIFU", kif.as_bytes()),
        ] {
            assert_eq!(read_record(&file(name, bytes)).unwrap(), expected, "{name}");
        }
        // Shift_JIS bytes named `.kifu` are no UTF-8.
        let wrong = file("sjis.kifu", &shift_jis);
        assert_eq!(
            read_record(&wrong).unwrap_err(),
            format!("{}:1: not valid UTF-8", wrong.display())
        );
        let csa = file("two.csa", b"PI\n+\n+7776FU\n/\nPI82HI\n-\n");
        assert_eq!(read_record(&csa).unwrap().len(), 2);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let path = file("bad.csa", b"V2.2\nPI\n+\n+7776FU\n-4344FU\n+8822UM\n");
        assert_eq!(
            read_record(&path).unwrap_err(),
            format!(
                "{}:6: `+8822UM` (8h2b+) is illegal in \
                 lnsgkgsnl/1r5b1/ppppp1ppp/5p3/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3",
                path.display()
            )
        );
        assert!(!is_record("openings.txt".as_ref()));
    }
}
