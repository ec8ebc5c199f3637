//! [`PublisherStream`]: any publisher as a `futures::Stream`.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use futures::Stream;
use parking_lot::Mutex;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

use crate::serial::SerialUpstream;

/// A `Stream` of a publisher's elements (`Ok`) and its error (one `Err`,
/// then the end). It subscribes on creation, requests `batch` elements and
/// tops demand up again once half of them were taken; so at most `batch`
/// elements wait in its queue. Dropping the stream cancels the
/// subscription.
///
/// ```
/// use futures::StreamExt;
/// use reactive_streams_reference::{range, PublisherStream};
///
/// let stream = PublisherStream::new(&range(0, 5), 2);
/// let all: Vec<_> = futures::executor::block_on(stream.map(Result::unwrap).collect());
/// assert_eq!(all, vec![0, 1, 2, 3, 4]);
/// ```
pub struct PublisherStream<T> {
    shared: Arc<Mutex<Shared<T>>>,
    upstream: Arc<SerialUpstream>,
    batch: u64,
    /// Requested and not yet taken by `poll_next`.
    outstanding: u64,
    finished: bool,
}

struct Shared<T> {
    queue: VecDeque<T>,
    terminal: Option<Option<StreamError>>,
    waker: Option<Waker>,
}

/// The subscriber a [`PublisherStream`] subscribes with.
struct Inlet<T> {
    shared: Arc<Mutex<Shared<T>>>,
    upstream: Arc<SerialUpstream>,
}

impl<T: Send + 'static> PublisherStream<T> {
    /// Subscribes to `publisher`, requesting `batch` (at least 1) at a time.
    pub fn new<P: Publisher<T> + ?Sized>(publisher: &P, batch: u64) -> Self {
        let batch = batch.max(1);
        let shared = Arc::new(Mutex::new(Shared {
            queue: VecDeque::new(),
            terminal: None,
            waker: None,
        }));
        // Both the publisher's thread (`on_subscribe`) and the consumer
        // drive demand: `SerialUpstream` keeps the calls serial (§2.7).
        let upstream = Arc::new(SerialUpstream::new());
        upstream.request(batch); // replayed once the subscription arrives
        publisher.subscribe(Box::new(Inlet {
            shared: shared.clone(),
            upstream: upstream.clone(),
        }));
        PublisherStream {
            shared,
            upstream,
            batch,
            outstanding: batch,
            finished: false,
        }
    }
}

impl<T: Send> Subscriber<T> for Inlet<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.upstream.set(subscription); // a second one is cancelled (§2.5)
    }

    fn on_next(&mut self, element: T) {
        let waker = {
            let mut shared = self.shared.lock();
            shared.queue.push_back(element);
            shared.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn on_error(&mut self, error: StreamError) {
        self.end(Some(error));
    }

    fn on_complete(&mut self) {
        self.end(None);
    }
}

impl<T> Inlet<T> {
    fn end(&mut self, reason: Option<StreamError>) {
        self.upstream.clear();
        let waker = {
            let mut shared = self.shared.lock();
            shared.terminal = Some(reason);
            shared.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Stream for PublisherStream<T> {
    type Item = Result<T, StreamError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.finished {
            return Poll::Ready(None);
        }
        let item = {
            let mut shared = self.shared.lock();
            match shared.queue.pop_front() {
                Some(element) => element,
                None => match shared.terminal.take() {
                    Some(reason) => {
                        drop(shared);
                        self.finished = true;
                        return Poll::Ready(reason.map(Err));
                    }
                    None => {
                        shared.waker = Some(cx.waker().clone());
                        return Poll::Pending;
                    }
                },
            }
        };
        let this = &mut *self;
        this.outstanding = this.outstanding.saturating_sub(1);
        if let Some(n) = crate::subscriber::refill(this.batch, this.batch / 2, this.outstanding) {
            this.outstanding += n;
            this.upstream.request(n);
        }
        Poll::Ready(Some(Ok(item)))
    }
}

impl<T> Drop for PublisherStream<T> {
    fn drop(&mut self) {
        if !self.finished {
            self.upstream.cancel();
        }
    }
}
