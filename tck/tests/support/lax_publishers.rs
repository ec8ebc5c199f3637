//! The laxest conforming publishers (issue 38 §5): written from the rule
//! texts alone, each does the least the text requires, at the latest
//! moment it allows, taking every freedom it grants at once. Every
//! freedom cites the sentence it rests on
//! (`/work/shared/reference/reactive-streams-spec.md`).
//!
//! | publisher | freedoms |
//! |---|---|
//! | [`Lax`] with `batch: 8` | its worker looks at `cancel` only between batches of up to 8 elements: after a cancel (from inside `on_next` or from another thread) it finishes the batch under way |
//! | [`Lax`] with `end_before_cancel` | looks for its end before it looks at `cancel`: `on_complete` comes right after a cancel made inside the last `on_next` |
//! | [`Lax`] with `completes_on_cancel` | tidies up every cancel with `on_complete`, wherever it was made: inside `on_next`, from another thread with all demand delivered mid-stream, before any request |
//! | [`Laxest`] | all three, and: finds its end only when asked for one more element, signals everything (`on_subscribe` included) from a worker thread, answers `request(0)` there, later, and its failed publisher fails only after `on_subscribe` has returned, from another thread |
//!
//! Shared by the quick and the extended self-tests of publishers (and,
//! through [`LaxStage`]'s upstream, of processors).

#![allow(dead_code)]

use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::publisher::PublisherFactory;

/// What a [`Lax`] publisher allows itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Freedoms {
    /// Elements delivered between two looks at `cancel` (at least 1).
    ///
    /// §1.8: "If a Subscription is cancelled its Subscriber MUST
    /// eventually stop being signaled." §3.12: "Subscription.cancel MUST
    /// request the Publisher to eventually stop signaling its Subscriber.
    /// The operation is NOT REQUIRED to affect the Subscription
    /// immediately." §2.8: "A Subscriber MUST be prepared to receive one or
    /// more onNext signals after having called Subscription.cancel() if
    /// there are still requested elements pending".
    pub batch: u64,
    /// Looks for the end of its stream before it looks at `cancel`: the
    /// `on_complete` of a stream whose last element was just delivered
    /// still goes out after a cancel made inside that `on_next` (§1.8
    /// "eventually", as above; §1.5: "If a Publisher terminates
    /// successfully (finite stream) it MUST signal an onComplete").
    pub end_before_cancel: bool,
    /// Answers any cancel, once it sees it, with `on_complete` instead of
    /// falling silent: the terminal signal is the last one, and §1.8 asks
    /// only that signals stop "eventually" (§3.12: "NOT REQUIRED to
    /// affect the Subscription immediately"), whether all demand was
    /// delivered or not, wherever the cancel was made.
    pub completes_on_cancel: bool,
    /// Learns that it is exhausted only when asked for one more element.
    /// §1.5 sets no deadline for `on_complete`; §3.11 ("Subscription.request
    /// MAY synchronously call onComplete or onError") lets the request that
    /// finds the end complete.
    pub lazy_end: bool,
}

/// Makes [`Lax`] publishers of `0..n`.
pub struct Lax(pub Freedoms);

impl Lax {
    /// (a) of issue 38 §1: looks at `cancel` only between batches of up
    /// to 8 elements.
    pub const BATCHING: Lax = Lax(Freedoms {
        batch: 8,
        end_before_cancel: false,
        completes_on_cancel: false,
        lazy_end: false,
    });

    /// (b) of issue 38 §1: `on_complete` right after a cancel made inside
    /// the last `on_next`.
    pub const COMPLETES_AFTER_CANCEL: Lax = Lax(Freedoms {
        batch: 1,
        end_before_cancel: true,
        completes_on_cancel: false,
        lazy_end: false,
    });

    /// Issue 38, left over: `on_complete` right after any cancel, also one
    /// made from another thread with all demand delivered mid-stream.
    pub const COMPLETES_ON_ANY_CANCEL: Lax = Lax(Freedoms {
        batch: 1,
        end_before_cancel: false,
        completes_on_cancel: true,
        lazy_end: false,
    });
}

impl PublisherFactory for Lax {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(LaxPublisher {
            count: elements,
            freedoms: self.0,
        })
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(LateFailing))
    }
    /// Element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

/// Every freedom of [`Freedoms`] at once: batches of 8, the end before
/// `cancel`, `on_complete` after any cancel, the end found lazily.
pub struct Laxest;

impl PublisherFactory for Laxest {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(LaxPublisher {
            count: elements,
            freedoms: Freedoms {
                batch: 8,
                end_before_cancel: true,
                completes_on_cancel: true,
                lazy_end: true,
            },
        })
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(LateFailing))
    }
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

/// A cold publisher of `0..count` (`u64::MAX`: infinite): one worker
/// thread per subscription makes every signal. §1.3 ("MUST be signaled
/// serially") asks for no particular thread, and §2.7's serial calls bind
/// the subscriber, not the thread the publisher answers from.
pub struct LaxPublisher {
    pub count: u64,
    pub freedoms: Freedoms,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    demand: u64,
    cancelled: bool,
    /// `request(0)` arrived before any cancel: the worker answers it
    /// with `on_error` when it next looks (§3.9 sets no deadline).
    illegal: bool,
    /// The worker has stopped: later calls are no-ops (§3.6, §1.6).
    stopped: bool,
}

impl Publisher<u64> for LaxPublisher {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let shared = Arc::new(Shared::default());
        let subscription = Arc::new(LaxSubscription(shared.clone()));
        let (count, freedoms) = (self.count, self.freedoms);
        let batch = freedoms.batch.max(1);
        std::thread::spawn(move || {
            subscriber.on_subscribe(subscription);
            let mut next = 0u64;
            loop {
                let take = {
                    let mut state = shared.state.lock();
                    loop {
                        let at_end = next == count;
                        let end_known = !freedoms.lazy_end || state.demand > 0;
                        if freedoms.end_before_cancel && at_end && end_known && !state.illegal {
                            state.stopped = true;
                            break None;
                        }
                        if state.cancelled && freedoms.completes_on_cancel {
                            state.stopped = true;
                            break None;
                        }
                        if state.cancelled {
                            state.stopped = true;
                            // Dropping the subscriber here (§3.13).
                            return;
                        }
                        if state.illegal {
                            state.stopped = true;
                            drop(state);
                            subscriber.on_error(StreamError::illegal_demand(0));
                            return;
                        }
                        if at_end && end_known {
                            state.stopped = true;
                            break None;
                        }
                        if state.demand > 0 && !at_end {
                            let take = batch.min(state.demand).min(count - next);
                            state.demand = demand::fulfil(state.demand, take);
                            break Some(take);
                        }
                        // Nobody can ask for more once every handle on
                        // the subscription is gone: let the thread end.
                        let timed_out = shared
                            .changed
                            .wait_for(&mut state, std::time::Duration::from_millis(200))
                            .timed_out();
                        if timed_out && Arc::strong_count(&shared) == 1 {
                            return;
                        }
                    }
                };
                let Some(take) = take else {
                    subscriber.on_complete();
                    return;
                };
                // The batch goes out without a look at `cancel` (see
                // `Freedoms::batch`).
                for _ in 0..take {
                    subscriber.on_next(next);
                    next += 1;
                }
            }
        });
    }
}

struct LaxSubscription(Arc<Shared>);

impl Subscription for LaxSubscription {
    fn request(&self, n: u64) {
        let mut state = self.0.state.lock();
        // §3.6: "After the Subscription is cancelled, additional
        // Subscription.request(long n) MUST be NOPs."
        if state.cancelled || state.stopped {
            return;
        }
        if n == 0 {
            state.illegal = true;
        } else {
            state.demand = demand::add(state.demand, n);
        }
        self.0.changed.notify_all();
    }

    fn cancel(&self) {
        let mut state = self.0.state.lock();
        state.cancelled = true;
        self.0.changed.notify_all();
    }
}

/// A failed publisher that signals `on_subscribe` from the caller's
/// thread, then `on_error` from another thread once `on_subscribe` has
/// returned, without demand. §1.4: "If a Publisher fails it MUST signal an
/// onError" (no demand needed, no deadline); §1.9: "...is by calling
/// onError (after calling onSubscribe)".
pub struct LateFailing;

impl Publisher<u64> for LateFailing {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let shared = Arc::new(Shared::default());
        subscriber.on_subscribe(Arc::new(LaxSubscription(shared.clone())));
        std::thread::spawn(move || {
            {
                let mut state = shared.state.lock();
                if state.cancelled {
                    return;
                }
                state.stopped = true;
            }
            subscriber.on_error(StreamError::msg("failed on purpose, late"));
        });
    }
}
