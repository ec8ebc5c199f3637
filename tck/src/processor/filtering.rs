//! A filtering processor for the TCK's self-tests: the
//! [`IdentityProcessor`] with a predicate in front.

use std::sync::Arc;

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

use super::testkit::IdentityProcessor;

/// Passes the inputs `keep` accepts; serves one downstream subscriber, as
/// [`IdentityProcessor`] does. Clones are handles on one stage.
///
/// Conforming ([`new`](Self::new)): each dropped input is replaced by a
/// `request(1)` upstream, so downstream demand is still met. Broken
/// ([`stalling`](Self::stalling)): it asks upstream only for what
/// downstream asked for, so every dropped input leaves one element of
/// downstream demand unmet for good.
pub struct FilteringProcessor<T> {
    stage: IdentityProcessor<T>,
    keep: Arc<dyn Fn(&T) -> bool + Send + Sync>,
    replaces_dropped: bool,
}

impl<T> Clone for FilteringProcessor<T> {
    fn clone(&self) -> Self {
        FilteringProcessor {
            stage: self.stage.clone(),
            keep: self.keep.clone(),
            replaces_dropped: self.replaces_dropped,
        }
    }
}

impl<T> std::fmt::Debug for FilteringProcessor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilteringProcessor")
            .field("replaces_dropped", &self.replaces_dropped)
            .finish_non_exhaustive()
    }
}

impl<T: Send + 'static> FilteringProcessor<T> {
    /// A conforming filter passing the inputs for which `keep` is true.
    pub fn new(keep: impl Fn(&T) -> bool + Send + Sync + 'static) -> Self {
        FilteringProcessor {
            stage: IdentityProcessor::new(),
            keep: Arc::new(keep),
            replaces_dropped: true,
        }
    }

    /// A broken filter whose replacement `request`, made from inside
    /// `on_next`, is not serial with the downstream `request`s it forwards
    /// from other threads (§2.7).
    pub fn unserialised(keep: impl Fn(&T) -> bool + Send + Sync + 'static) -> Self {
        FilteringProcessor {
            stage: IdentityProcessor::with_quirk(super::testkit::Quirk::UnserialisedUpstream),
            ..Self::new(keep)
        }
    }

    /// A broken filter that never asks upstream to replace what it drops.
    pub fn stalling(keep: impl Fn(&T) -> bool + Send + Sync + 'static) -> Self {
        FilteringProcessor {
            replaces_dropped: false,
            ..Self::new(keep)
        }
    }
}

impl<T: Send + 'static> Subscriber<T> for FilteringProcessor<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.stage.on_subscribe(subscription);
    }

    fn on_next(&mut self, element: T) {
        if (self.keep)(&element) {
            self.stage.on_next(element);
        } else if self.replaces_dropped {
            self.stage.request_upstream(1);
        }
    }

    fn on_error(&mut self, error: StreamError) {
        self.stage.on_error(error);
    }

    fn on_complete(&mut self) {
        self.stage.on_complete();
    }
}

impl<T: Send + 'static> Publisher<T> for FilteringProcessor<T> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        self.stage.subscribe(subscriber);
    }
}
