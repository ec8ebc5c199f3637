//! Correct-but-unusual whitebox subscribers (issue 14, families 5 and 6),
//! written from the specification's text; see
//! `subscriber_verification/unusual.rs`.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{StreamError, Subscriber, Subscription};
use reactive_streams_tck::subscriber::{Puppet, SubscriberWhiteboxFactory, WhiteboxProbe};

/// Requests `u64::MAX` as soon as it is subscribed; cancels a second
/// subscription (§2.5); forgets the subscription on a terminal signal
/// (§2.4).
pub struct Greedy {
    probe: WhiteboxProbe<u64>,
    subscription: Option<Arc<dyn Subscription>>,
}

impl Subscriber<u64> for Greedy {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            return subscription.cancel();
        }
        self.probe.registered(subscription.clone());
        subscription.request(u64::MAX);
        self.subscription = Some(subscription);
    }

    fn on_next(&mut self, element: u64) {
        self.probe.received_next(&element);
    }

    fn on_error(&mut self, error: StreamError) {
        self.subscription = None;
        self.probe.received_error(&error);
    }

    fn on_complete(&mut self) {
        self.subscription = None;
        self.probe.received_complete();
    }
}

/// Consumes elements in chunks of [`CHUNK`]; when one is full its
/// terminal method asks for the next.
struct Chunk {
    seen: Vec<u64>,
}

const CHUNK: usize = 2;

impl Chunk {
    /// Takes one element; whether the chunk is full.
    fn accept(&mut self, element: u64) -> bool {
        self.seen.push(element);
        self.seen.len() == CHUNK
    }

    /// The helper's terminal method: the chunk is done; `next` is called
    /// to carry on.
    fn finish(self, next: impl FnOnce()) {
        drop(self.seen);
        next();
    }
}

struct Shared {
    subscription: Option<Arc<dyn Subscription>>,
    done: bool,
}

/// A subscriber with a helper: see the module docs.
pub struct WithHelper {
    probe: WhiteboxProbe<u64>,
    shared: Arc<Mutex<Shared>>,
    chunk: Chunk,
}

/// The puppet goes through the subscriber's own logic: a request after
/// its cancel still reaches the subscription (a no-op, §3.6).
struct HelperPuppet(Arc<Mutex<Shared>>);

impl Puppet for HelperPuppet {
    fn trigger_request(&self, n: u64) {
        let subscription = {
            let shared = self.0.lock();
            if shared.done {
                return;
            }
            shared.subscription.clone()
        };
        if let Some(subscription) = subscription {
            subscription.request(n);
        }
    }

    fn trigger_cancel(&self) {
        let subscription = self.0.lock().subscription.clone();
        if let Some(subscription) = subscription {
            subscription.cancel();
            // Asks again after its own cancel: a no-op (§3.6).
            subscription.request(1);
        }
    }
}

impl Subscriber<u64> for WithHelper {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        let mut shared = self.shared.lock();
        if shared.subscription.is_some() || shared.done {
            drop(shared);
            return subscription.cancel();
        }
        shared.subscription = Some(subscription);
        drop(shared);
        self.probe.registered(HelperPuppet(self.shared.clone()));
    }

    fn on_next(&mut self, element: u64) {
        self.probe.received_next(&element);
        if self.chunk.accept(element) {
            let full = std::mem::replace(&mut self.chunk, Chunk { seen: Vec::new() });
            let subscription = self.shared.lock().subscription.clone();
            full.finish(|| {
                if let Some(subscription) = subscription {
                    subscription.request(CHUNK as u64);
                }
            });
        }
    }

    fn on_error(&mut self, error: StreamError) {
        let mut shared = self.shared.lock();
        shared.done = true;
        shared.subscription = None;
        drop(shared);
        self.probe.received_error(&error);
    }

    fn on_complete(&mut self) {
        let mut shared = self.shared.lock();
        shared.done = true;
        shared.subscription = None;
        drop(shared);
        self.probe.received_complete();
    }
}

/// Takes the first [`TAKE`] elements through an inner helper; the
/// helper's terminal method (`finish`) cancels the subscription. Requests
/// the puppet asks for afterwards still reach the subscription: no-ops
/// (§3.6).
pub struct Taking {
    probe: WhiteboxProbe<u64>,
    subscription: Option<Arc<dyn Subscription>>,
    helper: Take,
}

const TAKE: u64 = 1;

/// The helper: counts down; `finish` is its terminal method.
struct Take {
    left: u64,
}

impl Take {
    /// Takes one element; whether that was the last it wanted.
    fn accept(&mut self) -> bool {
        self.left = self.left.saturating_sub(1);
        self.left == 0
    }

    fn finish(&mut self, subscription: &dyn Subscription) {
        subscription.cancel();
    }
}

impl Subscriber<u64> for Taking {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            return subscription.cancel();
        }
        self.probe.registered(subscription.clone());
        self.subscription = Some(subscription);
    }

    fn on_next(&mut self, element: u64) {
        self.probe.received_next(&element);
        if self.helper.accept() {
            if let Some(subscription) = &self.subscription {
                self.helper.finish(&**subscription);
            }
        }
    }

    fn on_error(&mut self, error: StreamError) {
        self.subscription = None;
        self.probe.received_error(&error);
    }

    fn on_complete(&mut self) {
        self.subscription = None;
        self.probe.received_complete();
    }
}

pub struct Takers;

impl SubscriberWhiteboxFactory for Takers {
    type Element = u64;
    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(Taking {
            probe,
            subscription: None,
            helper: Take { left: TAKE },
        })
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
}

pub struct Greedies;

impl SubscriberWhiteboxFactory for Greedies {
    type Element = u64;
    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(Greedy {
            probe,
            subscription: None,
        })
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
}

pub struct Helped;

impl SubscriberWhiteboxFactory for Helped {
    type Element = u64;
    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(WithHelper {
            probe,
            shared: Arc::new(Mutex::new(Shared {
                subscription: None,
                done: false,
            })),
            chunk: Chunk { seen: Vec::new() },
        })
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
}
