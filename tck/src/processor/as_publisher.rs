//! A processor factory seen as a publisher factory: each publisher is a
//! fresh processor fed by a [helper publisher](super::upstream), so every
//! publisher rule test runs unchanged against the processor's output side.
//! A publisher of `n` elements is fed the inputs that make `n` outputs
//! ([`passing`](super::passing)).

use std::sync::Arc;
use std::time::Duration;

use reactive_streams::Publisher;

use super::passing;
use super::upstream::{self, Ending};
use super::ProcessorFactory;
use crate::publisher::PublisherFactory;

pub(crate) struct AsPublisher<F> {
    pub(crate) factory: Arc<F>,
    pub(crate) idle: Duration,
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

    fn max_sync_recursion_depth(&self) -> u32 {
        self.factory.max_sync_recursion_depth()
    }

    fn supports_multiple_subscribers(&self) -> bool {
        self.factory.supports_multiple_subscribers()
    }

    fn run_stochastic(&self) -> bool {
        self.factory.run_stochastic()
    }
}
