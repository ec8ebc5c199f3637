//! Conforming processors the TCK verifies itself against (self-tests,
//! doc examples, benchmark). Not part of the supported API.
//!
//! [`MulticastProcessor`] serves several subscribers (see its docs).
//!
//! [`FilteringProcessor`] drops the inputs a predicate rejects (see its
//! docs).
//!
//! [`IdentityProcessor`] serves one downstream subscriber (a second one gets
//! `on_subscribe` then `on_error`), forwards exactly the downstream demand
//! upstream, passes an upstream error on at once (dropping buffered
//! elements), completes after the buffer drains, and cancels upstream when
//! downstream cancels. Signals go out from one draining thread at a time.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::{Mutex, ReentrantMutex};

pub use super::filtering::FilteringProcessor;
pub use super::multicast::MulticastProcessor;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};

/// A deliberate defect, for the TCK's own self-tests: each makes one
/// processor rule test fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quirk {
    /// Conforming.
    None,
    /// Ignores an upstream `on_error` (§4.2).
    SwallowsErrors,
    /// Requests unbounded demand upstream as soon as it is subscribed.
    RequestsUnbounded,
    /// Never asks upstream for anything (§4.1).
    NeverRequestsUpstream,
    /// Keeps upstream running when downstream cancels.
    KeepsUpstreamOnCancel,
    /// Keeps a second upstream subscription instead of cancelling it (§2.5).
    AcceptsSecondUpstream,
    /// Requests unbounded demand upstream and emits whatever arrives,
    /// whether or not downstream asked (§1.1).
    IgnoresDemand,
    /// Recovers from an upstream `on_error` (serving downstream nothing
    /// more until it ends) but keeps passing downstream demand upstream, on
    /// a subscription the error ended (§2.4).
    RequestsAfterRecovery,
    /// Asks upstream for one more element whenever one arrives, whatever
    /// downstream asked for: upstream demand runs ahead of downstream's
    /// beyond any declared prefetch once elements flow
    /// (`tck.bounded_upstream_demand`).
    RefillsPerElement,
    /// Calls upstream from whichever thread needs it (a downstream
    /// `request` on one, a filter's replacement from inside `on_next` on
    /// another) without making the calls serial (§2.7).
    UnserialisedUpstream,
}

/// See the [module](self) docs. Clones are handles on one stage.
pub struct IdentityProcessor<T> {
    inner: Arc<Mutex<State<T>>>,
    /// Held around every call on the upstream subscription, so that calls
    /// from different threads (a downstream `request`, a filter's
    /// replacement from inside `on_next`) are serial (§2.7); reentrant for
    /// an upstream delivering from inside `request`.
    upstream_calls: Arc<ReentrantMutex<()>>,
}

impl<T> Clone for IdentityProcessor<T> {
    fn clone(&self) -> Self {
        IdentityProcessor {
            inner: self.inner.clone(),
            upstream_calls: self.upstream_calls.clone(),
        }
    }
}

impl<T> std::fmt::Debug for IdentityProcessor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdentityProcessor").finish_non_exhaustive()
    }
}

struct State<T> {
    upstream: Option<Arc<dyn Subscription>>,
    /// Demand asked for downstream before upstream arrived.
    upstream_pending: u64,
    /// Upstream terminated, or cancelled by us: never touch it again.
    upstream_over: bool,
    downstream: Option<Box<dyn Subscriber<T>>>,
    subscribed: bool,
    /// Downstream cancelled or was terminated.
    downstream_gone: bool,
    buffer: VecDeque<T>,
    demand: u64,
    /// Upstream's terminal signal: `Some(None)` complete, `Some(Some(e))` error.
    done: Option<Option<StreamError>>,
    illegal: bool,
    draining: bool,
    quirk: Quirk,
}

impl<T: Send + 'static> IdentityProcessor<T> {
    /// A fresh, conforming processor.
    pub fn new() -> Self {
        Self::with_quirk(Quirk::None)
    }

    /// A fresh processor with `quirk`.
    pub fn with_quirk(quirk: Quirk) -> Self {
        IdentityProcessor {
            inner: Arc::new(Mutex::new(State {
                upstream: None,
                upstream_pending: 0,
                upstream_over: false,
                downstream: None,
                subscribed: false,
                downstream_gone: false,
                buffer: VecDeque::new(),
                demand: 0,
                done: None,
                illegal: false,
                draining: false,
                quirk,
            })),
            upstream_calls: Arc::new(ReentrantMutex::new(())),
        }
    }

    /// Makes `call` on the upstream subscription serial with every other
    /// (unless the quirk is not to).
    fn serially(&self, call: impl FnOnce()) {
        if quirk_of(&self.inner) == Quirk::UnserialisedUpstream {
            return call();
        }
        let _serial = self.upstream_calls.lock();
        call();
    }

    /// Delivers what the state allows; one thread at a time, the others
    /// leave their work to it.
    fn drain(&self) {
        let mut state = self.inner.lock();
        if state.draining {
            return;
        }
        state.draining = true;
        loop {
            if state.downstream_gone {
                let gone = state.downstream.take();
                state.buffer.clear();
                drop(state);
                drop(gone);
                state = self.inner.lock();
                if state.downstream.is_none() {
                    break;
                }
                continue;
            }
            let Some(mut subscriber) = state.downstream.take() else {
                break;
            };
            let error = if state.illegal {
                Some(StreamError::illegal_demand(0))
            } else if let Some(Some(error)) = &state.done {
                Some(error.clone())
            } else {
                None
            };
            if let Some(error) = error {
                state.downstream_gone = true;
                drop(state);
                subscriber.on_error(error);
                drop(subscriber);
                state = self.inner.lock();
                continue;
            }
            if state.demand > 0 || state.quirk == Quirk::IgnoresDemand {
                if let Some(element) = state.buffer.pop_front() {
                    state.demand = demand::fulfil(state.demand, 1);
                    drop(state);
                    subscriber.on_next(element);
                    state = self.inner.lock();
                    state.downstream = Some(subscriber);
                    continue;
                }
            }
            if state.buffer.is_empty() && matches!(state.done, Some(None)) {
                state.downstream_gone = true;
                drop(state);
                subscriber.on_complete();
                drop(subscriber);
                state = self.inner.lock();
                continue;
            }
            state.downstream = Some(subscriber);
            break;
        }
        state.draining = false;
    }

    /// Asks upstream for `n` more, unless upstream is over or downstream
    /// gone (a filter replacing an input it dropped).
    pub(crate) fn request_upstream(&self, n: u64) {
        let state = self.inner.lock();
        if state.upstream_over || state.downstream_gone {
            return;
        }
        let upstream = state.upstream.clone();
        drop(state);
        if let Some(upstream) = upstream {
            self.serially(|| upstream.request(n));
        }
    }

    /// Takes the upstream subscription for good, to cancel it.
    fn end_upstream(state: &mut State<T>) -> Option<Arc<dyn Subscription>> {
        state.upstream_over = true;
        state.upstream.take()
    }
}

impl<T: Send + 'static> Default for IdentityProcessor<T> {
    fn default() -> Self {
        IdentityProcessor::new()
    }
}

impl<T: Send + 'static> Subscriber<T> for IdentityProcessor<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        let mut state = self.inner.lock();
        if state.upstream.is_some() || state.upstream_over {
            drop(state);
            if quirk_of(&self.inner) == Quirk::AcceptsSecondUpstream {
                return;
            }
            return subscription.cancel(); // §2.5
        }
        if state.subscribed && state.downstream_gone && state.done.is_none() {
            state.upstream_over = true;
            drop(state);
            return subscription.cancel();
        }
        state.upstream = Some(subscription.clone());
        let pending = std::mem::take(&mut state.upstream_pending);
        let quirk = state.quirk;
        drop(state);
        if matches!(quirk, Quirk::RequestsUnbounded | Quirk::IgnoresDemand) {
            self.serially(|| subscription.request(demand::UNBOUNDED));
        } else if pending > 0 && quirk != Quirk::NeverRequestsUpstream {
            self.serially(|| subscription.request(pending));
        }
    }

    fn on_next(&mut self, element: T) {
        let mut state = self.inner.lock();
        if state.downstream_gone || state.done.is_some() {
            return;
        }
        state.buffer.push_back(element);
        let refill = state.quirk == Quirk::RefillsPerElement;
        drop(state);
        if refill {
            self.request_upstream(1);
        }
        self.drain();
    }

    fn on_error(&mut self, error: StreamError) {
        let mut state = self.inner.lock();
        if state.quirk == Quirk::SwallowsErrors {
            Self::end_upstream(&mut state);
            return;
        }
        if state.quirk == Quirk::RequestsAfterRecovery {
            return;
        }
        if state.done.is_none() {
            state.done = Some(Some(error));
            state.buffer.clear(); // §4.2: pass it on at once
        }
        Self::end_upstream(&mut state);
        drop(state);
        self.drain();
    }

    fn on_complete(&mut self) {
        let mut state = self.inner.lock();
        if state.done.is_none() {
            state.done = Some(None);
        }
        Self::end_upstream(&mut state);
        drop(state);
        self.drain();
    }
}

impl<T: Send + 'static> Publisher<T> for IdentityProcessor<T> {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<T>>) {
        let mut state = self.inner.lock();
        if state.subscribed {
            drop(state);
            subscriber.on_subscribe(Arc::new(Rejected));
            subscriber.on_error(StreamError::msg("IdentityProcessor serves one subscriber"));
            return;
        }
        state.subscribed = true;
        // Holding the drain while on_subscribe runs: a request from inside
        // it only adds demand, delivered by the drain below.
        state.draining = true;
        drop(state);
        subscriber.on_subscribe(Arc::new(Downstream {
            processor: self.clone(),
        }));
        let mut state = self.inner.lock();
        state.downstream = Some(subscriber);
        state.draining = false;
        drop(state);
        self.drain();
    }
}

fn quirk_of<T>(inner: &Mutex<State<T>>) -> Quirk {
    inner.lock().quirk
}

struct Rejected;

impl Subscription for Rejected {
    fn request(&self, _: u64) {}
    fn cancel(&self) {}
}

struct Downstream<T> {
    processor: IdentityProcessor<T>,
}

impl<T: Send + 'static> Subscription for Downstream<T> {
    fn request(&self, n: u64) {
        let mut state = self.processor.inner.lock();
        if state.downstream_gone {
            return;
        }
        let mut cancel = None;
        let mut forward = None;
        if n == 0 {
            state.illegal = true;
            cancel = IdentityProcessor::end_upstream(&mut state);
        } else {
            state.demand = demand::add(state.demand, n);
            if !state.upstream_over
                && !matches!(
                    state.quirk,
                    Quirk::NeverRequestsUpstream | Quirk::RequestsUnbounded
                )
            {
                match &state.upstream {
                    Some(upstream) => forward = Some(upstream.clone()),
                    None => state.upstream_pending = demand::add(state.upstream_pending, n),
                }
            }
        }
        drop(state);
        if let Some(upstream) = cancel {
            self.processor.serially(|| upstream.cancel());
        }
        if let Some(upstream) = forward {
            self.processor.serially(|| upstream.request(n));
        }
        self.processor.drain();
    }

    fn cancel(&self) {
        let mut state = self.processor.inner.lock();
        if state.downstream_gone {
            return;
        }
        state.downstream_gone = true;
        let upstream = if state.done.is_none() && state.quirk != Quirk::KeepsUpstreamOnCancel {
            IdentityProcessor::end_upstream(&mut state)
        } else {
            None
        };
        drop(state);
        if let Some(upstream) = upstream {
            self.processor.serially(|| upstream.cancel());
        }
        self.processor.drain();
    }
}
