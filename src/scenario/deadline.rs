//! Durations in scenarios: `500ms`, `2s`, `1m`, a named tester timeout (`T-STOP`), optionally
//! `+ G` (the grace of RULES.md §0.3).

use crate::rules::Timeouts;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

/// A tester timeout of RULES.md §0.3, resolved per profile and command line at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedTimeout {
    Usiok,
    Ready,
    Stop,
    Quit,
    Silent,
}

impl NamedTimeout {
    const ALL: [(NamedTimeout, &'static str); 5] = [
        (NamedTimeout::Usiok, "T-USIOK"),
        (NamedTimeout::Ready, "T-READY"),
        (NamedTimeout::Stop, "T-STOP"),
        (NamedTimeout::Quit, "T-QUIT"),
        (NamedTimeout::Silent, "T-SILENT"),
    ];

    pub fn as_str(self) -> &'static str {
        NamedTimeout::ALL
            .iter()
            .find(|(t, _)| *t == self)
            .map_or("", |(_, name)| name)
    }
}

/// The base of a deadline: a fixed duration or a named timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeadlineBase {
    Fixed(Duration),
    Named(NamedTimeout),
}

/// A duration written in a scenario.
///
/// ```
/// use usicheck::scenario::Deadline;
/// use usicheck::rules::Profile;
/// let d: Deadline = "1000ms + G".parse().unwrap();
/// assert_eq!(d.resolve(&Profile::Shogidokoro.timeouts()).as_millis(), 1100);
/// assert!("5".parse::<Deadline>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    pub base: DeadlineBase,
    /// Add the grace G (pipe and scheduling latency).
    pub plus_grace: bool,
}

/// Longest duration a scenario may write (one hour): anything longer is a typo.
const MAX: Duration = Duration::from_secs(3600);

impl Deadline {
    pub const fn named(timeout: NamedTimeout) -> Deadline {
        Deadline {
            base: DeadlineBase::Named(timeout),
            plus_grace: false,
        }
    }

    /// The concrete duration under the given timeouts.
    pub fn resolve(&self, timeouts: &Timeouts) -> Duration {
        let base = match self.base {
            DeadlineBase::Fixed(d) => d,
            DeadlineBase::Named(NamedTimeout::Usiok) => timeouts.usiok,
            DeadlineBase::Named(NamedTimeout::Ready) => timeouts.ready_silence,
            DeadlineBase::Named(NamedTimeout::Stop) => timeouts.stop,
            DeadlineBase::Named(NamedTimeout::Quit) => timeouts.quit,
            DeadlineBase::Named(NamedTimeout::Silent) => timeouts.silent,
        };
        if self.plus_grace {
            base + timeouts.grace
        } else {
            base
        }
    }
}

/// Why a duration did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseDeadlineError {
    #[error(
        "bad duration `{0}`: expected a number with a unit (500ms, 2s, 1m) or T-USIOK, \
         T-READY, T-STOP, T-QUIT, T-SILENT, optionally followed by `+ G`"
    )]
    Syntax(String),
    #[error("duration `{0}` is longer than one hour")]
    TooLong(String),
}

impl std::str::FromStr for Deadline {
    type Err = ParseDeadlineError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = || ParseDeadlineError::Syntax(text.to_owned());
        let (base_text, plus_grace) = match text.split_once('+') {
            Some((base, g)) if g.trim() == "G" => (base.trim(), true),
            Some(_) => return Err(err()),
            None => (text.trim(), false),
        };
        let base = if let Some(&(named, _)) = NamedTimeout::ALL
            .iter()
            .find(|(_, name)| *name == base_text)
        {
            DeadlineBase::Named(named)
        } else {
            let split = base_text
                .find(|c: char| !c.is_ascii_digit())
                .ok_or_else(err)?;
            let (digits, unit) = base_text.split_at(split);
            let n: u64 = digits.parse().map_err(|_| err())?;
            let duration = match unit {
                "ms" => Duration::from_millis(n),
                "s" => Duration::from_secs(n),
                "m" => Duration::from_secs(n.checked_mul(60).ok_or_else(err)?),
                _ => return Err(err()),
            };
            if duration > MAX {
                return Err(ParseDeadlineError::TooLong(text.to_owned()));
            }
            DeadlineBase::Fixed(duration)
        };
        Ok(Deadline { base, plus_grace })
    }
}

impl fmt::Display for Deadline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.base {
            DeadlineBase::Fixed(d) => write!(f, "{}ms", d.as_millis())?,
            DeadlineBase::Named(n) => f.write_str(n.as_str())?,
        }
        if self.plus_grace {
            f.write_str(" + G")?;
        }
        Ok(())
    }
}

impl Serialize for Deadline {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Deadline {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Deadline;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration such as 500ms, 2s, T-STOP or 1000ms + G")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Deadline, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Deadline, E> {
                Err(E::custom(format!(
                    "duration `{v}` needs a unit: write {v}ms or {v}s"
                )))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Deadline, E> {
                Err(E::custom(format!(
                    "duration `{v}` needs a unit: write {v}ms or {v}s"
                )))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl schemars::JsonSchema for Deadline {
    fn schema_name() -> Cow<'static, str> {
        "Deadline".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A duration: 500ms, 2s, 1m, or a tester timeout T-USIOK, T-READY, T-STOP, T-QUIT, T-SILENT; `+ G` adds the grace.",
            "type": "string",
            "pattern": r"^\s*([0-9]+(ms|s|m)|T-(USIOK|READY|STOP|QUIT|SILENT))\s*(\+\s*G\s*)?$",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Profile;

    #[test]
    fn parses_units_names_and_grace() {
        let t = Profile::Shogidokoro.timeouts();
        let ms = |s: &str| s.parse::<Deadline>().unwrap().resolve(&t).as_millis();
        assert_eq!(ms("500ms"), 500);
        assert_eq!(ms("2s"), 2000);
        assert_eq!(ms("1m"), 60_000);
        assert_eq!(ms("T-STOP"), 1000);
        assert_eq!(ms("T-STOP + G"), 1100);
        assert_eq!(ms("2000ms+G"), 2100);
        for bad in [
            "",
            "5",
            "ms",
            "5h",
            "-5s",
            "5s + H",
            "2s+G+G",
            "99999999999999999999ms",
            "2m 3s",
        ] {
            assert!(bad.parse::<Deadline>().is_err(), "{bad}");
        }
        assert!("61m".parse::<Deadline>().is_err());
    }
}
