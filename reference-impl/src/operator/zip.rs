use std::sync::Arc;
use std::task::{Context, Poll};

use reactive_streams::{Publisher, StreamError, Subscriber};

use super::inlet::{Inlet, InletSubscriber, Pulled};
use super::launch;
use crate::drain::{Emission, Producer};

/// The function that makes a tuple of its two arguments.
pub type Pair<A, B> = fn(A, B) -> (A, B);

/// Elements asked of each upstream at a time.
const PREFETCH: u64 = 16;

/// Pairs the `i`-th elements of two publishers; see [`zip`].
pub struct Zip<A, B, F> {
    left: Arc<dyn Publisher<A>>,
    right: Arc<dyn Publisher<B>>,
    merge: Arc<F>,
}

/// A publisher of `(a_i, b_i)`: the `i`-th elements of `left` and `right`
/// paired. It completes when either side completes with no element left
/// to pair (cancelling the other) and fails as soon as either side fails.
///
/// Each subscriber gets its own subscriptions to both sides. For
/// [`Tracked`](reactive_streams::done::Tracked) data the pair holds both
/// inputs, tokens included; [`zip_with`] and
/// [`Tracked::zip`](reactive_streams::done::Tracked::zip) give one
/// `Tracked<(A, B)>` carrying both instead.
///
/// ```
/// use reactive_streams_reference::{collect, range, zip, IterPublisher};
///
/// let pairs = zip(range(0, 3), IterPublisher::new(|| "abcd".chars()));
/// let all = futures::executor::block_on(collect(&pairs)).unwrap();
/// assert_eq!(all, vec![(0, 'a'), (1, 'b'), (2, 'c')]);
/// ```
pub fn zip<A, B>(
    left: impl Publisher<A> + 'static,
    right: impl Publisher<B> + 'static,
) -> Zip<A, B, Pair<A, B>>
where
    A: Send + 'static,
    B: Send + 'static,
{
    zip_with(left, right, |a, b| (a, b))
}

/// Like [`zip`], emitting `merge(a_i, b_i)`.
///
/// ```
/// use reactive_streams::done::{DoneLedger, Tracked};
/// use reactive_streams_reference::{collect, just, zip_with};
///
/// let (ledger, done) = DoneLedger::channel();
/// let a = just(Tracked::new(1, ledger.issue(1)));
/// let b = just(Tracked::new(2, ledger.issue(2)));
/// let sums = zip_with(a, b, |a, b| Tracked::zip(a, b).map(|(a, b)| a + b));
/// let all = futures::executor::block_on(collect(&sums)).unwrap();
/// assert_eq!(all[0].value, 3);
/// assert_eq!(all[0].tokens.ids(), [1, 2]);
/// drop(all);
/// ```
pub fn zip_with<A, B, R, F>(
    left: impl Publisher<A> + 'static,
    right: impl Publisher<B> + 'static,
    merge: F,
) -> Zip<A, B, F>
where
    A: Send + 'static,
    B: Send + 'static,
    R: Send + 'static,
    F: Fn(A, B) -> R + Send + Sync + 'static,
{
    Zip {
        left: Arc::new(left),
        right: Arc::new(right),
        merge: Arc::new(merge),
    }
}

impl<A, B, R, F> Publisher<R> for Zip<A, B, F>
where
    A: Send + 'static,
    B: Send + 'static,
    R: Send + 'static,
    F: Fn(A, B) -> R + Send + Sync + 'static,
{
    fn subscribe(&self, subscriber: Box<dyn Subscriber<R>>) {
        let (left, right) = (Inlet::new(PREFETCH), Inlet::new(PREFETCH));
        let producer = ZipProducer {
            left: left.clone(),
            right: right.clone(),
            waiting: (None, None),
            merge: self.merge.clone(),
        };
        launch(subscriber, producer, |waker| {
            left.set_waker(waker.clone());
            right.set_waker(waker);
        });
        self.left.subscribe(Box::new(InletSubscriber(left)));
        self.right.subscribe(Box::new(InletSubscriber(right)));
    }
}

struct ZipProducer<A, B, F> {
    left: Arc<Inlet<A>>,
    right: Arc<Inlet<B>>,
    /// An element pulled from one side, waiting for its partner.
    waiting: (Option<A>, Option<B>),
    merge: Arc<F>,
}

/// Fills `slot` from `inlet`; `Some(reason)` if that side has ended with
/// the slot still empty (or has failed).
fn fill<T>(slot: &mut Option<T>, inlet: &Inlet<T>) -> Option<Option<StreamError>> {
    if slot.is_some() {
        return None;
    }
    match inlet.pull() {
        Pulled::Item(element) => {
            *slot = Some(element);
            None
        }
        Pulled::Empty => None,
        Pulled::Ended(reason) => Some(reason),
    }
}

impl<A, B, R, F> Producer<R> for ZipProducer<A, B, F>
where
    A: Send + 'static,
    B: Send + 'static,
    R: Send + 'static,
    F: Fn(A, B) -> R + Send + Sync + 'static,
{
    fn poll_produce(&mut self, _: &mut Context<'_>) -> Emission<R> {
        let left_end = fill(&mut self.waiting.0, &self.left);
        let right_end = fill(&mut self.waiting.1, &self.right);
        for end in [&left_end, &right_end] {
            if let Some(Some(error)) = end {
                self.waiting = (None, None);
                return Poll::Ready(Some(Err(error.clone())));
            }
        }
        if left_end.is_some() || right_end.is_some() {
            self.waiting = (None, None);
            return Poll::Ready(None);
        }
        match (self.waiting.0.take(), self.waiting.1.take()) {
            (Some(a), Some(b)) => Poll::Ready(Some(Ok((self.merge)(a, b)))),
            (a, b) => {
                self.waiting = (a, b);
                Poll::Pending
            }
        }
    }

    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        self.left.prime();
        self.right.prime();
        let left = self.left.ended();
        let right = self.right.ended();
        let reason = match (left, right) {
            (Some(Some(error)), _) | (_, Some(Some(error))) => Some(Some(error)),
            (Some(None), _) if self.waiting.0.is_none() => Some(None),
            (_, Some(None)) if self.waiting.1.is_none() => Some(None),
            _ => None,
        };
        if reason.is_some() {
            self.waiting = (None, None);
        }
        reason
    }
}

impl<A, B, F> Drop for ZipProducer<A, B, F> {
    fn drop(&mut self) {
        self.left.close();
        self.right.close();
    }
}
