//! Pass-through: a processor with one downstream subscriber lets the
//! handle upstream signals call that subscriber directly, forwarding its
//! demand upstream; a second subscriber, a `cancel`, a `request(0)` and
//! upstream's terminal signals move it off that path without losing or
//! duplicating anything.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_reference::{FilterProcessor, IdentityProcessor, MapProcessor};

/// An upstream the test drives by hand: it records demand and
/// cancellation, and the test calls the processor handle's signals.
#[derive(Default)]
struct Upstream {
    requested: AtomicU64,
    cancelled: AtomicBool,
    zero_requests: AtomicU64,
}

impl Subscription for Upstream {
    fn request(&self, n: u64) {
        if n == 0 {
            self.zero_requests.fetch_add(1, Ordering::Relaxed);
        }
        self.requested.fetch_add(n, Ordering::Relaxed);
    }
    fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
}

/// What a [`Probe`] saw.
#[derive(Default)]
struct Log {
    elements: Vec<u64>,
    error: Option<StreamError>,
    completed: bool,
    subscription: Option<Arc<dyn Subscription>>,
}

type Shared = Arc<Mutex<Log>>;

/// A subscriber that asks for `initial` in `on_subscribe` and records
/// everything; `dropped` turns true when it is dropped.
struct Probe {
    log: Shared,
    initial: u64,
    dropped: Arc<AtomicBool>,
}

impl Drop for Probe {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::Relaxed);
    }
}

impl Subscriber<u64> for Probe {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.initial > 0 {
            subscription.request(self.initial);
        }
        self.log.lock().unwrap().subscription = Some(subscription);
    }
    fn on_next(&mut self, element: u64) {
        self.log.lock().unwrap().elements.push(element);
    }
    fn on_error(&mut self, error: StreamError) {
        self.log.lock().unwrap().error = Some(error);
    }
    fn on_complete(&mut self) {
        self.log.lock().unwrap().completed = true;
    }
}

fn probe(initial: u64) -> (Box<Probe>, Shared, Arc<AtomicBool>) {
    let log = Shared::default();
    let dropped = Arc::new(AtomicBool::new(false));
    let probe = Probe {
        log: log.clone(),
        initial,
        dropped: dropped.clone(),
    };
    (Box::new(probe), log, dropped)
}

fn request(log: &Shared, n: u64) {
    let subscription = log
        .lock()
        .unwrap()
        .subscription
        .clone()
        .expect("subscribed");
    subscription.request(n);
}

fn cancel(log: &Shared) {
    let subscription = log
        .lock()
        .unwrap()
        .subscription
        .clone()
        .expect("subscribed");
    subscription.cancel();
}

/// A processor handle subscribed to a hand-driven upstream.
fn fed(handle: &mut dyn Subscriber<u64>) -> Arc<Upstream> {
    let upstream = Arc::new(Upstream::default());
    handle.on_subscribe(upstream.clone());
    upstream
}

#[test]
fn upstream_is_asked_for_exactly_what_the_one_subscriber_asks_for() {
    let processor = IdentityProcessor::new();
    let (first, log, _) = probe(3);
    processor.subscribe(first);
    let mut handle = processor.clone();
    let upstream = fed(&mut handle);
    assert_eq!(upstream.requested.load(Ordering::Relaxed), 3);
    for x in 0..3 {
        handle.on_next(x);
    }
    request(&log, 2);
    assert_eq!(upstream.requested.load(Ordering::Relaxed), 5);
    handle.on_next(3);
    handle.on_complete();
    let log = log.lock().unwrap();
    assert_eq!(log.elements, vec![0, 1, 2, 3]);
    assert!(log.completed);
}

#[test]
fn a_second_subscriber_joining_mid_batch_moves_both_to_the_slowest_pace() {
    let processor = IdentityProcessor::new();
    let (first, first_log, _) = probe(4);
    processor.subscribe(first);
    let mut handle = processor.clone();
    let upstream = fed(&mut handle);
    handle.on_next(0);
    // The first still awaits 3 it asked for: upstream owes them.
    let (second, second_log, _) = probe(1);
    processor.subscribe(second);
    for x in 1..4 {
        handle.on_next(x);
    }
    assert_eq!(first_log.lock().unwrap().elements, vec![0, 1, 2, 3]);
    // Joined after element 0: gets 1 now, 2 and 3 are kept for it.
    assert_eq!(second_log.lock().unwrap().elements, vec![1]);
    assert_eq!(upstream.requested.load(Ordering::Relaxed), 4);
    // The first asks for more: upstream waits for the slower one.
    request(&first_log, 10);
    assert_eq!(upstream.requested.load(Ordering::Relaxed), 4);
    request(&second_log, 10);
    assert_eq!(second_log.lock().unwrap().elements, vec![1, 2, 3]);
    let asked = upstream.requested.load(Ordering::Relaxed);
    assert!(asked > 4, "upstream asked for more once both had demand");
    for x in 4..asked {
        handle.on_next(x);
    }
    handle.on_complete();
    assert_eq!(
        first_log.lock().unwrap().elements,
        (0..asked).collect::<Vec<_>>()
    );
    assert_eq!(
        second_log.lock().unwrap().elements,
        (1..asked).collect::<Vec<_>>()
    );
    assert!(first_log.lock().unwrap().completed);
    assert!(second_log.lock().unwrap().completed);
}

#[test]
fn a_second_subscriber_joining_while_the_first_waits_for_demand_hands_it_back_at_once() {
    let processor = IdentityProcessor::new();
    let (first, first_log, _) = probe(1);
    processor.subscribe(first);
    let mut handle = processor.clone();
    let upstream = fed(&mut handle);
    handle.on_next(0);
    let (second, second_log, _) = probe(0);
    processor.subscribe(second);
    request(&first_log, 2);
    assert_eq!(upstream.requested.load(Ordering::Relaxed), 1);
    request(&second_log, 1);
    assert_eq!(upstream.requested.load(Ordering::Relaxed), 2);
    handle.on_next(1);
    assert_eq!(first_log.lock().unwrap().elements, vec![0, 1]);
    assert_eq!(second_log.lock().unwrap().elements, vec![1]);
}

#[test]
fn a_request_of_zero_from_another_thread_is_answered_with_on_error_and_cancels_upstream() {
    let processor = IdentityProcessor::new();
    let (first, log, dropped) = probe(2);
    processor.subscribe(first);
    let mut handle = processor.clone();
    let upstream = fed(&mut handle);
    // One of two delivered: the handle holds the subscriber.
    handle.on_next(0);
    let from = log.clone();
    std::thread::spawn(move || request(&from, 0))
        .join()
        .unwrap();
    assert!(
        upstream.cancelled.load(Ordering::Relaxed),
        "upstream cancelled"
    );
    assert_eq!(upstream.zero_requests.load(Ordering::Relaxed), 0);
    // A cancelled upstream drops its subscriber (§3.13): the error owed
    // goes out then, the element in flight does not.
    handle.on_next(1);
    drop(handle);
    let log = log.lock().unwrap();
    assert_eq!(log.elements, vec![0]);
    assert!(
        log.error
            .as_ref()
            .is_some_and(StreamError::is_illegal_demand),
        "§3.9 on_error, got {:?}",
        log.error
    );
    assert!(dropped.load(Ordering::Relaxed), "§3.13: subscriber dropped");
}

#[test]
fn a_cancel_from_another_thread_drops_the_subscriber_once_upstream_lets_go() {
    let processor = IdentityProcessor::new();
    let (first, log, dropped) = probe(2);
    processor.subscribe(first);
    let mut handle = processor.clone();
    let upstream = fed(&mut handle);
    handle.on_next(0);
    let from = log.clone();
    std::thread::spawn(move || cancel(&from)).join().unwrap();
    assert!(upstream.cancelled.load(Ordering::Relaxed));
    drop(handle);
    assert!(dropped.load(Ordering::Relaxed), "§3.13: subscriber dropped");
    assert_eq!(log.lock().unwrap().elements, vec![0]);
}

#[test]
fn a_cancel_while_waiting_for_demand_drops_the_subscriber_at_once() {
    let processor = IdentityProcessor::new();
    let (first, log, dropped) = probe(1);
    processor.subscribe(first);
    let mut handle = processor.clone();
    let upstream = fed(&mut handle);
    handle.on_next(0);
    cancel(&log);
    assert!(upstream.cancelled.load(Ordering::Relaxed));
    assert!(dropped.load(Ordering::Relaxed), "§3.13: subscriber dropped");
}

#[test]
fn upstream_failing_reaches_the_subscriber_whether_or_not_it_has_demand() {
    for demand in [0, 1, 5] {
        let processor = IdentityProcessor::new();
        let (first, log, _) = probe(demand);
        processor.subscribe(first);
        let mut handle = processor.clone();
        fed(&mut handle);
        if demand > 0 {
            handle.on_next(7);
        }
        handle.on_error(StreamError::msg("upstream broke"));
        let log = log.lock().unwrap();
        assert!(log.error.is_some(), "demand {demand}: on_error");
        assert_eq!(log.elements.len(), demand.min(1) as usize);
    }
}

#[test]
fn a_filter_replaces_the_elements_it_dropped_in_one_request() {
    let even = FilterProcessor::new(|x: &u64| x % 2 == 0);
    let (first, log, _) = probe(4);
    even.subscribe(first);
    let mut handle = even.clone();
    let upstream = fed(&mut handle);
    assert_eq!(upstream.requested.load(Ordering::Relaxed), 4);
    for x in 0..4 {
        handle.on_next(x);
    }
    // Two of four dropped: two more asked for once the four arrived.
    assert_eq!(upstream.requested.load(Ordering::Relaxed), 6);
    handle.on_next(4);
    handle.on_next(5);
    // One more dropped.
    assert_eq!(upstream.requested.load(Ordering::Relaxed), 7);
    handle.on_next(6);
    assert_eq!(log.lock().unwrap().elements, vec![0, 2, 4, 6]);
    assert_eq!(upstream.requested.load(Ordering::Relaxed), 7);
}

#[test]
fn demand_added_while_upstream_still_owes_is_waited_for_before_the_subscriber_is_parked() {
    // `new_static`: the function's own type, inlined on this path.
    let triple = MapProcessor::new_static(|x: u64| x * 3);
    let (first, log, dropped) = probe(4);
    triple.subscribe(first);
    let mut handle = triple.clone();
    let upstream = fed(&mut handle);
    handle.on_next(0);
    handle.on_next(1);
    // Upstream still owes 2 of the 4; 2 more asked for meanwhile.
    request(&log, 2);
    assert_eq!(upstream.requested.load(Ordering::Relaxed), 6);
    for x in 2..6 {
        handle.on_next(x);
    }
    assert_eq!(log.lock().unwrap().elements, vec![0, 3, 6, 9, 12, 15]);
    // All 6 arrived: the subscriber is parked, so a cancel from another
    // thread drops it at once.
    cancel(&log);
    assert!(upstream.cancelled.load(Ordering::Relaxed));
    assert!(dropped.load(Ordering::Relaxed));
}

#[test]
fn a_map_processor_named_by_its_two_element_types_is_made_by_new() {
    // `MapProcessor<T, R>` names the processor `new` makes, as before
    // the function became a type parameter.
    let double: MapProcessor<u64, u64> = MapProcessor::new(|x| x * 2);
    let (first, log, _) = probe(2);
    double.subscribe(first);
    let mut handle = double.clone();
    fed(&mut handle);
    handle.on_next(1);
    handle.on_next(2);
    handle.on_complete();
    assert_eq!(log.lock().unwrap().elements, vec![2, 4]);
}

#[test]
fn a_filter_processor_named_by_its_element_type_is_made_by_new() {
    // `FilterProcessor<T>` names the processor `new` makes, as before the
    // predicate became a type parameter; `new_static` keeps its own type.
    let odd: FilterProcessor<u64> = FilterProcessor::new(|x| x % 2 == 1);
    let (first, log, _) = probe(2);
    odd.subscribe(first);
    let mut handle = odd.clone();
    fed(&mut handle);
    for x in 1..=3 {
        handle.on_next(x);
    }
    handle.on_complete();
    assert_eq!(log.lock().unwrap().elements, vec![1, 3]);

    let even = FilterProcessor::new_static(|x: &u64| x % 2 == 0);
    let (second, log, _) = probe(2);
    even.subscribe(second);
    let mut handle = even.clone();
    fed(&mut handle);
    for x in 1..=4 {
        handle.on_next(x);
    }
    assert_eq!(log.lock().unwrap().elements, vec![2, 4]);
}
