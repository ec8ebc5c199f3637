//! The TCK's subscriber and processor verifications, and the extended
//! verification, run against the reference implementation.

use reactive_streams::{Publisher, Subscriber};
use reactive_streams_reference::{
    range, BufferProcessor, CallbackSubscriber, CollectSubscriber, IdentityProcessor, MapProcessor,
    QueuedSubscriber,
};
use reactive_streams_tck::processor::ProcessorFactory;
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxFactory, SubscriberWhiteboxFactory, WhiteboxProbe,
};
use reactive_streams_tck::{
    processor_verification, publisher_extended_verification,
    subscriber_blackbox_extended_verification, subscriber_blackbox_verification,
    subscriber_whitebox_verification,
};

/// A blackbox factory from a function making a subscriber.
struct Subscribers<F>(F);

impl<F, S> SubscriberBlackboxFactory for Subscribers<F>
where
    F: Fn() -> S + Send + Sync + 'static,
    S: Subscriber<u64> + 'static,
{
    type Element = u64;
    type Subscriber = S;

    fn create_subscriber(&self) -> S {
        (self.0)()
    }

    fn element(&self, index: u64) -> u64 {
        index
    }
}

/// A whitebox factory wrapping the same subscribers with the TCK's probe.
struct Instrumented<F>(F);

impl<F, S> SubscriberWhiteboxFactory for Instrumented<F>
where
    F: Fn() -> S + Send + Sync + 'static,
    S: Subscriber<u64> + 'static,
{
    type Element = u64;

    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(probe.wrap((self.0)()))
    }

    fn element(&self, index: u64) -> u64 {
        index
    }
}

fn callback() -> CallbackSubscriber<u64> {
    CallbackSubscriber::new(4, |_| {})
}

fn queued() -> QueuedSubscriber<u64> {
    QueuedSubscriber::spawn(4, |_| {}).0
}

fn collecting() -> CollectSubscriber<u64> {
    CollectSubscriber::with_batch(4).0
}

subscriber_blackbox_verification!(callback_subscriber, Subscribers(callback));
subscriber_blackbox_verification!(queued_subscriber, Subscribers(queued));
subscriber_blackbox_verification!(collect_subscriber, Subscribers(collecting));
subscriber_whitebox_verification!(
    callback_subscriber_whitebox,
    Instrumented(callback),
    "callback_subscriber"
);
// `QueuedSubscriber` is not verified whitebox: the probe's wrapper reports
// signals when they are handed over, while its worker thread requests when
// it processes them, so a request the worker had under way when a terminal
// signal was handed over would be judged as made after it.
subscriber_whitebox_verification!(
    collect_subscriber_whitebox,
    Instrumented(collecting),
    "collect_subscriber"
);

/// A processor factory from a function making a processor handle.
struct Processors<F>(F);

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
}

processor_verification!(
    identity_processor,
    Processors(IdentityProcessor::<u64>::new)
);
processor_verification!(
    map_processor,
    Processors(|| MapProcessor::new(|x: u64| x.wrapping_mul(3)))
);
processor_verification!(
    buffer_processor,
    Processors(|| BufferProcessor::<u64>::new(8))
);

// The extended verification (generated schedules, concurrency stress).
struct Ranges;

impl PublisherFactory for Ranges {
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(range(0, elements))
    }
}

publisher_extended_verification!(range_extended, Ranges, "range_publisher");
subscriber_blackbox_extended_verification!(
    callback_subscriber_extended,
    Subscribers(callback),
    "callback_subscriber"
);
