//! Slow is not broken (issue 26): a subscriber, written from the rule
//! texts, whose first `on_next` takes 2 s (a cold cache being filled)
//! and which then behaves. Nothing in §2 bounds how long a signal method
//! may take (§2.2 only recommends dispatching asynchronously), so it
//! passes its whole blackbox and whitebox verification, quick and
//! extended, with the default timing: waits that follow the slow call are
//! measured from when it returned, and the watchdog waits for a call still
//! running.

use std::sync::Arc;
use std::time::Duration;

use reactive_streams::{StreamError, Subscriber, Subscription};
use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::subscriber::testkit::Greedy;
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxVerification, SubscriberWhiteboxVerification, WhiteboxProbe,
};

use crate::factories::{Blackbox, Whitebox};

/// How long the first `on_next` takes.
const SLOW_NEXT: Duration = Duration::from_secs(2);

/// A greedy subscriber whose first `on_next` takes [`SLOW_NEXT`].
pub struct SlowFirstNext {
    inner: Greedy,
    slow: bool,
}

impl SlowFirstNext {
    pub fn new() -> Self {
        SlowFirstNext {
            inner: Greedy::new(4),
            slow: true,
        }
    }
}

impl Subscriber<u64> for SlowFirstNext {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.inner.on_subscribe(subscription)
    }

    fn on_next(&mut self, element: u64) {
        if std::mem::take(&mut self.slow) {
            // The subscriber's own slowness, not a synchronisation.
            std::thread::sleep(SLOW_NEXT);
        }
        self.inner.on_next(element)
    }

    fn on_error(&mut self, error: StreamError) {
        self.inner.on_error(error)
    }

    fn on_complete(&mut self) {
        self.inner.on_complete()
    }
}

fn whitebox() -> Whitebox {
    Whitebox(|probe: WhiteboxProbe<u64>| Box::new(probe.wrap(SlowFirstNext::new())))
}

/// Every test passes or skips with its reason; no violation anywhere.
#[track_caller]
fn accepted(name: &str, results: &[RuleResult]) {
    crate::verdicts::assert_passed_or_skipped_with_reason(name, results);
    for r in results {
        assert!(
            r.violations.is_empty(),
            "{name} {}: {:#?}",
            r.test,
            r.violations
        );
    }
}

#[test]
fn a_subscriber_whose_first_on_next_takes_seconds_passes_blackbox() {
    let factory = || Blackbox::new(SlowFirstNext::new);
    accepted(
        "quick",
        &SubscriberBlackboxVerification::new(factory())
            .run_all()
            .unwrap(),
    );
    accepted(
        "extended",
        &SubscriberBlackboxVerification::new(factory())
            .extended(crate::extended::config(32, 4))
            .run_extended()
            .unwrap(),
    );
}

#[test]
fn a_subscriber_whose_first_on_next_takes_seconds_passes_whitebox() {
    accepted(
        "quick",
        &SubscriberWhiteboxVerification::new(whitebox())
            .run_all()
            .unwrap(),
    );
    accepted(
        "extended",
        &SubscriberWhiteboxVerification::new(whitebox())
            .extended(crate::extended::config(32, 4))
            .run_extended()
            .unwrap(),
    );
}
