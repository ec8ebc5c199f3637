//! The pass-through forward: a `request` a processor's one subscriber
//! makes on the thread that owns the stage's trampoline (usually from
//! inside `on_next`, while a synchronous upstream delivers from inside the
//! trampoline's `request`) is a plain store the processor handle forwards
//! upstream itself. These tests pin what that must keep: calls on
//! upstream's subscription serial (§2.7) and never after its `cancel`,
//! upstream asked for exactly what downstream asked for (§1.1, no lost
//! demand), bounded recursion (§3.3), a `cancel` or `request(0)` from
//! inside `on_next` acting at the very next element (§3.9), and requests
//! from other threads still working.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_reference::{FilterProcessor, IdentityProcessor, MapProcessor, range};

/// A synchronous upstream of `0..end`: `request` delivers from inside
/// itself unless it is already delivering (then it only adds demand, the
/// usual trampoline, §3.3). It records what a subscriber must not do to it.
struct SyncUpstream {
    subscriber: Mutex<Option<Box<dyn Subscriber<u64>>>>,
    end: u64,
    next: AtomicU64,
    demand: AtomicU64,
    emitting: AtomicBool,
    requested: AtomicU64,
    cancelled: AtomicBool,
    /// Nesting of `request` calls on the calling thread, and its maximum.
    depth: AtomicUsize,
    max_depth: AtomicUsize,
    /// Calls made after `cancel`, and calls overlapping from two threads.
    after_cancel: AtomicUsize,
    overlapping: AtomicUsize,
    caller: Mutex<Option<std::thread::ThreadId>>,
}

impl SyncUpstream {
    fn subscribe(end: u64, mut subscriber: Box<dyn Subscriber<u64>>) -> Arc<SyncUpstream> {
        let upstream = Arc::new(SyncUpstream {
            subscriber: Mutex::new(None),
            end,
            next: AtomicU64::new(0),
            demand: AtomicU64::new(0),
            emitting: AtomicBool::new(false),
            requested: AtomicU64::new(0),
            cancelled: AtomicBool::new(false),
            depth: AtomicUsize::new(0),
            max_depth: AtomicUsize::new(0),
            after_cancel: AtomicUsize::new(0),
            overlapping: AtomicUsize::new(0),
            caller: Mutex::new(None),
        });
        // Demand asked for inside `on_subscribe` is served once the
        // subscriber is in place.
        subscriber.on_subscribe(upstream.clone());
        *upstream.subscriber.lock().unwrap() = Some(subscriber);
        upstream.enter();
        upstream.emit();
        upstream.leave();
        upstream
    }

    /// Counts a call, and one that overlaps another thread's (§2.7).
    fn enter(&self) {
        let me = std::thread::current().id();
        let depth = self.depth.fetch_add(1, Ordering::SeqCst) + 1;
        {
            let mut caller = self.caller.lock().unwrap();
            match *caller {
                Some(other) if other != me => {
                    self.overlapping.fetch_add(1, Ordering::SeqCst);
                }
                _ => *caller = Some(me),
            }
        }
        self.max_depth.fetch_max(depth, Ordering::SeqCst);
        if self.cancelled.load(Ordering::SeqCst) {
            self.after_cancel.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn leave(&self) {
        if self.depth.fetch_sub(1, Ordering::SeqCst) == 1 {
            *self.caller.lock().unwrap() = None;
        }
    }

    fn emit(&self) {
        while !self.emitting.swap(true, Ordering::SeqCst) {
            let Some(mut subscriber) = self.subscriber.lock().unwrap().take() else {
                self.emitting.store(false, Ordering::SeqCst);
                return;
            };
            loop {
                if self.cancelled.load(Ordering::SeqCst) {
                    break;
                }
                let next = self.next.load(Ordering::SeqCst);
                if next == self.end {
                    self.next.store(next + 1, Ordering::SeqCst);
                    subscriber.on_complete();
                    break;
                }
                if next > self.end || self.demand.load(Ordering::SeqCst) == 0 {
                    break;
                }
                self.demand.fetch_sub(1, Ordering::SeqCst);
                self.next.store(next + 1, Ordering::SeqCst);
                subscriber.on_next(next);
            }
            if self.cancelled.load(Ordering::SeqCst) {
                // §3.13: let go of the subscriber once cancelled.
                drop(subscriber);
            } else {
                *self.subscriber.lock().unwrap() = Some(subscriber);
            }
            self.emitting.store(false, Ordering::SeqCst);
            let more = self.demand.load(Ordering::SeqCst) > 0
                && self.next.load(Ordering::SeqCst) < self.end
                && !self.cancelled.load(Ordering::SeqCst);
            if !more {
                return;
            }
        }
    }

    fn delivered(&self) -> u64 {
        self.next.load(Ordering::SeqCst).min(self.end)
    }

    fn assert_well_used(&self) {
        assert_eq!(
            self.overlapping.load(Ordering::SeqCst),
            0,
            "§2.7: overlapping calls"
        );
        assert_eq!(
            self.after_cancel.load(Ordering::SeqCst),
            0,
            "calls after cancel"
        );
        assert!(
            self.delivered() <= self.requested.load(Ordering::SeqCst),
            "§1.1: delivered {} of {} asked for",
            self.delivered(),
            self.requested.load(Ordering::SeqCst)
        );
    }
}

impl Subscription for SyncUpstream {
    fn request(&self, n: u64) {
        self.enter();
        if !self.cancelled.load(Ordering::SeqCst) {
            self.requested.fetch_add(n, Ordering::SeqCst);
            self.demand.fetch_add(n, Ordering::SeqCst);
            self.emit();
        }
        self.leave();
    }
    fn cancel(&self) {
        self.enter();
        self.cancelled.store(true, Ordering::SeqCst);
        // §3.13 (if it is delivering, `emit` drops it when `on_next` returns).
        let subscriber = self.subscriber.lock().unwrap().take();
        drop(subscriber);
        self.leave();
    }
}

/// What a [`Scripted`] subscriber saw.
#[derive(Default)]
struct Seen {
    elements: Vec<u64>,
    error: Option<StreamError>,
    completed: bool,
    requested: u64,
}

type Shared = Arc<Mutex<Seen>>;
type Script = Box<dyn FnMut(u64, &dyn Subscription, &mut u64) + Send>;

/// Asks for `initial` in `on_subscribe`; on every element runs `script`
/// with its subscription and its running total of demand asked for.
struct Scripted {
    seen: Shared,
    initial: u64,
    subscription: Option<Arc<dyn Subscription>>,
    script: Script,
    dropped: Arc<AtomicBool>,
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

impl Subscriber<u64> for Scripted {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.seen.lock().unwrap().requested += self.initial;
        if self.initial > 0 {
            subscription.request(self.initial);
        }
        self.subscription = Some(subscription);
    }
    fn on_next(&mut self, element: u64) {
        self.seen.lock().unwrap().elements.push(element);
        let subscription = self.subscription.clone().expect("subscribed");
        let mut asked = 0;
        (self.script)(element, &*subscription, &mut asked);
        self.seen.lock().unwrap().requested += asked;
    }
    fn on_error(&mut self, error: StreamError) {
        self.seen.lock().unwrap().error = Some(error);
    }
    fn on_complete(&mut self) {
        self.seen.lock().unwrap().completed = true;
    }
}

fn scripted(
    initial: u64,
    script: impl FnMut(u64, &dyn Subscription, &mut u64) + Send + 'static,
) -> (Box<Scripted>, Shared, Arc<AtomicBool>) {
    let seen = Shared::default();
    let dropped = Arc::new(AtomicBool::new(false));
    let subscriber = Scripted {
        seen: seen.clone(),
        initial,
        subscription: None,
        script: Box::new(script),
        dropped: dropped.clone(),
    };
    (Box::new(subscriber), seen, dropped)
}

/// Which side of the processor is connected first.
#[derive(Clone, Copy, Debug)]
enum Order {
    /// Upstream, then the subscriber: its demand reaches upstream through
    /// the stage's trampoline, and upstream delivers the stream from inside
    /// that `request` (the subscriber's requests are plain stores the
    /// handle forwards).
    UpstreamFirst,
    /// The subscriber, then upstream: upstream delivers outside the
    /// trampoline (the subscriber's requests take the stage's lock).
    SubscriberFirst,
}

const ORDERS: [Order; 2] = [Order::UpstreamFirst, Order::SubscriberFirst];

/// Connects `upstream (0..end) → processor → subscriber` in `order`.
fn connect<P>(order: Order, end: u64, processor: &P, subscriber: Box<Scripted>) -> Arc<SyncUpstream>
where
    P: Publisher<u64> + Subscriber<u64> + Clone + 'static,
{
    match order {
        Order::UpstreamFirst => {
            let upstream = SyncUpstream::subscribe(end, Box::new(processor.clone()));
            processor.subscribe(subscriber);
            upstream
        }
        Order::SubscriberFirst => {
            processor.subscribe(subscriber);
            SyncUpstream::subscribe(end, Box::new(processor.clone()))
        }
    }
}

/// Asks for `n` and counts it.
fn ask(subscription: &dyn Subscription, asked: &mut u64, n: u64) {
    *asked += n;
    subscription.request(n);
}

#[test]
fn requests_from_inside_on_next_on_a_synchronous_upstream_are_forwarded_exactly_with_bounded_recursion()
 {
    for (batch, order) in [1, 2, 3, 64]
        .into_iter()
        .flat_map(|b| ORDERS.map(|o| (b, o)))
    {
        let map = MapProcessor::new_static(|x: u64| x + 1);
        // Refill by `batch` whenever `batch` elements have arrived.
        let mut since = 0;
        let (subscriber, seen, _) = scripted(batch, move |_, subscription, asked| {
            since += 1;
            if since == batch {
                since = 0;
                ask(subscription, asked, batch);
            }
        });
        let upstream = connect(order, 1000, &map, subscriber);
        let seen = seen.lock().unwrap();
        assert_eq!(
            seen.elements,
            (1..=1000).collect::<Vec<_>>(),
            "{order:?} {batch}"
        );
        assert!(seen.completed, "{order:?} batch {batch}");
        upstream.assert_well_used();
        // Upstream was asked for exactly what the subscriber asked for.
        assert_eq!(upstream.requested.load(Ordering::SeqCst), seen.requested);
        // The trampoline's `request`, and at most one forwarded from
        // inside `on_next` within it.
        let depth = upstream.max_depth.load(Ordering::SeqCst);
        assert!(
            depth <= 2,
            "{order:?} batch {batch}: request nested {depth} deep"
        );
    }
}

#[test]
fn a_filter_asks_for_its_replacements_on_a_synchronous_upstream_without_exceeding_demand() {
    for order in ORDERS {
        let even = FilterProcessor::new_static(|x: &u64| x % 2 == 0);
        let (subscriber, seen, _) = scripted(5, |_, _, _| {});
        let upstream = connect(order, 100, &even, subscriber);
        assert_eq!(
            seen.lock().unwrap().elements,
            vec![0, 2, 4, 6, 8],
            "{order:?}"
        );
        upstream.assert_well_used();
        // 5 asked for, plus one replacement per odd element dropped.
        assert_eq!(upstream.delivered(), 9, "{order:?}");
        assert!(upstream.requested.load(Ordering::SeqCst) <= 10, "{order:?}");
    }
}

#[test]
fn a_cancel_from_inside_on_next_after_a_request_stops_the_very_next_element() {
    for order in ORDERS {
        let map = MapProcessor::new_static(|x: u64| x * 10);
        let (subscriber, seen, dropped) = scripted(10, |element, subscription, asked| {
            if element == 30 {
                ask(subscription, asked, 5);
                subscription.cancel();
            }
        });
        let upstream = connect(order, 1000, &map, subscriber);
        let seen = seen.lock().unwrap();
        assert_eq!(seen.elements, vec![0, 10, 20, 30], "{order:?}");
        assert!(seen.error.is_none() && !seen.completed, "{order:?}");
        assert!(
            upstream.cancelled.load(Ordering::SeqCst),
            "{order:?}: upstream cancelled"
        );
        upstream.assert_well_used();
        // Upstream, still owed 6, may have delivered them to the processor
        // before the cancel reached it; none got past it.
        assert!(upstream.delivered() <= 10, "{order:?}");
        assert!(
            dropped.load(Ordering::SeqCst),
            "{order:?}: §3.13: subscriber dropped"
        );
    }
}

#[test]
fn a_request_of_zero_from_inside_on_next_is_answered_with_on_error_and_cancels_upstream() {
    for order in ORDERS {
        let identity = IdentityProcessor::new();
        let (subscriber, seen, _) = scripted(10, |element, subscription, asked| {
            if element == 2 {
                ask(subscription, asked, 4);
                subscription.request(0);
            }
        });
        let upstream = connect(order, 1000, &identity, subscriber);
        let seen = seen.lock().unwrap();
        assert_eq!(seen.elements, vec![0, 1, 2], "{order:?}");
        let error = seen.error.as_ref().expect("§3.9: on_error");
        assert!(error.to_string().contains('0'), "{order:?}: {error}");
        assert!(!seen.completed, "{order:?}");
        assert!(
            upstream.cancelled.load(Ordering::SeqCst),
            "{order:?}: upstream cancelled"
        );
        upstream.assert_well_used();
    }
}

/// Waits until `done` holds or 10 s pass.
fn wait_for(done: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

#[test]
fn requests_from_another_thread_while_on_next_requests_lose_and_add_no_demand() {
    const INSIDE: u64 = 300;
    const OUTSIDE: u64 = 300;
    for round in 0..30 {
        let map = MapProcessor::new_static(|x: u64| x);
        let received = Arc::new(AtomicU64::new(0));
        let subscription: Arc<Mutex<Option<Arc<dyn Subscription>>>> = Arc::default();
        let count = received.clone();
        let mut inside = 0;
        let (subscriber, _, _) = scripted(1, move |_, subscription, asked| {
            count.fetch_add(1, Ordering::SeqCst);
            if inside < INSIDE {
                inside += 1;
                ask(subscription, asked, 1);
            }
        });
        let keep = subscription.clone();
        range(0, 1_000_000).subscribe(Box::new(map.clone()));
        struct Keeping(Box<Scripted>, Arc<Mutex<Option<Arc<dyn Subscription>>>>);
        impl Subscriber<u64> for Keeping {
            fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
                *self.1.lock().unwrap() = Some(subscription.clone());
                self.0.on_subscribe(subscription);
            }
            fn on_next(&mut self, element: u64) {
                self.0.on_next(element);
            }
            fn on_error(&mut self, error: StreamError) {
                self.0.on_error(error);
            }
            fn on_complete(&mut self) {
                self.0.on_complete();
            }
        }
        let other = {
            let subscription = keep.clone();
            std::thread::spawn(move || {
                let subscription = loop {
                    if let Some(s) = subscription.lock().unwrap().clone() {
                        break s;
                    }
                    std::thread::yield_now();
                };
                for _ in 0..OUTSIDE {
                    subscription.request(1);
                }
            })
        };
        map.subscribe(Box::new(Keeping(subscriber, keep)));
        other.join().unwrap();
        let expected = 1 + INSIDE + OUTSIDE;
        assert!(
            wait_for(|| received.load(Ordering::SeqCst) >= expected),
            "round {round}: {} of {expected} arrived (lost demand)",
            received.load(Ordering::SeqCst)
        );
        // Nothing beyond what was asked for (§1.1): every call has
        // returned, and the range delivers only inside them.
        assert_eq!(received.load(Ordering::SeqCst), expected, "round {round}");
    }
}
