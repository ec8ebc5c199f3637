//! [`AsyncPublisher`]: an iterator publisher that emits from tokio tasks.

use reactive_streams::{Publisher, Subscriber};

use crate::executor::Executor;
use crate::publisher::IterPublisher;

/// A cold publisher whose emission runs on a tokio runtime, never on the
/// thread that calls `request`.
///
/// Signals are serialised by the shared drain (§1.3): at most one task emits
/// to a subscriber at a time, and every signal happens-before the next. A run
/// emits at most 1024 elements before it yields the worker and reschedules,
/// so an unbounded demand on an infinite iterator does not monopolise a
/// worker thread.
///
/// The runtime must be running its tasks: a multi-thread runtime, or a
/// current-thread runtime that someone drives with `block_on`.
///
/// ```
/// use reactive_streams_reference::{collect, AsyncPublisher};
///
/// let runtime = tokio::runtime::Runtime::new().unwrap();
/// let publisher = AsyncPublisher::new(runtime.handle().clone(), || 0..5u32);
/// let all = futures::executor::block_on(collect(&publisher)).unwrap();
/// assert_eq!(all, vec![0, 1, 2, 3, 4]);
/// ```
pub struct AsyncPublisher<I>(IterPublisher<I>);

impl<I> AsyncPublisher<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    /// Emits the items of `factory()` from tasks spawned on `handle`.
    pub fn new(
        handle: tokio::runtime::Handle,
        factory: impl Fn() -> I + Send + Sync + 'static,
    ) -> Self {
        AsyncPublisher(IterPublisher::new(factory).with_executor(Executor::Tokio(handle)))
    }

    /// Emits the items of `factory()` from runs handed to `executor`
    /// (a thread pool, say).
    pub fn with_executor(
        executor: Executor,
        factory: impl Fn() -> I + Send + Sync + 'static,
    ) -> Self {
        AsyncPublisher(IterPublisher::new(factory).with_executor(executor))
    }
}

impl<I> Clone for AsyncPublisher<I> {
    fn clone(&self) -> Self {
        AsyncPublisher(self.0.clone())
    }
}

impl<I> Publisher<I::Item> for AsyncPublisher<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    fn subscribe(&self, subscriber: Box<dyn Subscriber<I::Item>>) {
        self.0.subscribe(subscriber)
    }
}
