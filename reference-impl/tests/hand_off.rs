//! The synchronous hand-off: a processor emits an element straight to an
//! idle downstream drain that has demand (`Drain::try_claim`, then a
//! lease on the loop), with the loop's guarantees.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_reference::drain::{Claim, Drain};
use reactive_streams_reference::{
    CallbackSubscriber, Executor, FilterProcessor, IdentityProcessor, MapProcessor, range,
};

/// A producer that never has anything: every element comes by hand-off.
struct Nothing;

impl reactive_streams_reference::drain::Producer<u32> for Nothing {
    fn poll_produce(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> reactive_streams_reference::drain::Emission<u32> {
        std::task::Poll::Pending
    }
}

type Seen = Arc<Mutex<Vec<u32>>>;

/// Records elements; on element `at`, runs `act` on its subscription.
struct Acting {
    seen: Seen,
    subscription: Option<Arc<dyn Subscription>>,
    at: u32,
    act: fn(&dyn Subscription),
}

impl Subscriber<u32> for Acting {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.subscription = Some(subscription);
    }
    fn on_next(&mut self, element: u32) {
        self.seen.lock().unwrap().push(element);
        if element == self.at {
            (self.act)(self.subscription.as_deref().expect("subscribed"));
        }
    }
    fn on_error(&mut self, _: StreamError) {}
    fn on_complete(&mut self) {}
}

fn started(at: u32, act: fn(&dyn Subscription)) -> (Arc<Drain<u32, Nothing>>, Seen) {
    let seen = Seen::default();
    let drain: Arc<Drain<u32, Nothing>> = Drain::new(Nothing, Executor::Inline);
    let subscriber = Acting {
        seen: seen.clone(),
        subscription: None,
        at,
        act,
    };
    drain.start(Box::new(subscriber), drain.clone());
    (drain, seen)
}

#[test]
fn an_idle_drain_with_demand_is_claimed_once_until_given_back() {
    let (drain, seen) = started(u32::MAX, |_| {});
    assert_eq!(drain.try_claim(), Claim::Busy, "no demand yet");
    drain.request(5);
    assert_eq!(drain.try_claim(), Claim::Ready);
    assert_eq!(drain.try_claim(), Claim::Busy, "the loop is owned");
    drain.release();
    assert_eq!(drain.try_claim(), Claim::Ready, "given back by release");
    drain.release();
    drain.cancel();
    assert_eq!(drain.try_claim(), Claim::Busy, "cancelled");
    assert!(
        seen.lock().unwrap().is_empty(),
        "a claim alone emits nothing"
    );
}

/// Counts elements; cancels inside `on_next` of element `cancel_at`.
fn counting(batch: u64, cancel_at: Option<u64>) -> (impl Subscriber<u64>, Arc<Mutex<Vec<u64>>>) {
    struct Counting {
        batch: u64,
        left: u64,
        cancel_at: Option<u64>,
        seen: Arc<Mutex<Vec<u64>>>,
        subscription: Option<Arc<dyn Subscription>>,
    }
    impl Subscriber<u64> for Counting {
        fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
            subscription.request(self.batch);
            self.left = self.batch;
            self.subscription = Some(subscription);
        }
        fn on_next(&mut self, element: u64) {
            self.seen.lock().unwrap().push(element);
            let subscription = self.subscription.as_ref().expect("subscribed");
            if Some(element) == self.cancel_at {
                subscription.cancel();
                return;
            }
            if !demand::is_unbounded(self.batch) {
                self.left -= 1;
                if self.left == 0 {
                    self.left = self.batch;
                    subscription.request(self.batch);
                }
            }
        }
        fn on_error(&mut self, _: StreamError) {}
        fn on_complete(&mut self) {}
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let subscriber = Counting {
        batch,
        left: 0,
        cancel_at,
        seen: seen.clone(),
        subscription: None,
    };
    (subscriber, seen)
}

#[test]
fn a_cancel_inside_on_next_stops_the_next_element_for_that_subscriber_only() {
    let hub = IdentityProcessor::new();
    let (leaving, left_seen) = counting(4, Some(3));
    let (staying, stayed_seen) = counting(4, None);
    hub.subscribe(Box::new(leaving));
    hub.subscribe(Box::new(staying));
    range(0, 20).subscribe(Box::new(hub));
    assert_eq!(*left_seen.lock().unwrap(), vec![0, 1, 2, 3]);
    assert_eq!(*stayed_seen.lock().unwrap(), (0..20).collect::<Vec<_>>());
}

#[test]
fn the_last_subscriber_cancelling_inside_on_next_stops_upstream_at_once() {
    let emitted = Arc::new(AtomicU64::new(0));
    let counted = emitted.clone();
    let map = MapProcessor::new(move |x: u64| {
        counted.fetch_add(1, Ordering::Relaxed);
        x
    });
    let (only, seen) = counting(demand::UNBOUNDED, Some(5));
    map.subscribe(Box::new(only));
    range(0, 1_000).subscribe(Box::new(map));
    assert_eq!(*seen.lock().unwrap(), (0..=5).collect::<Vec<_>>());
    assert_eq!(
        emitted.load(Ordering::Relaxed),
        6,
        "nothing after the cancel"
    );
}

#[test]
fn a_long_synchronous_chain_at_batch_1_keeps_the_stack_bounded() {
    // Per-element recursion would overflow this thread's small stack long
    // before 200 000 elements.
    let total = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let count = Arc::new(AtomicU64::new(0));
            let counter = count.clone();
            let first = MapProcessor::new(|x: u64| x + 1);
            let keep = FilterProcessor::new(|x: &u64| x % 2 == 0);
            let last = MapProcessor::new(|x: u64| x * 3);
            last.subscribe(Box::new(CallbackSubscriber::new(1, move |_| {
                counter.fetch_add(1, Ordering::Relaxed);
            })));
            keep.subscribe(Box::new(last.clone()));
            first.subscribe(Box::new(keep.clone()));
            range(0, 200_000).subscribe(Box::new(first));
            count.load(Ordering::Relaxed)
        })
        .expect("a thread")
        .join()
        .expect("no stack overflow");
    assert_eq!(total, 100_000);
}

/// An upstream that, on the first `request`, emits element 0 from inside
/// it, then lets another thread emit element 1 and complete while the
/// `request` is still on the stack (serially: it waits for that thread).
struct SplitSource;

type Shared = Arc<Mutex<Option<Box<dyn Subscriber<u64>>>>>;

struct SplitSubscription {
    subscriber: Shared,
    asked: AtomicU64,
}

impl Subscription for SplitSubscription {
    fn request(&self, _: u64) {
        if self.asked.fetch_add(1, Ordering::SeqCst) != 0 {
            return;
        }
        if let Some(subscriber) = self.subscriber.lock().unwrap().as_mut() {
            subscriber.on_next(0);
        }
        let shared = self.subscriber.clone();
        std::thread::spawn(move || {
            let mut guard = shared.lock().unwrap();
            let subscriber = guard.as_mut().expect("still subscribed");
            subscriber.on_next(1);
            subscriber.on_complete();
        })
        .join()
        .expect("the other thread emits");
    }
    fn cancel(&self) {}
}

impl Publisher<u64> for SplitSource {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let shared: Shared = Arc::default();
        let subscription = Arc::new(SplitSubscription {
            subscriber: shared.clone(),
            asked: AtomicU64::new(0),
        });
        subscriber.on_subscribe(subscription);
        *shared.lock().unwrap() = Some(subscriber);
    }
}

/// Records every signal as text; keeps its subscription for the test.
struct Recording(
    Arc<Mutex<Vec<String>>>,
    Arc<Mutex<Option<Arc<dyn Subscription>>>>,
);

impl Subscriber<u64> for Recording {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        *self.1.lock().unwrap() = Some(subscription);
    }
    fn on_next(&mut self, element: u64) {
        self.0.lock().unwrap().push(element.to_string());
    }
    fn on_error(&mut self, error: StreamError) {
        self.0.lock().unwrap().push(format!("error: {error}"));
    }
    fn on_complete(&mut self) {
        self.0.lock().unwrap().push("complete".into());
    }
}

#[test]
fn elements_another_thread_emits_while_the_processors_request_is_on_the_stack_keep_order() {
    for subscribers in 1..=2 {
        let map = MapProcessor::new(|x: u64| x * 10);
        SplitSource.subscribe(Box::new(map.clone()));
        let subscribed: Vec<_> = (0..subscribers)
            .map(|_| {
                let log = Arc::new(Mutex::new(Vec::new()));
                let subscription = Arc::new(Mutex::new(None));
                map.subscribe(Box::new(Recording(log.clone(), subscription.clone())));
                (log, subscription)
            })
            .collect();
        // The last request lets the processor ask upstream, from inside it.
        for (_, subscription) in &subscribed {
            let subscription = subscription.lock().unwrap().clone();
            subscription.expect("subscribed").request(10);
        }
        for (log, _) in subscribed {
            assert_eq!(
                *log.lock().unwrap(),
                vec!["0", "10", "complete"],
                "{subscribers} subscriber(s)"
            );
        }
    }
}

#[test]
fn a_source_emitting_inside_the_processors_request_respects_a_small_batch() {
    // The subscriber's request reaches `range` through the processor, and
    // `range` emits from inside that request, while the subscriber's drain
    // is busy: queued, then handed on within demand, batch after batch.
    let map = MapProcessor::new(|x: u64| x + 1);
    range(0, 1_000).subscribe(Box::new(map.clone()));
    let (slow, seen) = counting(3, None);
    map.subscribe(Box::new(slow));
    assert_eq!(*seen.lock().unwrap(), (1..=1_000).collect::<Vec<_>>());
}

// ---- leases: the multicast hand-off kept between elements ----------------

/// Records every signal as text, and its own drop; keeps its subscription
/// for the test.
struct Watched {
    log: Arc<Mutex<Vec<String>>>,
    subscription: Arc<Mutex<Option<Arc<dyn Subscription>>>>,
}

impl Subscriber<u64> for Watched {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        *self.subscription.lock().unwrap() = Some(subscription);
    }
    fn on_next(&mut self, element: u64) {
        self.log.lock().unwrap().push(element.to_string());
    }
    fn on_error(&mut self, _: StreamError) {
        self.log.lock().unwrap().push("error".into());
    }
    fn on_complete(&mut self) {
        self.log.lock().unwrap().push("complete".into());
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        self.log.lock().unwrap().push("dropped".into());
    }
}

type Log = Arc<Mutex<Vec<String>>>;

/// A [`Watched`] subscriber's log and subscription.
type Watching = (Log, Arc<dyn Subscription>);

/// Subscribes a [`Watched`] subscriber to `hub`.
fn watch(hub: &IdentityProcessor<u64>) -> Watching {
    let log = Log::default();
    let subscription = Arc::new(Mutex::new(None));
    hub.subscribe(Box::new(Watched {
        log: log.clone(),
        subscription: subscription.clone(),
    }));
    let subscription = subscription.lock().unwrap().clone().expect("subscribed");
    (log, subscription)
}

/// An upstream the test drives by hand: it only counts what was asked.
#[derive(Default)]
struct Asked(AtomicU64);

impl Subscription for Asked {
    fn request(&self, n: u64) {
        self.0.fetch_add(n, Ordering::SeqCst);
    }
    fn cancel(&self) {}
}

fn log_of(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

/// Two subscribers with demand 10 each, fed by hand: upstream was asked
/// for 10 and owes the rest after element 0, so both stay leased.
fn two_leased() -> (IdentityProcessor<u64>, [Watching; 2], Arc<Asked>) {
    let hub = IdentityProcessor::new();
    let first = watch(&hub);
    let second = watch(&hub);
    first.1.request(10);
    second.1.request(10);
    let upstream = Arc::new(Asked::default());
    let mut handle = hub.clone();
    handle.on_subscribe(upstream.clone());
    assert_eq!(upstream.0.load(Ordering::SeqCst), 10, "the slowest demand");
    handle.on_next(0);
    assert_eq!(log_of(&first.0), ["0"]);
    assert_eq!(log_of(&second.0), ["0"]);
    (handle, [first, second], upstream)
}

#[test]
fn a_cancel_from_another_thread_while_leased_drops_the_subscriber_at_the_next_element() {
    let (mut handle, [first, second], _) = two_leased();
    std::thread::spawn(move || second.1.cancel())
        .join()
        .expect("cancelled");
    handle.on_next(1);
    assert_eq!(log_of(&first.0), ["0", "1"]);
    assert_eq!(
        log_of(&second.0),
        ["0", "dropped"],
        "§3.13, nothing after it"
    );
}

#[test]
fn a_request_of_zero_from_another_thread_while_leased_is_answered_at_the_next_element() {
    let (mut handle, [first, second], _) = two_leased();
    std::thread::spawn(move || first.1.request(0))
        .join()
        .expect("requested");
    handle.on_next(1);
    assert_eq!(log_of(&first.0), ["0", "error", "dropped"], "§3.9");
    assert_eq!(log_of(&second.0), ["0", "1"]);
}

#[test]
fn leases_end_when_upstream_owes_nothing_more() {
    // Demand 1 each: after element 0 upstream owes nothing, so nothing
    // would end a lease; a cancel from another thread acts at once.
    let hub = IdentityProcessor::new();
    let first = watch(&hub);
    let second = watch(&hub);
    first.1.request(1);
    second.1.request(1);
    let mut handle = hub.clone();
    handle.on_subscribe(Arc::new(Asked::default()));
    handle.on_next(0);
    std::thread::spawn(move || second.1.cancel())
        .join()
        .expect("cancelled");
    assert_eq!(log_of(&second.0), ["0", "dropped"]);
    assert_eq!(log_of(&first.0), ["0"]);
}

#[test]
fn a_leased_subscriber_out_of_demand_waits_at_the_slowest_pace() {
    // The first asks for 2, the second for 10: upstream is asked for 2
    // (the slowest); more arrives only as the first asks again, and the
    // second, still leased, never gets more than the first allows.
    let hub = IdentityProcessor::new();
    let slow = watch(&hub);
    let fast = watch(&hub);
    slow.1.request(2);
    fast.1.request(10);
    let upstream = Arc::new(Asked::default());
    let mut handle = hub.clone();
    handle.on_subscribe(upstream.clone());
    assert_eq!(upstream.0.load(Ordering::SeqCst), 2);
    handle.on_next(0);
    handle.on_next(1);
    slow.1.request(1);
    assert_eq!(
        upstream.0.load(Ordering::SeqCst),
        3,
        "§1.1 toward the slowest"
    );
    handle.on_next(2);
    handle.on_complete();
    assert_eq!(log_of(&slow.0), ["0", "1", "2", "complete", "dropped"]);
    assert_eq!(log_of(&fast.0), ["0", "1", "2", "complete", "dropped"]);
}

#[test]
fn a_late_subscriber_joins_leased_ones_without_gaps() {
    let (mut handle, [first, second], upstream) = two_leased();
    let hub = handle.clone();
    let late = watch(&hub);
    late.1.request(3);
    handle.on_next(1);
    handle.on_next(2);
    assert!(upstream.0.load(Ordering::SeqCst) <= 10);
    handle.on_complete();
    assert_eq!(log_of(&first.0), ["0", "1", "2", "complete", "dropped"]);
    assert_eq!(log_of(&second.0), ["0", "1", "2", "complete", "dropped"]);
    assert_eq!(log_of(&late.0), ["1", "2", "complete", "dropped"]);
}

#[test]
fn subscribers_at_different_paces_get_every_element_in_order() {
    for (a, b) in [(128, 3), (1, demand::UNBOUNDED), (7, 64)] {
        let hub = IdentityProcessor::new();
        let (fast, fast_seen) = counting(a, None);
        let (slow, slow_seen) = counting(b, None);
        hub.subscribe(Box::new(fast));
        hub.subscribe(Box::new(slow));
        range(0, 2_000).subscribe(Box::new(hub));
        let all: Vec<u64> = (0..2_000).collect();
        assert_eq!(*fast_seen.lock().unwrap(), all, "batch {a}");
        assert_eq!(*slow_seen.lock().unwrap(), all, "batch {b}");
    }
}
