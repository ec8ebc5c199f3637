//! Issue 31: what a prefetching processor holds when upstream completes.
//!
//! [`Hoarder`] is the prefetching [`Pacer`] of the unusual corpus (it keeps
//! 8 elements requested or buffered whatever downstream asked) with one
//! flaw: when upstream completed while it still held elements, and
//! downstream then asked for exactly those, it sends `on_complete` only at
//! downstream's next request (§1.5). Without elements held at the end it
//! completes at once, as `spec_4_01` requires.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
use reactive_streams_tck::testkit::broken_rules;

use crate::factories::patient;
use crate::unusual::PREFETCH;
use crate::unusual::pacer::Pacer;

struct Hoarders;

impl ProcessorFactory for Hoarders {
    type Input = u64;
    type Output = u64;
    type Processor = Hoarder;

    fn create_processor(&self) -> Hoarder {
        Hoarder {
            pacer: Pacer::new(PREFETCH),
            state: Arc::default(),
        }
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn supports_multiple_subscribers(&self) -> bool {
        false
    }

    fn max_upstream_demand(&self) -> u64 {
        PREFETCH.ahead()
    }
}

/// See the [module](self) docs.
#[derive(Clone)]
struct Hoarder {
    pacer: Pacer,
    state: Arc<Mutex<Counts>>,
}

#[derive(Default)]
struct Counts {
    arrived: u64,
    delivered: u64,
    requested: u64,
    /// Upstream completed while elements were held.
    ended_holding: bool,
    /// The subscriber, its `on_complete` held back.
    held: Option<Box<dyn Subscriber<u64>>>,
}

impl Subscriber<u64> for Hoarder {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.pacer.on_subscribe(subscription);
    }

    fn on_next(&mut self, element: u64) {
        self.state.lock().arrived += 1;
        self.pacer.on_next(element);
    }

    fn on_error(&mut self, error: StreamError) {
        self.pacer.on_error(error);
    }

    fn on_complete(&mut self) {
        {
            let mut state = self.state.lock();
            state.ended_holding = state.arrived > state.delivered;
        }
        self.pacer.on_complete();
    }
}

impl Publisher<u64> for Hoarder {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        self.pacer.subscribe(Box::new(Seat {
            subscriber: Some(subscriber),
            state: self.state.clone(),
        }));
    }
}

struct Seat {
    subscriber: Option<Box<dyn Subscriber<u64>>>,
    state: Arc<Mutex<Counts>>,
}

impl Subscriber<u64> for Seat {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        let state = self.state.clone();
        if let Some(subscriber) = &mut self.subscriber {
            subscriber.on_subscribe(Arc::new(SeatSubscription {
                pacer: subscription,
                state,
            }));
        }
    }

    fn on_next(&mut self, element: u64) {
        self.state.lock().delivered += 1;
        if let Some(subscriber) = &mut self.subscriber {
            subscriber.on_next(element);
        }
    }

    fn on_error(&mut self, error: StreamError) {
        if let Some(subscriber) = &mut self.subscriber {
            subscriber.on_error(error);
        }
    }

    fn on_complete(&mut self) {
        let mut state = self.state.lock();
        if state.ended_holding && state.requested == state.delivered {
            state.held = self.subscriber.take();
            return;
        }
        drop(state);
        if let Some(subscriber) = &mut self.subscriber {
            subscriber.on_complete();
        }
    }
}

struct SeatSubscription {
    pacer: Arc<dyn Subscription>,
    state: Arc<Mutex<Counts>>,
}

impl Subscription for SeatSubscription {
    fn request(&self, n: u64) {
        let held = {
            let mut state = self.state.lock();
            state.requested = demand::add(state.requested, n);
            state.held.take()
        };
        match held {
            Some(mut subscriber) => subscriber.on_complete(),
            None => self.pacer.request(n),
        }
    }

    fn cancel(&self) {
        let held = self.state.lock().held.take();
        drop(held);
        self.pacer.cancel();
    }
}

#[test]
fn a_prefetching_processor_completing_only_when_asked_again_fails_1_05() {
    let results = ProcessorVerification::new(Hoarders)
        .env(patient())
        .run_all()
        .unwrap();
    insta::assert_snapshot!(broken_rules(&results));
}
