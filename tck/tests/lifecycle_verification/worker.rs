//! A stage with a worker thread, written from the rule texts: its outputs
//! are delivered on its own thread, and an output in flight there reaches
//! downstream after `cancel()` has returned, which §1.8 ("eventually stop
//! being signaled") and §3.12 allow.
//!
//! The worker is pull-driven: it delivers what is owed when downstream
//! calls (a `request`, or `cancel`) and when its input ends, not when an
//! element arrives, so the datum it holds is still in hand when `cancel`
//! comes. It finishes that datum before it looks at the cancel: the output
//! goes downstream, and every other datum it queued is dropped at once.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use reactive_streams::done::Tracked;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::lifecycle::LifecycleFactory;

/// What the worker does with the datum in hand when it sees the cancel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InHand {
    /// Delivers it, tokens and all: correct.
    Deliver,
    /// Lets go of its tokens, then delivers the bare value: broken, the
    /// datum is done before its output reaches downstream (done.1) and the
    /// output carries none of its tokens (done.2).
    DeliverBare,
}

/// Stages with a worker thread (see the [module](self) docs).
pub struct Workers(pub InHand);

impl LifecycleFactory for Workers {
    type Output = Tracked<u64>;

    fn create_stage(
        &self,
        mut inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<Tracked<u64>>> {
        Box::new(Worker {
            input: inputs.remove(0),
            in_hand: self.0,
        })
    }

    /// The worker delivers in arrival order: output `i` is datum `i`.
    fn element_index(&self, output: &Tracked<u64>) -> Option<u64> {
        Some(output.value)
    }
}

struct Worker {
    input: Box<dyn Publisher<Tracked<u64>>>,
    in_hand: InHand,
}

impl Publisher<Tracked<u64>> for Worker {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<Tracked<u64>>>) {
        self.input.subscribe(Box::new(Intake {
            shared: Arc::new(Shared::default()),
            downstream: Some(subscriber),
            in_hand: self.in_hand,
        }));
    }
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    woken: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Tracked<u64>>,
    demand: u64,
    /// Downstream calls and the input's end, counted: the worker wakes on
    /// each.
    events: u64,
    cancelled: bool,
    /// The input ended: `None` completed, `Some` failed.
    ended: Option<Option<StreamError>>,
}

impl Shared {
    fn wake(&self, change: impl FnOnce(&mut State)) {
        let mut state = self.state.lock();
        change(&mut state);
        state.events += 1;
        self.woken.notify_all();
    }
}

/// The stage's subscriber to its input: queues what arrives.
struct Intake {
    shared: Arc<Shared>,
    downstream: Option<Box<dyn Subscriber<Tracked<u64>>>>,
    in_hand: InHand,
}

impl Subscriber<Tracked<u64>> for Intake {
    fn on_subscribe(&mut self, upstream: Arc<dyn Subscription>) {
        let Some(mut downstream) = self.downstream.take() else {
            upstream.cancel();
            return;
        };
        // Greets downstream here; every later signal comes from the
        // worker, started after this returns (§1.3: one at a time).
        downstream.on_subscribe(Arc::new(WorkerSubscription {
            shared: self.shared.clone(),
            upstream,
        }));
        let (shared, in_hand) = (self.shared.clone(), self.in_hand);
        std::thread::Builder::new()
            .name("stage-worker".into())
            .spawn(move || work(&shared, downstream, in_hand))
            .expect("the worker thread starts");
    }

    fn on_next(&mut self, element: Tracked<u64>) {
        self.shared.state.lock().queue.push_back(element);
    }

    fn on_error(&mut self, error: StreamError) {
        self.shared.wake(|state| state.ended = Some(Some(error)));
    }

    fn on_complete(&mut self) {
        self.shared.wake(|state| state.ended = Some(None));
    }
}

/// The worker: every signal downstream after `on_subscribe` comes from
/// here, one at a time.
fn work(shared: &Shared, mut downstream: Box<dyn Subscriber<Tracked<u64>>>, in_hand: InHand) {
    let mut seen = 0;
    loop {
        let mut state = shared.state.lock();
        while state.events == seen {
            shared.woken.wait(&mut state);
        }
        seen = state.events;
        if state.cancelled {
            let held = if state.demand > 0 {
                state.queue.pop_front()
            } else {
                None
            };
            let rest = std::mem::take(&mut state.queue);
            drop(state);
            drop(rest);
            if let Some(datum) = held {
                downstream.on_next(match in_hand {
                    InHand::Deliver => datum,
                    InHand::DeliverBare => {
                        let (value, tokens) = datum.into_parts();
                        drop(tokens);
                        Tracked::untracked(value)
                    }
                });
            }
            return;
        }
        let mut owed = Vec::new();
        while state.demand > 0 {
            let Some(datum) = state.queue.pop_front() else {
                break;
            };
            state.demand = demand::fulfil(state.demand, 1);
            owed.push(datum);
        }
        let end = if state.queue.is_empty() {
            state.ended.take()
        } else {
            None
        };
        drop(state);
        for datum in owed {
            downstream.on_next(datum);
        }
        match end {
            None => {}
            Some(None) => return downstream.on_complete(),
            Some(Some(error)) => return downstream.on_error(error),
        }
    }
}

struct WorkerSubscription {
    shared: Arc<Shared>,
    upstream: Arc<dyn Subscription>,
}

impl Subscription for WorkerSubscription {
    fn request(&self, n: u64) {
        if self.shared.state.lock().cancelled {
            return;
        }
        // The input may deliver at once (into the queue): what it brings
        // is owed by the wake-up that follows.
        self.upstream.request(n);
        self.shared
            .wake(|state| state.demand = demand::add(state.demand, n));
    }

    fn cancel(&self) {
        let mut first = false;
        self.shared.wake(|state| {
            first = !state.cancelled;
            state.cancelled = true;
        });
        if first {
            self.upstream.cancel();
        }
    }
}
