//! [`PullSource`]: a pullable source over an iterator.

use std::sync::Arc;

use reactive_streams::{Sink, Source, StreamError, Subscription, Talkback};

use super::SinkSubscriber;
use crate::drain::Drain;
use crate::executor::Executor;
use crate::publisher::IterProducer;

/// A pullable source: each sink gets its own iterator from the factory and
/// receives one item per `request` while started; `end(None)` follows the
/// last item. `stop` pauses (pending requests are forgotten), `start`
/// resumes where it stopped.
///
/// Lacks: never pushes — a sink that only `start`s receives nothing.
///
/// ```
/// use reactive_streams::Source;
/// use reactive_streams_reference::streamlet::{CollectSink, PullSource};
///
/// let source = PullSource::new(|| 1..=3);
/// let (sink, all) = CollectSink::new();
/// source.connect(Box::new(sink));
/// assert_eq!(futures::executor::block_on(all).unwrap(), vec![1, 2, 3]);
/// ```
pub struct PullSource<I> {
    factory: Arc<dyn Fn() -> I + Send + Sync>,
}

impl<I> PullSource<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    /// A source calling `factory` once per sink.
    pub fn new(factory: impl Fn() -> I + Send + Sync + 'static) -> Self {
        PullSource {
            factory: Arc::new(factory),
        }
    }
}

impl<I> Source<I::Item> for PullSource<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    fn connect(&self, sink: Box<dyn Sink<I::Item>>) {
        let drain = Drain::new(IterProducer((self.factory)()), Executor::Inline);
        drain.pause();
        let talkback = Arc::new(PullTalkback {
            drain: drain.clone(),
        });
        drain.start(
            Box::new(SinkSubscriber {
                sink,
                talkback: Some(talkback),
            }),
            drain.clone(),
        );
    }
}

struct PullTalkback<I: Iterator> {
    drain: Arc<Drain<I::Item, IterProducer<I>>>,
}

impl<I> Talkback for PullTalkback<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    fn start(&self) {
        self.drain.resume();
    }

    fn request(&self) {
        // Rule 3: requests while stopped are not allowed; they are ignored.
        if !self.drain.is_paused() {
            self.drain.request(1);
        }
    }

    fn stop(&self, _reason: Option<StreamError>) {
        self.drain.pause();
    }
}
