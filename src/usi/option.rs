//! `option name <id> type <t> …`: one engine setting advertised during the handshake.

use super::lex::Tokens;
use super::{Diagnostic, rule};
use std::fmt;

/// The type of an option with its typed fields.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OptionKind {
    Check {
        default: Option<bool>,
    },
    Spin {
        default: Option<i64>,
        min: Option<i64>,
        max: Option<i64>,
    },
    Combo {
        default: Option<String>,
        vars: Vec<String>,
    },
    Button,
    /// `default <empty>` is read as `Some("")` and written back as `<empty>` (USI-OPTION-006).
    String {
        default: Option<String>,
    },
    Filename {
        default: Option<String>,
    },
    /// A type name outside the six USI types (USI-OPTION-003).
    Other {
        type_name: String,
    },
}

impl OptionKind {
    pub fn type_name(&self) -> &str {
        match self {
            OptionKind::Check { .. } => "check",
            OptionKind::Spin { .. } => "spin",
            OptionKind::Combo { .. } => "combo",
            OptionKind::Button => "button",
            OptionKind::String { .. } => "string",
            OptionKind::Filename { .. } => "filename",
            OptionKind::Other { type_name } => type_name,
        }
    }
}

/// An `option` line.
///
/// ```
/// use usicheck::usi::{Message, OptionDecl, OptionKind, rule};
/// let (msg, diags) = Message::parse("option name USI_Hash type spin default 256 min 1 max 128");
/// let Message::Option(OptionDecl { name, kind }) = msg else { panic!() };
/// assert_eq!(name, "USI_Hash");
/// assert_eq!(kind, OptionKind::Spin { default: Some(256), min: Some(1), max: Some(128) });
/// assert_eq!(diags[0].rule, rule::OPTION_004);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OptionDecl {
    pub name: String,
    pub kind: OptionKind,
}

/// The raw fields of an option line, before the type gives them meaning.
#[derive(Default)]
struct Fields<'a> {
    default: Option<Vec<&'a str>>,
    min: Option<Vec<&'a str>>,
    max: Option<Vec<&'a str>>,
    vars: Vec<Vec<&'a str>>,
}

fn is_field(token: &str) -> bool {
    matches!(token, "default" | "min" | "max" | "var")
}

/// The `USI_` options whose type the draft fixes (USI-OPTION-012, -013).
fn reserved_type(name: &str) -> Option<&'static str> {
    match name {
        "USI_Hash" | "USI_MultiPV" | "USI_Strength" => Some("spin"),
        "USI_Ponder"
        | "USI_OwnBook"
        | "USI_ShowCurrLine"
        | "USI_ShowRefutations"
        | "USI_LimitStrength"
        | "USI_AnalyseMode" => Some("check"),
        _ => None,
    }
}

impl OptionDecl {
    /// Parses the tokens after `option`; `None` when there is no `name … type …` frame.
    pub(crate) fn parse_args(
        mut tokens: Tokens<'_>,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<OptionDecl> {
        if tokens.next() != Some("name") {
            diags.push(Diagnostic::new(
                rule::OPTION_001,
                "`option` not followed by `name`",
            ));
            return None;
        }
        let mut name_tokens = Vec::new();
        loop {
            match tokens.next() {
                Some("type") => break,
                Some(tok) => name_tokens.push(tok),
                None => {
                    diags.push(Diagnostic::new(rule::OPTION_001, "`option` without `type`"));
                    return None;
                }
            }
        }
        let name = name_tokens.join(" ");
        match name_tokens.len() {
            0 => {
                diags.push(Diagnostic::new(rule::OPTION_001, "empty option name"));
                return None;
            }
            1 => {}
            _ => diags.push(Diagnostic::new(
                rule::OPTION_002,
                format!(
                    "option name `{name}` is followed by `{}`, not `type`",
                    name_tokens[1]
                ),
            )),
        }
        if !name.is_ascii() {
            diags.push(Diagnostic::new(
                rule::ENCODING_001,
                format!("non-ASCII option name `{name}`"),
            ));
        }
        let Some(type_name) = tokens.next() else {
            diags.push(Diagnostic::new(
                rule::OPTION_001,
                "`type` without a type name",
            ));
            return None;
        };
        // Only text values may span several tokens; a second token elsewhere is stray.
        let text_values = matches!(type_name, "string" | "filename" | "combo");
        let fields = read_fields(tokens, text_values, diags);
        let kind = typed(type_name, fields, diags);
        if let Some(expected) = reserved_type(&name)
            && kind.type_name() != expected
        {
            diags.push(Diagnostic::new(
                rule::OPTION_013,
                format!(
                    "`{name}` has type `{}`; the draft fixes it as `{expected}`",
                    kind.type_name()
                ),
            ));
        }
        Some(OptionDecl { name, kind })
    }
}

fn read_fields<'a>(
    mut tokens: Tokens<'a>,
    text_values: bool,
    diags: &mut Vec<Diagnostic>,
) -> Fields<'a> {
    let mut fields = Fields::default();
    while let Some(tok) = tokens.next() {
        let mut value = Vec::new();
        while let Some(v) = tokens.peek().filter(|t| !is_field(t)) {
            if !value.is_empty() && !text_values && is_field(tok) {
                break;
            }
            tokens.next();
            value.push(v);
        }
        match tok {
            "default" => fields.default = Some(value),
            "min" => fields.min = Some(value),
            "max" => fields.max = Some(value),
            "var" => fields.vars.push(value),
            stray => {
                let text = std::iter::once(stray)
                    .chain(value)
                    .collect::<Vec<_>>()
                    .join(" ");
                diags.push(Diagnostic::new(
                    rule::OPTION_001,
                    format!("unexpected `{text}` in option line"),
                ));
            }
        }
    }
    fields
}

fn integer(field: &str, value: Option<&[&str]>, diags: &mut Vec<Diagnostic>) -> Option<i64> {
    let Some(value) = value else {
        diags.push(Diagnostic::new(
            rule::OPTION_004,
            format!("spin without `{field}`"),
        ));
        return None;
    };
    let parsed = match value {
        [single] => single.parse().ok(),
        _ => None,
    };
    if parsed.is_none() {
        diags.push(Diagnostic::new(
            rule::OPTION_004,
            format!("spin `{field} {}` is not a 64-bit integer", value.join(" ")),
        ));
    }
    parsed
}

/// A single-token value; several tokens mean the value needed spaces (USI-OPTION-005).
fn token(what: &str, value: &[&str], diags: &mut Vec<Diagnostic>) -> String {
    if value.len() != 1 {
        diags.push(Diagnostic::new(
            rule::OPTION_005,
            format!("combo {what} `{}` is not a single token", value.join(" ")),
        ));
    }
    value.join(" ")
}

fn typed(type_name: &str, fields: Fields<'_>, diags: &mut Vec<Diagnostic>) -> OptionKind {
    let misplaced = |diags: &mut Vec<Diagnostic>, field: &str, present: bool| {
        if present {
            diags.push(Diagnostic::new(
                rule::OPTION_003,
                format!("`{type_name}` option with `{field}`"),
            ));
        }
    };
    let has_bounds = fields.min.is_some() || fields.max.is_some();
    let has_vars = !fields.vars.is_empty();
    match type_name {
        "check" => {
            misplaced(diags, "min/max", has_bounds);
            misplaced(diags, "var", has_vars);
            let default = match fields.default.as_deref() {
                Some(["true"]) => Some(true),
                Some(["false"]) => Some(false),
                Some(other) => {
                    let text = other.join(" ");
                    diags.push(Diagnostic::new(
                        rule::OPTION_003,
                        format!("check default `{text}` is not `true` or `false`"),
                    ));
                    // Lenient GUIs read the word case-insensitively.
                    match text.to_ascii_lowercase().as_str() {
                        "true" => Some(true),
                        "false" => Some(false),
                        _ => None,
                    }
                }
                None => {
                    diags.push(Diagnostic::new(
                        rule::OPTION_003,
                        "check option without `default`",
                    ));
                    None
                }
            };
            OptionKind::Check { default }
        }
        "spin" => {
            misplaced(diags, "var", has_vars);
            let default = integer("default", fields.default.as_deref(), diags);
            let min = integer("min", fields.min.as_deref(), diags);
            let max = integer("max", fields.max.as_deref(), diags);
            if let (Some(lo), Some(hi)) = (min, max) {
                if lo > hi {
                    diags.push(Diagnostic::new(
                        rule::OPTION_004,
                        format!("spin min {lo} > max {hi}"),
                    ));
                } else if let Some(d) = default.filter(|d| !(lo..=hi).contains(d)) {
                    diags.push(Diagnostic::new(
                        rule::OPTION_004,
                        format!("spin default {d} outside [{lo}, {hi}]"),
                    ));
                }
            }
            OptionKind::Spin { default, min, max }
        }
        "combo" => {
            misplaced(diags, "min/max", has_bounds);
            let vars: Vec<String> = fields.vars.iter().map(|v| token("var", v, diags)).collect();
            if vars.is_empty() {
                diags.push(Diagnostic::new(
                    rule::OPTION_003,
                    "combo option without `var`",
                ));
            }
            let default = fields
                .default
                .as_deref()
                .map(|d| token("default", d, diags));
            match &default {
                Some(d) if !vars.contains(d) => {
                    diags.push(Diagnostic::new(
                        rule::OPTION_005,
                        format!("combo default `{d}` is not among its vars"),
                    ));
                }
                None => diags.push(Diagnostic::new(
                    rule::OPTION_005,
                    "combo option without `default`",
                )),
                _ => {}
            }
            OptionKind::Combo { default, vars }
        }
        "button" => {
            misplaced(diags, "default", fields.default.is_some());
            misplaced(diags, "min/max", has_bounds);
            misplaced(diags, "var", has_vars);
            OptionKind::Button
        }
        "string" | "filename" => {
            misplaced(diags, "min/max", has_bounds);
            misplaced(diags, "var", has_vars);
            let default = match fields.default.as_deref() {
                Some(["<empty>"]) => Some(String::new()),
                Some(value) => Some(value.join(" ")),
                None => {
                    diags.push(Diagnostic::new(
                        rule::OPTION_006,
                        format!("{type_name} option without `default` (use `default <empty>`)"),
                    ));
                    None
                }
            };
            if type_name == "string" {
                OptionKind::String { default }
            } else {
                OptionKind::Filename { default }
            }
        }
        other => {
            diags.push(Diagnostic::new(
                rule::OPTION_003,
                format!("unknown option type `{other}`"),
            ));
            OptionKind::Other {
                type_name: other.to_string(),
            }
        }
    }
}

fn write_text_default(f: &mut fmt::Formatter<'_>, default: &Option<String>) -> fmt::Result {
    match default.as_deref() {
        None => Ok(()),
        Some("") => f.write_str(" default <empty>"),
        Some(text) => write!(f, " default {text}"),
    }
}

/// Whether `name` can be set as one token, `setoption name NAME value …`: not empty, no
/// whitespace (what `--option`, a scenario's handshake and the in-process harness accept).
///
/// ```
/// use usicheck::usi::is_settable_option_name;
/// assert!(is_settable_option_name("USI_Hash"));
/// assert!(!is_settable_option_name("Clear Hash"));
/// assert!(!is_settable_option_name(""));
/// ```
pub fn is_settable_option_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(char::is_whitespace)
}

impl fmt::Display for OptionDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "option name {} type {}",
            self.name,
            self.kind.type_name()
        )?;
        match &self.kind {
            OptionKind::Check { default } => {
                if let Some(d) = default {
                    write!(f, " default {d}")?;
                }
            }
            OptionKind::Spin { default, min, max } => {
                for (key, value) in [("default", default), ("min", min), ("max", max)] {
                    if let Some(v) = value {
                        write!(f, " {key} {v}")?;
                    }
                }
            }
            OptionKind::Combo { default, vars } => {
                if let Some(d) = default {
                    write!(f, " default {d}")?;
                }
                for var in vars {
                    write!(f, " var {var}")?;
                }
            }
            OptionKind::String { default } | OptionKind::Filename { default } => {
                write_text_default(f, default)?
            }
            OptionKind::Button | OptionKind::Other { .. } => {}
        }
        Ok(())
    }
}
