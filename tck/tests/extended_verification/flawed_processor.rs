//! The testkit's identity processor with one deliberate flaw on its output
//! side, which only the extended processor `tck_extended_schedules` or
//! `tck_extended_stress` reaches.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reactive_streams::demand::EFFECTIVELY_UNBOUNDED;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_tck::processor::testkit::IdentityProcessor;
use reactive_streams_tck::processor::ProcessorFactory;

/// What is wrong with a [`FlawedIdentity`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessorFlaw {
    /// When downstream asks for unbounded demand (`n ≥ 2^63−1`) after it had
    /// at least one element, the next element goes out twice: one element
    /// too many, only under that schedule (§1.1).
    ReplayAfterUnbounded,
    /// Downstream requests of more than one element pass a check-then-act
    /// window, held open (bounded) until another such request enters it;
    /// the one that finds the window taken is dropped. So two of them at
    /// once always lose one (§3.8). Requests of 1, all the quick
    /// verification sends from several threads, go straight through.
    RacyBatchDemand,
}

/// How long a racy request holds its window open waiting for another.
const RACE_WINDOW: Duration = Duration::from_millis(5);

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
                in_window: AtomicU32::new(0),
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
    in_window: AtomicU32,
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
        self.subscriber.on_next(element);
        if self.shared.replay.swap(false, Ordering::SeqCst)
            && !self.shared.cancelled.load(Ordering::SeqCst)
        {
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
            ProcessorFlaw::RacyBatchDemand if n > 1 => {
                let taken = shared.in_window.fetch_add(1, Ordering::SeqCst) > 0;
                let deadline = Instant::now() + RACE_WINDOW;
                while !taken
                    && shared.in_window.load(Ordering::SeqCst) < 2
                    && Instant::now() < deadline
                {
                    std::thread::yield_now();
                }
                shared.in_window.fetch_sub(1, Ordering::SeqCst);
                if taken {
                    return;
                }
            }
            ProcessorFlaw::RacyBatchDemand => {}
        }
        self.subscription.request(n);
    }
    fn cancel(&self) {
        self.shared.cancelled.store(true, Ordering::SeqCst);
        self.subscription.cancel();
    }
}
