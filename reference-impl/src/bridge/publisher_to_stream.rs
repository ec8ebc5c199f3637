//! [`PublisherStream`]: any publisher as a `futures::Stream`.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use futures::Stream;
use parking_lot::Mutex;
use reactive_streams::{demand, Publisher, StreamError, Subscriber, Subscription};

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
    batch: u64,
    /// Requested and not yet taken by `poll_next`.
    outstanding: u64,
    finished: bool,
}

struct Shared<T> {
    queue: VecDeque<T>,
    terminal: Option<Option<StreamError>>,
    subscription: Option<Arc<dyn Subscription>>,
    waker: Option<Waker>,
    pending: u64,
    requesting: bool,
}

struct Inlet<T> {
    shared: Arc<Mutex<Shared<T>>>,
    batch: u64,
}

/// Calls `request` serially (§2.7) although both the publisher's thread (in
/// `on_subscribe`) and the stream's consumer ask: whoever finds no call in
/// progress makes the calls, others leave their demand for it.
fn request<T>(shared: &Mutex<Shared<T>>, n: u64) {
    let mut state = shared.lock();
    state.pending = demand::add(state.pending, n);
    if state.requesting {
        return;
    }
    state.requesting = true;
    loop {
        let n = std::mem::take(&mut state.pending);
        let Some(subscription) = state.subscription.clone().filter(|_| n > 0) else {
            break;
        };
        drop(state);
        subscription.request(n);
        state = shared.lock();
    }
    state.requesting = false;
}

impl<T: Send + 'static> PublisherStream<T> {
    /// Subscribes to `publisher`, requesting `batch` (at least 1) at a time.
    pub fn new<P: Publisher<T> + ?Sized>(publisher: &P, batch: u64) -> Self {
        let batch = batch.max(1);
        let shared = Arc::new(Mutex::new(Shared {
            queue: VecDeque::new(),
            terminal: None,
            subscription: None,
            waker: None,
            pending: 0,
            requesting: false,
        }));
        publisher.subscribe(Box::new(Inlet::<T> {
            shared: shared.clone(),
            batch,
        }));
        PublisherStream {
            shared,
            batch,
            outstanding: batch,
            finished: false,
        }
    }
}

impl<T: Send> Subscriber<T> for Inlet<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        {
            let mut shared = self.shared.lock();
            if shared.subscription.is_some() || shared.terminal.is_some() {
                drop(shared);
                subscription.cancel(); // §2.5
                return;
            }
            shared.subscription = Some(subscription);
        }
        request(&self.shared, self.batch);
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
        let waker = {
            let mut shared = self.shared.lock();
            shared.terminal = Some(reason);
            shared.subscription = None;
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
            request(&this.shared, n);
        }
        Poll::Ready(Some(Ok(item)))
    }
}

impl<T> Drop for PublisherStream<T> {
    fn drop(&mut self) {
        let subscription = self.shared.lock().subscription.take();
        if let Some(subscription) = subscription {
            subscription.cancel();
        }
    }
}
