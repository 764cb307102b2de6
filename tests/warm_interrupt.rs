//! An interruption (SIGINT, SIGTERM) that kills a warm engine process under its scenario:
//! the scenario is reported (its caller marks it cut short), not run again in a fresh process
//! the interruption refuses to start. A binary of its own: the interruption is the process's.

mod suite;

use usicheck::rules::Profile;
use usicheck::scenario::load_str;
use usicheck::scenario::runner::{RunSettings, WarmProcess, run_scenario};

#[test]
#[ignore = "slow tier: real engine processes, killed by the interruption"]
fn a_warm_scenario_interrupted_is_reported_not_run_again() {
    let yaml = "name: ready\nrules: [USI-READY-001]\nsteps:\n  - handshake: {}\n  \
                - send: isready\n  - expect: {readyok: true, rule: USI-READY-001}\n";
    let scenario = load_str("ready.yaml", yaml).expect("the scenario loads");
    let settings = RunSettings::new(suite::reference_process(&[]), Profile::Shogidokoro);
    let mut warm = WarmProcess::default();
    let run = |warm: &mut WarmProcess| {
        run_scenario(&scenario, "ready.yaml", &settings, "replay".into(), warm)
    };
    let first = run(&mut warm).expect("the engine starts");
    assert!(first.failure.is_none(), "{:?}", first.failure);
    // Kills the process left warm; later starts are refused.
    usicheck::engine::interrupt(libc::SIGINT);
    let second = run(&mut warm).expect("the warm run is reported, not started again");
    assert!(
        second.failure.is_some(),
        "the killed engine failed its steps"
    );
}
