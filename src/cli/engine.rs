//! `usicheck engine`: the reference USI engine, optionally with faults.

use clap::Args;
use std::process::ExitCode;
use usicheck::refengine::faults::{self, Fault, FaultSet};
use usicheck::refengine::{self, Config};
use usicheck::sim::Clock;

/// Environment variable adding a simulated initialisation time (ms) to every `isready`.
const INIT_MS_ENV: &str = "USICHECK_ENGINE_INIT_MS";

/// Run the reference USI engine on stdin/stdout.
///
/// The engine follows every engine-side rule of the catalogue; each `--fault` breaks the rules
/// it names. Set USICHECK_ENGINE_INIT_MS (or the SlowInitMs option) to make `isready` take that
/// many milliseconds, with keep-alive lines. It speaks USI on stdin and stdout, so no
/// `--format`.
#[derive(Args, Debug)]
pub struct EngineArgs {
    /// Break a rule on purpose (repeatable); see --list-faults.
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// Print every fault as NAME<TAB>RULES<TAB>description and exit.
    #[arg(long)]
    pub list_faults: bool,
    /// Seed for the faults that misbehave only sometimes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Search no faster than this many nodes per millisecond, the rate of the simulated
    /// engine, so that a run as a process sees the searches a simulated run sees and leaves
    /// the cores to the engines it is run beside; 0 searches as fast as the machine allows.
    #[arg(long, value_name = "N", default_value_t = refengine::SIMULATED_NODES_PER_MS)]
    pub nodes_per_ms: u64,
}

pub fn run(args: EngineArgs) -> Result<ExitCode, String> {
    if args.list_faults {
        for &fault in Fault::ALL {
            outln!("{}", faults::listing_line(fault));
        }
        return Ok(ExitCode::from(super::EXIT_PASS));
    }
    let faults =
        FaultSet::from_names(args.faults.iter().map(String::as_str)).map_err(|e| e.to_string())?;
    let init_ms = match std::env::var(INIT_MS_ENV) {
        Ok(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("{INIT_MS_ENV}: '{v}' is not a number of milliseconds"))?,
        Err(_) => 0,
    };
    let code = refengine::run(Config {
        faults,
        seed: args.seed,
        init_ms,
        clock: match args.nodes_per_ms {
            0 => Clock::Real,
            rate => Clock::Paced(rate),
        },
    });
    Ok(ExitCode::from(
        u8::try_from(code).unwrap_or(super::EXIT_FAIL),
    ))
}

/// The built-in engine that `argv` starts (`usicheck engine [--fault NAME]… [--seed N]`), to
/// run simulated (`--simulate`); any other engine is an error, since only the built-in one
/// runs inside usicheck.
pub fn simulated(argv: &[String]) -> Result<usicheck::engine::SimulatedEngine, String> {
    let not_built_in = || {
        format!(
            "--simulate: only the built-in engine runs simulated (`usicheck engine [--fault NAME]… [--seed N]`), not `{}`",
            argv.join(" ")
        )
    };
    let me = std::env::current_exe().ok();
    let program = std::path::Path::new(argv.first().ok_or_else(not_built_in)?);
    let is_usicheck = me.as_deref() == Some(program)
        || program.file_name() == Some(std::ffi::OsStr::new("usicheck"));
    if !is_usicheck || argv.get(1).map(String::as_str) != Some("engine") {
        return Err(not_built_in());
    }
    let mut faults = FaultSet::none();
    let mut seed = 1;
    let mut nodes_per_ms = refengine::SIMULATED_NODES_PER_MS;
    let mut words = argv[2..].iter();
    while let Some(word) = words.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) => (flag, Some(value.to_owned())),
            None => (word.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| words.next().cloned())
                .ok_or_else(not_built_in)
        };
        match flag {
            "--fault" => faults.insert(value()?.parse().map_err(|e| format!("--simulate: {e}"))?),
            "--seed" => {
                seed = value()?
                    .parse()
                    .map_err(|_| format!("--simulate: `{word}`: the seed is a number"))?
            }
            "--nodes-per-ms" => {
                nodes_per_ms = match value()?.parse() {
                    Ok(0) | Err(_) => {
                        return Err(format!(
                            "--simulate: `{word}`: a simulated search needs a rate of at least one node per millisecond"
                        ));
                    }
                    Ok(rate) => rate,
                }
            }
            _ => return Err(not_built_in()),
        }
    }
    let mut engine = refengine::simulated(Config {
        faults,
        seed,
        ..Config::default()
    });
    engine.nodes_per_ms = nodes_per_ms;
    Ok(engine)
}
