//! A minimal two-input combine-latest for the self-tests: each output pairs
//! the newest datum of each input, and a datum stays cached (as the newest
//! of its side) until the next one of that side replaces it. How the
//! cached side's tokens get into a new pair is the stage's [`Combine`]
//! policy: cloned (faithful) or moved (broken).
//!
//! Backpressure: each input has at most one element requested, asked again
//! only once every pair made so far has been delivered. Signals downstream
//! are serial: one thread at a time runs the drain loop; the others leave
//! their work in the state for it.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::done::{Tokens, Tracked};
use reactive_streams::{demand, Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_tck::lifecycle::LifecycleFactory;
use reactive_streams_tck::testkit::{Trampoline, Turn};

use crate::downstream::Work;

/// How a new pair gets the tokens of the cached side.
#[derive(Clone, Copy)]
pub enum Combine {
    /// A clone: the cache and every pair it is in each hold the datum.
    Clone,
    /// Moved out of the cache: the next pair with the same cached datum
    /// carries none of its tokens.
    MoveCached,
}

/// A factory of [`Combine`]-latest stages; they keep the newest delivered
/// datum of each side (`keeps_delivered() == Some(1)`).
pub struct Pairs(pub Combine);

impl LifecycleFactory for Pairs {
    type Output = Tracked<(u64, u64)>;

    fn inputs(&self) -> usize {
        2
    }

    fn create_stage(
        &self,
        mut inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<Self::Output>> {
        let right = inputs.pop().unwrap();
        let left = inputs.pop().unwrap();
        Box::new(Pair {
            inputs: Mutex::new(Some([left, right])),
            combine: self.0,
        })
    }

    fn keeps_delivered(&self) -> Option<usize> {
        Some(1)
    }
}

type Input = Box<dyn Publisher<Tracked<u64>>>;
type Downstream = Box<dyn Subscriber<Tracked<(u64, u64)>>>;

struct Pair {
    inputs: Mutex<Option<[Input; 2]>>,
    combine: Combine,
}

impl Publisher<Tracked<(u64, u64)>> for Pair {
    fn subscribe(&self, mut subscriber: Downstream) {
        let Some(inputs) = self.inputs.lock().take() else {
            subscriber.on_subscribe(Arc::new(Core::default()));
            subscriber.on_error(StreamError::msg("serves one subscriber"));
            return;
        };
        let core = Arc::new(Core {
            combine: self.combine,
            ..Core::default()
        });
        subscriber.on_subscribe(core.clone());
        // The trampoline drains only once the inputs are subscribed too.
        for (side, input) in inputs.into_iter().enumerate() {
            input.subscribe(Box::new(Side {
                core: core.clone(),
                side,
            }));
        }
        core.state.attach(subscriber);
        core.drain();
    }
}

#[derive(Default)]
struct State {
    upstream: [Option<Arc<dyn Subscription>>; 2],
    latest: [Option<Tracked<u64>>; 2],
    pairs: VecDeque<Tracked<(u64, u64)>>,
    demand: u64,
    /// Inputs waiting to be asked for their next element.
    ask: [bool; 2],
    ended: [bool; 2],
    error: Option<StreamError>,
    cancelled: bool,
    finished: bool,
}

struct Core {
    state: Trampoline<State, Downstream>,
    combine: Combine,
}

impl Default for Core {
    fn default() -> Self {
        Core {
            state: Trampoline::new(State::default()),
            combine: Combine::Clone,
        }
    }
}

impl Core {
    /// Runs the drain loop unless another thread is in it.
    fn drain(&self) {
        self.state
            .drain(|state| self.next_work(state), Work::deliver);
    }

    fn next_work(&self, state: &mut State) -> Turn<Work<Tracked<(u64, u64)>>> {
        if state.finished {
            return Turn::Wait;
        }
        if state.cancelled {
            return Turn::Last(Work::End(None, Self::finish(state)));
        }
        if let Some(error) = state.error.take() {
            return Turn::Last(Work::End(Some(Err(error)), Self::finish(state)));
        }
        if state.demand > 0 {
            if let Some(pair) = state.pairs.pop_front() {
                state.demand -= 1;
                return Turn::Signal(Work::Next(pair));
            }
        }
        if !state.pairs.is_empty() {
            return Turn::Wait;
        }
        let never = (0..2).any(|j| state.ended[j] && state.latest[j].is_none());
        if never || state.ended == [true, true] {
            return Turn::Last(Work::End(Some(Ok(())), Self::finish(state)));
        }
        for j in 0..2 {
            if state.ask[j] && !state.ended[j] {
                if let Some(upstream) = state.upstream[j].clone() {
                    state.ask[j] = false;
                    return Turn::Signal(Work::Ask(upstream));
                }
            }
        }
        Turn::Wait
    }

    /// Releases everything held; the inputs still open, to cancel.
    fn finish(state: &mut State) -> Vec<Arc<dyn Subscription>> {
        state.finished = true;
        state.latest = [None, None];
        state.pairs.clear();
        (0..2)
            .filter(|&j| !state.ended[j])
            .filter_map(|j| state.upstream[j].take())
            .collect()
    }

    fn on_next(&self, side: usize, element: Tracked<u64>) {
        {
            let mut state = self.state.state();
            if state.finished {
                return;
            }
            state.latest[side] = Some(element);
            state.ask[side] = true;
            let [left, right] = &mut state.latest;
            let (fresh, cached) = if side == 0 {
                (left, right)
            } else {
                (right, left)
            };
            if let (Some(fresh), Some(cached)) = (fresh.as_ref(), cached.as_mut()) {
                let fresh = fresh.clone();
                let cached = match self.combine {
                    Combine::Clone => cached.clone(),
                    Combine::MoveCached => Tracked {
                        value: cached.value,
                        tokens: std::mem::replace(&mut cached.tokens, Tokens::none()),
                    },
                };
                let pair = if side == 0 {
                    fresh.zip(cached)
                } else {
                    cached.zip(fresh)
                };
                state.pairs.push_back(pair);
            }
        }
        self.drain();
    }
}

impl Subscription for Core {
    fn request(&self, n: u64) {
        {
            let mut state = self.state.state();
            if n == 0 {
                state.error = Some(StreamError::msg("request(0) (§3.9)"));
            } else {
                state.demand = demand::add(state.demand, n);
            }
        }
        self.drain();
    }

    fn cancel(&self) {
        self.state.state().cancelled = true;
        self.drain();
    }
}

struct Side {
    core: Arc<Core>,
    side: usize,
}

impl Subscriber<Tracked<u64>> for Side {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        {
            let mut state = self.core.state.state();
            state.upstream[self.side] = Some(subscription);
            state.ask[self.side] = true;
        }
        self.core.drain();
    }

    fn on_next(&mut self, element: Tracked<u64>) {
        self.core.on_next(self.side, element);
    }

    fn on_error(&mut self, error: StreamError) {
        {
            let mut state = self.core.state.state();
            state.ended[self.side] = true;
            state.upstream[self.side] = None;
            state.error.get_or_insert(error);
        }
        self.core.drain();
    }

    fn on_complete(&mut self) {
        {
            let mut state = self.core.state.state();
            state.ended[self.side] = true;
            state.upstream[self.side] = None;
        }
        self.core.drain();
    }
}
