//! The TCK's subscriber and processor verifications run against the
//! reference implementation.

mod subscriber_factories;

use reactive_streams::{Publisher, Subscriber};
use reactive_streams_reference::{
    BufferProcessor, FilterProcessor, IdentityProcessor, MapProcessor, QueuedSubscriber,
};
use reactive_streams_tck::processor::ProcessorFactory;
use reactive_streams_tck::subscriber::{SubscriberWhiteboxFactory, WhiteboxProbe};
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
