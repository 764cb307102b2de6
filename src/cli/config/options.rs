//! `[engine.options]` (and `[play] opponent-options`): a table of option names and values,
//! read in file order as the `--option NAME=VALUE` flags they stand in for.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// `[engine.options]` in file order, as `--option NAME=VALUE` flags.
#[derive(Debug, Default)]
pub(super) struct Options(pub(super) Vec<String>);

impl<'de> Deserialize<'de> for Options {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OptionsVisitor;
        impl<'de> Visitor<'de> for OptionsVisitor {
            type Value = Options;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table of engine options, NAME = VALUE")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Options, M::Error> {
                let mut flags = Vec::new();
                while let Some(OptionName(name)) = map.next_key()? {
                    let OptionValue(value) = map.next_value()?;
                    flags.push(format!("{name}={value}"));
                }
                Ok(Options(flags))
            }
        }
        deserializer.deserialize_map(OptionsVisitor)
    }
}

impl JsonSchema for Options {
    fn schema_name() -> Cow<'static, str> {
        "Options".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "additionalProperties": { "type": ["string", "integer", "boolean"] }
        })
    }
}

/// An option name that `--option NAME=VALUE` can carry: one token without `=`.
pub fn is_settable_here(name: &str) -> bool {
    usicheck::usi::is_settable_option_name(name) && !name.contains('=')
}

/// An option name [`is_settable_here`].
struct OptionName(String);

impl<'de> Deserialize<'de> for OptionName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        if !is_settable_here(&name) {
            return Err(de::Error::custom(format!(
                "option name {name:?} cannot be set: it is empty or has whitespace or `=`"
            )));
        }
        Ok(OptionName(name))
    }
}

/// An option's value as the engine gets it: a string as written, an integer in decimal, a
/// boolean as `true` or `false`.
struct OptionValue(String);

impl<'de> Deserialize<'de> for OptionValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ValueVisitor;
        impl Visitor<'_> for ValueVisitor {
            type Value = OptionValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an option value: a string, an integer or a boolean")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<OptionValue, E> {
                Ok(OptionValue(text.to_owned()))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<OptionValue, E> {
                Ok(OptionValue(n.to_string()))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<OptionValue, E> {
                Ok(OptionValue(n.to_string()))
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<OptionValue, E> {
                Ok(OptionValue(b.to_string()))
            }
        }
        deserializer.deserialize_any(ValueVisitor)
    }
}
