//! The in-process harness against the reference engine: the conformant engine stands every
//! session, and a fault that most sessions provoke panics with its rule.

use arbitrary::{Arbitrary, Unstructured};
use std::panic::{AssertUnwindSafe, catch_unwind};
use usicheck::harness::{self, Harness, Session};
use usicheck::refengine::{self, Config, faults::FaultSet};

/// Sessions as libFuzzer's inputs make them: 0 to 63 bytes of a fixed pseudo-random stream.
fn inputs(count: usize) -> impl Iterator<Item = Session> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count).map(move |_| {
        let len = (next() % 64) as usize;
        let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        Session::arbitrary_take_rest(Unstructured::new(&data)).expect("any bytes are a session")
    })
}

fn engine(faults: FaultSet) -> impl Fn(harness::EngineInput, harness::EngineOutput) -> i32 {
    move |input, output| {
        let config = Config {
            faults: faults.clone(),
            ..Config::default()
        };
        refengine::usi_loop(config, input, output)
    }
}

#[test]
#[ignore = "slow tier: real-time sessions of the in-process engine"]
fn the_reference_engine_stands_every_session() {
    let harness = Harness::default();
    for session in inputs(150) {
        if let Err(finding) = harness.check(&session, engine(FaultSet::none())) {
            panic!("{session:?}\n{finding}");
        }
    }
    assert_eq!(harness::left_running(), 0);
}

#[test]
fn an_illegal_bestmove_panics_with_its_rule_and_a_reproducer() {
    let faults = FaultSet::from_names(["illegal-bestmove"]).expect("a known fault");
    let found = inputs(40).find_map(|session| {
        catch_unwind(AssertUnwindSafe(|| {
            harness::fuzz(&session, engine(faults.clone()))
        }))
        .err()
    });
    let payload = found.expect("some session finds the fault");
    let message = payload
        .downcast_ref::<String>()
        .expect("the finding is a formatted message");
    assert!(message.contains("USI-BESTMOVE-002"), "{message}");
    assert!(message.contains("rules: [USI-BESTMOVE-002"), "{message}");
    let (_, yaml) = message
        .split_once('\n')
        .expect("the reproducer follows the rule");
    usicheck::scenario::load_str("finding.yaml", yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
}

#[test]
#[should_panic(expected = "option name `Clear Hash` must be one token")]
fn an_option_name_the_reproducer_could_not_set_is_refused() {
    let _ = Harness::default().option("Clear Hash", None);
}

/// The cores the calling thread may run on.
#[cfg(target_os = "linux")]
fn allowed_cores() -> usize {
    // SAFETY: the set is a plain bit array that `sched_getaffinity` fills.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set),
            0
        );
        libc::CPU_COUNT(&set) as usize
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_session_runs_the_engine_on_the_harness_core_unless_told_otherwise() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let everywhere = allowed_cores();
    let run = |harness: Harness| {
        let seen = Arc::new(AtomicUsize::new(0));
        let seen_by_engine = Arc::clone(&seen);
        let result = harness.check(&Session::from_seeds([7]), move |input, output| {
            // What a thread the engine starts (a search, a reader) may use.
            let cores = std::thread::spawn(allowed_cores).join().unwrap();
            seen_by_engine.store(cores, Ordering::SeqCst);
            refengine::usi_loop(Config::default(), input, output)
        });
        assert!(result.is_ok(), "{}", result.unwrap_err());
        assert_eq!(
            allowed_cores(),
            everywhere,
            "the harness thread gets its cores back"
        );
        seen.load(Ordering::SeqCst)
    };
    assert_eq!(run(Harness::default()), 1);
    assert_eq!(run(Harness::default().one_core(false)), everywhere);
}

/// Sessions a campaign and its unsteered counterpart drive.
const CAMPAIGN_SESSIONS: u64 = 40;

/// A campaign (the steered generator of `usicheck fuzz`) exercises more of the protocol-state
/// table than as many cargo-fuzz sessions of as many episodes drawn as they come.
#[test]
#[ignore = "slow tier: real-time sessions of the in-process engine"]
fn a_campaign_is_steered_to_more_cells_than_unsteered_sessions() {
    let steered = Harness::default().campaign(7, CAMPAIGN_SESSIONS, engine(FaultSet::none()));
    assert!(steered.findings.is_empty(), "{:#?}", steered.findings);
    assert_eq!(steered.sessions, CAMPAIGN_SESSIONS);
    let unsteered = Harness::default();
    for index in 0..CAMPAIGN_SESSIONS as u32 {
        let seeds = (0..Session::MAX_EPISODES as u32).map(|e| index * 100 + e);
        let session = Session::from_seeds(seeds);
        if let Err(finding) = unsteered.check(&session, engine(FaultSet::none())) {
            panic!("{finding}");
        }
    }
    let (steered_cells, reachable) = steered.coverage.reached();
    let (unsteered_cells, _) = unsteered.coverage().reached();
    assert!(
        steered_cells > unsteered_cells,
        "steered {steered_cells}, unsteered {unsteered_cells} of {reachable}"
    );
}

/// A campaign finds a fault, once: later sessions count it as known and explore past it.
#[test]
#[ignore = "slow tier: real-time sessions of the in-process engine"]
fn a_campaign_finds_a_fault_once_and_goes_on() {
    let faults = FaultSet::from_names(["illegal-ponder"]).unwrap();
    let harness = Harness::default();
    let campaign = harness.campaign(7, CAMPAIGN_SESSIONS, engine(faults));
    let rules: Vec<_> = campaign
        .findings
        .iter()
        .map(|f| f.violation.rule.as_str())
        .collect();
    assert_eq!(rules, ["USI-PONDER-001"], "{:#?}", campaign.findings);
    assert!(campaign.known > 0, "the fault met again is counted");
    assert_eq!(campaign.sessions, CAMPAIGN_SESSIONS);
    assert_eq!(harness.coverage(), campaign.coverage);
}
