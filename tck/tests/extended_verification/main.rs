//! Self-tests of the extended verification: conforming publishers pass it;
//! publishers broken in ways only a generated schedule or concurrency shows
//! pass the quick verification and fail the extended one, with a readable,
//! shrunk counterexample.

mod caught;
mod conforming;
mod flawed;
mod processors;
mod streamlets;
mod subscribers;

use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::extended::ExtendedConfig;

/// Fixed seeds, so every result here is stable.
pub const SEED: u64 = 0x5EED;

/// Timing for the self-tests: the defaults, but a shorter no-signal window
/// (the extended verification waits one per open schedule).
pub fn env() -> TestEnv {
    TestEnv::builder()
        .no_signal_timeout(std::time::Duration::from_millis(5))
        .build()
}

/// A budget with a fixed seed.
pub fn config(cases: u64, stress_iterations: u64) -> ExtendedConfig {
    ExtendedConfig::builder()
        .cases(cases)
        .stress_iterations(stress_iterations)
        .seed(SEED)
        .build()
}
