//! Factories built from closures, so that each self-test names its
//! subscriber in one line.

use reactive_streams::Subscriber;
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxFactory, SubscriberWhiteboxFactory, WhiteboxProbe,
};

#[path = "../support/timing.rs"]
mod timing;
pub use timing::{generous, patient};

/// A blackbox factory of `S`, with an optional nudge.
pub struct Blackbox<S> {
    pub create: fn() -> S,
    pub nudge: Option<fn(&mut S)>,
}

// By hand: a derive would ask `S: Copy`, and only fn pointers are held.
impl<S> Clone for Blackbox<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Blackbox<S> {}

impl<S> Blackbox<S> {
    pub fn new(create: fn() -> S) -> Self {
        Blackbox {
            create,
            nudge: None,
        }
    }

    pub fn nudged(create: fn() -> S, nudge: fn(&mut S)) -> Self {
        Blackbox {
            create,
            nudge: Some(nudge),
        }
    }
}

impl<S: Subscriber<u64> + 'static> SubscriberBlackboxFactory for Blackbox<S> {
    type Element = u64;
    type Subscriber = S;

    fn create_subscriber(&self) -> S {
        (self.create)()
    }

    fn element(&self, index: u64) -> u64 {
        index
    }

    fn trigger_request(&self, subscriber: &mut S) {
        if let Some(nudge) = self.nudge {
            nudge(subscriber);
        }
    }
}

/// A whitebox factory from a function of the probe.
pub struct Whitebox(pub fn(WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>>);

impl SubscriberWhiteboxFactory for Whitebox {
    type Element = u64;

    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        (self.0)(probe)
    }

    fn element(&self, index: u64) -> u64 {
        index
    }
}
