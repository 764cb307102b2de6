//! `--jobs N`, one meaning in every command that takes it (`run`, `certify`, `selftest`,
//! `fuzz`, `play`) and in usicheck.toml's `jobs` keys: **N sessions at once, each with its own
//! engine under test** — a scenario (`run`, `certify`, `selftest`), a fuzz session, or a job
//! of `play` that plays its games one after another, keeping its engine and opponent. The
//! sessions run on [`usicheck::pool::Pool`]; however many there are, only the engines that
//! compute take a core ([`usicheck::engine::SearchSlots`]), so N is how much waiting overlaps.
//!
//! Without `--jobs`, one rule: [`per_core`] sessions per core, as many as a session's share of
//! waiting allows, at most [`MAX_DEFAULT_JOBS`]. The counts per command, and the two commands
//! that do not count by cores, are below, each with its reason.

/// The most sessions `--jobs` (or a `jobs` key) may ask for.
pub const MAX_JOBS: u16 = 64;

/// The most sessions in flight without `--jobs`: each keeps an engine and up to about 11 MiB
/// of buffers.
pub const MAX_DEFAULT_JOBS: usize = 16;

/// `run` and `certify`: a scenario mostly waits (the reference engine's certify spends 76 s in
/// its scenarios' sleeps, silences and searches, 8 s at 16 in flight).
pub const SCENARIOS_PER_CORE: usize = 8;

/// `run --simulate`, `certify --simulate` and `selftest`: a simulated engine never waits (its
/// clock jumps to the next timer), so a session only computes.
pub const SIMULATED_PER_CORE: usize = 1;

/// `fuzz`: a fuzz session's pauses last tens of milliseconds where a scenario's silences last
/// seconds, so its engine computes a larger share of the time than a scenario's.
pub const FUZZ_PER_CORE: usize = 2;

/// `selftest --real`, not by cores: the paced reference engine sleeps most of each
/// millisecond (at most eight of its searches per core run at once). 64 at once swept faster
/// on two cores, but met the virtual machine's stalls of seconds, so 32.
pub const SELFTEST_REAL_JOBS: usize = 32;

/// `play`, not by cores: games are timed, and a match measures strength, so one game at a time
/// unless asked (`--jobs N` for more, sharing the cores as certify does).
pub const PLAY_JOBS: u16 = 1;

/// The default of a command: `per_core` sessions per core, at most [`MAX_DEFAULT_JOBS`].
pub fn per_core(per_core: usize) -> usize {
    (per_core * cores()).clamp(1, MAX_DEFAULT_JOBS)
}

/// The cores this process may run on.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The parser of every `--jobs`: 1 to [`MAX_JOBS`].
pub fn parser() -> clap::builder::RangedI64ValueParser<u16> {
    clap::value_parser!(u16).range(1..=i64::from(MAX_JOBS))
}

/// The error of a `jobs` key out of range.
pub fn out_of_range(jobs: i64) -> String {
    format!("jobs = {jobs}: expected 1 to {MAX_JOBS} sessions at once")
}
