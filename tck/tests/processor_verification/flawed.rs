//! The testkit's identity processor with one deliberate flaw on its output
//! side, which only the extended processor `tck_extended_schedules` or
//! `tck_extended_stress` reaches.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::ThreadId;

use reactive_streams::demand::EFFECTIVELY_UNBOUNDED;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_tck::processor::ProcessorFactory;
use reactive_streams_tck::processor::testkit::IdentityProcessor;

/// What is wrong with a [`FlawedIdentity`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessorFlaw {
    /// When downstream asks for unbounded demand (`n ≥ 2^63−1`) after it had
    /// at least one element, the next element goes out twice: one element
    /// too many, only under that schedule (§1.1).
    ReplayAfterUnbounded,
    /// A downstream request of more than one element made on a thread
    /// other than the one that subscribed is forwarded as `request(1)`:
    /// demand is lost when several threads request in turn (§3.8; §2.7
    /// lets calls come from any thread, one after the other). Requests of
    /// 1, all the quick verification sends from several threads, go
    /// straight through.
    ForeignBatchDemand,
}

/// Makes [`FlawedIdentity`] processors with one flaw.
pub struct FlawedIdentities(pub ProcessorFlaw);

impl ProcessorFactory for FlawedIdentities {
    type Input = u64;
    type Output = u64;
    type Processor = FlawedIdentity;
    fn create_processor(&self) -> FlawedIdentity {
        FlawedIdentity {
            inner: IdentityProcessor::new(),
            flaw: self.0,
        }
    }
    fn input(&self, index: u64) -> u64 {
        index
    }
    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

/// An [`IdentityProcessor`] whose downstream side has a [`ProcessorFlaw`].
#[derive(Clone)]
pub struct FlawedIdentity {
    inner: IdentityProcessor<u64>,
    flaw: ProcessorFlaw,
}

impl Subscriber<u64> for FlawedIdentity {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.inner.on_subscribe(subscription);
    }
    fn on_next(&mut self, element: u64) {
        self.inner.on_next(element);
    }
    fn on_error(&mut self, error: StreamError) {
        self.inner.on_error(error);
    }
    fn on_complete(&mut self) {
        self.inner.on_complete();
    }
}

impl Publisher<u64> for FlawedIdentity {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        self.inner.subscribe(Box::new(Downstream {
            subscriber,
            shared: Arc::new(Shared {
                flaw: self.flaw,
                delivered: AtomicU64::new(0),
                replay: AtomicBool::new(false),
                cancelled: AtomicBool::new(false),
                subscriber_thread: std::thread::current().id(),
            }),
        }));
    }
}

/// What the downstream subscriber and its subscription share.
struct Shared {
    flaw: ProcessorFlaw,
    delivered: AtomicU64,
    replay: AtomicBool,
    cancelled: AtomicBool,
    subscriber_thread: ThreadId,
}

/// The identity processor's downstream subscriber, as the flaw sees it.
struct Downstream {
    subscriber: Box<dyn Subscriber<u64>>,
    shared: Arc<Shared>,
}

impl Subscriber<u64> for Downstream {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.subscriber.on_subscribe(Arc::new(FlawedSubscription {
            subscription,
            shared: self.shared.clone(),
        }));
    }
    fn on_next(&mut self, element: u64) {
        self.shared.delivered.fetch_add(1, Ordering::SeqCst);
        // Decided before delivering: the element after the unbounded
        // request goes out twice, whatever the thread timing.
        let twice = self.shared.replay.swap(false, Ordering::SeqCst)
            && !self.shared.cancelled.load(Ordering::SeqCst);
        self.subscriber.on_next(element);
        if twice {
            self.subscriber.on_next(element);
        }
    }
    fn on_error(&mut self, error: StreamError) {
        self.subscriber.on_error(error);
    }
    fn on_complete(&mut self) {
        self.subscriber.on_complete();
    }
}

struct FlawedSubscription {
    subscription: Arc<dyn Subscription>,
    shared: Arc<Shared>,
}

impl Subscription for FlawedSubscription {
    fn request(&self, n: u64) {
        let shared = &*self.shared;
        match shared.flaw {
            ProcessorFlaw::ReplayAfterUnbounded => {
                if n >= EFFECTIVELY_UNBOUNDED
                    && shared.delivered.load(Ordering::SeqCst) > 0
                    && !shared.cancelled.load(Ordering::SeqCst)
                {
                    shared.replay.store(true, Ordering::SeqCst);
                }
            }
            ProcessorFlaw::ForeignBatchDemand
                if n > 1 && std::thread::current().id() != shared.subscriber_thread =>
            {
                return self.subscription.request(1);
            }
            ProcessorFlaw::ForeignBatchDemand => {}
        }
        self.subscription.request(n);
    }
    fn cancel(&self) {
        self.shared.cancelled.store(true, Ordering::SeqCst);
        self.subscription.cancel();
    }
}
