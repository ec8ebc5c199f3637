//! Correct-but-unusual publishers, written from the rule texts alone (not
//! from the reference implementation): each does something the spec allows
//! and a careless TCK would call a failure.
//!
//! | publisher | freedom it uses |
//! |---|---|
//! | [`Pull`] with `lazy_end` | learns that its iterator is exhausted only when asked for one element more: after `request(n)` it delivers the `n` elements of a stream of `n`, and `on_complete` comes with the next `request` (§1.5 sets no deadline, §3.11 lets `request` complete) |
//! | [`Pull`] of length 0, [`AlwaysEmpty`] | always empty: `max_elements() == 0` |
//! | [`Pull`] of length 1, [`JustOnes`] | can only make exactly one element: `min_elements() == max_elements() == 1` |
//! | [`Pull`] with `serial_only` | relies on §2.7: a call of `request` or `cancel` that overlaps another one from a different thread panics, saying so |
//! | [`HandOff`] | `request` hands the demand to the publisher's worker thread and returns once the worker has delivered the element it asked for: a probe that cancels from inside that `on_next` must not wait there for its own `request` |
//! | [`Pull`] with `slow_first_request`, [`SlowFirstRequest`] | the first `request` on each subscription blocks for [`SLOW_REQUEST`] (a lazy connection being opened), then the publisher behaves: §3.4 asks `request` to return "in a timely manner", a SHOULD, so this is a warning naming the call, never a failure of any other rule |
//!
//! Shared by the quick (`publisher_verification`) and the extended
//! (`extended_verification`) self-tests.

#![allow(dead_code)]

use std::sync::Arc;
use std::thread::ThreadId;

use parking_lot::Mutex;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::testkit::{Failing, Signal, Trampoline, Turn};

/// A synchronous publisher that pulls its elements from an iterator, on the
/// thread that calls `request`. See the [module](self) docs.
#[derive(Debug, Clone, Copy)]
pub struct Pull {
    /// How many elements (`u64::MAX`: infinite).
    pub count: u64,
    /// Whether the end is found only by pulling once more (with demand).
    pub lazy_end: bool,
    /// Whether overlapping calls on a subscription are reported (§2.7).
    pub serial_only: bool,
    /// Whether the first `request` of each subscription blocks for
    /// [`SLOW_REQUEST`] before it does anything.
    pub slow_first_request: bool,
}

/// How long [`SlowFirstRequest`]'s first `request` blocks.
pub const SLOW_REQUEST: std::time::Duration = std::time::Duration::from_secs(2);

impl Publisher<u64> for Pull {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let source: Box<dyn Iterator<Item = u64> + Send> = if self.count == u64::MAX {
            Box::new(0..)
        } else {
            Box::new(0..self.count)
        };
        let subscription = Arc::new(PullSubscription {
            lazy_end: self.lazy_end,
            calls: self.serial_only.then(|| Mutex::new(None)),
            last_caller: Mutex::new(None),
            slow: std::sync::atomic::AtomicBool::new(self.slow_first_request),
            // A request from inside on_subscribe only adds demand.
            state: Trampoline::new(PullState {
                source: source.peekable(),
                demand: 0,
                stopped: false,
                illegal: false,
            }),
        });
        subscriber.on_subscribe(subscription.clone());
        subscription.state.attach(subscriber);
        subscription.drain();
    }
}

struct PullSubscription {
    lazy_end: bool,
    /// The thread inside `request`/`cancel`, and how deeply (a `request`
    /// from `on_next` inside `request` is on the same thread: §3.3).
    calls: Option<Mutex<Option<(ThreadId, u32)>>>,
    /// The thread of the last outermost call.
    last_caller: Mutex<Option<ThreadId>>,
    /// The next `request` blocks first (see [`Pull::slow_first_request`]).
    slow: std::sync::atomic::AtomicBool,
    state: Trampoline<PullState, Box<dyn Subscriber<u64>>>,
}

struct PullState {
    source: std::iter::Peekable<Box<dyn Iterator<Item = u64> + Send>>,
    demand: u64,
    /// Cancelled or terminated.
    stopped: bool,
    illegal: bool,
}

impl PullSubscription {
    fn drain(&self) {
        self.state.drain(
            |state| {
                if state.stopped {
                    return Turn::Release;
                }
                if state.illegal {
                    state.stopped = true;
                    return Turn::Last(Signal::Error(StreamError::illegal_demand(0)));
                }
                // An eager publisher looks ahead; a lazy one only pulls
                // when it has demand to fill.
                if (!self.lazy_end || state.demand > 0) && state.source.peek().is_none() {
                    state.stopped = true;
                    return Turn::Last(Signal::Complete);
                }
                if state.demand == 0 {
                    return Turn::Wait;
                }
                state.demand = demand::fulfil(state.demand, 1);
                Turn::Signal(Signal::Next(state.source.next().expect("peeked")))
            },
            Signal::deliver,
        );
    }

    /// Runs `call` as one call on the subscription; with `serial_only`,
    /// a call overlapping one on another thread panics (§2.7 broken).
    fn serially(&self, what: &str, call: impl FnOnce()) {
        let Some(calls) = &self.calls else {
            return call();
        };
        let me = std::thread::current().id();
        let outermost = {
            let mut owner = calls.lock();
            match &mut *owner {
                Some((thread, depth)) if *thread == me => {
                    *depth += 1;
                    false
                }
                Some((thread, _)) => panic!(
                    "§2.7 broken: {what} on {me:?} overlapped a call still running on {thread:?}"
                ),
                None => {
                    *owner = Some((me, 1));
                    true
                }
            }
        };
        // Widen the window an overlapping call would hit. Only around the
        // outermost call: a nested one (a request from on_next, §3.3) runs
        // on the thread that already holds the turn, and yielding there
        // would make long runs crawl on a loaded machine. And only when
        // the calls change threads, where an overlap can happen: thousands
        // of calls from one thread (§3.17) must not crawl either.
        let switched = self.last_caller.lock().replace(me) != Some(me);
        if outermost && switched {
            for _ in 0..3 {
                std::thread::yield_now();
            }
        }
        call();
        let mut owner = calls.lock();
        if let Some((_, depth)) = &mut *owner {
            *depth -= 1;
            if *depth == 0 {
                *owner = None;
            }
        }
    }
}

impl Subscription for PullSubscription {
    fn request(&self, n: u64) {
        if self.slow.swap(false, std::sync::atomic::Ordering::SeqCst) {
            // The target's own slowness (a connection being opened), not
            // a synchronisation: nothing else waits for it.
            std::thread::sleep(SLOW_REQUEST);
        }
        self.serially(&format!("request({n})"), || {
            {
                let mut state = self.state.state();
                if state.stopped {
                    return;
                }
                if n == 0 {
                    state.illegal = true;
                } else {
                    state.demand = demand::add(state.demand, n);
                }
            }
            self.drain();
        });
    }

    fn cancel(&self) {
        self.serially("cancel()", || {
            self.state.release(|state| {
                state.stopped = true;
                true
            });
        });
    }
}

fn failed() -> Option<Box<dyn Publisher<u64>>> {
    Some(Box::new(Failing::new("failed on purpose")))
}

/// Publishers that find their end lazily.
pub struct LazyEnds;

impl PublisherFactory for LazyEnds {
    type Element = u64;
    /// Element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(Pull {
            count: elements,
            lazy_end: true,
            serial_only: false,
            slow_first_request: false,
        })
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        failed()
    }
}

/// A publisher that is always empty.
pub struct AlwaysEmpty;

impl PublisherFactory for AlwaysEmpty {
    type Element = u64;
    /// Element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        assert_eq!(elements, 0, "an always-empty publisher has no element");
        Box::new(Pull {
            count: 0,
            lazy_end: false,
            serial_only: false,
            slow_first_request: false,
        })
    }
    fn max_elements(&self) -> u64 {
        0
    }
}

/// A `just`-like publisher: exactly one element, always.
pub struct JustOnes;

impl PublisherFactory for JustOnes {
    type Element = u64;
    /// Element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        assert_eq!(elements, 1, "a just-like publisher has exactly one element");
        Box::new(Pull {
            count: 1,
            lazy_end: false,
            serial_only: false,
            slow_first_request: false,
        })
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        failed()
    }
    fn min_elements(&self) -> u64 {
        1
    }
    fn max_elements(&self) -> u64 {
        1
    }
}

/// Publishers that rely on §2.7 (serial calls on a subscription).
pub struct SerialOnly;

impl PublisherFactory for SerialOnly {
    type Element = u64;
    /// Element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(Pull {
            count: elements,
            lazy_end: false,
            serial_only: true,
            slow_first_request: false,
        })
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        failed()
    }
}

/// Publishers whose first `request` on each subscription blocks for
/// [`SLOW_REQUEST`], then behave.
pub struct SlowFirstRequest;

impl PublisherFactory for SlowFirstRequest {
    type Element = u64;
    /// Element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(Pull {
            count: elements,
            lazy_end: false,
            serial_only: false,
            slow_first_request: true,
        })
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        failed()
    }
}

/// Publishers that hand each request to their worker thread and return
/// from `request` only once the worker has delivered the first element it
/// asked for (or the stream has stopped): a synchronous hand-off. Every
/// signal comes from the worker, `on_subscribe` included; a `request` made
/// on the worker (from inside `on_next`) only adds demand.
///
/// The freedom it uses: `request` may take as long as an `on_next`
/// (§3.4 only asks for "timely"), and a subscriber that decides to cancel
/// inside that `on_next` must not wait there for its own `request` to
/// return: that would deadlock the hand-off.
pub struct HandOff;

impl PublisherFactory for HandOff {
    type Element = u64;
    /// Element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(HandOffPublisher { count: elements })
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        failed()
    }
}

struct HandOffPublisher {
    count: u64,
}

#[derive(Default)]
struct HandOffState {
    demand: u64,
    /// `request(0)` arrived: the worker fails the stream (§3.9).
    illegal: bool,
    cancelled: bool,
    /// Completed, failed or cancelled: nothing more is delivered.
    stopped: bool,
    /// How many elements the worker has delivered (`on_next` returned).
    delivered: u64,
}

struct HandOffShared {
    state: Mutex<HandOffState>,
    changed: parking_lot::Condvar,
    worker: std::sync::OnceLock<ThreadId>,
}

impl Publisher<u64> for HandOffPublisher {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let count = self.count;
        let shared = Arc::new(HandOffShared {
            state: Mutex::new(HandOffState::default()),
            changed: parking_lot::Condvar::new(),
            worker: std::sync::OnceLock::new(),
        });
        let subscription = Arc::new(HandOffSubscription(shared.clone()));
        std::thread::spawn(move || {
            let _ = shared.worker.set(std::thread::current().id());
            subscriber.on_subscribe(subscription);
            loop {
                let signal = {
                    let mut state = shared.state.lock();
                    loop {
                        if state.stopped {
                            return;
                        }
                        if state.illegal {
                            state.stopped = true;
                            break Signal::Error(StreamError::illegal_demand(0));
                        }
                        if state.delivered == count {
                            state.stopped = true;
                            break Signal::Complete;
                        }
                        if state.demand > 0 {
                            state.demand = demand::fulfil(state.demand, 1);
                            break Signal::Next(state.delivered);
                        }
                        shared.changed.wait(&mut state);
                    }
                };
                match signal {
                    Signal::Next(element) => {
                        subscriber.on_next(element);
                        shared.state.lock().delivered += 1;
                    }
                    Signal::Complete => subscriber.on_complete(),
                    Signal::Error(error) => subscriber.on_error(error),
                }
                shared.changed.notify_all();
            }
        });
    }
}

struct HandOffSubscription(Arc<HandOffShared>);

impl Subscription for HandOffSubscription {
    fn request(&self, n: u64) {
        let shared = &self.0;
        let mut state = shared.state.lock();
        if state.stopped {
            return;
        }
        if n == 0 {
            state.illegal = true;
        } else {
            state.demand = demand::add(state.demand, n);
        }
        shared.changed.notify_all();
        if shared.worker.get() == Some(&std::thread::current().id()) {
            return;
        }
        // The hand-off: wait until the worker has delivered the next
        // element (or stopped).
        let target = state.delivered + 1;
        while !state.stopped && state.delivered < target {
            shared.changed.wait(&mut state);
        }
    }

    fn cancel(&self) {
        let mut state = self.0.state.lock();
        state.cancelled = true;
        state.stopped = true;
        self.0.changed.notify_all();
    }
}
