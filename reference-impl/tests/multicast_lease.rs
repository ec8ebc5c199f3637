//! `MulticastPublisher`'s leases: a push that finds a subscriber idle with
//! demand calls its `on_next` itself and keeps the subscriber's drain
//! (parked in the publisher between pushes). What must still hold: a
//! `cancel` or `request(0)` from another thread acts without waiting for a
//! push (§3.13, §3.9), a `cancel` inside `on_next` stops the very next
//! element, signals stay serial (§1.3) and in each pusher's order when
//! several threads push, a push from inside `on_next` does not recurse
//! without bound (§3.3), and the terminal follows the elements exactly
//! once (§1.7).

mod support;

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_reference::{Executor, MulticastPublisher, Overflow, Task};
use support::{Event, Probe, recorder_with};

/// Two subscribers asking for 10 each, and one push: both got element 0
/// from the pushing thread and are leased (parked) now.
fn two_parked() -> (MulticastPublisher<u64>, Probe<u64>, Probe<u64>) {
    let hot = MulticastPublisher::new(16, Overflow::Error);
    let (a, pa) = recorder_with::<u64>(10, |_| 0);
    let (b, pb) = recorder_with::<u64>(10, |_| 0);
    hot.subscribe(Box::new(a));
    hot.subscribe(Box::new(b));
    assert_eq!(hot.push(0), 2);
    assert_eq!(pa.elements(), vec![0]);
    assert_eq!(pb.elements(), vec![0]);
    (hot, pa, pb)
}

#[test]
fn a_cancel_from_another_thread_while_parked_drops_the_subscriber_without_another_push() {
    let (hot, pa, pb) = two_parked();
    let canceller = pa.clone();
    std::thread::spawn(move || canceller.cancel())
        .join()
        .expect("cancelled");
    assert!(pa.wait_dropped(), "§3.13: dropped with no further push");
    assert!(pa.terminals().is_empty());
    assert_eq!(hot.subscriber_count(), 1);
    assert_eq!(hot.push(1), 1);
    assert_eq!(pa.elements(), vec![0], "nothing after the cancel");
    assert_eq!(pb.elements(), vec![0, 1], "the other one is unaffected");
    assert!(pa.violations().is_empty() && pb.violations().is_empty());
}

#[test]
fn a_request_of_zero_from_another_thread_while_parked_is_answered_without_another_push() {
    let (hot, pa, pb) = two_parked();
    let requester = pb.clone();
    std::thread::spawn(move || requester.request(0))
        .join()
        .expect("requested");
    assert!(pb.wait_terminal(), "§3.9: on_error with no further push");
    assert!(pb.error().is_some());
    assert!(pb.wait_dropped());
    assert_eq!(hot.push(1), 1);
    assert_eq!(pa.elements(), vec![0, 1]);
    assert_eq!(pb.elements(), vec![0]);
    assert!(pa.violations().is_empty() && pb.violations().is_empty());
}

#[test]
fn a_request_from_another_thread_while_parked_is_seen_by_the_next_push() {
    let hot = MulticastPublisher::new(4, Overflow::Error);
    let (a, pa) = recorder_with::<u64>(1, |_| 0);
    hot.subscribe(Box::new(a));
    hot.push(0);
    let requester = pa.clone();
    std::thread::spawn(move || requester.request(2))
        .join()
        .expect("requested");
    hot.push(1);
    hot.push(2);
    hot.push(3);
    assert_eq!(pa.elements(), vec![0, 1, 2], "within demand");
    pa.request(1);
    assert_eq!(pa.elements(), vec![0, 1, 2, 3], "the buffered one");
    hot.complete();
    assert!(pa.completed());
    assert!(pa.violations().is_empty());
}

/// Records its elements and cancels inside `on_next` of `cancel_at`.
struct Cancelling {
    cancel_at: u64,
    seen: Arc<Mutex<Vec<String>>>,
    subscription: Option<Arc<dyn Subscription>>,
}

impl Subscriber<u64> for Cancelling {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        subscription.request(demand::UNBOUNDED);
        self.subscription = Some(subscription);
    }
    fn on_next(&mut self, element: u64) {
        self.seen.lock().unwrap().push(element.to_string());
        if element == self.cancel_at {
            if let Some(subscription) = self.subscription.take() {
                subscription.cancel();
            }
        }
    }
    fn on_error(&mut self, _: StreamError) {
        self.seen.lock().unwrap().push("error".into());
    }
    fn on_complete(&mut self) {
        self.seen.lock().unwrap().push("complete".into());
    }
}

impl Drop for Cancelling {
    fn drop(&mut self) {
        self.seen.lock().unwrap().push("dropped".into());
    }
}

#[test]
fn a_cancel_inside_on_next_stops_the_very_next_push_for_that_subscriber() {
    let hot = MulticastPublisher::new(16, Overflow::Error);
    let seen = Arc::new(Mutex::new(Vec::new()));
    hot.subscribe(Box::new(Cancelling {
        cancel_at: 2,
        seen: seen.clone(),
        subscription: None,
    }));
    let (b, pb) = recorder_with::<u64>(demand::UNBOUNDED, |_| 0);
    hot.subscribe(Box::new(b));
    for i in 0..3 {
        assert_eq!(hot.push(i), 2);
    }
    assert_eq!(
        *seen.lock().unwrap(),
        ["0", "1", "2", "dropped"],
        "§3.13: released when the push that delivered element 2 returns"
    );
    assert_eq!(hot.push(3), 1, "only the other one is left");
    hot.complete();
    assert_eq!(*seen.lock().unwrap(), ["0", "1", "2", "dropped"]);
    assert_eq!(pb.elements(), vec![0, 1, 2, 3]);
    assert!(pb.completed());
    assert!(pb.violations().is_empty());
}

#[test]
fn threads_pushing_at_once_keep_each_subscribers_signals_serial_and_each_pushers_order() {
    const PUSHERS: u64 = 2;
    const EACH: u64 = 5_000;
    const BASE: u64 = 1_000_000;
    let capacity = usize::try_from(PUSHERS * EACH).expect("fits");
    let hot = MulticastPublisher::new(capacity, Overflow::Error);
    // Two that ask for everything, one asking 8 at a time from inside
    // `on_next` (leased, out of demand now and then), one asking from the
    // test thread after the pushes (never leased: everything buffered).
    let probes: Vec<Probe<u64>> = [
        recorder_with::<u64>(demand::UNBOUNDED, |_| 0),
        recorder_with::<u64>(demand::UNBOUNDED, |_| 0),
        recorder_with::<u64>(8, {
            let mut received = 0;
            move |_| {
                received += 1;
                if received % 8 == 0 { 8 } else { 0 }
            }
        }),
        recorder_with::<u64>(0, |_| 0),
    ]
    .into_iter()
    .map(|(subscriber, probe)| {
        hot.subscribe(Box::new(subscriber));
        probe
    })
    .collect();
    let start = Arc::new(Barrier::new(PUSHERS as usize));
    let pushers: Vec<_> = (0..PUSHERS)
        .map(|pusher| {
            let hot = hot.clone();
            let start = start.clone();
            std::thread::spawn(move || {
                start.wait();
                for i in 0..EACH {
                    assert_eq!(hot.push(pusher * BASE + i), 4, "offered to all four");
                }
            })
        })
        .collect();
    for pusher in pushers {
        pusher.join().expect("pushed");
    }
    probes[3].request(demand::UNBOUNDED);
    hot.complete();
    for (index, probe) in probes.iter().enumerate() {
        assert!(probe.wait_terminal(), "subscriber {index} ended");
        assert!(probe.completed(), "subscriber {index} completed");
        assert!(
            probe.violations().is_empty(),
            "subscriber {index}: {:?}",
            probe.violations()
        );
        let elements = probe.elements();
        for pusher in 0..PUSHERS {
            let from: Vec<u64> = elements
                .iter()
                .filter(|x| **x / BASE == pusher)
                .map(|x| x % BASE)
                .collect();
            assert_eq!(
                from,
                (0..EACH).collect::<Vec<_>>(),
                "subscriber {index}: pusher {pusher}'s elements, all, in its order"
            );
        }
    }
}

thread_local! {
    /// `on_next` calls on this thread's stack right now.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Pushes the next value from inside each `on_next`, until `pushes` were
/// made in all, and notes how deep `on_next` calls nest.
struct Echo {
    hot: MulticastPublisher<u64>,
    pushes: Arc<AtomicU64>,
    limit: u64,
    deepest: Arc<AtomicUsize>,
    seen: Arc<Mutex<Vec<u64>>>,
}

impl Subscriber<u64> for Echo {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        subscription.request(demand::UNBOUNDED);
    }
    fn on_next(&mut self, element: u64) {
        let depth = DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get()
        });
        self.deepest.fetch_max(depth, Ordering::Relaxed);
        self.seen.lock().unwrap().push(element);
        let next = self.pushes.fetch_add(1, Ordering::Relaxed);
        if next < self.limit {
            self.hot.push(next);
        }
        DEPTH.with(|d| d.set(d.get() - 1));
    }
    fn on_error(&mut self, _: StreamError) {}
    fn on_complete(&mut self) {}
}

#[test]
fn pushes_from_inside_on_next_do_not_recurse_without_bound() {
    const PUSHES: u64 = 100_000;
    let capacity = usize::try_from(PUSHES).expect("fits");
    let hot = MulticastPublisher::new(capacity, Overflow::Error);
    let pushes = Arc::new(AtomicU64::new(1));
    let deepest = Arc::new(AtomicUsize::new(0));
    let seen: Vec<Arc<Mutex<Vec<u64>>>> = (0..2)
        .map(|_| {
            let seen = Arc::new(Mutex::new(Vec::new()));
            hot.subscribe(Box::new(Echo {
                hot: hot.clone(),
                pushes: pushes.clone(),
                limit: PUSHES,
                deepest: deepest.clone(),
                seen: seen.clone(),
            }));
            seen
        })
        .collect();
    hot.push(0);
    let deepest = deepest.load(Ordering::Relaxed);
    assert!(
        deepest <= 2,
        "§3.3: on_next nested {deepest} deep (at most one per subscriber)"
    );
    for (index, seen) in seen.iter().enumerate() {
        assert_eq!(
            *seen.lock().unwrap(),
            (0..PUSHES).collect::<Vec<_>>(),
            "subscriber {index}: every push, in order"
        );
    }
    hot.complete();
}

/// Records its elements; completes `hot` from another thread inside
/// `on_next` of element 0 (its lease checked out meanwhile).
struct CompletingElsewhere {
    hot: MulticastPublisher<u64>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Subscriber<u64> for CompletingElsewhere {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        subscription.request(10);
    }
    fn on_next(&mut self, element: u64) {
        self.seen.lock().unwrap().push(element.to_string());
        if element == 0 {
            let hot = self.hot.clone();
            std::thread::spawn(move || hot.complete())
                .join()
                .expect("completed");
        }
    }
    fn on_error(&mut self, _: StreamError) {
        self.seen.lock().unwrap().push("error".into());
    }
    fn on_complete(&mut self) {
        self.seen.lock().unwrap().push("complete".into());
    }
}

#[test]
fn complete_while_parked_ends_every_lease_after_its_elements() {
    let (hot, pa, pb) = two_parked();
    hot.complete();
    for probe in [&pa, &pb] {
        assert!(probe.wait_dropped(), "completed with no further push");
        assert!(matches!(
            probe.log().events.as_slice(),
            [Event::Next(0), Event::Complete]
        ));
        assert!(probe.violations().is_empty());
    }
    assert_eq!(hot.push(1), 0);
}

#[test]
fn complete_while_checked_out_follows_the_element_exactly_once() {
    let hot = MulticastPublisher::new(16, Overflow::Error);
    let seen = Arc::new(Mutex::new(Vec::new()));
    hot.subscribe(Box::new(CompletingElsewhere {
        hot: hot.clone(),
        seen: seen.clone(),
    }));
    let (b, pb) = recorder_with::<u64>(10, |_| 0);
    hot.subscribe(Box::new(b));
    assert_eq!(hot.push(0), 2);
    assert_eq!(
        *seen.lock().unwrap(),
        ["0", "complete"],
        "§1.7: the terminal after the element"
    );
    assert!(pb.wait_terminal());
    assert!(matches!(
        pb.log().events.as_slice(),
        [Event::Next(0), Event::Complete]
    ));
    assert!(pb.violations().is_empty());
    assert_eq!(hot.push(1), 0);
    hot.complete();
    assert_eq!(*seen.lock().unwrap(), ["0", "complete"], "exactly once");
    assert_eq!(pb.terminals().len(), 1);
}

#[test]
fn an_error_while_parked_reaches_every_subscriber_at_once() {
    let (hot, pa, pb) = two_parked();
    hot.error(StreamError::msg("boom"));
    for probe in [&pa, &pb] {
        assert!(probe.wait_dropped());
        assert_eq!(probe.error().expect("failed").to_string(), "boom");
        assert_eq!(probe.elements(), vec![0]);
    }
}

#[test]
fn a_parked_subscriber_out_of_demand_buffers_and_gets_the_rest_on_request() {
    let hot = MulticastPublisher::new(4, Overflow::Error);
    let (a, pa) = recorder_with::<u64>(2, |_| 0);
    let (b, pb) = recorder_with::<u64>(demand::UNBOUNDED, |_| 0);
    hot.subscribe(Box::new(a));
    hot.subscribe(Box::new(b));
    for i in 0..5 {
        hot.push(i);
    }
    assert_eq!(pa.elements(), vec![0, 1], "§1.1: within demand");
    assert_eq!(pb.elements(), vec![0, 1, 2, 3, 4]);
    pa.request(10);
    assert_eq!(
        pa.elements(),
        vec![0, 1, 2, 3, 4],
        "the buffered ones, in order"
    );
    hot.push(5);
    assert_eq!(pa.elements(), vec![0, 1, 2, 3, 4, 5], "handed over again");
    hot.complete();
    assert!(pa.completed() && pb.completed());
    assert!(pa.violations().is_empty() && pb.violations().is_empty());
}

#[test]
fn with_an_executor_nothing_is_handed_over_on_the_pushing_thread() {
    let tasks: Arc<Mutex<VecDeque<Task>>> = Arc::default();
    let queue = tasks.clone();
    let executor = Executor::custom(move |task| queue.lock().unwrap().push_back(task));
    let hot = MulticastPublisher::with_executor(8, Overflow::Error, executor);
    let run = || loop {
        let Some(task) = tasks.lock().unwrap().pop_front() else {
            break;
        };
        task();
    };
    let (a, pa) = recorder_with::<u64>(10, |_| 0);
    hot.subscribe(Box::new(a));
    run();
    for i in 0..3 {
        assert_eq!(hot.push(i), 1);
    }
    assert!(
        pa.elements().is_empty(),
        "no lease: signals go to the executor"
    );
    run();
    assert_eq!(pa.elements(), vec![0, 1, 2]);
    hot.complete();
    run();
    assert!(pa.completed());
    assert!(pa.violations().is_empty());
}
