//! A conforming multicast processor for the TCK's self-tests.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};

/// A conforming multicast processor: several downstream subscribers, each
/// with its own queue and demand. Clones are handles on one stage.
///
/// Every downstream `request(n)` is forwarded upstream (so upstream demand
/// is the sum of downstream demand, and a queue never holds more than that);
/// every element is broadcast to the subscribers present when it arrives
/// (a late subscriber sees later elements only); an upstream error reaches
/// every subscriber at once, dropping queued elements; completion follows
/// each queue. When the last subscriber cancels, upstream is cancelled and
/// the processor shuts down: later subscribers get `on_subscribe` then
/// `on_complete`.
pub struct MulticastProcessor<T> {
    shared: Arc<Mutex<Stage<T>>>,
}

impl<T> Clone for MulticastProcessor<T> {
    fn clone(&self) -> Self {
        MulticastProcessor {
            shared: self.shared.clone(),
        }
    }
}

impl<T> std::fmt::Debug for MulticastProcessor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MulticastProcessor").finish_non_exhaustive()
    }
}

struct Stage<T> {
    upstream: Option<Arc<dyn Subscription>>,
    /// Demand asked for downstream before upstream arrived.
    pending: u64,
    /// Upstream terminated, or cancelled by us.
    upstream_over: bool,
    /// Upstream's terminal signal, or `Some(None)` once shut down.
    done: Option<Option<StreamError>>,
    slots: Vec<Arc<Slot<T>>>,
    /// Elements broadcast so far.
    broadcast: u64,
    /// A defect for the self-tests: subscribers arriving after the first
    /// element are never served.
    ignores_late: bool,
}

/// One downstream subscriber.
struct Slot<T> {
    state: Mutex<SlotState<T>>,
}

struct SlotState<T> {
    /// Never served (see `Stage::ignores_late`).
    ignored: bool,
    subscriber: Option<Box<dyn Subscriber<T>>>,
    queue: VecDeque<T>,
    demand: u64,
    /// `Some(None)`: complete once the queue is empty; `Some(Some(e))`:
    /// fail at once.
    terminal: Option<Option<StreamError>>,
    gone: bool,
    draining: bool,
}

impl<T: Clone + Send + 'static> MulticastProcessor<T> {
    /// A fresh processor.
    pub fn new() -> Self {
        Self::build(false)
    }

    /// A broken one, for the self-tests: a subscriber arriving after the
    /// first element is never served.
    pub fn ignoring_late_subscribers() -> Self {
        Self::build(true)
    }

    fn build(ignores_late: bool) -> Self {
        MulticastProcessor {
            shared: Arc::new(Mutex::new(Stage {
                upstream: None,
                pending: 0,
                upstream_over: false,
                done: None,
                slots: Vec::new(),
                broadcast: 0,
                ignores_late,
            })),
        }
    }

    fn slots(&self) -> Vec<Arc<Slot<T>>> {
        self.shared.lock().slots.clone()
    }

    fn forget(&self, slot: &Arc<Slot<T>>) {
        self.shared.lock().slots.retain(|s| !Arc::ptr_eq(s, slot));
    }

    /// Delivers what the slot's state allows, one thread at a time.
    fn drain(&self, slot: &Arc<Slot<T>>) {
        let mut state = slot.state.lock();
        if state.draining {
            return;
        }
        state.draining = true;
        loop {
            if state.gone {
                let gone = state.subscriber.take();
                state.queue.clear();
                state.draining = false;
                drop(state);
                drop(gone);
                self.forget(slot);
                return;
            }
            let Some(mut subscriber) = state.subscriber.take() else {
                break;
            };
            if let Some(Some(error)) = &state.terminal {
                let error = error.clone();
                state.gone = true;
                drop(state);
                subscriber.on_error(error);
                drop(subscriber);
                state = slot.state.lock();
                continue;
            }
            if state.demand > 0 {
                if let Some(element) = state.queue.pop_front() {
                    state.demand = demand::fulfil(state.demand, 1);
                    drop(state);
                    subscriber.on_next(element);
                    state = slot.state.lock();
                    state.subscriber = Some(subscriber);
                    continue;
                }
            }
            if state.queue.is_empty() && matches!(state.terminal, Some(None)) {
                state.gone = true;
                drop(state);
                subscriber.on_complete();
                drop(subscriber);
                state = slot.state.lock();
                continue;
            }
            state.subscriber = Some(subscriber);
            break;
        }
        state.draining = false;
    }

    fn terminate_all(&mut self, terminal: Option<StreamError>) {
        let slots = {
            let mut stage = self.shared.lock();
            if stage.done.is_some() {
                return;
            }
            stage.done = Some(terminal.clone());
            stage.upstream_over = true;
            stage.upstream = None;
            stage.slots.clone()
        };
        for slot in slots {
            {
                let mut state = slot.state.lock();
                if terminal.is_some() {
                    state.queue.clear(); // §4.2: at once
                }
                state.terminal = Some(terminal.clone());
            }
            self.drain(&slot);
        }
    }
}

impl<T: Clone + Send + 'static> Default for MulticastProcessor<T> {
    fn default() -> Self {
        MulticastProcessor::new()
    }
}

impl<T: Clone + Send + 'static> Subscriber<T> for MulticastProcessor<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        let mut stage = self.shared.lock();
        if stage.upstream.is_some() || stage.upstream_over {
            drop(stage);
            return subscription.cancel(); // §2.5
        }
        stage.upstream = Some(subscription.clone());
        let pending = std::mem::take(&mut stage.pending);
        drop(stage);
        if pending > 0 {
            subscription.request(pending);
        }
    }

    fn on_next(&mut self, element: T) {
        self.shared.lock().broadcast += 1;
        for slot in self.slots() {
            {
                let mut state = slot.state.lock();
                if state.gone || state.terminal.is_some() || state.ignored {
                    continue;
                }
                state.queue.push_back(element.clone());
            }
            self.drain(&slot);
        }
    }

    fn on_error(&mut self, error: StreamError) {
        self.terminate_all(Some(error));
    }

    fn on_complete(&mut self) {
        self.terminate_all(None);
    }
}

impl<T: Clone + Send + 'static> Publisher<T> for MulticastProcessor<T> {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<T>>) {
        let slot = Arc::new(Slot {
            state: Mutex::new(SlotState {
                ignored: false,
                subscriber: None,
                queue: VecDeque::new(),
                demand: 0,
                terminal: None,
                gone: false,
                // Held while on_subscribe runs: requests from inside it only
                // add demand, delivered by the drain below.
                draining: true,
            }),
        });
        {
            let mut stage = self.shared.lock();
            slot.state.lock().ignored = stage.ignores_late && stage.broadcast > 0;
            match &stage.done {
                Some(terminal) => slot.state.lock().terminal = Some(terminal.clone()),
                None => stage.slots.push(slot.clone()),
            }
        }
        subscriber.on_subscribe(Arc::new(Downstream {
            processor: self.clone(),
            slot: slot.clone(),
        }));
        {
            let mut state = slot.state.lock();
            state.subscriber = Some(subscriber);
            state.draining = false;
        }
        self.drain(&slot);
    }
}

struct Downstream<T> {
    processor: MulticastProcessor<T>,
    slot: Arc<Slot<T>>,
}

impl<T: Clone + Send + 'static> Downstream<T> {
    /// The slot leaves; the last one out cancels upstream and shuts the
    /// processor down.
    fn leave(&self) {
        let upstream = {
            let mut stage = self.processor.shared.lock();
            stage.slots.retain(|s| !Arc::ptr_eq(s, &self.slot));
            if stage.slots.is_empty() && stage.done.is_none() {
                stage.done = Some(None);
                stage.upstream_over = true;
                stage.upstream.take()
            } else {
                None
            }
        };
        if let Some(upstream) = upstream {
            upstream.cancel();
        }
    }
}

impl<T: Clone + Send + 'static> Subscription for Downstream<T> {
    fn request(&self, n: u64) {
        {
            let mut state = self.slot.state.lock();
            if state.gone || matches!(state.terminal, Some(Some(_))) {
                return;
            }
            if n == 0 {
                state.queue.clear();
                state.terminal = Some(Some(StreamError::illegal_demand(0)));
            } else {
                state.demand = demand::add(state.demand, n);
            }
        }
        if n == 0 {
            self.leave();
        } else if !self.slot.state.lock().ignored {
            let upstream = {
                let mut stage = self.processor.shared.lock();
                if stage.upstream_over {
                    None
                } else if let Some(upstream) = &stage.upstream {
                    Some(upstream.clone())
                } else {
                    stage.pending = demand::add(stage.pending, n);
                    None
                }
            };
            if let Some(upstream) = upstream {
                upstream.request(n);
            }
        }
        self.processor.drain(&self.slot);
    }

    fn cancel(&self) {
        {
            let mut state = self.slot.state.lock();
            if state.gone {
                return;
            }
            state.gone = true;
        }
        self.leave();
        self.processor.drain(&self.slot);
    }
}
