//! Conforming publishers pass every rule, through the macro and through
//! `run_all`.

use reactive_streams_tck::publisher::PublisherVerification;
use reactive_streams_tck::publisher_verification;
pub use reactive_streams_tck::testkit::{AsyncRanges, SyncRanges};

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
