//! A processor seen as a whitebox subscriber: the TCK subscribes its own
//! downstream subscriber to each processor, which reports what comes out to
//! the whitebox probe and registers the downstream subscription as the
//! puppet. "Request n" thus means downstream demand, which the processor
//! must turn into upstream demand.

use std::marker::PhantomData;
use std::sync::Arc;

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

use super::ProcessorFactory;
use super::as_publisher::AsPublisher;
use crate::context::{Failure, RuleCx};
use crate::subscriber::rules::ElementText;
use crate::subscriber::stage::{Nudge, Stage, Subject};
use crate::subscriber::{Driver, WhiteboxProbe};

/// What the processor verification runs its rule tests against.
pub(crate) struct ProcessorSubject<F> {
    pub(crate) factory: Arc<F>,
    pub(crate) publisher: AsPublisher<F>,
}

impl<F: ProcessorFactory> ProcessorSubject<F> {
    /// Both sides of the processors `factory` makes.
    pub(crate) fn new(factory: F) -> Self {
        let factory = Arc::new(factory);
        ProcessorSubject {
            factory: factory.clone(),
            publisher: AsPublisher::new(factory, crate::env::TestEnv::default().watchdog()),
        }
    }
}

impl<F: ProcessorFactory> Subject for ProcessorSubject<F> {
    type Element = F::Input;
    type Sub = F::Processor;

    fn cancel_reaches_subscription(&self) -> bool {
        self.factory.propagates_cancellation()
    }

    fn request_reaches_subscription(&self) -> bool {
        false
    }

    fn recovers_from_errors(&self) -> bool {
        self.factory.recovers_from_errors()
    }

    fn outputs_for(&self, inputs: u64) -> u64 {
        super::passing::outputs_for(&*self.factory, inputs)
    }

    fn stage<'a>(&'a self, cx: &RuleCx) -> Result<Stage<'a, F::Input, F::Processor>, Failure> {
        let factory = &*self.factory;
        let processor = create(cx, factory)?;
        let probe = WhiteboxProbe::new(cx, false);
        let reporter: Reporter<F::Input, F::Output> = Reporter {
            probe: probe.clone(),
            registered: false,
            _output: PhantomData,
        };
        cx.try_step("1.9", "subscribe the TCK's downstream subscriber", || {
            processor.subscribe(Box::new(reporter))
        })?;
        let driver = Driver::new(cx, Box::new(processor), move |i| factory.input(i));
        Ok(Stage::new(driver, Some(probe), Nudge::Whitebox))
    }
}

impl<F: ProcessorFactory> ElementText for ProcessorSubject<F> {
    fn element_text(&self, _: u64) -> String {
        String::from("_")
    }
}

/// `create_processor()` as a step.
pub(crate) fn create<F: ProcessorFactory>(
    cx: &RuleCx,
    factory: &F,
) -> Result<F::Processor, Failure> {
    cx.try_step("tck.factory", "create_processor", || {
        factory.create_processor()
    })
}

/// The TCK's downstream subscriber in the whitebox rule tests.
struct Reporter<I, R> {
    probe: WhiteboxProbe<I>,
    registered: bool,
    _output: PhantomData<fn(R)>,
}

impl<I: Send + 'static, R: Send + 'static> Subscriber<R> for Reporter<I, R> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.registered {
            return subscription.cancel();
        }
        self.registered = true;
        self.probe.registered(subscription);
    }

    fn on_next(&mut self, _: R) {
        self.probe.received_next_uncompared();
    }

    fn on_error(&mut self, error: StreamError) {
        self.probe.received_error(&error);
    }

    fn on_complete(&mut self) {
        self.probe.received_complete();
    }
}
