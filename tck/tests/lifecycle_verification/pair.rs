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

use reactive_streams::done::{Tokens, Tracked};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::lifecycle::LifecycleFactory;
use reactive_streams_tck::testkit::{Trampoline, Turn};

use crate::two_inputs::{Inputs, Stage, Staged, Work};

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
        inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<Self::Output>> {
        let combine = self.0;
        Box::new(Staged::new(inputs, move || Core {
            state: Trampoline::new(State::default()),
            combine,
        }))
    }

    fn keeps_delivered(&self) -> Option<usize> {
        Some(1)
    }
}

type Downstream = Box<dyn Subscriber<Tracked<(u64, u64)>>>;

#[derive(Default)]
struct State {
    inputs: Inputs,
    latest: [Option<Tracked<u64>>; 2],
    pairs: VecDeque<Tracked<(u64, u64)>>,
    demand: u64,
    cancelled: bool,
    finished: bool,
}

struct Core {
    state: Trampoline<State, Downstream>,
    combine: Combine,
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
        if let Some(error) = state.inputs.error.take() {
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
        let never = (0..2).any(|j| state.inputs.ended[j] && state.latest[j].is_none());
        if never || state.inputs.ended == [true, true] {
            return Turn::Last(Work::End(Some(Ok(())), Self::finish(state)));
        }
        match state.inputs.next_ask() {
            Some(upstream) => Turn::Signal(Work::Ask(upstream)),
            None => Turn::Wait,
        }
    }

    /// Releases everything held; the inputs still open, to cancel.
    fn finish(state: &mut State) -> Vec<Arc<dyn Subscription>> {
        state.finished = true;
        state.latest = [None, None];
        state.pairs.clear();
        state.inputs.close()
    }

    fn on_next(&self, side: usize, element: Tracked<u64>) {
        {
            let mut state = self.state.state();
            if state.finished {
                return;
            }
            state.latest[side] = Some(element);
            state.inputs.ask[side] = true;
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
                state.inputs.error = Some(StreamError::msg("request(0) (§3.9)"));
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

impl Stage for Core {
    type Output = Tracked<(u64, u64)>;

    fn attach(&self, downstream: Downstream) {
        self.state.attach(downstream);
        self.drain();
    }

    fn on_input(&self, side: usize, element: Tracked<u64>) {
        self.on_next(side, element);
    }

    fn update_inputs(&self, change: impl FnOnce(&mut Inputs)) {
        change(&mut self.state.state().inputs);
        self.drain();
    }
}
