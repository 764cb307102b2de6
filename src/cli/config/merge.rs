//! Merging the file into a command's parsed flags: a flag given on the command line wins, a
//! flag left out takes the file's key, options merge by name.

use super::Config;
use super::load::find;
use crate::cli::fuzz::FuzzArgs;
use crate::cli::play::PlayArgs;
use crate::cli::suite::{self, SuiteArgs};
use crate::cli::timeout_flags::TimeoutFlags;
use clap::ArgMatches;
use clap::parser::ValueSource;
use std::path::PathBuf;
use usicheck::report::FailOn;
use usicheck::rules::Profile;

impl Config {
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

    #[test]
    fn a_flag_wins_and_options_merge_by_name() {
        let mut flags = vec!["Threads=2".to_owned(), "Clear_Hash".to_owned()];
        merge_options(
            &["USI_Hash=256".to_owned(), "Threads=1".to_owned()],
            &mut flags,
        );
        assert_eq!(flags, ["USI_Hash=256", "Threads=2", "Clear_Hash"]);
    }
}
