//! The timing the subscriber and processor self-tests share.

#![allow(dead_code)]

use std::time::Duration;

use reactive_streams_tck::env::TestEnv;

/// For broken implementations: a generous no-signal window, so that a
/// misbehaving thread always gets the time to show itself, even on a
/// loaded machine. Messages do not depend on it.
pub fn patient() -> TestEnv {
    TestEnv::builder()
        .no_signal_timeout(Duration::from_millis(200))
        .timeout(Duration::from_millis(1000))
        .build()
}

/// For conforming implementations: a long presence timeout (a passing test
/// never waits for it), so a starved thread on a loaded machine is waited
/// for.
pub fn generous() -> TestEnv {
    TestEnv::builder().timeout(Duration::from_secs(5)).build()
}
