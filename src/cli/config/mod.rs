//! `usicheck.toml`: a project's engine and certification settings, read from `--config FILE`
//! or else the nearest `usicheck.toml` from the current directory up to the repository root
//! (as cargo, rustfmt and nextest find theirs), and merged into the parsed command line of
//! `run`, `certify`, `fuzz` and `play`, where a flag given wins. Relative paths in the file are
//! relative to its directory.
//! `[play]` has a key for each of `play`'s own flags, by the flag's name.
//!
//! Here the file's tables and keys, whose doc comments and `x-default`s are docs/config.md;
//! `values` reads each key, `options` the option tables, `load` finds and reads the file,
//! `merge` merges it into the flags.

mod load;
mod merge;
mod options;
mod values;

/// `init`'s tests read back the file it writes.
#[cfg(test)]
pub(super) use load::load;
pub(super) use load::under;
pub use merge::{apply_to_fuzz, apply_to_play, apply_to_suite};
pub(super) use options::is_settable_here;

use super::jobs;
use super::play::{DEFAULT_GAMES, DEFAULT_TC};
use options::Options;
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::PathBuf;
use usicheck::play::adjudication::{Draw, Resign};
use usicheck::play::stats::Sprt;
use usicheck::play::{DEFAULT_MAX_MOVES, Order, TimeControl};
use usicheck::report::FailOn;
use usicheck::rules::Profile;
use values::{
    choices, claims, command, duration, jobs_key, name_of, play_adjudicate_draw,
    play_adjudicate_resign, play_games, play_max_moves, play_opening_order, play_opening_plies,
    play_openings, play_opponent, play_opponent_args, play_opponent_cwd, play_opponent_tc,
    play_ponder, play_random_plies, play_report_dir, play_rounds, play_seed, play_sprt, play_tc,
    value_enum,
};

/// The name of the file looked for when `--config` is not given (see `load::discover`).
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
