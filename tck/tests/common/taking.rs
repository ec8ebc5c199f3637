//! A correct-but-unusual processor, written from the specification's text
//! (§1–§4, §3.5–§3.7 on cancelling) and not from the TCK's own processors:
//! a `take(k)` that ends its own upstream subscription. Once `k` inputs
//! have come in it cancels upstream (§2.6 lets a subscriber cancel
//! whenever it wants) and completes downstream after the last of them;
//! `take(0)` cancels upstream from inside `on_subscribe` and completes
//! downstream at once (§1.9 still gives downstream `on_subscribe` first).
//!
//! One subscriber; every call it makes is made by one draining thread at
//! a time (§1.3, §2.7).

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};

/// See the [module](self) docs. Clones are handles on one stage.
#[derive(Clone)]
pub struct Take {
    inner: Arc<Mutex<State>>,
}

struct State {
    /// Inputs still to take.
    left: u64,
    upstream: Option<Arc<dyn Subscription>>,
    /// Upstream terminated or cancelled: never call it again.
    upstream_over: bool,
    cancel_upstream: bool,
    /// Requested upstream, not yet received.
    outstanding: u64,
    downstream: Option<Box<dyn Subscriber<u64>>>,
    subscribed: bool,
    downstream_gone: bool,
    buffer: VecDeque<u64>,
    demand: u64,
    /// `Some(None)`: complete once the buffer is empty; `Some(Some(e))`:
    /// fail at once.
    done: Option<Option<StreamError>>,
    draining: bool,
}

enum Step {
    Cancel(Arc<dyn Subscription>),
    Request(Arc<dyn Subscription>, u64),
    Next(Box<dyn Subscriber<u64>>, u64),
    Error(Box<dyn Subscriber<u64>>, StreamError),
    Complete(Box<dyn Subscriber<u64>>),
    Release(Box<dyn Subscriber<u64>>),
}

impl std::fmt::Debug for Take {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Take").finish_non_exhaustive()
    }
}

impl Take {
    /// A processor passing on the first `k` inputs, then completing.
    pub fn new(k: u64) -> Self {
        Take {
            inner: Arc::new(Mutex::new(State {
                left: k,
                upstream: None,
                upstream_over: false,
                cancel_upstream: false,
                outstanding: 0,
                downstream: None,
                subscribed: false,
                downstream_gone: false,
                buffer: VecDeque::new(),
                demand: 0,
                done: None,
                draining: false,
            })),
        }
    }

    /// The next call to make, decided under the lock.
    fn step(state: &mut State) -> Option<Step> {
        if state.cancel_upstream {
            state.cancel_upstream = false;
            state.upstream_over = true;
            if let Some(upstream) = state.upstream.take() {
                return Some(Step::Cancel(upstream));
            }
        }
        if state.downstream_gone {
            state.buffer.clear();
            return state.downstream.take().map(Step::Release);
        }
        if let Some(subscriber) = state.downstream.take() {
            if let Some(Some(error)) = &state.done {
                let error = error.clone();
                state.downstream_gone = true;
                return Some(Step::Error(subscriber, error));
            }
            if state.demand > 0 {
                if let Some(element) = state.buffer.pop_front() {
                    state.demand = demand::fulfil(state.demand, 1);
                    return Some(Step::Next(subscriber, element));
                }
            }
            if state.buffer.is_empty() && matches!(state.done, Some(None)) {
                state.downstream_gone = true;
                return Some(Step::Complete(subscriber));
            }
            state.downstream = Some(subscriber);
        }
        if state.upstream_over || state.done.is_some() || !state.subscribed {
            return None;
        }
        let upstream = state.upstream.clone()?;
        // Downstream's missing demand, but never more than is left to take.
        let held = state.outstanding.saturating_add(state.buffer.len() as u64);
        let n = state
            .demand
            .saturating_sub(held)
            .min(state.left.saturating_sub(state.outstanding));
        if n == 0 {
            return None;
        }
        state.outstanding = demand::add(state.outstanding, n);
        Some(Step::Request(upstream, n))
    }

    fn drain(&self) {
        let mut state = self.inner.lock();
        if state.draining {
            return;
        }
        state.draining = true;
        while let Some(step) = Self::step(&mut state) {
            drop(state);
            let back = match step {
                Step::Cancel(upstream) => {
                    upstream.cancel();
                    None
                }
                Step::Request(upstream, n) => {
                    upstream.request(n);
                    None
                }
                Step::Next(mut subscriber, element) => {
                    subscriber.on_next(element);
                    Some(subscriber)
                }
                Step::Error(mut subscriber, error) => {
                    subscriber.on_error(error);
                    None
                }
                Step::Complete(mut subscriber) => {
                    subscriber.on_complete();
                    None
                }
                Step::Release(subscriber) => {
                    drop(subscriber);
                    None
                }
            };
            state = self.inner.lock();
            if back.is_some() {
                state.downstream = back;
            }
        }
        state.draining = false;
    }
}

impl Subscriber<u64> for Take {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        let mut state = self.inner.lock();
        if state.upstream.is_some() || state.upstream_over {
            drop(state);
            return subscription.cancel(); // §2.5
        }
        if state.left == 0 || state.downstream_gone {
            // Nothing is wanted: end the subscription from on_subscribe.
            state.upstream_over = true;
            if state.done.is_none() {
                state.done = Some(None);
            }
            drop(state);
            subscription.cancel();
            return self.drain();
        }
        state.upstream = Some(subscription);
        drop(state);
        self.drain();
    }

    fn on_next(&mut self, element: u64) {
        let mut state = self.inner.lock();
        if state.done.is_some() || state.upstream_over {
            return; // §2.8: after our cancel, late elements are let go
        }
        state.outstanding = state.outstanding.saturating_sub(1);
        state.left -= 1;
        if !state.downstream_gone {
            state.buffer.push_back(element);
        }
        if state.left == 0 {
            state.cancel_upstream = true;
            state.done = Some(None);
        }
        drop(state);
        self.drain();
    }

    fn on_error(&mut self, error: StreamError) {
        let mut state = self.inner.lock();
        state.upstream_over = true; // §2.4
        state.upstream = None;
        if state.done.is_none() {
            state.buffer.clear(); // §4.2: pass it on at once
            state.done = Some(Some(error));
        }
        drop(state);
        self.drain();
    }

    fn on_complete(&mut self) {
        let mut state = self.inner.lock();
        state.upstream_over = true;
        state.upstream = None;
        if state.done.is_none() {
            state.done = Some(None);
        }
        drop(state);
        self.drain();
    }
}

impl Publisher<u64> for Take {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let mut state = self.inner.lock();
        if state.subscribed {
            drop(state);
            subscriber.on_subscribe(Arc::new(Refused));
            subscriber.on_error(StreamError::msg("Take serves one subscriber"));
            return;
        }
        state.subscribed = true;
        // The drain is held while on_subscribe runs: a request from inside
        // it only adds demand, and the drain below serves it.
        state.draining = true;
        drop(state);
        subscriber.on_subscribe(Arc::new(Downstream { take: self.clone() }));
        let mut state = self.inner.lock();
        state.downstream = Some(subscriber);
        state.draining = false;
        drop(state);
        self.drain();
    }
}

struct Refused;

impl Subscription for Refused {
    fn request(&self, _: u64) {}
    fn cancel(&self) {}
}

struct Downstream {
    take: Take,
}

impl Subscription for Downstream {
    fn request(&self, n: u64) {
        let mut state = self.take.inner.lock();
        if state.downstream_gone {
            return; // §3.6
        }
        if n == 0 {
            // §3.9: fail downstream, and stop taking from upstream.
            state.buffer.clear();
            state.done = Some(Some(StreamError::illegal_demand(0)));
            state.cancel_upstream = !state.upstream_over;
        } else {
            state.demand = demand::add(state.demand, n);
        }
        drop(state);
        self.take.drain();
    }

    fn cancel(&self) {
        let mut state = self.take.inner.lock();
        if state.downstream_gone {
            return;
        }
        state.downstream_gone = true;
        state.cancel_upstream = !state.upstream_over;
        drop(state);
        self.take.drain();
    }
}
