//! The reference engine fuzzed in-process through `usicheck::harness`, as an engine author's
//! own target would be (see fuzz/README.md). `USICHECK_FAULTS=name,name` switches on
//! `usicheck engine --fault`s: the proof that the harness finds what they break.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;
use usicheck::harness::{Harness, Session};
use usicheck::refengine::{Config, faults::FaultSet, usi_loop};

static CONFIG: LazyLock<Config> = LazyLock::new(|| {
    let names = std::env::var("USICHECK_FAULTS").unwrap_or_default();
    let faults = FaultSet::from_names(names.split(',').filter(|name| !name.is_empty()));
    Config {
        faults: faults.unwrap_or_else(|error| panic!("USICHECK_FAULTS: {error}")),
        ..Config::default()
    }
});

static HARNESS: LazyLock<Harness> =
    LazyLock::new(|| Harness::default().option("USI_Hash", Some("1")));

fuzz_target!(|session: Session| {
    HARNESS.fuzz(&session, |input, output| {
        usi_loop(CONFIG.clone(), input, output)
    });
});
