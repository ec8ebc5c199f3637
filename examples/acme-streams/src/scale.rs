use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use reactive_streams::{demand, Publisher, StreamError, Subscriber, Subscription};

/// A processor that multiplies every element by a factor.
///
/// `Scale` is a handle: clone it, give one clone to the upstream publisher
/// as its subscriber and subscribe the downstream to another. Demand passes
/// through one to one, so the stage never asks upstream for more than its
/// downstream asked for. It serves one downstream subscriber; a second one
/// is refused with `on_subscribe` followed by `on_error`.
#[derive(Debug, Clone)]
pub struct Scale {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    factor: u64,
    state: Mutex<State>,
    /// Delivery runs on one thread at a time: whoever raises this from zero.
    work: AtomicUsize,
}

#[derive(Debug, Default)]
struct State {
    upstream: Option<Arc<dyn Subscription>>,
    upstream_terminated: bool,
    downstream: Option<Box<dyn Subscriber<u64>>>,
    has_downstream: bool,
    /// Demand asked for before the upstream subscription arrived.
    early_demand: u64,
    /// Elements that arrived while the downstream was being subscribed.
    queue: VecDeque<u64>,
    terminal: Option<Result<(), StreamError>>,
    illegal_request: bool,
    /// The downstream cancelled or was sent its terminal signal.
    finished: bool,
}

impl Scale {
    /// A stage multiplying by `factor` (wrapping on overflow).
    pub fn new(factor: u64) -> Self {
        Scale {
            shared: Arc::new(Shared {
                factor,
                state: Mutex::new(State::default()),
                work: AtomicUsize::new(0),
            }),
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn deliver(&self) {
        if self.work.fetch_add(1, Ordering::AcqRel) != 0 {
            return;
        }
        let mut claimed = 1;
        loop {
            self.deliver_available();
            claimed = self.work.fetch_sub(claimed, Ordering::AcqRel) - claimed;
            if claimed == 0 {
                return;
            }
        }
    }

    fn deliver_available(&self) {
        let Some(mut downstream) = self.lock().downstream.take() else {
            return;
        };
        loop {
            let mut state = self.lock();
            if state.finished {
                return;
            }
            if state.illegal_request {
                state.finished = true;
                let upstream = state.upstream.take();
                drop(state);
                if let Some(upstream) = upstream {
                    upstream.cancel();
                }
                return downstream.on_error(StreamError::illegal_demand(0));
            }
            if let Some(element) = state.queue.pop_front() {
                drop(state);
                downstream.on_next(element);
            } else if let Some(terminal) = state.terminal.take() {
                state.finished = true;
                drop(state);
                return match terminal {
                    Ok(()) => downstream.on_complete(),
                    Err(error) => downstream.on_error(error),
                };
            } else {
                state.downstream = Some(downstream);
                return;
            }
        }
    }
}

impl Subscriber<u64> for Scale {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        let mut state = self.shared.lock();
        if state.upstream.is_some() || state.upstream_terminated || state.finished {
            drop(state);
            // One upstream at a time (§2.5); none once the stage is done.
            return subscription.cancel();
        }
        state.upstream = Some(subscription.clone());
        let early = std::mem::take(&mut state.early_demand);
        drop(state);
        if early > 0 {
            subscription.request(early);
        }
    }

    fn on_next(&mut self, element: u64) {
        self.shared
            .lock()
            .queue
            .push_back(element.wrapping_mul(self.shared.factor));
        self.shared.deliver();
    }

    fn on_error(&mut self, error: StreamError) {
        self.terminate(Err(error));
    }

    fn on_complete(&mut self) {
        self.terminate(Ok(()));
    }
}

impl Scale {
    fn terminate(&self, terminal: Result<(), StreamError>) {
        {
            let mut state = self.shared.lock();
            state.upstream = None;
            state.upstream_terminated = true;
            state.terminal = Some(terminal);
        }
        self.shared.deliver();
    }
}

impl Publisher<u64> for Scale {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let first = !std::mem::replace(&mut self.shared.lock().has_downstream, true);
        if !first {
            subscriber.on_subscribe(Arc::new(Refused));
            return subscriber.on_error(StreamError::msg(
                "Scale serves a single subscriber and already has one",
            ));
        }
        // Nothing can signal the subscriber before it is stored, so
        // on_subscribe comes first (§1.9) even if it requests synchronously.
        subscriber.on_subscribe(Arc::new(Downstream {
            shared: self.shared.clone(),
        }));
        self.shared.lock().downstream = Some(subscriber);
        self.shared.deliver();
    }
}

/// The downstream's subscription: demand and cancellation go upstream.
struct Downstream {
    shared: Arc<Shared>,
}

impl Subscription for Downstream {
    fn request(&self, n: u64) {
        let mut state = self.shared.lock();
        if state.finished {
            return;
        }
        if n == 0 {
            state.illegal_request = true;
            drop(state);
            return self.shared.deliver();
        }
        match state.upstream.clone() {
            Some(upstream) => {
                drop(state);
                upstream.request(n);
            }
            None => state.early_demand = demand::add(state.early_demand, n),
        }
    }

    fn cancel(&self) {
        let (upstream, downstream) = {
            let mut state = self.shared.lock();
            state.finished = true;
            state.queue.clear();
            (state.upstream.take(), state.downstream.take())
        };
        if let Some(upstream) = upstream {
            upstream.cancel();
        }
        drop(downstream);
    }
}

/// The subscription handed to a refused subscriber: it does nothing.
struct Refused;

impl Subscription for Refused {
    fn request(&self, _: u64) {}
    fn cancel(&self) {}
}
