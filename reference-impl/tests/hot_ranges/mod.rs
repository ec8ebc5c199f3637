//! The factories that put the reference `MulticastPublisher`, a hot
//! publisher, under the TCK's publisher verifications: [`HotRanges`] for the
//! quick one (`tck_multicast.rs`), [`FreshHotRanges`] for the extended one
//! (`tck_extended.rs`).
// Each test binary uses one of the two.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_reference::{CallbackSubscriber, MulticastPublisher, Overflow};
use reactive_streams_tck::publisher::PublisherFactory;

/// Hot publishers of `n` elements for the publisher verification.
///
/// The verification needs a publisher that emits exactly `n` elements to
/// each subscriber, while a hot publisher emits whatever is pushed while a
/// subscriber is there. So each publisher is a `MulticastPublisher` whose
/// source thread pushes `0..n` and then completes, starting when any of its
/// subscribers first requests — after every subscriber of a rule test has
/// subscribed (§1.11 subscribes two before either requests). Each
/// subscriber's buffer holds all `n` elements under `Overflow::Error`, so
/// nothing is dropped and an overflow would fail the stream, not hide.
///
/// What cannot apply to a hot publisher:
///
/// * **Infinite publishers** (`max_elements()` is 1024): a source pushing
///   for ever into a buffer that holds everything a subscriber has not
///   requested yet would grow without bound, and a bounded buffer would
///   drop or fail. So the one scenario that needs an infinite publisher,
///   "publisher of ∞, request(2^63−1) twice, cancel inside the 10th
///   on_next" of §3.17, is not run; the other §3.17 scenarios are.
/// * **A subscriber arriving after the source has run** gets `on_subscribe`
///   then `on_complete` at once (it missed the values, as hot subscribers
///   do); no rule test subscribes that late.
pub struct HotRanges;

impl PublisherFactory for HotRanges {
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(HotRange::new(elements))
    }

    /// A hot publisher that has failed: every subscriber gets `on_subscribe`
    /// and then that `on_error`.
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        let hot = MulticastPublisher::new(1, Overflow::Error);
        hot.error(StreamError::msg("the hot source failed"));
        Some(Box::new(hot))
    }

    fn max_elements(&self) -> u64 {
        1024
    }

    /// The source pushes `0..n`: element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

/// Hot publishers of `n` elements for the extended verification, whose
/// generated schedules subscribe a second subscriber at any point, also
/// after the first one's stream has ended (which a hot publisher's late
/// subscriber would have missed): each subscriber gets a hot publisher of
/// its own, as [`HotRanges`] makes them, plus a *bystander*, a second
/// subscriber that takes everything (16 at a time, asked for from inside
/// `on_next`). So every push goes to two subscribers, whose drains the
/// pushing thread leases, while the verification requests and cancels on
/// the other one from its own threads.
pub struct FreshHotRanges;

impl PublisherFactory for FreshHotRanges {
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(FreshHotRange { elements })
    }

    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        HotRanges.create_failed_publisher()
    }

    fn max_elements(&self) -> u64 {
        HotRanges.max_elements()
    }

    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

struct FreshHotRange {
    elements: u64,
}

impl Publisher<u64> for FreshHotRange {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        let range = HotRange::new(self.elements);
        range
            .source
            .hot
            .subscribe(Box::new(CallbackSubscriber::new(16, |_: u64| {})));
        range.subscribe(subscriber);
    }
}

/// A `MulticastPublisher` and the source that pushes into it.
struct HotRange {
    source: Arc<Source>,
}

struct Source {
    hot: MulticastPublisher<u64>,
    elements: u64,
    started: AtomicBool,
}

impl HotRange {
    fn new(elements: u64) -> Self {
        let capacity = usize::try_from(elements).expect("at most max_elements()");
        HotRange {
            source: Arc::new(Source {
                hot: MulticastPublisher::new(capacity.max(1), Overflow::Error),
                elements,
                started: AtomicBool::new(false),
            }),
        }
    }
}

impl Source {
    /// Runs the source on its own thread, once: pushes every element to the
    /// subscribers present, then completes.
    fn start(self: &Arc<Self>) {
        if self.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let source = self.clone();
        std::thread::Builder::new()
            .name(String::from("hot-source"))
            .spawn(move || {
                for value in 0..source.elements {
                    source.hot.push(value);
                }
                source.hot.complete();
            })
            .expect("start the hot source");
    }
}

impl Publisher<u64> for HotRange {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        self.source.hot.subscribe(Box::new(StartOnDemand {
            subscriber,
            source: self.source.clone(),
        }));
    }
}

/// Passes every signal on unchanged; hands the subscriber a subscription
/// that starts the source on the first request.
struct StartOnDemand {
    subscriber: Box<dyn Subscriber<u64>>,
    source: Arc<Source>,
}

impl Subscriber<u64> for StartOnDemand {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.subscriber.on_subscribe(Arc::new(Starting {
            subscription,
            source: self.source.clone(),
        }));
    }

    fn on_next(&mut self, element: u64) {
        self.subscriber.on_next(element);
    }

    fn on_error(&mut self, error: StreamError) {
        self.subscriber.on_error(error);
    }

    fn on_complete(&mut self) {
        self.subscriber.on_complete();
    }
}

struct Starting {
    subscription: Arc<dyn Subscription>,
    source: Arc<Source>,
}

impl Subscription for Starting {
    fn request(&self, n: u64) {
        self.subscription.request(n);
        self.source.start();
    }

    fn cancel(&self) {
        self.subscription.cancel();
    }
}
