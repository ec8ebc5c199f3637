//! The TCK's subscriber and processor verifications run against the
//! reference implementation.

mod subscriber_factories;

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use reactive_streams::{Publisher, Sink, Source, StreamError, Subscriber, Talkback};
use reactive_streams_reference::streamlet::PublisherSource;
use reactive_streams_reference::{
    BufferProcessor, FilterProcessor, IdentityProcessor, MapProcessor, PublisherStream,
    QueuedSubscriber,
};
use reactive_streams_tck::processor::ProcessorFactory;
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxFactory, SubscriberWhiteboxFactory, WhiteboxProbe,
};
use reactive_streams_tck::{
    processor_verification, subscriber_blackbox_verification, subscriber_whitebox_verification,
};

use subscriber_factories::{Instrumented, Subscribers, callback, collecting, queued};

subscriber_blackbox_verification!(callback_subscriber, Subscribers(callback));
subscriber_blackbox_verification!(queued_subscriber, Subscribers(queued));
subscriber_blackbox_verification!(collect_subscriber, Subscribers(collecting));
subscriber_whitebox_verification!(
    callback_subscriber_whitebox,
    Instrumented(callback),
    "callback_subscriber"
);
subscriber_whitebox_verification!(
    collect_subscriber_whitebox,
    Instrumented(collecting),
    "collect_subscriber"
);

// ---- The bridges' inlets: the subscriber side of PublisherSource and PublisherStream ----
//
// Both bridges subscribe upstream with a private subscriber (their inlet).
// To verify it, the factory gives the bridge a publisher that hands over
// the subscriber it is given, and drives the bridge's other side the way a
// consumer that wants `k` elements would; the TCK is then the inlet's
// publisher. Without these, no probe watches what the inlets (and the
// `SerialUpstream` behind them) do to their subscription: the verified
// bridges are built over the reference's own `range`.

/// A publisher that keeps the subscriber it is given for the factory.
#[derive(Clone, Default)]
struct Handover(Arc<Mutex<Option<Box<dyn Subscriber<u64>>>>>);

impl Publisher<u64> for Handover {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        *self.0.lock().unwrap() = Some(subscriber);
    }
}

impl Handover {
    fn take(&self) -> Box<dyn Subscriber<u64>> {
        self.0
            .lock()
            .unwrap()
            .take()
            .expect("the bridge subscribes as it is made")
    }
}

/// A sink that starts, pulls one datum at a time and, with the `k`-th,
/// stops with a reason: it needs nothing more.
struct Takes {
    k: u64,
    taken: u64,
    talkback: Option<Arc<dyn Talkback>>,
}

impl Sink<u64> for Takes {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        talkback.start();
        talkback.request();
        self.talkback = Some(talkback);
    }

    fn receive(&mut self, _: u64) {
        self.taken += 1;
        if self.taken < self.k {
            if let Some(talkback) = &self.talkback {
                talkback.request();
            }
        } else if let Some(talkback) = self.talkback.take() {
            talkback.stop(Some(StreamError::msg("took what it wanted")));
        }
    }

    fn end(&mut self, _: Option<StreamError>) {
        self.talkback = None;
    }
}

/// `PublisherSource`'s inlet, its sink taking `k` data.
struct SourceInlets {
    k: u64,
}

impl SubscriberBlackboxFactory for SourceInlets {
    type Element = u64;
    type Subscriber = Box<dyn Subscriber<u64>>;

    fn create_subscriber(&self) -> Box<dyn Subscriber<u64>> {
        let upstream = Handover::default();
        PublisherSource::new(upstream.clone()).connect(Box::new(Takes {
            k: self.k,
            taken: 0,
            talkback: None,
        }));
        upstream.take()
    }

    fn element(&self, index: u64) -> u64 {
        index
    }

    fn stops_after(&self) -> Option<u64> {
        Some(self.k)
    }
}

/// `PublisherStream`'s inlet, a thread taking `k` items of the stream and
/// then dropping it.
struct StreamInlets {
    batch: u64,
    k: u64,
}

impl SubscriberBlackboxFactory for StreamInlets {
    type Element = u64;
    type Subscriber = Box<dyn Subscriber<u64>>;

    fn create_subscriber(&self) -> Box<dyn Subscriber<u64>> {
        let upstream = Handover::default();
        let stream = PublisherStream::new(&upstream, self.batch);
        let k = self.k as usize;
        // Ends with the k-th item or the stream's end; a scenario that ends
        // neither (none does) would leave it waiting, harmlessly.
        std::thread::spawn(move || {
            futures::executor::block_on(stream.take(k).for_each(|_| std::future::ready(())));
        });
        upstream.take()
    }

    fn element(&self, index: u64) -> u64 {
        index
    }

    fn stops_after(&self) -> Option<u64> {
        Some(self.k)
    }
}

subscriber_blackbox_verification!(publisher_source_inlet, SourceInlets { k: 3 });
subscriber_blackbox_verification!(publisher_stream_inlet, StreamInlets { batch: 4, k: 6 });

// ---- end of the bridges' inlets ----

// ---- QueuedSubscriber, whitebox: instrumented from its worker thread ----
//
// `WhiteboxProbe::wrap` would report each signal when it is handed over,
// but the worker requests when it *processes* signals: a request it still
// had under way when `on_complete` was handed over would count as made
// after the terminal signal. So the probe hears from the worker itself:
// the handler reports each signal as the worker processes it, and the
// subscription is registered once the worker has made its first request.

/// `QueuedSubscriber`s reporting to the whitebox probe from their worker.
struct QueuedFromWorker;

impl SubscriberWhiteboxFactory for QueuedFromWorker {
    type Element = u64;

    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        let registrar = probe.clone();
        let (subscriber, _worker) = QueuedSubscriber::spawn_observed(
            4,
            move |subscription| registrar.registered(subscription),
            move |signal| {
                use reactive_streams_reference::Signal;
                match signal {
                    Signal::Next(element) => probe.received_next(&element),
                    Signal::Error(error) => probe.received_error(&error),
                    Signal::Complete => probe.received_complete(),
                }
            },
        );
        Box::new(subscriber)
    }

    fn element(&self, index: u64) -> u64 {
        index
    }
}

subscriber_whitebox_verification!(
    queued_subscriber_whitebox,
    QueuedFromWorker,
    "queued_subscriber"
);
// Generated signal scripts, from the publisher's seat.
reactive_streams_tck::subscriber_whitebox_verification!(extended
    queued_subscriber_whitebox_extended,
    QueuedFromWorker,
    "queued_subscriber"
);

// ---- end of QueuedSubscriber, whitebox ----

/// A processor factory from a function making a processor handle, the
/// factor its outputs are scaled by (1: they are their inputs), and its
/// prefetch (its declared `max_upstream_demand`).
struct Processors<F>(F, u64, u64);

impl<F, P> ProcessorFactory for Processors<F>
where
    F: Fn() -> P + Send + Sync + 'static,
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

    /// Input `i` is `i`, and an output is its input times the factor.
    fn element_index(&self, output: &u64) -> Option<u64> {
        Some(*output / self.1)
    }

    fn max_upstream_demand(&self) -> u64 {
        self.2
    }
}

/// Identity, map and filter ask upstream for exactly the downstream
/// demand (a filter also for a replacement of each input it drops).
const FORWARDING: u64 = 0;
/// `BufferProcessor`'s capacity in these tests.
const BUFFER: u64 = 8;

processor_verification!(
    identity_processor,
    Processors(IdentityProcessor::<u64>::new, 1, FORWARDING)
);
processor_verification!(
    map_processor,
    Processors(
        || MapProcessor::new(|x: u64| x.wrapping_mul(3)),
        3,
        FORWARDING
    )
);
processor_verification!(
    map_processor_static,
    Processors(
        || MapProcessor::new_static(|x: u64| x.wrapping_mul(3)),
        3,
        FORWARDING
    )
);
processor_verification!(
    buffer_processor,
    Processors(|| BufferProcessor::<u64>::new(BUFFER), 1, BUFFER)
);

// ---- FilterProcessor: a filter declares which inputs pass ----

/// `FilterProcessor`s keeping even numbers, made by the function it holds;
/// input `i` is `i`.
struct EvenFilters<P>(fn() -> P);

impl<P> ProcessorFactory for EvenFilters<P>
where
    P: Subscriber<u64> + Publisher<u64> + Clone + 'static,
{
    type Input = u64;
    type Output = u64;
    type Processor = P;

    fn create_processor(&self) -> Self::Processor {
        (self.0)()
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn passes(&self, index: u64) -> bool {
        index % 2 == 0
    }

    /// An output is the input it let through.
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

processor_verification!(
    filter_processor,
    EvenFilters(|| FilterProcessor::<u64>::new(even))
);
processor_verification!(
    filter_processor_static,
    EvenFilters(|| FilterProcessor::new_static(even as fn(&u64) -> bool))
);

// ---- end of FilterProcessor ----

// The extended verification of these types is in tck_extended.rs.
