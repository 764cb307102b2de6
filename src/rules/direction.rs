//! Whose obligation a rule is (RULES.md §0.2).

use serde::Serialize;

/// Who must obey a rule: the engine (usicheck checks it), the GUI (usicheck itself must respect
/// it while driving the engine), or both.
///
/// ```
/// use usicheck::rules::Direction;
/// assert_eq!(Direction::parse("engine (advertise) / GUI (map)"), Some(Direction::Both));
/// assert_eq!(Direction::parse("engine (GUI must parse)"), Some(Direction::Engine));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Engine,
    Gui,
    Both,
}

impl Direction {
    /// Reads a RULES.md direction cell: `engine`, `GUI`, `both`, or parts joined by `/`, each
    /// part's first word naming a party (parenthesised qualifiers are detail, not parties).
    pub fn parse(text: &str) -> Option<Direction> {
        let (mut engine, mut gui) = (false, false);
        for part in text.split('/') {
            match part.split_whitespace().next()? {
                "engine" => engine = true,
                "GUI" => gui = true,
                "both" => (engine, gui) = (true, true),
                _ => return None,
            }
        }
        Some(match (engine, gui) {
            (true, true) => Direction::Both,
            (true, false) => Direction::Engine,
            (false, true) => Direction::Gui,
            (false, false) => return None,
        })
    }

    /// Whether the engine is bound by the rule (so a scenario can check it).
    pub fn binds_engine(self) -> bool {
        matches!(self, Direction::Engine | Direction::Both)
    }

    /// Lowercase name as used in reports (`engine`, `gui`, `both`).
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Engine => "engine",
            Direction::Gui => "gui",
            Direction::Both => "both",
        }
    }
}
