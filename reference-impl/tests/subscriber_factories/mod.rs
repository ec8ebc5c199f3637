//! Factories that put the reference subscribers under the TCK, shared by
//! the quick (`tck_subscribers.rs`) and extended (`tck_extended.rs`) runs.

use reactive_streams::Subscriber;
use reactive_streams_reference::{CallbackSubscriber, CollectSubscriber, QueuedSubscriber};
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxFactory, SubscriberWhiteboxFactory, WhiteboxProbe,
};

/// A blackbox factory from a function making a subscriber.
pub struct Subscribers<F>(pub F);

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
pub struct Instrumented<F>(pub F);

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

pub fn callback() -> CallbackSubscriber<u64, impl FnMut(u64) + Send> {
    CallbackSubscriber::new(4, |_| {})
}

pub fn queued() -> QueuedSubscriber<u64> {
    QueuedSubscriber::spawn(4, |_| {}).0
}

pub fn collecting() -> CollectSubscriber<u64> {
    CollectSubscriber::with_batch(4).0
}
