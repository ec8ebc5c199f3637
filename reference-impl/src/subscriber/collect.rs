//! [`collect`]: await a publisher's elements as one `Vec`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::channel::oneshot;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};

use super::refill;

/// Subscribes to `publisher` and resolves to all its elements, or to its
/// error. Requests without bound; see [`CollectSubscriber::with_batch`] to
/// request in batches.
///
/// ```
/// use reactive_streams_reference::{collect, range};
///
/// let all = futures::executor::block_on(collect(&range(0, 4))).unwrap();
/// assert_eq!(all, vec![0, 1, 2, 3]);
/// ```
pub fn collect<T, P>(publisher: &P) -> Collect<T>
where
    T: Send + 'static,
    P: Publisher<T> + ?Sized,
{
    let (subscriber, future) = CollectSubscriber::new();
    publisher.subscribe(Box::new(subscriber));
    future
}

/// A subscriber that gathers every element and hands them to a [`Collect`]
/// future on completion.
///
/// Lacks: holds everything in memory; never cancels.
pub struct CollectSubscriber<T> {
    items: Vec<T>,
    batch: u64,
    outstanding: u64,
    subscription: Option<Arc<dyn Subscription>>,
    done: Option<oneshot::Sender<Result<Vec<T>, StreamError>>>,
}

impl<T> CollectSubscriber<T> {
    /// A subscriber requesting without bound, and the future of its result.
    pub fn new() -> (Self, Collect<T>) {
        Self::with_batch(demand::UNBOUNDED)
    }

    /// A subscriber requesting `batch` elements at a time (refilling at
    /// half), and the future of its result.
    pub fn with_batch(batch: u64) -> (Self, Collect<T>) {
        let (done, receiver) = oneshot::channel();
        (
            CollectSubscriber {
                items: Vec::new(),
                batch: batch.max(1),
                outstanding: 0,
                subscription: None,
                done: Some(done),
            },
            Collect { receiver },
        )
    }

    fn finish(&mut self, result: Result<(), StreamError>) {
        self.subscription = None;
        if let Some(done) = self.done.take() {
            let _ = done.send(result.map(|()| std::mem::take(&mut self.items)));
        }
    }
}

impl<T: Send> Subscriber<T> for CollectSubscriber<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() || self.done.is_none() {
            subscription.cancel(); // §2.5
            return;
        }
        self.subscription = Some(subscription.clone());
        self.outstanding = self.batch;
        subscription.request(self.batch);
    }

    fn on_next(&mut self, element: T) {
        self.items.push(element);
        self.outstanding = self.outstanding.saturating_sub(1);
        if let Some(n) = refill(self.batch, self.batch / 2, self.outstanding) {
            if let Some(subscription) = &self.subscription {
                self.outstanding += n;
                subscription.request(n);
            }
        }
    }

    fn on_error(&mut self, error: StreamError) {
        self.finish(Err(error));
    }

    fn on_complete(&mut self) {
        self.finish(Ok(()));
    }
}

/// The result of [`collect`]: all elements, or the stream's error. If the
/// publisher drops the subscriber without a terminal signal, it resolves to
/// an error saying so.
#[must_use = "futures do nothing unless awaited"]
pub struct Collect<T> {
    receiver: oneshot::Receiver<Result<Vec<T>, StreamError>>,
}

impl<T> Collect<T> {
    /// A future and the sender that resolves it.
    pub(crate) fn channel() -> (oneshot::Sender<Result<Vec<T>, StreamError>>, Self) {
        let (done, receiver) = oneshot::channel();
        (done, Collect { receiver })
    }
}

impl<T> Future for Collect<T> {
    type Output = Result<Vec<T>, StreamError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.receiver).poll(cx).map(|received| {
            received.unwrap_or_else(|_| {
                Err(StreamError::msg(
                    "the publisher dropped the subscriber without a terminal signal",
                ))
            })
        })
    }
}
