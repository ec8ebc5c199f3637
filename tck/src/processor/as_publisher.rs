//! A processor factory seen as a publisher factory: each publisher is a
//! fresh processor fed by a [helper publisher](super::upstream), so every
//! publisher rule test runs unchanged against the processor's output side.
//! A publisher of `n` elements is fed the inputs that make `n` outputs
//! ([`passing`](super::passing)).

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use reactive_streams::Publisher;

use super::ProcessorFactory;
use super::passing;
use super::upstream::{self, Ending};
use crate::publisher::PublisherFactory;

pub(crate) struct AsPublisher<F> {
    pub(crate) factory: Arc<F>,
    pub(crate) idle: Duration,
    /// The last input index mapped to its output ordinal, and that
    /// ordinal: streams go forward, so mapping the next one costs little.
    pub(crate) ordinals: Mutex<(u64, u64)>,
}

impl<F: ProcessorFactory> AsPublisher<F> {
    /// Publishers of `factory`'s processors, whose helper upstream waits
    /// `idle` at most for the processor.
    pub(crate) fn new(factory: Arc<F>, idle: Duration) -> Self {
        AsPublisher {
            factory,
            idle,
            ordinals: Mutex::new((0, 0)),
        }
    }

    /// The ordinal among the outputs of the output made from input `input`:
    /// how many inputs before it pass.
    fn ordinal(&self, input: u64) -> u64 {
        let mut cached = self.ordinals.lock();
        let (mut at, mut passed) = if input >= cached.0 { *cached } else { (0, 0) };
        while at < input {
            if self.factory.passes(at) {
                passed += 1;
            }
            at += 1;
        }
        *cached = (at, passed);
        passed
    }
}

impl<F: ProcessorFactory> AsPublisher<F> {
    /// A fresh processor, fed by a helper publisher that ends as `ending`
    /// says.
    pub(crate) fn fed(&self, ending: Ending) -> Box<dyn Publisher<F::Output>> {
        let processor = self.factory.create_processor();
        let factory = self.factory.clone();
        let input = Arc::new(move |i| factory.input(i));
        upstream::feed(Box::new(processor.clone()), ending, input, self.idle);
        Box::new(processor)
    }
}

impl<F: ProcessorFactory> PublisherFactory for AsPublisher<F> {
    type Element = F::Output;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<F::Output>> {
        self.fed(Ending::After(passing::inputs_for(&*self.factory, elements)))
    }

    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<F::Output>>> {
        // A processor that recovers from upstream errors is no failed
        // publisher when its upstream fails, nor is one that never has an
        // output: it may end its upstream subscription before the error.
        (!self.factory.recovers_from_errors() && self.factory.max_outputs() > 0)
            .then(|| self.fed(Ending::Failure))
    }

    fn max_elements(&self) -> u64 {
        self.factory.max_outputs()
    }

    /// The output's ordinal among the outputs, from the input it came from:
    /// a filter's outputs are owed in order, each once, as if numbered
    /// from 0.
    fn element_index(&self, output: &F::Output) -> Option<u64> {
        let input = self.factory.element_index(output)?;
        Some(self.ordinal(input))
    }

    fn max_sync_recursion_depth(&self) -> u32 {
        self.factory.max_sync_recursion_depth()
    }

    fn supports_multiple_subscribers(&self) -> bool {
        self.factory.supports_multiple_subscribers()
    }

    fn max_subscribers(&self) -> Option<usize> {
        self.factory.max_subscribers()
    }

    fn run_stochastic(&self) -> bool {
        self.factory.run_stochastic()
    }
}
