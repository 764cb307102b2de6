//! How each key's value is read: as the flag of the same name reads it, its errors naming the
//! key, and the schema of the keys whose values are a flag's choices.

use super::super::jobs;
use super::super::suite;
use clap::ValueEnum;
use schemars::{Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer};
use std::path::PathBuf;
use usicheck::play::adjudication::{Draw, Resign};
use usicheck::play::stats::Sprt;
use usicheck::play::{Order, TimeControl};
use usicheck::rules::Claims;

/// A value read as `T` and checked by `check`, its errors naming `key` (serde's own do not).
pub(super) fn keyed<'de, D: Deserializer<'de>, T: Deserialize<'de>, U>(
    deserializer: D,
    key: &str,
    check: impl FnOnce(T) -> Result<U, String>,
) -> Result<Option<U>, D::Error> {
    let value =
        T::deserialize(deserializer).map_err(|e| de::Error::custom(format!("{key}: {e}")))?;
    check(value)
        .map(Some)
        .map_err(|e| de::Error::custom(format!("{key}: {e}")))
}

/// A whole number from `min` on.
pub(super) fn at_least(min: i64) -> impl FnOnce(i64) -> Result<usize, String> {
    move |n| match usize::try_from(n) {
        Ok(count) if n >= min => Ok(count),
        _ => Err(format!("{n}: expected a whole number from {min}")),
    }
}

/// The deserializer of each `[play]` key that [`keyed`] reads: name, key, the type read, the
/// value's type and its check.
macro_rules! play_keys {
    ($($name:ident: $key:literal, $read:ty => $value:ty, $check:expr;)*) => {$(
        pub(super) fn $name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<$value>, D::Error> {
            keyed::<D, $read, $value>(deserializer, $key, $check)
        }
    )*};
}

play_keys! {
    play_tc: "tc", String => TimeControl, |text| text.parse();
    play_opponent_tc: "opponent-tc", String => TimeControl, |text| text.parse();
    play_games: "games", i64 => usize, at_least(1);
    play_rounds: "rounds", i64 => usize, at_least(1);
    play_openings: "openings", String => String, Ok;
    play_opening_order: "opening-order", String => Order, |text: String| {
        Order::from_str(&text, false).map_err(|_| format!("{text:?}: expected sequential or random"))
    };
    play_opening_plies: "opening-plies", i64 => usize, at_least(0);
    play_random_plies: "random-plies", i64 => usize, at_least(0);
    play_seed: "seed", i64 => u64, |n| {
        u64::try_from(n).map_err(|_| format!("{n}: expected a whole number from 0"))
    };
    play_max_moves: "max-moves", i64 => usize, at_least(1);
    play_opponent: "opponent", String => String, |program: String| {
        if program.is_empty() {
            Err("the opponent's program is empty".to_owned())
        } else {
            Ok(program)
        }
    };
    play_opponent_args: "opponent-args", Vec<String> => Vec<String>, Ok;
    play_sprt: "sprt", String => Sprt, |text| Sprt::parse(&text);
    play_adjudicate_resign: "adjudicate-resign", String => Resign, |text| Resign::parse(&text);
    play_adjudicate_draw: "adjudicate-draw", String => Draw, |text| Draw::parse(&text);
    play_ponder: "ponder", bool => bool, Ok;
    play_opponent_cwd: "opponent-cwd", PathBuf => PathBuf, Ok;
    play_report_dir: "report-dir", PathBuf => PathBuf, Ok;
}

pub(super) fn command<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let command = String::deserialize(deserializer)?;
    if command.is_empty() {
        return Err(de::Error::custom("the engine command is empty"));
    }
    Ok(command)
}

pub(super) fn claims<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let claims = Vec::<String>::deserialize(deserializer)?;
    for claim in &claims {
        suite::add_claim(&mut Claims::default(), claim)
            .map_err(|e| de::Error::custom(format!("claim {claim:?}: {e}")))?;
    }
    Ok(claims)
}

/// A `clap::ValueEnum` by its command-line name (`usi2`, `should`).
pub(super) fn value_enum<'de, D: Deserializer<'de>, T: ValueEnum>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    let text = String::deserialize(deserializer)?;
    T::from_str(&text, false).map(Some).map_err(|_| {
        de::Error::custom(format!(
            "{text:?} is not one of {}",
            names::<T>().join(", ")
        ))
    })
}

/// The schema of a key [`value_enum`] reads: one of `T`'s command-line names.
pub(super) fn choices<T: ValueEnum>(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "enum": names::<T>() })
}

/// `T`'s command-line names (`usi1`, `shogidokoro`, …).
pub(super) fn names<T: ValueEnum>() -> Vec<String> {
    T::value_variants().iter().map(name_of).collect()
}

/// A value's command-line name.
pub(super) fn name_of<T: ValueEnum>(value: &T) -> String {
    value
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_owned())
}

/// A `jobs` key, as `--jobs` reads it: 1 to [`jobs::MAX_JOBS`] sessions at once.
pub(super) fn jobs_key<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u16>, D::Error> {
    let n = i64::deserialize(deserializer)?;
    match u16::try_from(n) {
        Ok(n @ 1..=jobs::MAX_JOBS) => Ok(Some(n)),
        _ => Err(de::Error::custom(jobs::out_of_range(n))),
    }
}

pub(super) fn duration<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(deserializer)?;
    match suite::positive_duration(&text) {
        Some(_) => Ok(Some(text)),
        None => Err(de::Error::custom(format!(
            "{text:?}: {}",
            suite::DURATION_EXPECTED
        ))),
    }
}
