// The verification macros compose: each one invoked at the crate root,
// inside a user's module (one module per type), several times in one
// module under different names, and deep in nested modules, with factory
// expressions naming a private item, a module-local import, an item named
// like the verification, a `self::`/`super::` path or a `crate::` path.
// The macros generate self-contained code (`$crate::` paths, the factory
// named by path, no glob import from `super`). This file compiling is the
// proof; its generated tests run fast conforming implementations.
// `examples/macro_placement.rs` includes it, so `cargo test` (which builds
// examples) also builds it as a program outside the test harness (hence
// `main`), where the generated `#[test]` functions are left out. Plain
// comments, not `//!`: an `include!`d file cannot have inner attributes.

// Its generated tests mostly wait on no-signal windows: more of them at
// once (left out of the example build, which has no test harness).
#[cfg(test)]
#[path = "support/test_threads.rs"]
mod test_threads;

use std::pin::Pin;
use std::task::{Context, Poll};

use reactive_streams::done::Tracked;
use reactive_streams::{Publisher, Sink, Source, Subscriber};
use reactive_streams_tck::futures::stream::StreamFactory;
use reactive_streams_tck::lifecycle::LifecycleFactory;
use reactive_streams_tck::processor::ProcessorFactory;
use reactive_streams_tck::processor::testkit::IdentityProcessor;
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::streamlet::sink::SinkFactory;
use reactive_streams_tck::streamlet::source::SourceFactory;
use reactive_streams_tck::streamlet::testkit::{PullRange, TakeN};
use reactive_streams_tck::subscriber::testkit::Greedy;
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxFactory, SubscriberWhiteboxFactory, WhiteboxProbe,
};
use reactive_streams_tck::testkit::{Failing, SyncRange};
use reactive_streams_tck::{
    datum_lifecycle_verification, processor_verification, publisher_verification,
    streamlet_sink_verification, streamlet_source_verification, subscriber_blackbox_verification,
    subscriber_whitebox_verification,
};

/// A conforming range; `start` tells the placements apart.
pub struct Ranges(pub u64);

impl PublisherFactory for Ranges {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(SyncRange::new(self.0, elements))
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(Failing::new("failed on purpose")))
    }
}

/// Identity processors.
pub struct Identities;

impl ProcessorFactory for Identities {
    type Input = u64;
    type Output = u64;
    type Processor = IdentityProcessor<u64>;
    fn create_processor(&self) -> IdentityProcessor<u64> {
        IdentityProcessor::new()
    }
    fn input(&self, index: u64) -> u64 {
        index
    }
    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

/// Synchronous subscribers, blackbox and whitebox.
pub struct Greedies;

impl SubscriberBlackboxFactory for Greedies {
    type Element = u64;
    type Subscriber = Greedy;
    fn create_subscriber(&self) -> Greedy {
        Greedy::new(4)
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
}

impl SubscriberWhiteboxFactory for Greedies {
    type Element = u64;
    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(probe.wrap(Greedy::new(4)))
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
}

/// Pulled ranges (Streamlet sources).
pub struct PullRanges;

impl SourceFactory for PullRanges {
    type Element = u64;
    fn create_source(&self, n: u64) -> Box<dyn Source<u64>> {
        Box::new(PullRange::new(n))
    }
}

/// Sinks taking five (Streamlet sinks).
pub struct TakeFive;

impl SinkFactory for TakeFive {
    type Element = u64;
    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        Box::new(TakeN::new(5, true))
    }
    fn create_element(&self, index: u64) -> u64 {
        index
    }
    fn stops_after(&self) -> Option<u64> {
        Some(5)
    }
}

/// The input itself (datum lifecycle).
pub struct Wire;

impl LifecycleFactory for Wire {
    type Output = Tracked<u64>;
    fn create_stage(
        &self,
        mut inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<Tracked<u64>>> {
        inputs.remove(0)
    }
}

/// `1..=n`, always ready (`futures::Stream`).
pub struct Count(u64, u64);

impl futures::Stream for Count {
    type Item = u64;
    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<u64>> {
        let this = self.get_mut();
        Poll::Ready((this.0 < this.1).then(|| {
            this.0 += 1;
            this.0
        }))
    }
}

/// Makes [`Count`]s.
pub struct Counts;

impl StreamFactory for Counts {
    type Item = u64;
    type Stream = Count;
    fn create_stream(&self, items: u64) -> Count {
        Count(0, items)
    }
}

// Every macro at the crate root.
publisher_verification!(at_the_root, Ranges(0));
publisher_verification!(extended at_the_root_extended, Ranges(0), "at_the_root");
processor_verification!(identity, Identities);
processor_verification!(extended identity_extended, Identities, "identity");
subscriber_blackbox_verification!(greedy, Greedies);
subscriber_blackbox_verification!(extended greedy_extended, Greedies, "greedy");
subscriber_whitebox_verification!(greedy_whitebox, Greedies);
subscriber_whitebox_verification!(extended greedy_whitebox_extended, Greedies);
streamlet_source_verification!(pull_range, PullRanges);
streamlet_source_verification!(extended pull_range_extended, PullRanges);
streamlet_sink_verification!(take_five, TakeFive);
streamlet_sink_verification!(extended take_five_extended, TakeFive);
datum_lifecycle_verification!(wire, Wire);
reactive_streams_tck::stream_verification!(count, Counts);
reactive_streams_tck::sink_verification!(unbounded_sender, UnboundedSenders);
reactive_streams_tck::stream_adapter_verification!(pass_through, PassThrough);

/// A stream adapter: the inner stream itself.
pub struct PassThrough;

impl reactive_streams_tck::futures::adapter::AdapterFactory for PassThrough {
    type Item = u64;
    type Adapter = reactive_streams_tck::futures::adapter::Inner;
    fn create_adapter(
        &self,
        mut inner: Vec<reactive_streams_tck::futures::adapter::Inner>,
    ) -> Self::Adapter {
        inner.remove(0)
    }
}

/// A `futures::Sink`: the unbounded mpsc sender, its receiver the delivery side.
struct UnboundedSenders;

impl reactive_streams_tck::futures::sink::FuturesSinkFactory for UnboundedSenders {
    type Error = futures::channel::mpsc::SendError;
    type Sink = futures::channel::mpsc::UnboundedSender<u64>;
    fn create_sink(&self) -> (Self::Sink, reactive_streams_tck::futures::sink::Delivery) {
        let (sender, mut receiver) = futures::channel::mpsc::unbounded();
        let delivery =
            reactive_streams_tck::futures::sink::Delivery::new(move || receiver.try_recv().ok());
        (sender, delivery)
    }
    fn never_waits(&self) -> bool {
        true
    }
}

/// One module per verified type, its factory made by a private function
/// named like the verification.
mod per_type {
    fn range() -> crate::Ranges {
        crate::Ranges(10)
    }

    reactive_streams_tck::publisher_verification!(range, range());

    fn counts() -> crate::Counts {
        crate::Counts
    }

    reactive_streams_tck::stream_verification!(counts, counts());

    fn senders() -> crate::UnboundedSenders {
        crate::UnboundedSenders
    }

    reactive_streams_tck::sink_verification!(senders, senders());
}

/// Every macro inside a module, twice under different names, with factories
/// named through `super::`, `self::`, `crate::` paths and a private constant.
mod several {
    use super::Identities;

    const NAME: &str = "several::second";

    struct Local;

    impl reactive_streams_tck::lifecycle::LifecycleFactory for Local {
        type Output = reactive_streams::done::Tracked<u64>;
        fn create_stage(
            &self,
            inputs: Vec<Box<dyn reactive_streams::Publisher<Self::Output>>>,
        ) -> Box<dyn reactive_streams::Publisher<Self::Output>> {
            crate::Wire.create_stage(inputs)
        }
    }

    use reactive_streams_tck::*;

    publisher_verification!(first, crate::Ranges(20));
    publisher_verification!(second, super::Ranges(30), NAME);
    publisher_verification!(extended first_extended, crate::Ranges(20), "first");
    publisher_verification!(extended second_extended, super::Ranges(30), NAME);
    processor_verification!(first_processor, Identities);
    processor_verification!(second_processor, crate::Identities, NAME);
    processor_verification!(extended first_processor_extended, Identities);
    processor_verification!(extended second_processor_extended, super::Identities);
    subscriber_blackbox_verification!(first_blackbox, crate::Greedies);
    subscriber_blackbox_verification!(second_blackbox, super::Greedies, NAME);
    subscriber_blackbox_verification!(extended first_blackbox_extended, crate::Greedies);
    subscriber_blackbox_verification!(extended second_blackbox_extended, super::Greedies);
    subscriber_whitebox_verification!(first_whitebox, crate::Greedies);
    subscriber_whitebox_verification!(second_whitebox, super::Greedies, NAME);
    subscriber_whitebox_verification!(extended first_whitebox_extended, crate::Greedies);
    subscriber_whitebox_verification!(extended second_whitebox_extended, super::Greedies);
    streamlet_source_verification!(first_source, crate::PullRanges);
    streamlet_source_verification!(second_source, super::PullRanges, NAME);
    streamlet_source_verification!(extended first_source_extended, crate::PullRanges);
    streamlet_source_verification!(extended second_source_extended, super::PullRanges);
    streamlet_sink_verification!(first_sink, crate::TakeFive);
    streamlet_sink_verification!(second_sink, super::TakeFive, NAME);
    streamlet_sink_verification!(extended first_sink_extended, crate::TakeFive);
    streamlet_sink_verification!(extended second_sink_extended, super::TakeFive);
    datum_lifecycle_verification!(first_lifecycle, self::Local);
    datum_lifecycle_verification!(second_lifecycle, Local, NAME);
    stream_verification!(first_stream, crate::Counts);
    stream_verification!(second_stream, super::Counts, "several::second_stream");
    sink_verification!(first_futures_sink, crate::UnboundedSenders);
    sink_verification!(second_futures_sink, super::UnboundedSenders, NAME);
    stream_adapter_verification!(first_adapter, crate::PassThrough);
    stream_adapter_verification!(second_adapter, super::PassThrough, NAME);

    /// Deeper still, with the factory brought in by a module-local import,
    /// and a deprecated `*_extended_verification!` alias still compiling.
    #[allow(deprecated)]
    mod nested {
        use crate::Ranges as Imported;

        reactive_streams_tck::publisher_verification!(third, Imported(40));
        reactive_streams_tck::processor_extended_verification!(third_processor, super::Identities);
    }
}

/// What `examples/macro_placement.rs` runs; the test harness ignores it.
#[allow(dead_code)]
fn main() {}
