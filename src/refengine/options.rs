//! The engine's option table: what `usi` advertises and what `setoption` changes.

use super::faults::{Fault, FaultSet};

/// Which entering-king declaration rule `bestmove win` follows (combo `EnteringKingRule`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DeclarationRule {
    /// Never declare.
    None,
    /// CSA 27-point rule (28 points for Black, 27 for White).
    Csa27,
    /// The same for handicap games (`CSARule27H`): White, the upper hand, is credited with
    /// the points of the pieces the handicap removed.
    Csa27H,
}

/// Current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: i64,
    pub ponder: bool,
    pub multi_pv: i64,
    pub threads: i64,
    /// `NetworkDelay`: safety margin (ms) kept back from every time limit.
    pub network_delay_ms: i64,
    /// `SlowInitMs`: simulated initialisation time at `isready`, with keep-alive lines.
    pub slow_init_ms: i64,
    /// `NodesLimit`: 0 = none; an Int64 spin (USI 2.0).
    pub nodes_limit: i64,
    /// `ShowCurrMove`: send `currmove` lines at the root.
    pub show_currmove: bool,
    pub declaration_rule: DeclarationRule,
    /// `MaxMovesToDraw` (YaneuraOu): the game is drawn once this many moves are played (0:
    /// no limit).
    pub max_moves_to_draw: i64,
    /// `EngineNote`: echoed as `info string` at `isready`.
    pub note: String,
    /// `BookFile`: a book file path; the engine's book is built in, so `isready` only
    /// reports it.
    pub book_file: String,
    /// `USI_OwnBook`: play from the engine's own book (the draft's fixed-semantics option).
    pub own_book: bool,
    /// `Stochastic_Ponder` (YaneuraOu): ponder on the position before the predicted move and
    /// search the real one from `ponderhit`.
    pub stochastic_ponder: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            hash_mb: 16,
            ponder: true,
            multi_pv: 1,
            threads: 1,
            network_delay_ms: 120,
            slow_init_ms: 0,
            nodes_limit: 0,
            show_currmove: false,
            declaration_rule: DeclarationRule::Csa27,
            max_moves_to_draw: 0,
            note: String::new(),
            book_file: String::new(),
            own_book: false,
            stochastic_ponder: false,
        }
    }
}

/// What a `setoption` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetOutcome {
    Applied,
    /// The `ClearHash` button was pressed.
    ClearHash,
    /// A bad value, ignored; the text goes to `info string`.
    Rejected(String),
    /// No option of that name; the text goes to `info string`.
    Unknown(String),
}

/// Largest `USI_Hash`: the table is allocated (and zeroed) at `isready`, so keep it modest.
const MAX_MB: i64 = 256;
const SPINS: &[(&str, i64, i64)] = &[
    ("USI_Hash", 1, MAX_MB),
    ("MultiPV", 1, 16),
    ("Threads", 1, 256),
    ("NetworkDelay", 0, 10_000),
    ("SlowInitMs", 0, 600_000),
    ("NodesLimit", 0, i64::MAX),
    ("MaxMovesToDraw", 0, 100_000),
];

impl Options {
    /// The `option` lines sent after `id`, in order; the last one is the `ClearHash` button.
    pub fn advertise(&self, faults: &FaultSet) -> Vec<String> {
        let d = Options::default();
        let mut lines = Vec::new();
        if !faults.has(Fault::MissingUsiHash) {
            lines.push(spin("USI_Hash", d.hash_mb, faults));
        }
        if !faults.has(Fault::MissingUsiPonder) {
            lines.push(format!(
                "option name USI_Ponder type check default {}",
                d.ponder
            ));
        }
        if !faults.has(Fault::MissingMultiPv) {
            lines.push(spin("MultiPV", d.multi_pv, faults));
        }
        if !faults.has(Fault::MissingThreads) {
            lines.push(spin("Threads", d.threads, faults));
        }
        lines.push(spin("NetworkDelay", d.network_delay_ms, faults));
        lines.push(spin("SlowInitMs", d.slow_init_ms, faults));
        lines.push(spin("NodesLimit", d.nodes_limit, faults));
        let check_default = if faults.has(Fault::CheckDefaultUppercase) {
            "True"
        } else {
            "false"
        };
        lines.push(format!(
            "option name ShowCurrMove type check default {check_default}"
        ));
        lines.push(format!(
            "option name Stochastic_Ponder type check default {}",
            d.stochastic_ponder
        ));
        let combo_default = if faults.has(Fault::ComboDefaultNotVar) {
            "CSARule28"
        } else {
            "CSARule27"
        };
        lines.push(format!(
            "option name EnteringKingRule type combo default {combo_default} var NoEnteringKing var CSARule27 var CSARule27H"
        ));
        lines.push(spin("MaxMovesToDraw", d.max_moves_to_draw, faults));
        lines.push(if faults.has(Fault::StringWithoutDefault) {
            "option name EngineNote type string".to_string()
        } else {
            "option name EngineNote type string default <empty>".to_string()
        });
        lines.push("option name BookFile type filename default <empty>".to_string());
        lines.push(if faults.has(Fault::OwnBookAsSpin) {
            "option name USI_OwnBook type spin default 0 min 0 max 1".to_string()
        } else {
            format!("option name USI_OwnBook type check default {}", d.own_book)
        });
        if faults.has(Fault::OptionNameWithSpace) {
            lines.push("option name Skill Level type spin default 20 min 0 max 20".to_string());
        }
        if faults.has(Fault::OptionWithoutType) {
            lines.push("option name Contempt default 0".to_string());
        }
        if faults.has(Fault::BadOptionType) {
            lines.push("option name Contempt type integer default 0 min -100 max 100".to_string());
        }
        if faults.has(Fault::NonAsciiOptionName) {
            lines.push("option name 定跡 type check default false".to_string());
        }
        if faults.has(Fault::CrashOnSecondButton) {
            lines.push("option name ResetStats type button".to_string());
        }
        lines.push(if faults.has(Fault::ButtonWithDefault) {
            "option name ClearHash type button default false".to_string()
        } else {
            "option name ClearHash type button".to_string()
        });
        lines
    }

    /// Applies `setoption name <name> [value <value>]`; names are case-insensitive.
    pub fn set(&mut self, name: &str, value: Option<&str>, faults: &FaultSet) -> SetOutcome {
        let known = |canonical: &str| {
            if faults.has(Fault::CaseSensitiveNames) {
                name == canonical
            } else {
                name.eq_ignore_ascii_case(canonical)
            }
        };
        let value_str = value.unwrap_or("");
        if let Some(&(canonical, min, max)) = SPINS.iter().find(|(n, _, _)| known(n)) {
            let Ok(n) = value_str.trim().parse::<i64>() else {
                return SetOutcome::Rejected(format!(
                    "{canonical}: '{value_str}' is not an integer"
                ));
            };
            if !(min..=max).contains(&n) {
                return SetOutcome::Rejected(format!("{canonical}: {n} is outside [{min}, {max}]"));
            }
            let slot = match canonical {
                "USI_Hash" => &mut self.hash_mb,
                "MultiPV" => &mut self.multi_pv,
                "Threads" => &mut self.threads,
                "NetworkDelay" => &mut self.network_delay_ms,
                "SlowInitMs" => &mut self.slow_init_ms,
                "MaxMovesToDraw" => &mut self.max_moves_to_draw,
                _ => &mut self.nodes_limit,
            };
            *slot = n;
            return SetOutcome::Applied;
        }
        if known("USI_Ponder")
            || known("ShowCurrMove")
            || known("USI_OwnBook")
            || known("Stochastic_Ponder")
        {
            let b = match value_str.trim().to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => {
                    return SetOutcome::Rejected(format!(
                        "{name}: '{value_str}' is not true or false"
                    ));
                }
            };
            if known("USI_Ponder") {
                self.ponder = b;
            } else if known("USI_OwnBook") {
                self.own_book = b;
            } else if known("Stochastic_Ponder") {
                self.stochastic_ponder = b;
            } else {
                self.show_currmove = b;
            }
            return SetOutcome::Applied;
        }
        if known("EnteringKingRule") {
            let choice = value_str.trim().to_ascii_lowercase();
            // Fault `entering-king-rule-by-prefix`: the first choice the value starts, so
            // CSARule27 is taken for CSARule27H, listed first.
            let choice = match choice.as_str() {
                "csarule27" if faults.has(Fault::EnteringKingRuleByPrefix) => "csarule27h",
                other => other,
            };
            self.declaration_rule = match choice {
                "noenteringking" => DeclarationRule::None,
                "csarule27" => DeclarationRule::Csa27,
                "csarule27h" => DeclarationRule::Csa27H,
                _ => {
                    return SetOutcome::Rejected(format!(
                        "EnteringKingRule: no such choice '{value_str}'"
                    ));
                }
            };
            return SetOutcome::Applied;
        }
        if known("EngineNote") {
            self.note = unempty(value_str);
            return SetOutcome::Applied;
        }
        if known("BookFile") {
            self.book_file = unempty(value_str);
            return SetOutcome::Applied;
        }
        if known("ClearHash") {
            return SetOutcome::ClearHash;
        }
        if name.is_empty() {
            // No trailing blank: output lines must not end in whitespace (USI-ROBUST-005).
            return SetOutcome::Unknown("setoption without an option name".to_string());
        }
        SetOutcome::Unknown(format!("No such option: {name}"))
    }
}

/// GUIs may echo the advertised `<empty>` back; it means "".
fn unempty(value: &str) -> String {
    if value == "<empty>" {
        String::new()
    } else {
        value.to_string()
    }
}

fn spin(name: &str, default: i64, faults: &FaultSet) -> String {
    let &(_, min, max) = SPINS
        .iter()
        .find(|(n, _, _)| *n == name)
        .expect("spin in table");
    let default = if faults.has(Fault::SpinDefaultOutOfRange) && name == "MultiPV" {
        max + 1
    } else {
        default
    };
    format!("option name {name} type spin default {default} min {min} max {max}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_case_insensitive_and_bad_values_rejected() {
        let mut o = Options::default();
        let none = FaultSet::none();
        assert_eq!(o.set("multipv", Some("3"), &none), SetOutcome::Applied);
        assert_eq!(o.multi_pv, 3);
        assert!(matches!(
            o.set("MultiPV", Some("0"), &none),
            SetOutcome::Rejected(_)
        ));
        assert!(matches!(
            o.set("MultiPV", Some("x"), &none),
            SetOutcome::Rejected(_)
        ));
        assert_eq!(o.multi_pv, 3);
        assert_eq!(
            o.set("bookfile", Some("/tmp/a b/c.bin"), &none),
            SetOutcome::Applied
        );
        assert_eq!(o.book_file, "/tmp/a b/c.bin");
        assert_eq!(o.set("EngineNote", None, &none), SetOutcome::Applied);
        assert_eq!(
            o.set("nodeslimit", Some("5000000000"), &none),
            SetOutcome::Applied
        );
        assert_eq!(o.set("CLEARHASH", None, &none), SetOutcome::ClearHash);
        assert!(matches!(
            o.set("NoSuchOption", Some("1"), &none),
            SetOutcome::Unknown(_)
        ));
    }

    #[test]
    fn advertised_spins_have_defaults_in_range() {
        for line in Options::default().advertise(&FaultSet::none()) {
            assert!(
                line.starts_with("option name ") && !line.ends_with(' '),
                "{line}"
            );
        }
    }
}
