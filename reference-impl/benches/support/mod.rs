//! Subscribers shared by the benchmarks.

use std::hint::black_box;
use std::sync::Arc;

use reactive_streams::{demand, StreamError, Subscriber, Subscription};
use reactive_streams_reference::CallbackSubscriber;

/// A subscription that ignores its calls: the floor cases call the
/// subscriber directly, with no publisher behind it.
pub struct Ignored;

impl Subscription for Ignored {
    fn request(&self, _: u64) {}
    fn cancel(&self) {}
}

/// A `CallbackSubscriber` behind `Box<dyn Subscriber>`, as every publisher
/// here holds it: the floor of any path with one dynamic `on_next` per
/// element into it.
pub fn floor_subscriber() -> Box<dyn Subscriber<u64>> {
    let mut subscriber: Box<dyn Subscriber<u64>> = Box::new(CallbackSubscriber::new(128, |x| {
        black_box(x);
    }));
    subscriber.on_subscribe(Arc::new(Ignored));
    subscriber
}

/// A concrete subscriber for the statically dispatched cases: the same
/// demand policy as `CallbackSubscriber` (request `batch`, top up to
/// `batch` when half of it is left), with the per-element work written in
/// place instead of behind a boxed callback, as a user of
/// `IterPublisher::subscribe_static` would write it.
pub struct Batched {
    batch: u64,
    outstanding: u64,
    subscription: Option<Arc<dyn Subscription>>,
}

impl Batched {
    pub fn new(batch: u64) -> Self {
        Batched {
            batch,
            outstanding: 0,
            subscription: None,
        }
    }
}

impl Subscriber<u64> for Batched {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.outstanding = self.batch;
        subscription.request(self.batch);
        self.subscription = Some(subscription);
    }

    #[inline]
    fn on_next(&mut self, x: u64) {
        black_box(x);
        if self.batch == demand::UNBOUNDED {
            return;
        }
        self.outstanding -= 1;
        if self.outstanding <= self.batch / 2 {
            let n = self.batch - self.outstanding;
            self.outstanding = self.batch;
            if let Some(subscription) = &self.subscription {
                subscription.request(n);
            }
        }
    }

    fn on_error(&mut self, _: StreamError) {
        self.subscription = None;
    }

    fn on_complete(&mut self) {
        self.subscription = None;
    }
}
