//! The TCK's extended verification (generated schedules and scripts,
//! concurrency stress) run against every type of the reference
//! implementation.
//!
//! `cargo test -p reactive-streams-reference --test tck_extended` runs it at
//! the default budget (`RS_TCK_CASES`, `RS_TCK_STRESS_ITERATIONS`);
//! `cargo xtask tck --extended` runs the same tests one process each and
//! reports them.

mod hot_ranges;
mod publisher_factories;
mod subscriber_factories;

use hot_ranges::FreshHotRanges;
use publisher_factories::{
    Publishers, async_range, fused_map_filter, futures_mpsc_bridge, simple, stream_iter_bridge,
    thread_pool_range, tokio_stream_bridge,
};
use reactive_streams::{Publisher, Sink, Source, Subscriber};
use reactive_streams_reference::streamlet::{
    CollectSink, PublisherSource, PullSource, SourcePublisher,
};
use reactive_streams_reference::{
    BufferProcessor, FilterProcessor, IdentityProcessor, MapProcessor, Overflow, range,
};
use reactive_streams_tck::processor::ProcessorFactory;
use reactive_streams_tck::streamlet::sink::SinkFactory;
use reactive_streams_tck::streamlet::source::SourceFactory;
use reactive_streams_tck::{
    processor_verification, publisher_verification, streamlet_sink_verification,
    streamlet_source_verification, subscriber_blackbox_verification,
    subscriber_whitebox_verification,
};

// ---------------------------------------------------------------- publishers

publisher_verification!(extended
    range_publisher_extended,
    Publishers(|n| range(0, n)),
    "range_publisher"
);
publisher_verification!(extended
    simple_publishers_extended,
    Publishers(simple),
    "simple_publishers"
);
publisher_verification!(extended
    fused_map_filter_extended,
    Publishers(fused_map_filter),
    "fused_map_filter"
);
publisher_verification!(extended
    async_publisher_extended,
    Publishers(async_range),
    "async_publisher"
);
publisher_verification!(extended
    thread_pool_publisher_extended,
    Publishers(thread_pool_range),
    "thread_pool_publisher"
);
publisher_verification!(extended
    stream_iter_bridge_extended,
    Publishers(stream_iter_bridge),
    "stream_iter_bridge"
);
publisher_verification!(extended
    futures_mpsc_bridge_extended,
    Publishers(futures_mpsc_bridge),
    "futures_mpsc_bridge"
);
publisher_verification!(extended
    tokio_stream_bridge_extended,
    Publishers(tokio_stream_bridge),
    "tokio_stream_bridge"
);
// A hot publisher (one per subscriber, see `FreshHotRanges`): leases
// parked between pushes meet requests and cancels from other threads.
publisher_verification!(extended
    multicast_publisher_extended,
    FreshHotRanges,
    "multicast_publisher"
);
publisher_verification!(extended
    pull_source_bridge_extended,
    Publishers(|n| SourcePublisher::new(PullSource::new(move || 0..n), 16, Overflow::Error)),
    "pull_source_bridge"
);

// --------------------------------------------------------------- subscribers

use subscriber_factories::{Instrumented, Subscribers, callback, collecting, queued};

subscriber_blackbox_verification!(extended
    callback_subscriber_extended,
    Subscribers(callback),
    "callback_subscriber"
);
subscriber_blackbox_verification!(extended
    queued_subscriber_extended,
    Subscribers(queued),
    "queued_subscriber"
);
subscriber_blackbox_verification!(extended
    collect_subscriber_extended,
    Subscribers(collecting),
    "collect_subscriber"
);
subscriber_whitebox_verification!(extended
    callback_subscriber_whitebox_extended,
    Instrumented(callback),
    "callback_subscriber"
);
// `QueuedSubscriber` is verified blackbox only, as in the quick
// verification (tck_subscribers.rs says why).
subscriber_whitebox_verification!(extended
    collect_subscriber_whitebox_extended,
    Instrumented(collecting),
    "collect_subscriber"
);

// ---------------------------------------------------------------- processors

/// A processor factory from a function making a processor handle, and the
/// processor's prefetch (its declared `max_upstream_demand`).
struct Processors<F> {
    make: F,
    prefetch: u64,
}

impl<F, P> ProcessorFactory for Processors<F>
where
    F: Fn() -> P + Send + Sync + 'static,
    P: Subscriber<u64> + Publisher<u64> + Clone + 'static,
{
    type Input = u64;
    type Output = u64;
    type Processor = P;

    fn create_processor(&self) -> P {
        (self.make)()
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn max_upstream_demand(&self) -> u64 {
        self.prefetch
    }
}

/// Identity, map and filter forward exactly the downstream demand: with
/// one element requested downstream, one is requested upstream.
const FORWARDING: u64 = 1;
/// `BufferProcessor`'s capacity in these tests.
const BUFFER: u64 = 8;

processor_verification!(extended
    identity_processor_extended,
    Processors {
        make: IdentityProcessor::<u64>::new,
        prefetch: FORWARDING
    },
    "identity_processor"
);
processor_verification!(extended
    map_processor_extended,
    Processors {
        make: || MapProcessor::new(|x: u64| x.wrapping_mul(3)),
        prefetch: FORWARDING
    },
    "map_processor"
);
processor_verification!(extended
    map_processor_static_extended,
    Processors {
        make: || MapProcessor::new_static(|x: u64| x.wrapping_mul(3)),
        prefetch: FORWARDING
    },
    "map_processor_static"
);
// A filter that keeps everything: the TCK counts one output per input.
processor_verification!(extended
    filter_processor_extended,
    Processors {
        make: || FilterProcessor::new(|_: &u64| true),
        prefetch: FORWARDING
    },
    "filter_processor"
);
processor_verification!(extended
    filter_processor_static_extended,
    Processors {
        make: || FilterProcessor::new_static(|_: &u64| true),
        prefetch: FORWARDING
    },
    "filter_processor_static"
);

/// `FilterProcessor`s keeping even numbers, declared as such
/// (`passes`): the extended verification counts only the passing inputs
/// (issue 26).
struct EvenFilters<P>(fn() -> P);

impl<P> ProcessorFactory for EvenFilters<P>
where
    P: Subscriber<u64> + Publisher<u64> + Clone + 'static,
{
    type Input = u64;
    type Output = u64;
    type Processor = P;

    fn create_processor(&self) -> P {
        (self.0)()
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn passes(&self, index: u64) -> bool {
        index % 2 == 0
    }

    /// Output `2i` is input `2i`: the verification numbers it `i`, by the
    /// inputs that pass.
    fn element_index(&self, output: &u64) -> Option<u64> {
        Some(*output)
    }

    fn max_upstream_demand(&self) -> u64 {
        FORWARDING
    }
}

fn even(x: &u64) -> bool {
    x % 2 == 0
}

processor_verification!(extended
    filter_evens_processor_extended,
    EvenFilters(|| FilterProcessor::<u64>::new(even)),
    "filter_processor_evens"
);
processor_verification!(extended
    filter_evens_processor_static_extended,
    EvenFilters(|| FilterProcessor::new_static(even as fn(&u64) -> bool)),
    "filter_processor_static_evens"
);
processor_verification!(extended
    buffer_processor_extended,
    Processors {
        make: || BufferProcessor::new(BUFFER),
        prefetch: BUFFER
    },
    "buffer_processor"
);

// ------------------------------------------------------------------ Streamlet

/// Streamlet sources that resume after a restart.
struct Sources<F>(F);

impl<F, S> SourceFactory for Sources<F>
where
    F: Fn(u64) -> S + Send + Sync + 'static,
    S: Source<u64> + 'static,
{
    type Element = u64;

    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        Box::new((self.0)(elements))
    }

    fn supports_restart(&self) -> bool {
        true
    }

    /// Both sources emit `0..n`: element `i` is `i`.
    fn element_index(&self, data: &u64) -> Option<u64> {
        Some(*data)
    }
}

streamlet_source_verification!(extended
    pull_source_extended,
    Sources(|n| PullSource::new(move || 0..n)),
    "pull_source"
);
streamlet_source_verification!(extended
    publisher_source_bridge_extended,
    Sources(|n| PublisherSource::new(range(0, n))),
    "publisher_source_bridge"
);

/// Collecting sinks: all of it, or two and stop.
#[derive(Debug, Clone, Copy)]
enum CollectSinks {
    All,
    TakeTwo,
}

impl SinkFactory for CollectSinks {
    type Element = u64;

    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        match self {
            CollectSinks::All => Box::new(CollectSink::<u64>::new().0),
            CollectSinks::TakeTwo => Box::new(CollectSink::<u64>::take(2).0),
        }
    }

    fn create_element(&self, index: u64) -> u64 {
        index
    }

    fn stops_after(&self) -> Option<u64> {
        match self {
            CollectSinks::All => None,
            CollectSinks::TakeTwo => Some(2),
        }
    }
}

streamlet_sink_verification!(extended collect_sink_extended, CollectSinks::All, "collect_sink");
streamlet_sink_verification!(extended
    take_two_sink_extended,
    CollectSinks::TakeTwo,
    "take_two_sink"
);
