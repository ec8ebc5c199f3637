//! Streamlets: sources ([`PullSource`], [`ListenSource`], [`HybridSource`]),
//! sinks ([`CollectSink`], [`CallbackSink`]) and bridges to and from
//! Reactive Streams ([`PublisherSource`], [`SourcePublisher`]).
//!
//! Every source here supports stop-then-start as pause and resume: after
//! `stop` nothing is sent (not even `end`) until the next `start`. The
//! sources reuse the Reactive Streams [`Drain`](crate::drain::Drain), so
//! `request` from inside `receive` is trampolined (no recursion) and the
//! sink is signalled serially.

mod bridge;
mod hybrid;
mod listenable;
mod pullable;
mod sink;

use std::sync::Arc;

use reactive_streams::{Sink, StreamError, Subscriber, Subscription, Talkback};

pub use bridge::{PublisherSource, SourcePublisher};
pub use hybrid::HybridSource;
pub use listenable::{ListenSource, interval};
pub use pullable::PullSource;
pub use sink::{CallbackSink, CollectSink};

/// Drives a sink through the subscriber role of a drain: `on_subscribe`
/// greets it with the source's own talkback.
pub(crate) struct SinkSubscriber<T> {
    pub(crate) sink: Box<dyn Sink<T>>,
    pub(crate) talkback: Option<Arc<dyn Talkback>>,
}

impl<T> Subscriber<T> for SinkSubscriber<T> {
    fn on_subscribe(&mut self, _: Arc<dyn Subscription>) {
        if let Some(talkback) = self.talkback.take() {
            self.sink.greet(talkback);
        }
    }

    fn on_next(&mut self, element: T) {
        self.sink.receive(element);
    }

    fn on_error(&mut self, error: StreamError) {
        self.sink.end(Some(error));
    }

    fn on_complete(&mut self) {
        self.sink.end(None);
    }
}
