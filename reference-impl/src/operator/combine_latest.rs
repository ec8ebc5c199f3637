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

/// The latest elements of two publishers, combined; see [`combine_latest`].
pub struct CombineLatest<A, B, F> {
    left: Arc<dyn Publisher<A>>,
    right: Arc<dyn Publisher<B>>,
    combine: Arc<F>,
}

/// A publisher that, once both sides have produced an element, emits the
/// pair of their latest elements each time either side produces one.
/// When both sides have elements waiting they are taken in turn.
///
/// It completes when both sides have completed (or one completes before
/// producing anything) and fails as soon as either side fails.
///
/// For [`Tracked`](reactive_streams::done::Tracked) data each output holds
/// clones of both latest inputs, so a datum that is replaced by a newer one
/// is done once every output containing it is consumed.
///
/// ```
/// use reactive_streams_reference::{collect, just, range, combine_latest};
///
/// let pairs = combine_latest(just('x'), range(0, 3));
/// let all = futures::executor::block_on(collect(&pairs)).unwrap();
/// assert_eq!(all.last(), Some(&('x', 2)));
/// ```
pub fn combine_latest<A, B>(
    left: impl Publisher<A> + 'static,
    right: impl Publisher<B> + 'static,
) -> CombineLatest<A, B, Pair<A, B>>
where
    A: Clone + Send + 'static,
    B: Clone + Send + 'static,
{
    combine_latest_with(left, right, |a, b| (a, b))
}

/// Like [`combine_latest`], emitting `combine(a, b)` (given clones of the
/// latest elements; with tracked data, e.g. [`Tracked::zip`](reactive_streams::done::Tracked::zip)).
pub fn combine_latest_with<A, B, R, F>(
    left: impl Publisher<A> + 'static,
    right: impl Publisher<B> + 'static,
    combine: F,
) -> CombineLatest<A, B, F>
where
    A: Clone + Send + 'static,
    B: Clone + Send + 'static,
    R: Send + 'static,
    F: Fn(A, B) -> R + Send + Sync + 'static,
{
    CombineLatest {
        left: Arc::new(left),
        right: Arc::new(right),
        combine: Arc::new(combine),
    }
}

impl<A, B, R, F> Publisher<R> for CombineLatest<A, B, F>
where
    A: Clone + Send + 'static,
    B: Clone + Send + 'static,
    R: Send + 'static,
    F: Fn(A, B) -> R + Send + Sync + 'static,
{
    fn subscribe(&self, subscriber: Box<dyn Subscriber<R>>) {
        let (left, right) = (Inlet::new(PREFETCH), Inlet::new(PREFETCH));
        let producer = LatestProducer {
            left: Side::new(left.clone()),
            right: Side::new(right.clone()),
            left_first: true,
            combine: self.combine.clone(),
        };
        launch(subscriber, producer, |waker| {
            left.set_waker(waker.clone());
            right.set_waker(waker);
        });
        self.left.subscribe(Box::new(InletSubscriber(left)));
        self.right.subscribe(Box::new(InletSubscriber(right)));
    }
}

struct Side<T> {
    inlet: Arc<Inlet<T>>,
    latest: Option<T>,
    completed: bool,
}

impl<T> Side<T> {
    fn new(inlet: Arc<Inlet<T>>) -> Self {
        Side {
            inlet,
            latest: None,
            completed: false,
        }
    }

    /// Takes one element if there is one: `Ok(true)` if `latest` changed.
    fn advance(&mut self) -> Result<bool, StreamError> {
        if self.completed {
            return Ok(false);
        }
        match self.inlet.pull() {
            // The replaced element is dropped here: with tracked data it is
            // done unless an output still holds it.
            Pulled::Item(element) => {
                self.latest = Some(element);
                Ok(true)
            }
            Pulled::Empty => Ok(false),
            Pulled::Ended(Some(error)) => Err(error),
            Pulled::Ended(None) => {
                self.completed = true;
                Ok(false)
            }
        }
    }

    /// Ended, and no output can ever come from this side again.
    fn finished(&self) -> bool {
        self.completed
    }
}

struct LatestProducer<A, B, F> {
    left: Side<A>,
    right: Side<B>,
    left_first: bool,
    combine: Arc<F>,
}

impl<A, B, F> LatestProducer<A, B, F> {
    fn release(&mut self) {
        self.left.latest = None;
        self.right.latest = None;
    }

    /// Takes one element from one side, the sides taking turns. A side that
    /// has a latest element waits until the other has one too, so a fast
    /// side is not drained (and discarded) while the other is silent.
    fn advance_one(&mut self) -> Result<bool, StreamError> {
        let left_may = self.left.latest.is_none() || self.right.latest.is_some();
        let right_may = self.right.latest.is_none() || self.left.latest.is_some();
        let left_first = self.left_first;
        self.left_first = !left_first;
        for left in [left_first, !left_first] {
            let moved = if left {
                left_may && self.left.advance()?
            } else {
                right_may && self.right.advance()?
            };
            if moved {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether no further output can be produced.
    fn exhausted(&self) -> bool {
        let starved = |done: bool, empty: bool| done && empty;
        (self.left.finished() && self.right.finished())
            || starved(self.left.finished(), self.left.latest.is_none())
            || starved(self.right.finished(), self.right.latest.is_none())
    }
}

impl<A, B, R, F> Producer<R> for LatestProducer<A, B, F>
where
    A: Clone + Send + 'static,
    B: Clone + Send + 'static,
    R: Send + 'static,
    F: Fn(A, B) -> R + Send + Sync + 'static,
{
    fn poll_produce(&mut self, _: &mut Context<'_>) -> Emission<R> {
        loop {
            let advanced = self.advance_one();
            match advanced {
                Err(error) => {
                    self.release();
                    return Poll::Ready(Some(Err(error)));
                }
                Ok(true) => {
                    if let (Some(a), Some(b)) = (&self.left.latest, &self.right.latest) {
                        return Poll::Ready(Some(Ok((self.combine)(a.clone(), b.clone()))));
                    }
                }
                Ok(false) if self.exhausted() => {
                    self.release();
                    return Poll::Ready(None);
                }
                Ok(false) => return Poll::Pending,
            }
        }
    }

    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        if !self.left.completed {
            self.left.inlet.prime();
        }
        if !self.right.completed {
            self.right.inlet.prime();
        }
        let reason = match (self.left.inlet.ended(), self.right.inlet.ended()) {
            (Some(Some(error)), _) | (_, Some(Some(error))) => Some(Some(error)),
            (left, right) => {
                let left_done = self.left.completed || left.is_some();
                let right_done = self.right.completed || right.is_some();
                let over = (left_done && (right_done || self.left.latest.is_none()))
                    || (right_done && self.right.latest.is_none());
                over.then_some(None)
            }
        };
        if reason.is_some() {
            self.release();
        }
        reason
    }
}

impl<A, B, F> Drop for LatestProducer<A, B, F> {
    fn drop(&mut self) {
        self.left.inlet.close();
        self.right.inlet.close();
    }
}
