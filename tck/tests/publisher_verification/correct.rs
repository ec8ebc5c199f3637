//! Conforming publishers pass every rule, through the macro and through
//! `run_all`.

use reactive_streams::Publisher;
use reactive_streams_tck::publisher::{PublisherFactory, PublisherVerification};
use reactive_streams_tck::publisher_verification;
use reactive_streams_tck::testkit::{AsyncRange, Failing, SyncRange};

pub struct SyncRanges;

impl PublisherFactory for SyncRanges {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(SyncRange::new(0, elements))
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(Failing::new("failed on purpose")))
    }
}

pub struct AsyncRanges;

impl PublisherFactory for AsyncRanges {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(AsyncRange::new(0, elements))
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(Failing::new("failed on purpose")))
    }
}

publisher_verification!(sync_range, SyncRanges);
publisher_verification!(async_range, AsyncRanges, "AsyncRange");

#[test]
fn run_all_passes_both_ranges() {
    for results in [
        PublisherVerification::new(SyncRanges).run_all().unwrap(),
        PublisherVerification::new(AsyncRanges).run_all().unwrap(),
    ] {
        for r in &results {
            eprintln!(
                "{} {} {:?} {:.1}ms {:?}",
                r.target, r.test, r.verdict, r.duration_ms, r.message
            );
        }
        crate::verdicts::assert_none_broken(&results, "a conforming publisher broke rules");
    }
}
