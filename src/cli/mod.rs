//! Subcommands. Each lives in its own file; this one only dispatches.

#[macro_use]
mod stdout;

mod certify;
mod claim_order;
mod color;
mod completions;
mod config;
mod config_doc;
mod diff;
mod engine;
mod engine_define;
mod engine_perft;
mod format_flag;
mod fuzz;
mod init;
mod interrupt;
mod jobs;
mod list;
mod man;
mod moves;
mod perft;
mod play;
mod report_args;
mod report_schema;
mod rules;
mod run;
mod scenario_check;
mod scenario_schema;
mod select;
mod selftest;
mod suite;
mod timeout_flags;
mod validate;

use clap::{ArgMatches, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit code: every check passed.
pub const EXIT_PASS: u8 = 0;
/// Exit code: the engine (or position, or perft count) failed a check.
pub const EXIT_FAIL: u8 = 1;
/// Exit code: usage or input error.
pub const EXIT_USAGE: u8 = 2;
/// Exit code of `play --sprt`: the test accepted H0 (the engine is not elo1 stronger).
pub const EXIT_SPRT_H0: u8 = 3;
/// Exit code of `play --sprt`: `--games` ran out before the test decided.
pub const EXIT_SPRT_UNDECIDED: u8 = 4;

/// Certifies shogi engines for the USI protocol.
#[derive(Parser, Debug)]
#[command(name = "usicheck", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the rule catalogue (grouped by section, with implementation status) or explain one rule.
    Rules(rules::RulesArgs),
    /// Print the JSON Schema of the scenario format (scenarios/schema.json).
    ///
    /// The schema is JSON already, so no `--format`.
    ScenarioSchema,
    /// Print the JSON Schema of a command's report.json (docs/*.schema.json).
    ///
    /// The schema is JSON already, so no `--format`.
    ReportSchema(report_schema::ReportSchemaArgs),
    /// Load and validate scenario files without running them.
    ///
    /// Prints `FILE: ok (NAME)` per valid file and each error on stderr; the exit code is the
    /// result (0 all valid, 2 not), so no `--format`.
    ScenarioCheck {
        /// Scenario YAML files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// List the bundled scenarios: the rules each checks and what it needs.
    List(list::ListArgs),
    /// Run scenarios against an engine: `usicheck run SCENARIO… -- ENGINE ARGS…`.
    Run(run::RunArgs),
    /// Certify an engine with every applicable bundled scenario (default: the built-in engine).
    Certify(certify::CertifyArgs),
    Diff(diff::DiffArgs),
    Init(init::InitArgs),
    Engine(engine::EngineArgs),
    Fuzz(fuzz::FuzzArgs),
    Play(play::PlayArgs),
    Perft(perft::PerftArgs),
    Selftest(selftest::SelftestArgs),
    Moves(moves::MovesArgs),
    Validate(validate::ValidateArgs),
    Completions(completions::CompletionsArgs),
    Man(man::ManArgs),
    /// Print docs/config.md: every usicheck.toml key with its type, default and meaning.
    #[command(hide = true)]
    ConfigDoc,
}

/// Runs a parsed command line (`matches` tell which flags were given); `Err` is an input error
/// reported with exit code 2.
pub fn run(cli: Cli, matches: &ArgMatches) -> Result<ExitCode, String> {
    let drives_engines = matches!(
        cli.command,
        Command::Run(_)
            | Command::Certify(_)
            | Command::Init(_)
            | Command::Fuzz(_)
            | Command::Play(_)
            | Command::Selftest(_)
    );
    let given = matches
        .subcommand()
        .map_or(matches, |(_, subcommand)| subcommand);
    if !drives_engines {
        return dispatch(cli, given);
    }
    interrupt::install()?;
    let result = dispatch(cli, given);
    // Interrupted: the shell's code for the signal, whatever the partial run showed.
    match usicheck::engine::interrupted() {
        Some(signal) => Ok(ExitCode::from(interrupt::exit_code(signal))),
        None => result,
    }
}

/// Runs the subcommand; `given` are its matches, for the config file to fill what they lack.
fn dispatch(cli: Cli, given: &ArgMatches) -> Result<ExitCode, String> {
    match cli.command {
        Command::Rules(args) => rules::run(args),
        Command::ScenarioSchema => scenario_schema::run(),
        Command::ReportSchema(args) => report_schema::run(args),
        Command::ScenarioCheck { files } => scenario_check::run(&files),
        Command::List(args) => list::run(args),
        Command::Run(mut args) => {
            config::apply_to_suite(&mut args.suite, given)?;
            run::run(args)
        }
        Command::Certify(mut args) => {
            config::apply_to_suite(&mut args.suite, given)?;
            certify::run(args)
        }
        Command::Diff(args) => diff::run(args),
        Command::Init(args) => init::run(args),
        Command::Engine(args) => engine::run(args),
        Command::Fuzz(mut args) => {
            config::apply_to_fuzz(&mut args, given)?;
            fuzz::run(args)
        }
        Command::Play(mut args) => {
            config::apply_to_play(&mut args, given)?;
            play::run(args)
        }
        Command::Perft(args) => perft::run(args),
        Command::Selftest(args) => selftest::run(args),
        Command::Moves(args) => moves::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
        Command::ConfigDoc => config_doc::run(),
    }
}

/// Parses a position given on the command line or an input line; errors name `place`.
fn read_position(text: &str, place: &str) -> Result<usicheck::shogi::Position, String> {
    usicheck::shogi::Position::from_sfen(text).map_err(|e| format!("{place}: {e}"))
}
