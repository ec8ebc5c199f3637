//! A minimal two-input merge for the self-tests: each output is one input
//! datum, so it must carry exactly that datum's token and the stage holds
//! nothing once it is delivered (unless it says what it keeps). What the
//! stage does with a datum's tokens as it delivers it is its [`Handling`];
//! which waiting datum goes next is its [`Turns`].
//!
//! Backpressure: each input has at most one element requested, asked
//! again once that element has been delivered. Signals downstream are
//! serial: one thread at a time runs the drain loop; the others leave
//! their work in the state for it.

use std::collections::VecDeque;
use std::sync::Arc;

use reactive_streams::done::{Tokens, Tracked};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::lifecycle::LifecycleFactory;
use reactive_streams_tck::testkit::{Trampoline, Turn};

use crate::two_inputs::{Inputs, Stage, Staged, Work};

/// What the stage does with a datum's tokens when it delivers the datum.
#[derive(Clone, Copy)]
pub enum Handling {
    /// Passes the datum on, tokens and all, keeping nothing.
    Pass,
    /// Also keeps a clone of the tokens of the `k` most recent delivered
    /// data of each input (say, to replay them), and declares them.
    KeepLast(usize),
    /// Remembers the tokens of the newest delivered datum of each input
    /// (declaring that one), but by a mixed-up index tags each output with
    /// the *other* input's remembered tokens (its own while the other
    /// input has delivered nothing): an output without its datum's token.
    RetagWithOther,
    /// Keeps a clone of every delivered datum's tokens until the stream
    /// ends, while declaring it keeps nothing once delivered.
    KeepUntilEnd,
}

/// Which waiting datum is delivered next.
#[derive(Clone, Copy)]
pub enum Turns {
    /// The one that arrived first.
    Arrival,
    /// Strictly the inputs in turn: the stage waits for the input whose
    /// turn it is, even while the other has a datum waiting, unless that
    /// input has completed.
    Alternate,
}

/// A factory of two-input merges.
pub struct Merges {
    pub handling: Handling,
    pub turns: Turns,
}

impl LifecycleFactory for Merges {
    type Output = Tracked<u64>;

    fn inputs(&self) -> usize {
        2
    }

    fn create_stage(
        &self,
        inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<Self::Output>> {
        let (handling, turns) = (self.handling, self.turns);
        Box::new(Staged::new(inputs, move || Core {
            state: Trampoline::new(State::default()),
            handling,
            turns,
        }))
    }

    fn keeps_delivered(&self) -> Option<usize> {
        Some(match self.handling {
            Handling::Pass | Handling::KeepUntilEnd => 0,
            Handling::KeepLast(k) => k,
            Handling::RetagWithOther => 1,
        })
    }
}

type Downstream = Box<dyn Subscriber<Tracked<u64>>>;

#[derive(Default)]
struct State {
    inputs: Inputs,
    /// Arrived and not yet delivered, in arrival order, with their input.
    waiting: VecDeque<(usize, Tracked<u64>)>,
    /// Tokens of delivered data the stage still holds, per input, oldest
    /// first.
    kept: [VecDeque<Tokens>; 2],
    /// Whose turn it is ([`Turns::Alternate`]).
    turn: usize,
    demand: u64,
    cancelled: bool,
    finished: bool,
}

struct Core {
    state: Trampoline<State, Downstream>,
    handling: Handling,
    turns: Turns,
}

impl Core {
    /// Runs the drain loop unless another thread is in it.
    fn drain(&self) {
        self.state
            .drain(|state| self.next_work(state), Work::deliver);
    }

    fn next_work(&self, state: &mut State) -> Turn<Work<Tracked<u64>>> {
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
            if let Some((side, datum)) = self.pick(state) {
                state.demand -= 1;
                state.inputs.ask[side] = true;
                return Turn::Signal(Work::Next(self.deliver(state, side, datum)));
            }
        }
        if state.waiting.is_empty() && state.inputs.ended == [true, true] {
            return Turn::Last(Work::End(Some(Ok(())), Self::finish(state)));
        }
        match state.inputs.next_ask() {
            Some(upstream) => Turn::Signal(Work::Ask(upstream)),
            None => Turn::Wait,
        }
    }

    /// The datum delivered next, if its turn has come.
    fn pick(&self, state: &mut State) -> Option<(usize, Tracked<u64>)> {
        let at = match self.turns {
            Turns::Arrival => 0,
            Turns::Alternate => {
                let turn = state.turn;
                let mine = state.waiting.iter().position(|(side, _)| *side == turn);
                // Wait for the input whose turn it is unless it has ended.
                match mine {
                    Some(at) => at,
                    None if state.inputs.ended[turn] => 0,
                    None => return None,
                }
            }
        };
        let (side, datum) = state.waiting.remove(at)?;
        state.turn = 1 - side;
        Some((side, datum))
    }

    /// The output made from `datum`, per the stage's [`Handling`].
    fn deliver(&self, state: &mut State, side: usize, datum: Tracked<u64>) -> Tracked<u64> {
        let kept = &mut state.kept;
        match self.handling {
            Handling::Pass => datum,
            Handling::KeepLast(k) => {
                kept[side].push_back(datum.tokens.clone());
                while kept[side].len() > k {
                    kept[side].pop_front();
                }
                datum
            }
            Handling::KeepUntilEnd => {
                kept[side].push_back(datum.tokens.clone());
                datum
            }
            Handling::RetagWithOther => {
                let (value, own) = datum.into_parts();
                let tag = kept[1 - side].back().cloned();
                let tokens = tag.unwrap_or_else(|| own.clone());
                kept[side] = VecDeque::from([own]);
                Tracked { value, tokens }
            }
        }
    }

    /// Releases everything held; the inputs still open, to cancel.
    fn finish(state: &mut State) -> Vec<Arc<dyn Subscription>> {
        state.finished = true;
        state.waiting.clear();
        state.kept = Default::default();
        state.inputs.close()
    }

    fn update(&self, change: impl FnOnce(&mut State)) {
        change(&mut self.state.state());
        self.drain();
    }
}

impl Subscription for Core {
    fn request(&self, n: u64) {
        self.update(|state| {
            if n == 0 {
                state.inputs.error = Some(StreamError::msg("request(0) (§3.9)"));
            } else {
                state.demand = demand::add(state.demand, n);
            }
        });
    }

    fn cancel(&self) {
        self.update(|state| state.cancelled = true);
    }
}

impl Stage for Core {
    type Output = Tracked<u64>;

    fn attach(&self, downstream: Downstream) {
        self.state.attach(downstream);
        self.drain();
    }

    fn on_input(&self, side: usize, element: Tracked<u64>) {
        self.update(|state| {
            if !state.finished {
                state.waiting.push_back((side, element));
            }
        });
    }

    fn update_inputs(&self, change: impl FnOnce(&mut Inputs)) {
        self.update(|state| change(&mut state.inputs));
    }
}
