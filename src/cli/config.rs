//! `usicheck.toml`: a project's engine and certification settings, read from `--config FILE`
//! or else the nearest `usicheck.toml` from the current directory up to the repository root
//! (as cargo, rustfmt and nextest find theirs), and merged into the parsed command line of
//! `run`, `certify`, `fuzz` and `play`, where a flag given wins. Relative paths in the file are
//! relative to its directory.
//! `[play]` has a key for each of `play`'s own flags, by the flag's name.

use super::fuzz::FuzzArgs;
use super::jobs;
use super::play::{DEFAULT_GAMES, DEFAULT_TC, PlayArgs};
use super::suite::{self, SuiteArgs};
use super::timeout_flags::TimeoutFlags;
use clap::parser::ValueSource;
use clap::{ArgMatches, ValueEnum};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use std::borrow::Cow;
use std::fmt;
use std::path::{Component, Path, PathBuf};
use usicheck::play::adjudication::{Draw, Resign};
use usicheck::play::stats::Sprt;
use usicheck::play::{DEFAULT_MAX_MOVES, Order, TimeControl};
use usicheck::report::FailOn;
use usicheck::rules::{Claims, Profile};

/// The name of the file looked for when `--config` is not given (see [`discover`]).
pub const DEFAULT_PATH: &str = "usicheck.toml";

/// The file's tables. Every table and key is optional but the engine's `command`; a flag given
/// on the command line wins over its key, and relative paths are relative to the file's
/// directory.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct Config {
    engine: Option<EngineTable>,
    #[serde(default)]
    certify: CertifyTable,
    #[serde(default)]
    fuzz: FuzzTable,
    #[serde(default)]
    timeouts: TimeoutsTable,
    #[serde(default)]
    play: PlayTable,
}

/// `[engine]`: the engine of `run`, `certify`, `fuzz` and `play`, as `-- ENGINE ARGS`, `--cwd`,
/// `--engine-define`, `--claim` and `--option` give it; an engine after `--` replaces `command`
/// and `args`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct EngineTable {
    /// The engine's program: relative to the file when it has a `/`, else looked up in `PATH`.
    #[serde(deserialize_with = "command")]
    command: String,
    /// The program's arguments.
    #[serde(default)]
    #[schemars(extend("x-default" = "[]"))]
    args: Vec<String>,
    /// The engine's working directory (`--cwd`).
    #[schemars(extend("x-default" = "usicheck's"))]
    cwd: Option<PathBuf>,
    /// MyShogi engine_define.xml naming the extensions the engine implements (`--engine-define`).
    #[schemars(extend("x-default" = "the one beside the engine's program, if any"))]
    engine_define: Option<PathBuf>,
    /// Vendor extensions the engine implements, by rule ID (`--claim`, which adds to them).
    #[serde(default, deserialize_with = "claims")]
    #[schemars(extend("x-default" = "[]"))]
    claims: Vec<String>,
    /// `[engine.options]`: `NAME = VALUE` sent with `setoption` before `isready` in every
    /// session, in file order (`--option NAME=VALUE`, which replaces the option NAME); a value
    /// is sent as written, a boolean as `true` or `false`.
    #[serde(default)]
    #[schemars(extend("x-default" = "none: the engine's own values"))]
    options: Options,
}

/// `[certify]`: the flags of `run` and `certify` (`profile` and `fail-on` also of `fuzz` and
/// `play`).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CertifyTable {
    /// The reading of the specification (`--profile`).
    #[serde(default, deserialize_with = "value_enum")]
    #[schemars(schema_with = "choices::<Profile>")]
    #[schemars(extend("x-default" = Profile::default().as_str()))]
    profile: Option<Profile>,
    /// Sessions at once, each with its own engine under test: scenarios (`--jobs`).
    #[serde(default, deserialize_with = "jobs_key")]
    #[schemars(range(min = 1, max = 64))]
    #[schemars(extend("x-default" = format!(
        "{} per core, at most {} (one per core with `--simulate`)",
        jobs::SCENARIOS_PER_CORE,
        jobs::MAX_DEFAULT_JOBS
    )))]
    jobs: Option<u16>,
    /// What fails the gate, exit code 1 (`--fail-on`).
    #[serde(default, deserialize_with = "value_enum")]
    #[schemars(schema_with = "choices::<FailOn>")]
    #[schemars(extend("x-default" = FailOn::default().as_str()))]
    fail_on: Option<FailOn>,
    /// Deviations accepted as known (`--baseline`).
    #[schemars(extend("x-default" = "none"))]
    baseline: Option<PathBuf>,
    /// Also write report.html, report.json, junit.xml, summary.md and the transcripts there
    /// (`--report-dir`).
    #[schemars(extend("x-default" = "none"))]
    report_dir: Option<PathBuf>,
}

/// `[fuzz]`: the campaign flags of `fuzz` (its own: a campaign's reports and waivers are not
/// a certification's).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FuzzTable {
    /// How long the campaign runs, a duration such as `10m` (`--time`).
    #[serde(default, deserialize_with = "duration")]
    #[schemars(extend("x-default" = "none: 100 sessions"))]
    time: Option<String>,
    /// Sessions at once, each with its own engine under test: fuzz sessions (`--jobs`).
    #[serde(default, deserialize_with = "jobs_key")]
    #[schemars(range(min = 1, max = 64))]
    #[schemars(extend("x-default" = format!(
        "{} per core, at most {}",
        jobs::FUZZ_PER_CORE,
        jobs::MAX_DEFAULT_JOBS
    )))]
    jobs: Option<u16>,
    /// Findings already known: counted, not reported (`--baseline`).
    #[schemars(extend("x-default" = "none"))]
    baseline: Option<PathBuf>,
    /// Also write the campaign's report.json, junit.xml, summary.md and report.html there
    /// (`--report-dir`).
    #[schemars(extend("x-default" = "none"))]
    report_dir: Option<PathBuf>,
}

/// `[play]`: `play`'s own flags by their names, each value read as the flag reads it
/// (`usicheck play --help` says more).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct PlayTable {
    /// Every game's time control: `10s+1s` (byoyomi), `60s+1s/inc`, `5m`, `movetime=500ms`,
    /// `depth=N` or `nodes=N`.
    #[serde(default, deserialize_with = "play_tc")]
    #[schemars(with = "Option<String>", extend("x-default" = DEFAULT_TC))]
    tc: Option<TimeControl>,
    /// The opponent's own time control, as `tc` spells it.
    #[serde(default, deserialize_with = "play_opponent_tc")]
    #[schemars(with = "Option<String>", extend("x-default" = "`tc`"))]
    opponent_tc: Option<TimeControl>,
    /// Number of games, colours alternating; give this or `rounds`.
    #[serde(default, deserialize_with = "play_games")]
    #[schemars(range(min = 1), extend("x-default" = DEFAULT_GAMES))]
    games: Option<usize>,
    /// Number of opening pairs, each played with colours swapped: `games = 2 × N`.
    #[serde(default, deserialize_with = "play_rounds")]
    #[schemars(range(min = 1), extend("x-default" = "none"))]
    rounds: Option<usize>,
    /// Start positions: a file of them, a `.kif`, `.kifu` or `.csa` record, or `bundled`.
    #[serde(default, deserialize_with = "play_openings")]
    #[schemars(extend("x-default" = "the start position"))]
    openings: Option<String>,
    /// The order the openings are taken in.
    #[serde(default, deserialize_with = "play_opening_order")]
    #[schemars(schema_with = "choices::<Order>")]
    #[schemars(extend("x-default" = name_of(&Order::default())))]
    opening_order: Option<Order>,
    /// Play at most this many of each opening's moves.
    #[serde(default, deserialize_with = "play_opening_plies")]
    #[schemars(extend("x-default" = "all"))]
    opening_plies: Option<usize>,
    /// Random legal plies after each opening's moves, the same for both games of a pair.
    #[serde(default, deserialize_with = "play_random_plies")]
    #[schemars(extend("x-default" = 0))]
    random_plies: Option<usize>,
    /// Seed of the random opening order and plies.
    #[serde(default, deserialize_with = "play_seed")]
    #[schemars(extend("x-default" = "drawn from the clock and printed"))]
    seed: Option<u64>,
    /// Plies after which a game is drawn.
    #[serde(default, deserialize_with = "play_max_moves")]
    #[schemars(range(min = 1), extend("x-default" = DEFAULT_MAX_MOVES))]
    max_moves: Option<usize>,
    /// The opponent's program, one word: relative to the file when it has a `/`.
    #[serde(default, deserialize_with = "play_opponent")]
    #[schemars(extend("x-default" = "the built-in engine, `usicheck engine`"))]
    opponent: Option<String>,
    /// The opponent's arguments (needs `opponent`).
    #[serde(default, deserialize_with = "play_opponent_args")]
    #[schemars(extend("x-default" = "[]"))]
    opponent_args: Option<Vec<String>>,
    /// The opponent's working directory.
    #[serde(default, deserialize_with = "play_opponent_cwd")]
    #[schemars(extend("x-default" = "usicheck's"))]
    opponent_cwd: Option<PathBuf>,
    /// Options set in the opponent's handshake, as `[engine.options]` (`{ USI_Hash = 16 }`).
    #[serde(default)]
    #[schemars(extend("x-default" = "none: the opponent's own values"))]
    opponent_options: Options,
    /// Sessions at once, each with its own engine under test: games, each job keeping its
    /// engine and opponent for its games.
    #[serde(default, deserialize_with = "jobs_key")]
    #[schemars(range(min = 1, max = 64), extend("x-default" = jobs::PLAY_JOBS))]
    jobs: Option<u16>,
    /// Stop the match once a sequential probability ratio test decides: `elo0=A,elo1=B`
    /// with optional `alpha`, `beta` and `model`.
    #[serde(default, deserialize_with = "play_sprt")]
    #[schemars(with = "Option<String>", extend("x-default" = "none"))]
    sprt: Option<Sprt>,
    /// End a game as lost for a side whose engine keeps scoring it lost:
    /// `movecount=N,score=CP[,twosided=true]`.
    #[serde(default, deserialize_with = "play_adjudicate_resign")]
    #[schemars(with = "Option<String>", extend("x-default" = "off"))]
    adjudicate_resign: Option<Resign>,
    /// End a game as a draw once both engines score it even: `movenumber=M,movecount=N,score=CP`.
    #[serde(default, deserialize_with = "play_adjudicate_draw")]
    #[schemars(with = "Option<String>", extend("x-default" = "off"))]
    adjudicate_draw: Option<Draw>,
    /// The engine ponders; `true` here cannot be turned off by a flag.
    #[serde(default, deserialize_with = "play_ponder")]
    #[schemars(extend("x-default" = false))]
    ponder: Option<bool>,
    /// Write the game records, replay scenarios and reports there.
    #[serde(default, deserialize_with = "play_report_dir")]
    #[schemars(extend("x-default" = "none"))]
    report_dir: Option<PathBuf>,
}

/// A value read as `T` and checked by `check`, its errors naming `key` (serde's own do not).
fn keyed<'de, D: Deserializer<'de>, T: Deserialize<'de>, U>(
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
fn at_least(min: i64) -> impl FnOnce(i64) -> Result<usize, String> {
    move |n| match usize::try_from(n) {
        Ok(count) if n >= min => Ok(count),
        _ => Err(format!("{n}: expected a whole number from {min}")),
    }
}

/// The deserializer of each `[play]` key that [`keyed`] reads: name, key, the type read, the
/// value's type and its check.
macro_rules! play_keys {
    ($($name:ident: $key:literal, $read:ty => $value:ty, $check:expr;)*) => {$(
        fn $name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<$value>, D::Error> {
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

/// `[timeouts]`: the handshake and exit timeouts of `run`, `certify` and `fuzz`, each a
/// duration such as `20s` (docs/timeouts.md).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TimeoutsTable {
    /// T-USIOK: how long `usi` may take to answer (`--usiok-timeout`).
    #[serde(default, deserialize_with = "duration")]
    #[schemars(extend("x-default" = format!(
        "{} ({} under strict for run and certify)",
        humantime::format_duration(Profile::default().timeouts().usiok),
        humantime::format_duration(Profile::Strict.timeouts().usiok)
    )))]
    usiok: Option<String>,
    /// T-READY: silence allowed while `isready` is pending, restarted by any line
    /// (`--ready-timeout`).
    #[serde(default, deserialize_with = "duration")]
    #[schemars(extend("x-default" = humantime::format_duration(Profile::default().timeouts().ready_silence).to_string()))]
    ready: Option<String>,
    /// T-QUIT: how long the engine may take to exit after `quit` (`--quit-timeout`).
    #[serde(default, deserialize_with = "duration")]
    #[schemars(extend("x-default" = humantime::format_duration(Profile::default().timeouts().quit).to_string()))]
    quit: Option<String>,
}

/// `[engine.options]` in file order, as `--option NAME=VALUE` flags.
#[derive(Debug, Default)]
struct Options(Vec<String>);

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
pub(super) fn is_settable_here(name: &str) -> bool {
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

fn command<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let command = String::deserialize(deserializer)?;
    if command.is_empty() {
        return Err(de::Error::custom("the engine command is empty"));
    }
    Ok(command)
}

fn claims<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let claims = Vec::<String>::deserialize(deserializer)?;
    for claim in &claims {
        suite::add_claim(&mut Claims::default(), claim)
            .map_err(|e| de::Error::custom(format!("claim {claim:?}: {e}")))?;
    }
    Ok(claims)
}

/// A `clap::ValueEnum` by its command-line name (`usi2`, `should`).
fn value_enum<'de, D: Deserializer<'de>, T: ValueEnum>(
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
fn choices<T: ValueEnum>(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "enum": names::<T>() })
}

/// `T`'s command-line names (`usi1`, `shogidokoro`, …).
fn names<T: ValueEnum>() -> Vec<String> {
    T::value_variants().iter().map(name_of).collect()
}

/// A value's command-line name.
fn name_of<T: ValueEnum>(value: &T) -> String {
    value
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_owned())
}

/// A `jobs` key, as `--jobs` reads it: 1 to [`jobs::MAX_JOBS`] sessions at once.
fn jobs_key<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u16>, D::Error> {
    let n = i64::deserialize(deserializer)?;
    match u16::try_from(n) {
        Ok(n @ 1..=jobs::MAX_JOBS) => Ok(Some(n)),
        _ => Err(de::Error::custom(jobs::out_of_range(n))),
    }
}

fn duration<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(deserializer)?;
    match suite::positive_duration(&text) {
        Some(_) => Ok(Some(text)),
        None => Err(de::Error::custom(format!(
            "{text:?}: {}",
            suite::DURATION_EXPECTED
        ))),
    }
}

/// The config file and where it is: `explicit` (`--config`), else the one [`discover`] finds
/// from the current directory.
fn find(explicit: Option<&Path>) -> Result<Option<(PathBuf, Config)>, String> {
    let path = match explicit {
        Some(path) => path.to_path_buf(),
        None => {
            let here = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
            match discover(&here) {
                Some(path) => path,
                None => return Ok(None),
            }
        }
    };
    let config = load(&path)?;
    Ok(Some((path, config)))
}

/// The nearest [`DEFAULT_PATH`] from directory `start` (absolute) up: in `start` itself
/// (named `usicheck.toml`, relative, as today's errors name it) or an ancestor (named by its
/// absolute path), looking no higher than the repository root, the first directory that
/// holds `.git` (a directory, or a worktree's file), or the filesystem root outside one.
fn discover(start: &Path) -> Option<PathBuf> {
    for dir in start.ancestors() {
        let candidate = dir.join(DEFAULT_PATH);
        if candidate.is_file() {
            return Some(match dir == start {
                true => PathBuf::from(DEFAULT_PATH),
                false => candidate,
            });
        }
        if dir.join(".git").exists() {
            return None;
        }
    }
    None
}

/// Reads and checks the file at `path`, its relative paths resolved against its directory;
/// errors are one line, `FILE:LINE:COL: message` when they have a place.
pub(super) fn load(path: &Path) -> Result<Config, String> {
    let place = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{place}: cannot read: {e}"))?;
    let mut config: Config = toml::from_str(&text).map_err(|e| {
        let message = e.message().trim().replace('\n', "; ");
        match e.span() {
            Some(span) => {
                let (line, column) = line_and_column(&text, span.start);
                format!("{place}:{line}:{column}: {message}")
            }
            None => format!("{place}: {message}"),
        }
    })?;
    let dir = std::path::absolute(path)
        .map_err(|e| format!("{place}: {e}"))?
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    config.resolve_paths(&dir);
    config
        .play
        .check()
        .map_err(|e| format!("{place}: [play] {e}"))?;
    Ok(config)
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// `path` under `dir` when relative, without `.` components.
pub(super) fn under(dir: &Path, path: &Path) -> PathBuf {
    dir.join(path)
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect()
}

impl Config {
    /// Makes the engine command (when it names a path: it has a `/`), `cwd`, `engine-define`,
    /// `baseline` and `report-dir` relative to `dir`.
    fn resolve_paths(&mut self, dir: &Path) {
        let resolve = |path: &mut Option<PathBuf>| {
            if let Some(p) = path {
                *p = under(dir, p);
            }
        };
        if let Some(engine) = &mut self.engine {
            if engine.command.contains('/') {
                engine.command = under(dir, Path::new(&engine.command)).display().to_string();
            }
            resolve(&mut engine.cwd);
            resolve(&mut engine.engine_define);
        }
        resolve(&mut self.certify.baseline);
        resolve(&mut self.certify.report_dir);
        resolve(&mut self.fuzz.baseline);
        resolve(&mut self.fuzz.report_dir);
        let play = &mut self.play;
        if let Some(opponent) = &mut play.opponent
            && opponent.contains('/')
        {
            *opponent = under(dir, Path::new(opponent)).display().to_string();
        }
        if let Some(openings) = &mut play.openings
            && openings != "bundled"
        {
            *openings = under(dir, Path::new(openings)).display().to_string();
        }
        resolve(&mut play.opponent_cwd);
        resolve(&mut play.report_dir);
    }

    /// Fills the engine flags the command line left out: the engine, its options and
    /// working directory, `profile` and `fail-on`.
    fn apply_engine(&self, flags: EngineFlags<'_>, given: &ArgMatches) {
        if let Some(engine) = &self.engine {
            if flags.engine.is_empty() {
                flags.engine.push(engine.command.clone());
                flags.engine.extend(engine.args.iter().cloned());
            }
            merge_options(&engine.options.0, flags.options);
            fill(flags.cwd, &engine.cwd);
        }
        let certify = &self.certify;
        if let Some(profile) = certify.profile
            && !on_command_line(given, "profile")
        {
            *flags.profile = profile;
        }
        if let Some(fail_on) = certify.fail_on
            && !on_command_line(given, "fail_on")
        {
            *flags.fail_on = fail_on;
        }
    }

    /// Fills the flags of the commands that judge by claims and timeouts (`run`, `certify`,
    /// `fuzz`): the engine's claims and engine_define.xml, and `[timeouts]`.
    fn apply_checks(&self, flags: CheckFlags<'_>) {
        if let Some(engine) = &self.engine {
            let given_claims = std::mem::take(flags.claims);
            flags.claims.extend(engine.claims.iter().cloned());
            flags.claims.extend(given_claims);
            fill(flags.engine_define, &engine.engine_define);
        }
        fill(&mut flags.timeouts.usiok_timeout, &self.timeouts.usiok);
        fill(&mut flags.timeouts.ready_timeout, &self.timeouts.ready);
        fill(&mut flags.timeouts.quit_timeout, &self.timeouts.quit);
    }
}

impl PlayTable {
    /// What the keys say together, as the flags' parser checks it.
    fn check(&self) -> Result<(), String> {
        if self.games.is_some() && self.rounds.is_some() {
            return Err("games and rounds: give one (rounds = N plays 2 × N games)".into());
        }
        if self.opponent_args.is_some() && self.opponent.is_none() {
            return Err("opponent-args needs opponent, the program they are arguments of".into());
        }
        Ok(())
    }
}

/// The flags of one command that the file's `[engine]`, `profile` and `fail-on` stand in for.
struct EngineFlags<'a> {
    engine: &'a mut Vec<String>,
    options: &'a mut Vec<String>,
    cwd: &'a mut Option<PathBuf>,
    profile: &'a mut Profile,
    fail_on: &'a mut FailOn,
}

/// The flags the file's claims, `engine-define` and `[timeouts]` stand in for.
struct CheckFlags<'a> {
    claims: &'a mut Vec<String>,
    engine_define: &'a mut Option<PathBuf>,
    timeouts: &'a mut TimeoutFlags,
}

/// `flags` after the file's options, except those a flag sets by the same NAME.
fn merge_options(file: &[String], flags: &mut Vec<String>) {
    let name = |option: &str| option.split('=').next().unwrap_or_default().to_owned();
    let given: Vec<String> = flags.iter().map(|o| name(o)).collect();
    let kept = file.iter().filter(|o| !given.contains(&name(o))).cloned();
    let merged: Vec<String> = kept.chain(flags.drain(..)).collect();
    *flags = merged;
}

fn fill<T: Clone>(flag: &mut Option<T>, file: &Option<T>) {
    if flag.is_none() {
        flag.clone_from(file);
    }
}

/// A flag with a default takes the file's value, unless the flag `id` was given.
fn replace_default<T>(given: &ArgMatches, id: &str, flag: &mut T, file: Option<T>) {
    if let Some(value) = file
        && !on_command_line(given, id)
    {
        *flag = value;
    }
}

/// Whether argument `id` was given on the command line (not its default).
fn on_command_line(given: &ArgMatches, id: &str) -> bool {
    given.value_source(id) == Some(ValueSource::CommandLine)
}

/// Merges the config file (if any) into the flags of `run` or `certify`; `config` becomes the
/// file read, for the run's header.
pub fn apply_to_suite(args: &mut SuiteArgs, given: &ArgMatches) -> Result<(), String> {
    let Some((path, config)) = find(args.config.as_deref())? else {
        return Ok(());
    };
    args.config = Some(path);
    config.apply_engine(
        EngineFlags {
            engine: &mut args.engine,
            options: &mut args.options,
            cwd: &mut args.cwd,
            profile: &mut args.profile,
            fail_on: &mut args.report.fail_on,
        },
        given,
    );
    config.apply_checks(CheckFlags {
        claims: &mut args.claims,
        engine_define: &mut args.engine_define,
        timeouts: &mut args.timeouts,
    });
    fill(&mut args.jobs, &config.certify.jobs);
    fill(&mut args.baseline, &config.certify.baseline);
    fill(&mut args.report.report_dir, &config.certify.report_dir);
    Ok(())
}

/// Merges the config file (if any) into the flags of `fuzz`; `config` becomes the file read.
pub fn apply_to_fuzz(args: &mut FuzzArgs, given: &ArgMatches) -> Result<(), String> {
    let Some((path, config)) = find(args.config.as_deref())? else {
        return Ok(());
    };
    args.config = Some(path);
    config.apply_engine(
        EngineFlags {
            engine: &mut args.engine,
            options: &mut args.options,
            cwd: &mut args.cwd,
            profile: &mut args.profile,
            fail_on: &mut args.fail_on,
        },
        given,
    );
    config.apply_checks(CheckFlags {
        claims: &mut args.claims,
        engine_define: &mut args.engine_define,
        timeouts: &mut args.timeouts,
    });
    let fuzz = &config.fuzz;
    if args.time.is_none() {
        args.time = fuzz.time.as_deref().and_then(suite::positive_duration);
    }
    fill(&mut args.jobs, &fuzz.jobs);
    fill(&mut args.baseline, &fuzz.baseline);
    fill(&mut args.report_dir, &fuzz.report_dir);
    Ok(())
}

/// Merges the config file (if any) into the flags of `play`: the engine, its options and
/// working directory, `profile` and `fail-on`, and `[play]`; `config` becomes the file read. An opponent on the command line
/// replaces the file's with its arguments; `ponder = true` cannot be turned off by a flag.
pub fn apply_to_play(args: &mut PlayArgs, given: &ArgMatches) -> Result<(), String> {
    let Some((path, config)) = find(args.config.as_deref())? else {
        return Ok(());
    };
    args.config = Some(path);
    config.apply_engine(
        EngineFlags {
            engine: &mut args.engine,
            options: &mut args.options,
            cwd: &mut args.cwd,
            profile: &mut args.profile,
            fail_on: &mut args.fail_on,
        },
        given,
    );
    let play = &config.play;
    // The flags with a default: the file's value unless the flag was given.
    replace_default(given, "tc", &mut args.tc, play.tc);
    replace_default(
        given,
        "opening_order",
        &mut args.opening_order,
        play.opening_order,
    );
    replace_default(
        given,
        "random_plies",
        &mut args.random_plies,
        play.random_plies,
    );
    replace_default(given, "max_moves", &mut args.max_moves, play.max_moves);
    replace_default(given, "jobs", &mut args.jobs, play.jobs);
    if args.games.is_none() && args.rounds.is_none() {
        args.games = play.games;
        args.rounds = play.rounds;
    }
    if args.opponent.is_none() {
        args.opponent.clone_from(&play.opponent);
        if args.opponent_args.is_empty() {
            args.opponent_args = play.opponent_args.clone().unwrap_or_default();
        }
    }
    fill(&mut args.opponent_tc, &play.opponent_tc);
    fill(&mut args.openings, &play.openings);
    fill(&mut args.opening_plies, &play.opening_plies);
    fill(&mut args.seed, &play.seed);
    fill(&mut args.opponent_cwd, &play.opponent_cwd);
    merge_options(&play.opponent_options.0, &mut args.opponent_options);
    fill(&mut args.sprt, &play.sprt);
    fill(&mut args.adjudicate_resign, &play.adjudicate_resign);
    fill(&mut args.adjudicate_draw, &play.adjudicate_draw);
    args.ponder |= play.ponder == Some(true);
    fill(&mut args.report_dir, &play.report_dir);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        let path = std::env::temp_dir().join(format!(
            "usicheck-config-{}-{}.toml",
            std::process::id(),
            text.len()
        ));
        std::fs::write(&path, text).unwrap();
        let result =
            load(&path).map_err(|e| e.replacen(&path.display().to_string(), "usicheck.toml", 1));
        std::fs::remove_file(&path).unwrap();
        result
    }

    #[test]
    fn a_full_file_reads_naturally() {
        let config = parse(
            "[engine]\ncommand = \"./engine\"\nargs = [\"--threads\", \"1\"]\ncwd = \".\"\n\
             [engine.options]\nUSI_Hash = 256\nThreads = 1\nPonder = true\nEvalDir = \"eval\"\n\
             [certify]\nprofile = \"usi2\"\njobs = 2\nfail-on = \"should\"\n\
             [timeouts]\nusiok = \"5s\"\n",
        )
        .unwrap();
        let engine = config.engine.unwrap();
        assert!(engine.command.ends_with("/engine"), "{}", engine.command);
        assert!(Path::new(&engine.command).is_absolute());
        assert_eq!(
            engine.options.0,
            ["USI_Hash=256", "Threads=1", "Ponder=true", "EvalDir=eval"]
        );
        assert_eq!(config.certify.profile, Some(Profile::Usi2));
        assert_eq!(config.certify.fail_on, Some(FailOn::Should));
        assert_eq!(config.timeouts.usiok.as_deref(), Some("5s"));
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let cases = [
            (
                "[certify]\nprofil = \"usi2\"\n",
                "usicheck.toml:2:1: unknown field `profil`",
            ),
            (
                "[certify]\nprofile = \"usi3\"\n",
                "usicheck.toml:2:11: \"usi3\" is not one of",
            ),
            ("[certify]\njobs = 0\n", "usicheck.toml:2:8: jobs = 0"),
            (
                "[timeouts]\nquit = \"5 parsecs\"\n",
                "usicheck.toml:2:8: \"5 parsecs\"",
            ),
            (
                "[engine]\ncommand = \"e\"\n[engine.options]\nHash = { a = 1 }\n",
                "usicheck.toml:4:8: invalid type: map, expected an option value",
            ),
            (
                "[engine]\nargs = []\n",
                "usicheck.toml:1:1: missing field `command`",
            ),
            ("[engine\n", "usicheck.toml:1:8:"),
            (
                "[engine]\ncommand = \"e\"\n[engine.options]\n\"a b\" = 1\n",
                "usicheck.toml:4:1: option name \"a b\"",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text).unwrap_err();
            assert!(error.starts_with(expected), "{text:?}: {error}");
            assert!(!error.contains('\n'), "{error}");
        }
    }

    #[test]
    fn a_flag_wins_and_options_merge_by_name() {
        let mut flags = vec!["Threads=2".to_owned(), "Clear_Hash".to_owned()];
        merge_options(
            &["USI_Hash=256".to_owned(), "Threads=1".to_owned()],
            &mut flags,
        );
        assert_eq!(flags, ["USI_Hash=256", "Threads=2", "Clear_Hash"]);
    }

    #[test]
    fn discovery_walks_up_to_the_repository_root() {
        let top = std::env::temp_dir().join(format!("usicheck-discover-{}", std::process::id()));
        let repo = top.join("repo");
        let deep = repo.join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(top.join(DEFAULT_PATH), "").unwrap();
        // Above the repository: not read.
        std::fs::create_dir(repo.join(".git")).unwrap();
        assert_eq!(discover(&deep), None);
        // The repository root's own file, two directories up; a worktree's `.git` is a file.
        std::fs::write(repo.join(DEFAULT_PATH), "").unwrap();
        assert_eq!(discover(&deep), Some(repo.join(DEFAULT_PATH)));
        std::fs::remove_dir(repo.join(".git")).unwrap();
        std::fs::write(deep.join(".git"), "gitdir: elsewhere\n").unwrap();
        assert_eq!(discover(&deep), None);
        // The current directory's own is named as before.
        std::fs::write(deep.join(DEFAULT_PATH), "").unwrap();
        assert_eq!(discover(&deep), Some(PathBuf::from(DEFAULT_PATH)));
        std::fs::remove_dir_all(&top).unwrap();
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(line_and_column("a\n\u{3042}b", 5), (2, 2));
        assert_eq!(line_and_column("ab", 0), (1, 1));
    }
}
