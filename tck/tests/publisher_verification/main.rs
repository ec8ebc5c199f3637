//! Self-tests of the publisher verification: conforming publishers pass
//! every rule; each deliberately broken publisher fails the rules it breaks,
//! with the intended message.
//!
//! The extended verification's self-tests sit beside them
//! (`extended_*.rs`): conforming implementations pass it; ones broken in
//! ways only a generated schedule or concurrency shows pass the quick
//! verification and fail the extended one, with a readable, shrunk
//! counterexample.

mod blind_spots;
mod broken;
mod configuration;
mod correct;
mod declarations;
mod exact_delivery;
#[path = "../support/extended.rs"]
mod extended;
mod extended_broken;
mod extended_correct;
mod extended_identity;
mod extended_unusual;
mod faulty;
mod flawed;
mod lax;
mod many_parties;
mod unusual;
#[path = "../support/verdicts.rs"]
mod verdicts;

use std::time::Duration;

use reactive_streams_tck::env::TestEnv;

/// The self-tests' timing: short enough to keep the corpus fast, long
/// enough that a loaded machine never turns a pass into a failure.
pub fn self_test_env() -> TestEnv {
    TestEnv::builder()
        .timeout(Duration::from_millis(1000))
        .no_signal_timeout(Duration::from_millis(15))
        .watchdog(Duration::from_millis(3000))
        .prompt(Duration::from_millis(100))
        .build()
}
#[path = "../support/test_threads.rs"]
mod test_threads;
