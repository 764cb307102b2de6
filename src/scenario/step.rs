//! Scenario steps and their semantics (the runner executes them in order).

use super::{Deadline, Expect, Matcher, NamedTimeout, Pattern, Template};
use crate::rules::RuleId;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use std::borrow::Cow;
use std::fmt;

/// One step of a scenario: a map with exactly one key naming the step (`close_stdin` is a
/// plain string).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Write one line (plus `\n`) to the engine after substituting `${captures}`. A sent
    /// `position` line becomes the runner's current position, so later `legal` checks use it
    /// (for `go ponder`, the position including the predicted move).
    Send(Template),
    /// Write the string exactly as given, no substitution and no added line break (YAML
    /// escapes such as `"isready\r\n"` make CR LF, blank lines and stray spaces explicit).
    /// Each complete line of it that is a `position` command once surrounding blanks and the
    /// line break (`\n` or `\r\n`) are stripped and runs of blanks collapsed becomes the
    /// current position, as with `Send`, so robustness scenarios can check legality too.
    SendRaw(String),
    /// Wait for a line; see [`Expect`].
    Expect(Expect),
    /// Assert that no line (or no line matching `pattern`) arrives for a while.
    ExpectSilence(Silence),
    /// Wait without reading expectations; lines arriving meanwhile are read and checked
    /// and remain available to the next `expect`.
    Sleep(Deadline),
    /// The handshake macro; see [`Handshake::expand`].
    Handshake(Handshake),
    /// Run `steps` `count` times.
    Repeat(Repeat),
    /// Run `steps` once per advertised option of a type, each in a fresh engine process.
    ForEachOption(ForEachOption),
    /// Close the engine's stdin (EOF).
    CloseStdin,
    /// Wait for the engine process to exit.
    ExpectExit(ExpectExit),
}

const STEP_NAMES: &str = "send, send_raw, expect, expect_silence, sleep, handshake, repeat, \
                          for_each_option, close_stdin, expect_exit";

// Hand-written so that mistakes get precise messages (`handshake` without `: {}`, two keys in
// one step) instead of generic enum errors.
impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Step;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a step such as `send: usi` or `close_stdin`")
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Step, E> {
                match v {
                    "close_stdin" => Ok(Step::CloseStdin),
                    "handshake" | "expect_exit" => Err(E::custom(format!(
                        "`{v}` needs a map: write `{v}: {{}}` for the defaults"
                    ))),
                    "send" | "send_raw" | "expect" | "expect_silence" | "sleep" | "repeat"
                    | "for_each_option" => Err(E::custom(format!("`{v}` needs a value: `{v}: …`"))),
                    _ => Err(E::custom(format!(
                        "unknown step `{v}`; steps: {STEP_NAMES}"
                    ))),
                }
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Step, A::Error> {
                let Some(name) = map.next_key::<String>()? else {
                    return Err(A::Error::custom(format!("empty step; steps: {STEP_NAMES}")));
                };
                let step = match name.as_str() {
                    "send" => Step::Send(map.next_value()?),
                    "send_raw" => Step::SendRaw(map.next_value()?),
                    "expect" => Step::Expect(map.next_value()?),
                    "expect_silence" => Step::ExpectSilence(map.next_value()?),
                    "sleep" => Step::Sleep(map.next_value()?),
                    "handshake" => Step::Handshake(map.next_value()?),
                    "repeat" => Step::Repeat(map.next_value()?),
                    "for_each_option" => Step::ForEachOption(map.next_value()?),
                    "expect_exit" => Step::ExpectExit(map.next_value()?),
                    "close_stdin" => {
                        map.next_value::<serde::de::IgnoredAny>()?;
                        return Err(A::Error::custom("write `close_stdin` without a value"));
                    }
                    _ => {
                        return Err(A::Error::custom(format!(
                            "unknown step `{name}`; steps: {STEP_NAMES}"
                        )));
                    }
                };
                if let Some(extra) = map.next_key::<String>()? {
                    return Err(A::Error::custom(format!(
                        "one step per list item: `{name}` and `{extra}` must be separate `- ` items"
                    )));
                }
                Ok(step)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// `expect_silence`: for `for`, no line matching `pattern` (any line when absent) that does
/// not also match `ignore`. Short form: `expect_silence: 500ms`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Silence {
    #[serde(rename = "for")]
    pub duration: Deadline,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<Pattern>,
    /// Lines that never break the silence, e.g. `^info string`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignore: Option<Pattern>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleId>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "SilenceMap")]
struct SilenceMap {
    #[serde(rename = "for")]
    duration: Deadline,
    #[serde(default)]
    pattern: Option<Pattern>,
    #[serde(default)]
    ignore: Option<Pattern>,
    #[serde(default)]
    rule: Option<RuleId>,
}

impl<'de> Deserialize<'de> for Silence {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Silence;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration or a map {for, pattern, ignore, rule}")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Silence, E> {
                Ok(Silence {
                    duration: v.parse().map_err(E::custom)?,
                    pattern: None,
                    ignore: None,
                    rule: None,
                })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Silence, A::Error> {
                let m = SilenceMap::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(Silence {
                    duration: m.duration,
                    pattern: m.pattern,
                    ignore: m.ignore,
                    rule: m.rule,
                })
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl JsonSchema for Silence {
    fn schema_name() -> Cow<'static, str> {
        "Silence".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let short = generator.subschema_for::<Deadline>();
        let map = generator.subschema_for::<SilenceMap>();
        schemars::json_schema!({ "anyOf": [short, map] })
    }
}

/// Options for `setoption`, in the order written; a null value means a button (no `value`).
/// Serialises as the map it is written as.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptionSettings(pub Vec<(String, Option<String>)>);

impl OptionSettings {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for OptionSettings {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(name, value)| (name, value)))
    }
}

impl<'de> Deserialize<'de> for OptionSettings {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Scalar(Option<String>);
        impl<'de> Deserialize<'de> for Scalar {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = Scalar;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("an option value (string, number, boolean or null)")
                    }
                    fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
                        Ok(Scalar(Some(v.to_owned())))
                    }
                    fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
                        Ok(Scalar(Some(v.to_string())))
                    }
                    fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                        Ok(Scalar(Some(v.to_string())))
                    }
                    fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                        Ok(Scalar(Some(v.to_string())))
                    }
                    fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
                        Ok(Scalar(Some(v.to_string())))
                    }
                    fn visit_unit<E>(self) -> Result<Scalar, E> {
                        Ok(Scalar(None))
                    }
                    fn visit_none<E>(self) -> Result<Scalar, E> {
                        Ok(Scalar(None))
                    }
                }
                deserializer.deserialize_any(V)
            }
        }
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = OptionSettings;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of option name to value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<OptionSettings, A::Error> {
                let mut settings = Vec::new();
                while let Some((name, Scalar(value))) = map.next_entry::<String, Scalar>()? {
                    if !crate::usi::is_settable_option_name(&name) {
                        return Err(serde::de::Error::custom(format!(
                            "option name `{name}` must be one token without whitespace"
                        )));
                    }
                    settings.push((name, value));
                }
                Ok(OptionSettings(settings))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

impl JsonSchema for OptionSettings {
    fn schema_name() -> Cow<'static, str> {
        "OptionSettings".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Option name → value, sent in order as `setoption name N value V`; null sends `setoption name N` (button).",
            "type": "object",
            "additionalProperties": { "type": ["string", "number", "boolean", "null"] },
        })
    }
}

/// The handshake macro: `usi` → `usiok` → `setoption`… → `isready` → `readyok` →
/// `usinewgame`. Write `handshake: {}` for the defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Handshake {
    /// Sent after the command line's `--option`s, so these win.
    #[serde(default, skip_serializing_if = "OptionSettings::is_empty")]
    #[schemars(extend("default" = {}))]
    pub options: OptionSettings,
    /// Send `isready` and wait for `readyok` (false: stop after the options, e.g. for the
    /// info-only probe).
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    #[schemars(extend("default" = true))]
    pub isready: bool,
    /// Send `usinewgame` after `readyok`.
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    #[schemars(extend("default" = true))]
    pub usinewgame: bool,
}

fn yes() -> bool {
    true
}

fn is_yes(value: &bool) -> bool {
    *value
}

/// A setup step waiting `timeout` for `matcher`.
fn setup_expect(matcher: Matcher, timeout: NamedTimeout) -> Step {
    Step::Expect(Expect::plain(matcher, Deadline::named(timeout), None))
}

/// `isready`, then its `readyok` within T-READY, as setup: the exchange that tells the engine
/// is done with what it was sent before.
///
/// ```
/// use usicheck::scenario::{Step, readyok_sync};
/// let [send, _] = readyok_sync();
/// assert!(matches!(send, Step::Send(t) if t.to_string() == "isready"));
/// ```
pub fn readyok_sync() -> [Step; 2] {
    [
        Step::Send(Template::literal("isready")),
        setup_expect(Matcher::Readyok, NamedTimeout::Ready),
    ]
}

impl Handshake {
    /// The primitive steps, with `cli_options` (from `--option NAME=VALUE`) before the
    /// scenario's own. `usiok` is charged to USI-HANDSHAKE-004 (within T-USIOK) and `readyok`
    /// to USI-READY-001 (within T-READY).
    ///
    /// ```
    /// use usicheck::scenario::{Handshake, OptionSettings, Step};
    /// let h = Handshake { options: OptionSettings::default(), isready: true, usinewgame: true };
    /// let steps = h.expand(&OptionSettings(vec![("USI_Hash".into(), Some("64".into()))]));
    /// assert_eq!(steps.len(), 6);
    /// assert!(matches!(&steps[2], Step::Send(t) if t.to_string() == "setoption name USI_Hash value 64"));
    /// ```
    ///
    /// Its steps are setup: a missing `usiok` or `readyok` is the always-on observer's
    /// USI-HANDSHAKE-004 or USI-READY-001, and leaves the scenario not reached.
    pub fn expand(&self, cli_options: &OptionSettings) -> Vec<Step> {
        let mut steps = vec![
            Step::Send(Template::literal("usi")),
            setup_expect(Matcher::Usiok, NamedTimeout::Usiok),
        ];
        for (name, value) in cli_options.0.iter().chain(&self.options.0) {
            let line = match value {
                Some(value) => format!("setoption name {name} value {value}"),
                None => format!("setoption name {name}"),
            };
            steps.push(Step::Send(Template::literal(line)));
        }
        if self.isready {
            steps.extend(readyok_sync());
            if self.usinewgame {
                steps.push(Step::Send(Template::literal("usinewgame")));
            }
        }
        steps
    }
}

/// `repeat`: run `steps` `count` times (1 to 10 000); captures carry over between rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    #[schemars(range(min = 1, max = 10000))]
    #[serde(deserialize_with = "repeat_count")]
    pub count: u32,
    pub steps: Vec<Step>,
}

fn repeat_count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let count = u32::deserialize(deserializer)?;
    if (1..=10_000).contains(&count) {
        Ok(count)
    } else {
        Err(serde::de::Error::custom(format!(
            "repeat count {count} is outside 1..=10000"
        )))
    }
}

/// `for_each_option`: run `steps` once for each option of type `type` that the engine
/// advertised in the scenario's last handshake, in the order advertised, each round in a fresh
/// engine process (started for the round and ended after it) with `${option.name}` set to the
/// option's name. When the engine advertises no option of that type, the scenario is skipped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForEachOption {
    #[serde(rename = "type")]
    pub option_type: OptionType,
    pub steps: Vec<Step>,
}

/// The `type` of an `option` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OptionType {
    Check,
    Spin,
    Combo,
    Button,
    String,
    Filename,
}

impl OptionType {
    /// Why a scenario that goes through the options of this type is skipped by an engine
    /// that advertises none.
    ///
    /// ```
    /// use usicheck::scenario::OptionType;
    /// assert_eq!(OptionType::Button.none_advertised(), "the engine advertises no `type button` option");
    /// ```
    pub fn none_advertised(self) -> String {
        format!("the engine advertises no `type {}` option", self.name())
    }

    /// The type's name in an `option` line.
    pub fn name(self) -> &'static str {
        match self {
            OptionType::Check => "check",
            OptionType::Spin => "spin",
            OptionType::Combo => "combo",
            OptionType::Button => "button",
            OptionType::String => "string",
            OptionType::Filename => "filename",
        }
    }
}

/// Which exit status `expect_exit` accepts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ExitStatus {
    /// Any exit, including by signal.
    #[default]
    Any,
    /// Status 0, no signal.
    Success,
    /// Not before it was asked to exit (a death while the scenario still talked to it) and not
    /// by a signal; the status of a requested exit is USI-QUIT-004's (always-on).
    OnRequest,
}

/// `expect_exit`: the process must exit within `within` (default T-QUIT) with `status`.
/// Afterwards the runner kills whatever is left of the process group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectExit {
    #[serde(default = "quit_timeout")]
    pub within: Deadline,
    #[serde(default, skip_serializing_if = "ExitStatus::is_any")]
    #[schemars(extend("default" = "any"))]
    pub status: ExitStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleId>,
}

impl ExitStatus {
    fn is_any(&self) -> bool {
        *self == ExitStatus::Any
    }
}

fn quit_timeout() -> Deadline {
    Deadline::named(NamedTimeout::Quit)
}
