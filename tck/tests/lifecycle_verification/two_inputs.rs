//! The plumbing the two-input test stages ([`crate::merge`],
//! [`crate::pair`]) share: their inputs' bookkeeping, the subscribers they
//! put on their inputs, and the work they owe their subscriber, decided
//! under the stage's lock and delivered outside it by the testkit's
//! [`Trampoline`](reactive_streams_tck::testkit::Trampoline) (one thread at
//! a time; the others leave their work in the state). What each stage does
//! with an element is its own.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::done::Tracked;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

/// An input of a stage.
pub type Input = Box<dyn Publisher<Tracked<u64>>>;

/// What a stage knows of its two inputs.
#[derive(Default)]
pub struct Inputs {
    pub upstream: [Option<Arc<dyn Subscription>>; 2],
    /// Inputs waiting to be asked for their next element.
    pub ask: [bool; 2],
    pub ended: [bool; 2],
    /// The first error to pass downstream: an input's, or `request(0)`'s.
    pub error: Option<StreamError>,
}

impl Inputs {
    /// An open input waiting to be asked for its next element, if any (it
    /// is no longer waiting).
    pub fn next_ask(&mut self) -> Option<Arc<dyn Subscription>> {
        let side = (0..2)
            .find(|&side| self.ask[side] && !self.ended[side] && self.upstream[side].is_some())?;
        self.ask[side] = false;
        self.upstream[side].clone()
    }

    /// Lets go of the inputs; those still open, to cancel.
    pub fn close(&mut self) -> Vec<Arc<dyn Subscription>> {
        (0..2)
            .filter(|&side| !self.ended[side])
            .filter_map(|side| self.upstream[side].take())
            .collect()
    }
}

/// A two-input stage, as its inputs' subscribers see it.
pub trait Stage: Subscription + Sized + 'static {
    /// What it delivers.
    type Output;
    /// Takes its subscriber once the inputs are subscribed, and drains.
    fn attach(&self, downstream: Box<dyn Subscriber<Self::Output>>);
    /// Element `element` arrived from input `side`.
    fn on_input(&self, side: usize, element: Tracked<u64>);
    /// Runs `change` on the inputs under the stage's lock, then drains.
    fn update_inputs(&self, change: impl FnOnce(&mut Inputs));
}

/// A stage's publisher: its two inputs until its one subscriber comes (a
/// second one gets an error), and how to make the stage that serves it.
pub struct Staged<F> {
    inputs: Mutex<Option<[Input; 2]>>,
    make: F,
}

impl<F> Staged<F> {
    /// The two inputs `create_stage` gets, and how to make the stage.
    pub fn new(inputs: Vec<Input>, make: F) -> Self {
        let Ok(inputs) = <[Input; 2]>::try_from(inputs) else {
            panic!("a two-input stage gets two inputs");
        };
        Staged {
            inputs: Mutex::new(Some(inputs)),
            make,
        }
    }
}

impl<S: Stage, F: Fn() -> S + Send + Sync> Publisher<S::Output> for Staged<F> {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<S::Output>>) {
        let stage = Arc::new((self.make)());
        let Some(inputs) = self.inputs.lock().take() else {
            subscriber.on_subscribe(stage);
            subscriber.on_error(StreamError::msg("serves one subscriber"));
            return;
        };
        subscriber.on_subscribe(stage.clone());
        // The trampoline drains only once the inputs are subscribed too.
        for (side, input) in inputs.into_iter().enumerate() {
            input.subscribe(Box::new(Side {
                stage: stage.clone(),
                side,
            }));
        }
        stage.attach(subscriber);
    }
}

/// The subscriber a stage puts on its input `side`.
struct Side<S> {
    stage: Arc<S>,
    side: usize,
}

impl<S: Stage> Subscriber<Tracked<u64>> for Side<S> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.stage.update_inputs(|inputs| {
            inputs.upstream[self.side] = Some(subscription);
            inputs.ask[self.side] = true;
        });
    }

    fn on_next(&mut self, element: Tracked<u64>) {
        self.stage.on_input(self.side, element);
    }

    fn on_error(&mut self, error: StreamError) {
        self.stage.update_inputs(|inputs| {
            inputs.ended[self.side] = true;
            inputs.upstream[self.side] = None;
            inputs.error.get_or_insert(error);
        });
    }

    fn on_complete(&mut self) {
        self.stage.update_inputs(|inputs| {
            inputs.ended[self.side] = true;
            inputs.upstream[self.side] = None;
        });
    }
}

/// One turn of a stage's drain loop.
pub enum Work<T> {
    /// An output for downstream.
    Next(T),
    /// Ask this input for its next element.
    Ask(Arc<dyn Subscription>),
    /// Cancel the open inputs, then signal downstream (none after a
    /// cancel).
    End(Option<Result<(), StreamError>>, Vec<Arc<dyn Subscription>>),
}

impl<T> Work<T> {
    /// Does this work; `downstream` gets the outputs and the end.
    pub fn deliver(downstream: &mut Box<dyn Subscriber<T>>, work: Self) {
        match work {
            Work::Next(output) => downstream.on_next(output),
            Work::Ask(upstream) => upstream.request(1),
            Work::End(signal, open) => {
                open.iter().for_each(|upstream| upstream.cancel());
                match signal {
                    Some(Ok(())) => downstream.on_complete(),
                    Some(Err(error)) => downstream.on_error(error),
                    None => {}
                }
            }
        }
    }
}
