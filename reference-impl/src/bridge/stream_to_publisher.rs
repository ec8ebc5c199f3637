//! [`StreamPublisher`]: a `futures::Stream` as a cold publisher.

use std::pin::Pin;
use std::sync::Arc;
use std::task::Context;

use futures::stream::{BoxStream, Stream, StreamExt};
use reactive_streams::{Publisher, StreamError, Subscriber};

use crate::drain::{self, Emission, Producer};
use crate::executor::Executor;

type Factory<T> = dyn Fn() -> BoxStream<'static, Result<T, StreamError>> + Send + Sync;

/// Puts any `futures::Stream` under the Reactive Streams contract: every
/// subscriber gets a fresh stream from the factory, and demand drives
/// polling — the stream is polled only while there is demand, plus one item
/// of look-ahead so completion follows the last element at once.
///
/// Where the polling runs is the [`Executor`]: with
/// [`Executor::Tokio`] every poll happens inside a task on that runtime (so
/// tokio timers and I/O work); with [`Executor::Inline`] the stream is
/// polled on the thread that requests, and after a `Pending` on the thread
/// that wakes it.
///
/// ```
/// use reactive_streams_reference::{collect, Executor, StreamPublisher};
///
/// let publisher = StreamPublisher::new(Executor::Inline, || futures::stream::iter(1..=3));
/// let all = futures::executor::block_on(collect(&publisher)).unwrap();
/// assert_eq!(all, vec![1, 2, 3]);
/// ```
pub struct StreamPublisher<T> {
    factory: Arc<Factory<T>>,
    executor: Executor,
}

impl<T: Send + 'static> StreamPublisher<T> {
    /// A publisher of the items of `factory()`.
    pub fn new<S, F>(executor: Executor, factory: F) -> Self
    where
        S: Stream<Item = T> + Send + 'static,
        F: Fn() -> S + Send + Sync + 'static,
    {
        Self::fallible(executor, move || factory().map(Ok))
    }

    /// A publisher of a stream of results: the first `Err` is signalled
    /// with `on_error` and ends the stream.
    pub fn fallible<S, F>(executor: Executor, factory: F) -> Self
    where
        S: Stream<Item = Result<T, StreamError>> + Send + 'static,
        F: Fn() -> S + Send + Sync + 'static,
    {
        StreamPublisher {
            factory: Arc::new(move || factory().boxed()),
            executor,
        }
    }
}

impl<T> Clone for StreamPublisher<T> {
    fn clone(&self) -> Self {
        StreamPublisher {
            factory: self.factory.clone(),
            executor: self.executor.clone(),
        }
    }
}

struct StreamProducer<T>(BoxStream<'static, Result<T, StreamError>>);

impl<T: Send + 'static> Producer<T> for StreamProducer<T> {
    const NEEDS_WAKER: bool = true;
    const LOOKAHEAD: bool = true;

    fn poll_produce(&mut self, cx: &mut Context<'_>) -> Emission<T> {
        Pin::new(&mut self.0).poll_next(cx)
    }
}

impl<T: Send + 'static> Publisher<T> for StreamPublisher<T> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        drain::subscribe(
            subscriber,
            StreamProducer((self.factory)()),
            self.executor.clone(),
        );
    }
}
