//! The reference engine of each planned session: its command line (a process, or its loop
//! simulated in this process), the run settings with short timeouts and its claims, and the
//! replay command a report gives.

use crate::cli::suite::shell_word;
use usicheck::engine::EngineCommand;
use usicheck::refengine::faults::Fault;
use usicheck::rules::Profile;
use usicheck::scenario::runner::RunSettings;
use usicheck::selftest::Planned;

/// The reference engine answers within milliseconds: shorter waits than §0.3's keep the
/// faults that never answer from costing the full timeouts in every scenario.
const USIOK_TIMEOUT: &str = "5s";
const READY_TIMEOUT: &str = "3s";
const QUIT_TIMEOUT: &str = "3s";

/// The reference engine with `faults`, as argv.
pub(super) fn engine_argv(faults: &[Fault]) -> Result<Vec<String>, String> {
    let me = std::env::current_exe()
        .map_err(|e| format!("cannot locate the usicheck binary for the built-in engine: {e}"))?;
    let mut argv = vec![me.display().to_string(), "engine".to_owned()];
    for fault in faults {
        argv.extend(["--fault".to_owned(), fault.name().to_owned()]);
    }
    Ok(argv)
}

/// The faults of a planned engine: none, one, or a pair.
pub(super) fn faults_of(planned: &Planned) -> Vec<Fault> {
    planned.fault.into_iter().chain(planned.partner).collect()
}

/// The command of the reference engine with `faults`: the process `argv` names, or,
/// simulated, its loop in this process.
pub(super) fn engine_command(argv: &[String], faults: &[Fault], simulated: bool) -> EngineCommand {
    let command = EngineCommand::new(&argv[0]).args(&argv[1..]);
    if !simulated {
        return command;
    }
    let mut set = usicheck::refengine::faults::FaultSet::none();
    set.extend(faults.iter().copied());
    command.simulated(usicheck::refengine::simulated(
        usicheck::refengine::Config {
            faults: set,
            seed: 1,
            ..Default::default()
        },
    ))
}

pub(super) fn settings(command: EngineCommand, profile: Profile) -> RunSettings {
    let mut settings = RunSettings::new(command, profile);
    let duration = |text| crate::cli::suite::duration_flag("", text).expect("a valid duration");
    settings.timeouts.usiok = duration(USIOK_TIMEOUT);
    settings.timeouts.ready_silence = duration(READY_TIMEOUT);
    settings.timeouts.quit = duration(QUIT_TIMEOUT);
    for claim in usicheck::refengine::CLAIMS {
        settings
            .claims
            .add_rule(*claim)
            .expect("a vendor extension");
    }
    settings
}

pub(super) fn replay(target: &str, profile: Profile, argv: &[String]) -> String {
    let mut words: Vec<String> = [
        "usicheck",
        "run",
        target,
        "--profile",
        profile.as_str(),
        "--usiok-timeout",
        USIOK_TIMEOUT,
        "--ready-timeout",
        READY_TIMEOUT,
        "--quit-timeout",
        QUIT_TIMEOUT,
    ]
    .iter()
    .map(|w| shell_word(w))
    .collect();
    for claim in usicheck::refengine::CLAIMS {
        words.extend(["--claim".to_owned(), claim.to_string()]);
    }
    words.push("--".to_owned());
    words.extend(argv.iter().map(|w| shell_word(w)));
    words.join(" ")
}
