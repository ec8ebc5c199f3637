//! A minimal synchronous stage for the self-tests: it subscribes to its
//! input when subscribed to, and passes each element through an operation
//! that may misuse the element's tokens (park them, strip them, leak them).

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::done::{Tokens, Tracked};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_tck::lifecycle::LifecycleFactory;

/// Tokens a relay keeps aside.
pub type Parked = Arc<Mutex<Vec<Tokens>>>;

/// What a relay does with each element.
pub type Op = fn(Tracked<u64>, &Parked) -> Tracked<u64>;

/// When a relay lets go of what it parked.
#[derive(Clone, Copy)]
pub struct Release {
    pub on_complete: bool,
    pub on_error: bool,
    pub on_cancel: bool,
}

impl Release {
    pub const ALWAYS: Release = Release {
        on_complete: true,
        on_error: true,
        on_cancel: true,
    };
}

/// A factory of relays with one operation and one release policy.
pub struct Relays {
    pub op: Op,
    pub release: Release,
}

impl LifecycleFactory for Relays {
    type Output = Tracked<u64>;

    fn create_stage(
        &self,
        mut inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<Tracked<u64>>> {
        Box::new(Relay {
            input: inputs.remove(0),
            op: self.op,
            release: self.release,
        })
    }

    /// Output `i` is input 0's datum `i`, whatever the operation does with
    /// its tokens.
    fn element_index(&self, output: &Tracked<u64>) -> Option<u64> {
        Some(output.value)
    }
}

struct Relay {
    input: Box<dyn Publisher<Tracked<u64>>>,
    op: Op,
    release: Release,
}

impl Publisher<Tracked<u64>> for Relay {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<Tracked<u64>>>) {
        self.input.subscribe(Box::new(RelaySubscriber {
            downstream: subscriber,
            op: self.op,
            release: self.release,
            parked: Parked::default(),
        }));
    }
}

struct RelaySubscriber {
    downstream: Box<dyn Subscriber<Tracked<u64>>>,
    op: Op,
    release: Release,
    parked: Parked,
}

impl Subscriber<Tracked<u64>> for RelaySubscriber {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.downstream.on_subscribe(Arc::new(RelaySubscription {
            upstream: subscription,
            parked: self.parked.clone(),
            release: self.release.on_cancel,
        }));
    }
    fn on_next(&mut self, element: Tracked<u64>) {
        let output = (self.op)(element, &self.parked);
        self.downstream.on_next(output);
    }
    fn on_error(&mut self, error: StreamError) {
        if self.release.on_error {
            self.parked.lock().clear();
        }
        self.downstream.on_error(error);
    }
    fn on_complete(&mut self) {
        if self.release.on_complete {
            self.parked.lock().clear();
        }
        self.downstream.on_complete();
    }
}

struct RelaySubscription {
    upstream: Arc<dyn Subscription>,
    parked: Parked,
    release: bool,
}

impl Subscription for RelaySubscription {
    fn request(&self, n: u64) {
        self.upstream.request(n);
    }
    fn cancel(&self) {
        if self.release {
            self.parked.lock().clear();
        }
        self.upstream.cancel();
    }
}

/// A factory that declares how many consumed data its stages keep
/// ([`LifecycleFactory::keeps_delivered`]), around one that declares
/// nothing.
pub struct Declared<F>(pub F, pub usize);

impl<F: LifecycleFactory> LifecycleFactory for Declared<F> {
    type Output = F::Output;

    fn inputs(&self) -> usize {
        self.0.inputs()
    }

    fn create_stage(
        &self,
        inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<F::Output>> {
        self.0.create_stage(inputs)
    }

    fn keeps_delivered(&self) -> Option<usize> {
        Some(self.1)
    }

    fn element_index(&self, output: &F::Output) -> Option<u64> {
        self.0.element_index(output)
    }
}
