//! The TCK run against the reference publishers (the streamlets, and the
//! bridges between the two protocols, are in `tck_streamlets.rs`).
//!
//! `cargo test -p reactive-streams-reference --test tck` runs it as plain
//! tests; `cargo xtask tck` runs the same tests one process each and
//! reports rule by rule.

mod publisher_factories;

use publisher_factories::{
    Publishers, async_range, fused_map_filter, futures_mpsc_bridge, simple, stream_iter_bridge,
    thread_pool_range, tokio_stream_bridge,
};
use reactive_streams::{Publisher, Subscriber};
use reactive_streams_reference::{SingleUse, range};
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::publisher_verification;

publisher_verification!(range_publisher, Publishers(|n| range(0, n)));
publisher_verification!(static_range, Publishers(StaticRange));
publisher_verification!(single_use_range, SingleUseRanges);
publisher_verification!(simple_publishers, Publishers(simple));
publisher_verification!(fused_map_filter, Publishers(fused_map_filter));
publisher_verification!(async_publisher, Publishers(async_range));
publisher_verification!(thread_pool_publisher, Publishers(thread_pool_range));

// The futures bridge, over Stream types of well-known crates.
publisher_verification!(stream_iter_bridge, Publishers(stream_iter_bridge));
publisher_verification!(futures_mpsc_bridge, Publishers(futures_mpsc_bridge));
publisher_verification!(tokio_stream_bridge, Publishers(tokio_stream_bridge));

/// `range(0, n)` entered through `IterPublisher::subscribe_static` (the
/// subscriber's own type, here the boxed probe) rather than `subscribe`.
struct StaticRange(u64);

impl Publisher<u64> for StaticRange {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        range(0, self.0).subscribe_static(subscriber);
    }
}

/// `SingleUse` over `range(0, n)`, declared single-subscriber: its second
/// subscriber is rejected (§1.9).
struct SingleUseRanges;

impl PublisherFactory for SingleUseRanges {
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(SingleUse::new(range(0, elements)))
    }

    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Publishers(|n| range(0, n)).create_failed_publisher()
    }

    fn supports_multiple_subscribers(&self) -> bool {
        false
    }

    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}
