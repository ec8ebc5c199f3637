//! The factories that put the reference `MulticastPublisher`, a hot
//! publisher, under the TCK's publisher verifications: [`HotRanges`] for the
//! quick one (`tck_multicast.rs`), [`PacedHotRanges`] for a second quick
//! one whose source is paced by its subscribers' demand (`tck_multicast.rs`,
//! also with a failed subscriber of its own beside the TCK's),
//! [`FreshHotRanges`] for the extended one (`tck_extended.rs`).
// Each test binary uses one of the two.
#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::ThreadId;

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

    /// A hot publisher that fails each subscriber by overflow: see
    /// [`Overflowing`].
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(Overflowing {
            hot: MulticastPublisher::new(0, Overflow::Error),
        }))
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

    /// A hot publisher that has failed: every subscriber gets `on_subscribe`
    /// and then that `on_error`. (Not [`Overflowing`]: the generated
    /// schedules may ask for elements from inside `on_subscribe`.)
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        let hot = MulticastPublisher::new(1, Overflow::Error);
        hot.error(StreamError::msg("the hot source failed"));
        Some(Box::new(hot))
    }

    fn max_elements(&self) -> u64 {
        HotRanges.max_elements()
    }

    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

/// A failed hot publisher whose failure is an overflow: a
/// `MulticastPublisher` that buffers nothing, under `Overflow::Error`, and
/// pushes an element right after each `subscribe`. A subscriber that has
/// not asked for anything yet cannot take it, so its buffer overflows and
/// it gets `on_error` — also when it never requests, which only the push
/// can wake its drain for. (One that asked from inside `on_subscribe`
/// would get the element instead: no failed-publisher scenario of the
/// verification does.) Earlier subscribers, failed already, refuse the
/// later pushes, and the push removes them.
struct Overflowing {
    hot: MulticastPublisher<u64>,
}

impl Publisher<u64> for Overflowing {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        self.hot.subscribe(subscriber);
        self.hot.push(0);
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
        let source = self.source.clone();
        self.source.hot.subscribe(Box::new(Relay {
            subscriber,
            wrap: move |subscription| {
                Arc::new(Starting {
                    subscription,
                    source: source.clone(),
                }) as Arc<dyn Subscription>
            },
        }));
    }
}

/// Passes every signal on unchanged; hands the subscriber the subscription
/// `wrap` makes of the real one (one that starts or paces the source).
struct Relay<W> {
    subscriber: Box<dyn Subscriber<u64>>,
    wrap: W,
}

impl<W> Subscriber<u64> for Relay<W>
where
    W: FnMut(Arc<dyn Subscription>) -> Arc<dyn Subscription> + Send,
{
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        let wrapped = (self.wrap)(subscription);
        self.subscriber.on_subscribe(wrapped);
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

/// Hot publishers of `n` elements paced by their subscribers, for a second
/// verification of the multicast (`tck_multicast.rs`): the source has no
/// thread of its own. It pushes on the thread that requests, from inside
/// `Subscription::request` (so also from inside an `on_next` that asks for
/// more), and pushes element `k` only once every subscriber still present
/// (neither cancelled nor sent `request(0)`) has asked for it — the pace of
/// its slowest subscriber, which the spec allows a multicast (§1.11). It
/// stops when no subscriber is left, and completes right after element
/// `n − 1`.
///
/// So, unlike [`HotRanges`], the source goes idle between requests, with
/// every subscriber leased by the last push: a cancel or `request(0)` must
/// be acted on by the multicast itself, not by the next push or the
/// terminal. A push from inside an `on_next` finds that subscriber's
/// lease checked out, and queues behind it.
///
/// With `beside_overflow`, the multicast also has, beside the TCK's
/// subscribers, a subscriber of its own that failed by overflow before
/// they came: it never requests, and one more element was pushed to it
/// than its buffer holds (its drain sent it `on_error`). A failed member
/// stays in the multicast's list until a push finds its slot refusing and
/// removes it: here the first push the TCK's subscribers ask for, while
/// they are live beside it. The pace counts only the TCK's subscribers.
pub struct PacedHotRanges {
    pub beside_overflow: bool,
}

impl PublisherFactory for PacedHotRanges {
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        let range = PacedHotRange::new(elements);
        if self.beside_overflow {
            range.hot.subscribe(Box::new(Idle(None)));
            // The buffer holds `max(elements, 1)`: one more overflows it.
            for _ in 0..=elements.max(1) {
                range.hot.push(u64::MAX);
            }
        }
        Box::new(range)
    }

    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        HotRanges.create_failed_publisher()
    }

    fn max_elements(&self) -> u64 {
        HotRanges.max_elements()
    }

    /// The source pushes `0..n`: element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

/// A subscriber that never requests.
struct Idle(Option<Arc<dyn Subscription>>);

impl Subscriber<u64> for Idle {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.0 = Some(subscription);
    }
    fn on_next(&mut self, _: u64) {}
    fn on_error(&mut self, _: StreamError) {
        self.0 = None;
    }
    fn on_complete(&mut self) {
        self.0 = None;
    }
}

/// A `MulticastPublisher` and the demand of each subscriber present, which
/// paces its source.
struct PacedHotRange {
    hot: MulticastPublisher<u64>,
    pace: Arc<Pace>,
}

struct Pace {
    hot: MulticastPublisher<u64>,
    elements: u64,
    state: Mutex<PaceState>,
}

struct PaceState {
    /// The next element to push.
    next: u64,
    completed: bool,
    next_id: u64,
    /// Each subscriber present and the index its demand reaches: where it
    /// joined plus all it asked for (the element there is not asked for).
    present: Vec<(u64, u64)>,
    /// The thread pushing now, if any. Another thread's request only adds
    /// demand (under this lock), which that thread sees before it stops;
    /// the same thread pushes again from inside an `on_next`.
    pusher: Option<ThreadId>,
}

impl PacedHotRange {
    fn new(elements: u64) -> Self {
        let capacity = usize::try_from(elements).expect("at most max_elements()");
        let hot = MulticastPublisher::new(capacity.max(1), Overflow::Error);
        PacedHotRange {
            hot: hot.clone(),
            pace: Arc::new(Pace {
                hot,
                elements,
                state: Mutex::new(PaceState {
                    next: 0,
                    completed: false,
                    next_id: 0,
                    present: Vec::new(),
                    pusher: None,
                }),
            }),
        }
    }
}

impl Pace {
    fn lock(&self) -> MutexGuard<'_, PaceState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new subscriber, present with no demand: the source waits for it.
    fn join(&self) -> u64 {
        let mut state = self.lock();
        let id = state.next_id;
        state.next_id += 1;
        let joined = state.next;
        state.present.push((id, joined));
        id
    }

    /// Records `n` more for subscriber `id` (a `request(0)` or a cancel
    /// takes it away), then pushes whatever every subscriber present has
    /// asked for.
    fn demand(&self, id: u64, n: Option<u64>) {
        let me = std::thread::current().id();
        let mut state = self.lock();
        let at = state.present.iter().position(|(member, _)| *member == id);
        match (at, n) {
            (Some(at), Some(n)) if n > 0 => {
                let reach = &mut state.present[at].1;
                *reach = reach.saturating_add(n);
            }
            (Some(at), _) => {
                state.present.remove(at);
            }
            (None, _) => {}
        }
        // Only one thread pushes at a time, so elements go in order; a
        // request from inside one of its `on_next`s pushes again, nested.
        let outermost = match state.pusher {
            Some(pusher) if pusher != me => return,
            Some(_) => false,
            None => {
                state.pusher = Some(me);
                true
            }
        };
        loop {
            if state.completed {
                break;
            }
            if state.next == self.elements {
                state.completed = true;
                drop(state);
                self.hot.complete();
                state = self.lock();
                break;
            }
            let k = state.next;
            let owed =
                !state.present.is_empty() && state.present.iter().all(|(_, reach)| *reach > k);
            if !owed {
                break;
            }
            state.next += 1;
            drop(state);
            self.hot.push(k);
            state = self.lock();
        }
        if outermost {
            state.pusher = None;
        }
    }
}

impl Publisher<u64> for PacedHotRange {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        let id = self.pace.join();
        let pace = self.pace.clone();
        self.hot.subscribe(Box::new(Relay {
            subscriber,
            wrap: move |subscription| {
                Arc::new(Pacing {
                    subscription,
                    pace: pace.clone(),
                    id,
                }) as Arc<dyn Subscription>
            },
        }));
    }
}

struct Pacing {
    subscription: Arc<dyn Subscription>,
    pace: Arc<Pace>,
    id: u64,
}

impl Subscription for Pacing {
    fn request(&self, n: u64) {
        self.subscription.request(n);
        self.pace.demand(self.id, Some(n));
    }

    fn cancel(&self) {
        self.subscription.cancel();
        self.pace.demand(self.id, None);
    }
}
