//! SIGINT and SIGTERM during a run: the first one stops every engine (no new one starts) so
//! the run ends with the reports of what finished; a second one exits at once.

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// Starts the thread that turns SIGINT/SIGTERM into [`usicheck::engine::interrupt`].
pub fn install() -> Result<(), String> {
    let mut signals =
        Signals::new([SIGINT, SIGTERM]).map_err(|e| format!("cannot handle signals: {e}"))?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if usicheck::engine::interrupted().is_some() {
                    eprintln!("usicheck: {} again: exiting now", name(signal));
                    std::process::exit(exit_code(signal).into());
                }
                eprintln!(
                    "usicheck: {}: stopping the engines; the reports cover what finished \
                     ({} again to exit at once)",
                    name(signal),
                    name(signal)
                );
                usicheck::engine::interrupt(signal);
            }
        })
        .map(drop)
        .map_err(|e| format!("cannot handle signals: {e}"))
}

/// `SIGINT`, `SIGTERM`, or `signal N`.
pub fn name(signal: i32) -> String {
    match signal {
        SIGINT => "SIGINT".to_owned(),
        SIGTERM => "SIGTERM".to_owned(),
        other => format!("signal {other}"),
    }
}

/// The shell's code for death by `signal` (130 for SIGINT, 143 for SIGTERM).
pub fn exit_code(signal: i32) -> u8 {
    u8::try_from(128 + signal).unwrap_or(u8::MAX)
}

/// `report` as it stands, or [cut short](usicheck::report::ScenarioReport::cut_short) when
/// the run was interrupted (its engine may have been killed mid-way).
pub fn cut_if_interrupted(
    report: usicheck::report::ScenarioReport,
) -> usicheck::report::ScenarioReport {
    match interrupted() {
        Some(signal) => report.cut_short(&signal),
        None => report,
    }
}

/// The interrupting signal's name, if the run was interrupted.
pub fn interrupted() -> Option<String> {
    usicheck::engine::interrupted().map(name)
}
