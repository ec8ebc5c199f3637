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
use reactive_streams::{Publisher, StreamError, Subscriber};
use reactive_streams_reference::{
    FilterProcessor, IdentityProcessor, MapProcessor, SingleUse, failed, range,
};
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

// Processors fed by a synchronous upstream: the processor is the publisher
// under test.
publisher_verification!(
    identity_processor_over_range,
    OverRange::new(IdentityProcessor::<u64>::new)
);
publisher_verification!(
    map_processor_over_range,
    OverRange {
        divisor: 3,
        ..OverRange::new(|| MapProcessor::new(|x: u64| x.wrapping_mul(3)))
    }
);
publisher_verification!(
    filter_processor_over_range,
    OverRange {
        inputs_per_output: 2,
        divisor: 2,
        ..OverRange::new(|| FilterProcessor::<u64>::new(|x: &u64| x % 2 == 1))
    }
);

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

/// A processor with `range` subscribed to it as its upstream when it is
/// made, so the processor, the publisher under test, is fed synchronously:
/// `range` delivers from inside the `request` the processor makes of it,
/// and a downstream `request` made from inside `on_next` comes back on the
/// thread inside that call (the pass-through's re-entrant path, which the
/// TCK's own upstreams of a processor never take). The failed publisher is
/// the processor fed by `failed`.
///
/// The filter keeps the odd inputs of `0..2n`, so its last input is one it
/// keeps and upstream's end is found with the last output, as with the
/// others.
struct OverRange<P> {
    processor: fn() -> P,
    /// Upstream elements for each output (2 for a filter keeping half).
    inputs_per_output: u64,
    /// An output divided by this is its index.
    divisor: u64,
}

impl<P> OverRange<P> {
    fn new(processor: fn() -> P) -> Self {
        OverRange {
            processor,
            inputs_per_output: 1,
            divisor: 1,
        }
    }
}

impl<P> PublisherFactory for OverRange<P>
where
    P: Subscriber<u64> + Publisher<u64> + Clone + 'static,
{
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        let processor = (self.processor)();
        let inputs = elements.saturating_mul(self.inputs_per_output);
        range(0, inputs).subscribe(Box::new(processor.clone()));
        Box::new(processor)
    }

    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        let processor = (self.processor)();
        failed::<u64>(StreamError::msg("the upstream failed"))
            .subscribe(Box::new(processor.clone()));
        Some(Box::new(processor))
    }

    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element / self.divisor)
    }
}
