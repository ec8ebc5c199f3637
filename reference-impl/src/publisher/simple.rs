//! Small publishers: [`empty`], [`just`], [`failed`], [`SingleUse`].

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use reactive_streams::{Publisher, StreamError, Subscriber};

use crate::drain::{self, Emission, Producer};
use crate::executor::Executor;
use crate::publisher::iter::IterProducer;

/// Ends at once with `reason` (`None`: completes), without any demand.
struct Ended(Option<Option<StreamError>>);

impl<T: Send + 'static> Producer<T> for Ended {
    fn poll_produce(&mut self, _: &mut Context<'_>) -> Emission<T> {
        Poll::Ready(self.0.take().flatten().map(Err))
    }

    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        Some(self.0.take().flatten())
    }
}

/// Completes every subscriber right after `on_subscribe`, without demand.
///
/// ```
/// use reactive_streams_reference::{collect, empty};
///
/// let all = futures::executor::block_on(collect(&empty::<u8>())).unwrap();
/// assert!(all.is_empty());
/// ```
pub struct EmptyPublisher<T>(PhantomData<fn() -> T>);

/// An [`EmptyPublisher`].
pub fn empty<T>() -> EmptyPublisher<T> {
    EmptyPublisher(PhantomData)
}

impl<T: Send + 'static> Publisher<T> for EmptyPublisher<T> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        drain::subscribe(subscriber, Ended(Some(None)), Executor::Inline);
    }
}

/// Emits one clone of a value per subscriber, then completes.
///
/// ```
/// use reactive_streams_reference::{collect, just};
///
/// let all = futures::executor::block_on(collect(&just("hello"))).unwrap();
/// assert_eq!(all, vec!["hello"]);
/// ```
pub struct JustPublisher<T>(T);

/// A [`JustPublisher`].
pub fn just<T: Clone + Send + Sync + 'static>(value: T) -> JustPublisher<T> {
    JustPublisher(value)
}

impl<T: Clone + Send + Sync + 'static> Publisher<T> for JustPublisher<T> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        drain::subscribe(
            subscriber,
            IterProducer(std::iter::once(self.0.clone())),
            Executor::Inline,
        );
    }
}

/// Signals `on_subscribe` then `on_error(error)` to every subscriber (§1.9:
/// the only way a publisher may refuse or fail a subscriber).
///
/// ```
/// use reactive_streams::StreamError;
/// use reactive_streams_reference::{collect, failed};
///
/// let publisher = failed::<u8>(StreamError::msg("no disk"));
/// let error = futures::executor::block_on(collect(&publisher)).unwrap_err();
/// assert_eq!(error.to_string(), "no disk");
/// ```
pub struct FailedPublisher<T> {
    error: StreamError,
    _element: PhantomData<fn() -> T>,
}

/// A [`FailedPublisher`].
pub fn failed<T>(error: StreamError) -> FailedPublisher<T> {
    FailedPublisher {
        error,
        _element: PhantomData,
    }
}

impl<T: Send + 'static> Publisher<T> for FailedPublisher<T> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        drain::subscribe(
            subscriber,
            Ended(Some(Some(self.error.clone()))),
            Executor::Inline,
        );
    }
}

/// A publisher that serves its first subscriber only: every later one is
/// rejected with `on_subscribe` followed by `on_error` (§1.9).
///
/// ```
/// use reactive_streams_reference::{collect, range, SingleUse};
///
/// let once = SingleUse::new(range(0, 2));
/// let first = futures::executor::block_on(collect(&once));
/// let second = futures::executor::block_on(collect(&once));
/// assert_eq!(first.unwrap(), vec![0, 1]);
/// assert!(second.is_err());
/// ```
pub struct SingleUse<P> {
    inner: P,
    used: AtomicBool,
}

impl<P> SingleUse<P> {
    /// Wraps `inner`.
    pub fn new(inner: P) -> Self {
        SingleUse {
            inner,
            used: AtomicBool::new(false),
        }
    }
}

impl<T: Send + 'static, P: Publisher<T>> Publisher<T> for SingleUse<P> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        if self.used.swap(true, Ordering::AcqRel) {
            reject(
                subscriber,
                StreamError::msg("subscription rejected: this publisher serves one subscriber"),
            );
        } else {
            self.inner.subscribe(subscriber);
        }
    }
}

/// Rejects `subscriber`: `on_subscribe` with an inert subscription, then
/// `on_error(error)`.
pub fn reject<T: Send + 'static>(subscriber: Box<dyn Subscriber<T>>, error: StreamError) {
    drain::subscribe(subscriber, Ended(Some(Some(error))), Executor::Inline);
}
