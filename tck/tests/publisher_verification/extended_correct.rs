//! Conforming publishers pass the extended verification.

use std::time::Instant;

use reactive_streams::Publisher;
use reactive_streams_tck::outcome::{RuleResult, Verdict};
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::publisher::PublisherVerification;
use reactive_streams_tck::publisher_verification;
use reactive_streams_tck::testkit::AsyncRange;

// The quick corpus's `SyncRanges` declares a failed publisher: schedules
// then also run against it (on_subscribe, on_error).
use crate::correct::SyncRanges;
use crate::flawed::{Flaw, Flawed};

/// `AsyncRange` with no failed publisher declared: its schedules are the
/// ones without `create_failed_publisher` (the quick corpus's `AsyncRanges`
/// declares one).
pub struct AsyncRangesOnly;

impl PublisherFactory for AsyncRangesOnly {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(AsyncRange::new(0, elements))
    }
}

// What a user writes (budget and seed from RS_TCK_* or the defaults).
publisher_verification!(extended sync_range_extended, SyncRanges, "sync_range");
publisher_verification!(extended async_range_extended, AsyncRangesOnly, "async_range");

fn assert_passed(results: &[RuleResult]) {
    for r in results {
        assert_eq!(
            r.verdict,
            Verdict::Passed,
            "{} {}: {:?}",
            r.target,
            r.test,
            r.message
        );
    }
}

fn timed<F: PublisherFactory>(name: &str, factory: F, cases: u64, iterations: u64) {
    let started = Instant::now();
    let results = PublisherVerification::new(factory)
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(cases, iterations))
        .run_extended()
        .unwrap();
    eprintln!(
        "{name}: {cases} schedules, {iterations} stress iterations in {:.0} ms ({})",
        started.elapsed().as_secs_f64() * 1000.0,
        results
            .iter()
            .map(|r| format!("{} {:.0} ms", r.test, r.duration_ms))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_passed(&results);
}

#[test]
fn the_testkit_ranges_pass_1000_schedules() {
    timed("SyncRange", SyncRanges, 1000, 20);
    timed("AsyncRange", AsyncRangesOnly, 1000, 20);
}

#[test]
fn a_flawless_flawed_range_passes() {
    timed("FlawedRange(None)", Flawed(Flaw::None), 300, 20);
}
