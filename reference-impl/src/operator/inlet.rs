//! One upstream of a pull operator: the subscriber side receives into a
//! queue, the operator's producer pulls from it and asks upstream for more
//! only when the queue runs dry — so upstream demand follows downstream
//! demand, and whatever the queue holds is released when the operator goes.

use std::collections::VecDeque;
use std::sync::Arc;
use std::task::Waker;

use parking_lot::Mutex;
use reactive_streams::{StreamError, Subscriber, Subscription, demand};

pub(crate) struct Inlet<T> {
    prefetch: u64,
    state: Mutex<State<T>>,
}

struct State<T> {
    upstream: Option<Arc<dyn Subscription>>,
    queue: VecDeque<T>,
    /// Requested from upstream and not yet received.
    outstanding: u64,
    /// `Some(None)`: completed; `Some(Some(e))`: failed.
    end: Option<Option<StreamError>>,
    /// The operator is gone: every later element is dropped on arrival.
    closed: bool,
    waker: Option<Waker>,
}

/// What [`Inlet::pull`] found.
pub(crate) enum Pulled<T> {
    Item(T),
    /// Nothing yet; the inlet wakes the operator when something arrives.
    Empty,
    /// Upstream ended and the queue is empty (an error overtakes the queue).
    Ended(Option<StreamError>),
}

impl<T> Inlet<T> {
    /// An inlet asking upstream for `prefetch` elements at a time.
    pub(crate) fn new(prefetch: u64) -> Arc<Self> {
        Arc::new(Inlet {
            prefetch: prefetch.max(1),
            state: Mutex::new(State {
                upstream: None,
                queue: VecDeque::new(),
                outstanding: 0,
                end: None,
                closed: false,
                waker: None,
            }),
        })
    }

    pub(crate) fn set_waker(&self, waker: Waker) {
        self.state.lock().waker = Some(waker);
    }

    fn wake(waker: Option<Waker>) {
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    // ---- the subscriber side ----

    pub(crate) fn on_subscribe(&self, subscription: Arc<dyn Subscription>) {
        let waker = {
            let mut state = self.state.lock();
            if state.upstream.is_some() || state.closed || state.end.is_some() {
                drop(state);
                // §2.5: a second subscription, or one nobody needs any more.
                subscription.cancel();
                return;
            }
            state.upstream = Some(subscription);
            state.waker.clone()
        };
        Self::wake(waker);
    }

    pub(crate) fn on_next(&self, element: T) {
        let waker = {
            let mut state = self.state.lock();
            if state.closed || state.end.is_some() {
                drop(state);
                // Dropped here, outside the lock: a tracked element is done.
                drop(element);
                return;
            }
            state.outstanding = demand::fulfil(state.outstanding, 1);
            state.queue.push_back(element);
            state.waker.clone()
        };
        Self::wake(waker);
    }

    pub(crate) fn on_terminal(&self, reason: Option<StreamError>) {
        let (waker, discarded) = {
            let mut state = self.state.lock();
            if state.closed || state.end.is_some() {
                return;
            }
            // An error goes downstream at once (§4.2): what was queued is
            // released rather than delivered.
            let discarded = if reason.is_some() {
                std::mem::take(&mut state.queue)
            } else {
                VecDeque::new()
            };
            state.end = Some(reason);
            state.upstream = None;
            (state.waker.clone(), discarded)
        };
        drop(discarded);
        Self::wake(waker);
    }

    // ---- the operator side (called only by its drain's owner) ----

    /// The next element; asks upstream for `prefetch` more when the queue is
    /// empty and nothing is outstanding.
    pub(crate) fn pull(&self) -> Pulled<T> {
        if let Some(found) = Self::take(&mut self.state.lock()) {
            return found;
        }
        self.prime();
        Self::take(&mut self.state.lock()).unwrap_or(Pulled::Empty)
    }

    /// Asks upstream for `prefetch` elements if the queue is empty and
    /// nothing is outstanding — also when there is no downstream demand, so
    /// that an upstream that ends learns it can say so (completion must not
    /// wait for demand, §1.5), at the cost of one batch held ahead.
    pub(crate) fn prime(&self) {
        let upstream = {
            let mut state = self.state.lock();
            if !state.queue.is_empty() || state.outstanding != 0 || state.closed {
                return;
            }
            if state.end.is_some() {
                return;
            }
            let Some(upstream) = state.upstream.clone() else {
                return;
            };
            state.outstanding = self.prefetch;
            upstream
        };
        // Not under the lock: a synchronous upstream answers from inside
        // `request`, into `on_next`.
        upstream.request(self.prefetch);
    }

    fn take(state: &mut State<T>) -> Option<Pulled<T>> {
        if let Some(Some(error)) = &state.end {
            return Some(Pulled::Ended(Some(error.clone())));
        }
        if let Some(element) = state.queue.pop_front() {
            return Some(Pulled::Item(element));
        }
        if state.end.is_some() {
            return Some(Pulled::Ended(None));
        }
        None
    }

    /// Upstream's end, once nothing queued is left to deliver: `Some(None)`
    /// completed, `Some(Some(e))` failed (at once, whatever is queued).
    pub(crate) fn ended(&self) -> Option<Option<StreamError>> {
        let state = self.state.lock();
        match &state.end {
            Some(Some(error)) => Some(Some(error.clone())),
            Some(None) if state.queue.is_empty() => Some(None),
            _ => None,
        }
    }

    /// The operator is gone: cancel upstream, release the queue, refuse
    /// everything that still arrives.
    pub(crate) fn close(&self) {
        let (upstream, discarded) = {
            let mut state = self.state.lock();
            state.closed = true;
            state.waker = None;
            (state.upstream.take(), std::mem::take(&mut state.queue))
        };
        drop(discarded);
        if let Some(upstream) = upstream {
            upstream.cancel();
        }
    }
}

/// The subscriber an operator hands upstream: forwards into its inlet.
pub(crate) struct InletSubscriber<T>(pub(crate) Arc<Inlet<T>>);

impl<T: Send + 'static> Subscriber<T> for InletSubscriber<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.0.on_subscribe(subscription);
    }
    fn on_next(&mut self, element: T) {
        self.0.on_next(element);
    }
    fn on_error(&mut self, error: StreamError) {
        self.0.on_terminal(Some(error));
    }
    fn on_complete(&mut self) {
        self.0.on_terminal(None);
    }
}

impl<T> std::fmt::Debug for InletSubscriber<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InletSubscriber")
    }
}
