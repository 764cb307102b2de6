//! The sixteen sections of RULES.md, in catalogue order.

use serde::Serialize;

/// A section of the rule catalogue; every rule ID names its section (`USI-<SECTION>-NNN`).
///
/// ```
/// use usicheck::rules::Section;
/// assert_eq!(Section::from_id_prefix("MATE"), Some(Section::Mate));
/// assert_eq!(Section::Mate.number(), 10);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Section {
    Handshake,
    Option,
    Ready,
    Position,
    Go,
    Ponder,
    Stop,
    Bestmove,
    Info,
    Mate,
    Gameover,
    Quit,
    Robust,
    Encoding,
    Ext,
    Rules,
}

impl Section {
    /// All sections in RULES.md order.
    pub const ALL: [Section; 16] = [
        Section::Handshake,
        Section::Option,
        Section::Ready,
        Section::Position,
        Section::Go,
        Section::Ponder,
        Section::Stop,
        Section::Bestmove,
        Section::Info,
        Section::Mate,
        Section::Gameover,
        Section::Quit,
        Section::Robust,
        Section::Encoding,
        Section::Ext,
        Section::Rules,
    ];

    /// The section number in RULES.md (1-based).
    pub fn number(self) -> u8 {
        self as u8 + 1
    }

    /// The ID infix, e.g. `HANDSHAKE` for `USI-HANDSHAKE-001`.
    pub fn id_prefix(self) -> &'static str {
        match self {
            Section::Handshake => "HANDSHAKE",
            Section::Option => "OPTION",
            Section::Ready => "READY",
            Section::Position => "POSITION",
            Section::Go => "GO",
            Section::Ponder => "PONDER",
            Section::Stop => "STOP",
            Section::Bestmove => "BESTMOVE",
            Section::Info => "INFO",
            Section::Mate => "MATE",
            Section::Gameover => "GAMEOVER",
            Section::Quit => "QUIT",
            Section::Robust => "ROBUST",
            Section::Encoding => "ENCODING",
            Section::Ext => "EXT",
            Section::Rules => "RULES",
        }
    }

    /// The section heading, after RULES.md §0.5.
    pub fn title(self) -> &'static str {
        match self {
            Section::Handshake => "Handshake",
            Section::Option => "Options & setoption",
            Section::Ready => "Isready / readyok / usinewgame",
            Section::Position => "Position",
            Section::Go => "Go (sub-parameters)",
            Section::Ponder => "Ponder",
            Section::Stop => "Stop / ponderhit",
            Section::Bestmove => "Bestmove",
            Section::Info => "Info (fields)",
            Section::Mate => "Go mate / checkmate",
            Section::Gameover => "Gameover",
            Section::Quit => "Quit",
            Section::Robust => "Robustness",
            Section::Encoding => "Encoding",
            Section::Ext => "USI 2.0 & vendor extensions",
            Section::Rules => "Game rules (declaration, repetition, limits)",
        }
    }

    /// The section whose ID infix is `prefix` (case-sensitive, as IDs are written).
    pub fn from_id_prefix(prefix: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.id_prefix() == prefix)
    }
}
