//! [`CallbackSubscriber`]: runs a closure per element, requesting in batches.

use std::marker::PhantomData;
use std::sync::Arc;

use reactive_streams::{StreamError, Subscriber, Subscription, demand};

type EndCallback = Box<dyn FnOnce(Result<(), StreamError>) + Send>;

/// A synchronous subscriber: calls `on_next` for every element on the
/// publisher's thread, requests `batch` elements up front and tops demand up
/// to `batch` again whenever it falls to the low-water mark (half the batch
/// by default). A batch of [`UNBOUNDED`](reactive_streams::demand::UNBOUNDED)
/// requests once and never again.
///
/// `F` is the closure's own type, so a publisher that knows the
/// subscriber's type (e.g. [`IterPublisher::subscribe_static`](crate::IterPublisher::subscribe_static))
/// can inline the closure into its emission loop.
///
/// Lacks: cannot cancel from its callback (drop the stream instead with a
/// different subscriber).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use reactive_streams::Publisher;
/// use reactive_streams_reference::{range, CallbackSubscriber};
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = seen.clone();
/// let subscriber = CallbackSubscriber::new(2, move |x| sink.lock().unwrap().push(x))
///     .on_end(|result| assert!(result.is_ok()));
/// range(0, 5).subscribe(Box::new(subscriber));
/// assert_eq!(*seen.lock().unwrap(), vec![0, 1, 2, 3, 4]);
/// ```
pub struct CallbackSubscriber<T, F> {
    batch: u64,
    low_water: u64,
    /// Elements still to arrive before the next refill: counting down
    /// costs one decrement per element where comparing the outstanding
    /// demand with the low-water mark would cost two loads and two
    /// comparisons.
    until_refill: u64,
    subscription: Option<Arc<dyn Subscription>>,
    on_next: F,
    on_end: Option<EndCallback>,
    /// `fn(T)`: the subscriber consumes `T`s, it does not hold one.
    element: PhantomData<fn(T)>,
}

impl<T, F> CallbackSubscriber<T, F>
where
    F: FnMut(T) + Send,
{
    /// Requests `batch` (at least 1) at a time and calls `on_next` per
    /// element.
    pub fn new(batch: u64, on_next: F) -> Self {
        let batch = batch.max(1);
        CallbackSubscriber {
            batch,
            low_water: batch / 2,
            until_refill: 0,
            subscription: None,
            on_next,
            on_end: None,
            element: PhantomData,
        }
    }

    /// Refill when this many requested elements are still to come
    /// (clamped below the batch).
    pub fn low_water(mut self, low_water: u64) -> Self {
        self.low_water = low_water.min(self.batch - 1);
        self
    }

    /// Called once with `Ok` on completion or `Err` on failure.
    pub fn on_end(mut self, on_end: impl FnOnce(Result<(), StreamError>) + Send + 'static) -> Self {
        self.on_end = Some(Box::new(on_end));
        self
    }

    /// Elements between refills: the outstanding demand goes from `batch`
    /// down to `low_water`, then is topped up again. Never, in practice,
    /// for an unbounded batch.
    fn refill_every(&self) -> u64 {
        if demand::is_unbounded(self.batch) {
            u64::MAX
        } else {
            self.batch - self.low_water
        }
    }

    fn end(&mut self, result: Result<(), StreamError>) {
        self.subscription = None;
        if let Some(on_end) = self.on_end.take() {
            on_end(result);
        }
    }
}

impl<T, F> Subscriber<T> for CallbackSubscriber<T, F>
where
    F: FnMut(T) + Send,
{
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            subscription.cancel(); // §2.5
            return;
        }
        self.subscription = Some(subscription.clone());
        self.until_refill = self.refill_every();
        subscription.request(self.batch);
    }

    #[inline]
    fn on_next(&mut self, element: T) {
        (self.on_next)(element);
        self.until_refill = self.until_refill.wrapping_sub(1);
        if self.until_refill == 0 {
            self.until_refill = self.refill_every();
            if let Some(subscription) = self.subscription.as_deref() {
                if !demand::is_unbounded(self.batch) {
                    // `low_water` elements are still to come: top up to
                    // `batch`.
                    refill(subscription, self.batch - self.low_water);
                }
            }
        }
    }

    fn on_error(&mut self, error: StreamError) {
        self.end(Err(error));
    }

    fn on_complete(&mut self) {
        self.end(Ok(()));
    }
}

/// The refill's `request`, kept out of the emission loop it is inlined
/// into: `#[cold]` lays the loop out with the common path (no refill)
/// falling through, and the call is given the subscription, never the
/// subscriber, so the subscriber's countdown can stay in a register
/// across it.
#[cold]
#[inline(never)]
fn refill(subscription: &dyn Subscription, n: u64) {
    subscription.request(n);
}
