//! Publishers over iterators: [`IterPublisher`], [`range`], [`infinite`].

use std::sync::Arc;
use std::task::{Context, Poll};

use reactive_streams::{Publisher, Subscriber};

use crate::drain::{self, Emission, Producer};
use crate::executor::Executor;

/// A [`Producer`] that yields the items of an iterator.
pub struct IterProducer<I>(pub I);

impl<I> Producer<I::Item> for IterProducer<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    const LOOKAHEAD: bool = true;

    #[inline]
    fn poll_produce(&mut self, _: &mut Context<'_>) -> Emission<I::Item> {
        Poll::Ready(self.0.next().map(Ok))
    }
}

/// A cold publisher: every subscriber gets its own iterator from the factory
/// and receives all of its items, then `on_complete`.
///
/// By default it emits synchronously on the thread that calls `request`
/// (trampolined: `request` from inside `on_next` never recurses, §3.3); use
/// [`IterPublisher::with_executor`] or [`AsyncPublisher`](crate::AsyncPublisher)
/// to emit elsewhere.
///
/// The item after the last one requested is pulled one step early, so
/// `on_complete` follows the last element without another `request`.
///
/// ```
/// use reactive_streams_reference::{collect, IterPublisher};
///
/// let words = IterPublisher::new(|| ["a", "b"].into_iter());
/// let all = futures::executor::block_on(collect(&words)).unwrap();
/// assert_eq!(all, vec!["a", "b"]);
/// ```
pub struct IterPublisher<I> {
    factory: Arc<dyn Fn() -> I + Send + Sync>,
    executor: Executor,
}

impl<I> Clone for IterPublisher<I> {
    fn clone(&self) -> Self {
        IterPublisher {
            factory: self.factory.clone(),
            executor: self.executor.clone(),
        }
    }
}

impl<I> IterPublisher<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    /// A publisher that calls `factory` once per subscriber.
    pub fn new(factory: impl Fn() -> I + Send + Sync + 'static) -> Self {
        IterPublisher {
            factory: Arc::new(factory),
            executor: Executor::Inline,
        }
    }

    /// A publisher of `map(item)` for every item: the operator is fused
    /// into the iterator, so it costs what `Iterator::map` costs — no
    /// processor, no extra signal per element. Use [`MapProcessor`](crate::MapProcessor)
    /// to transform a publisher you cannot see into.
    ///
    /// ```
    /// use reactive_streams_reference::{collect, range};
    ///
    /// let doubled = range(0, 3).map(|x| x * 2);
    /// assert_eq!(futures::executor::block_on(collect(&doubled)).unwrap(), vec![0, 2, 4]);
    /// ```
    pub fn map<R, F>(self, map: F) -> IterPublisher<std::iter::Map<I, F>>
    where
        F: FnMut(I::Item) -> R + Clone + Send + Sync + 'static,
        R: Send + 'static,
    {
        let factory = self.factory;
        IterPublisher {
            factory: Arc::new(move || factory().map(map.clone())),
            executor: self.executor,
        }
    }

    /// A publisher of the items `keep` accepts, fused like
    /// [`IterPublisher::map`].
    ///
    /// ```
    /// use reactive_streams_reference::{collect, range};
    ///
    /// let odd = range(0, 6).filter(|x| x % 2 == 1);
    /// assert_eq!(futures::executor::block_on(collect(&odd)).unwrap(), vec![1, 3, 5]);
    /// ```
    pub fn filter<F>(self, keep: F) -> IterPublisher<std::iter::Filter<I, F>>
    where
        F: FnMut(&I::Item) -> bool + Clone + Send + Sync + 'static,
    {
        let factory = self.factory;
        IterPublisher {
            factory: Arc::new(move || factory().filter(keep.clone())),
            executor: self.executor,
        }
    }

    /// The same publisher, emitting on `executor`.
    pub fn with_executor(mut self, executor: Executor) -> Self {
        self.executor = executor;
        self
    }

    /// [`Publisher::subscribe`] for a subscriber whose type is known at
    /// compile time: the same signals in the same order, with the same
    /// demand, trampolining, cancellation and executor, but the emission
    /// loop is compiled for `S`, so `S::on_next` can be inlined into it
    /// instead of being called through `Box<dyn Subscriber>` per element.
    ///
    /// Use it on a hot, one-thread path where the per-element cost
    /// matters and the subscriber is a concrete type — a
    /// [`CallbackSubscriber`](crate::CallbackSubscriber) is one, closure
    /// included (`cargo bench -p reactive-streams-reference --bench
    /// throughput`: about 3.3× a plain loop at batch 128, against 8×
    /// through [`Publisher::subscribe`] on the 2-core development machine). Where the subscriber is only
    /// known as `Box<dyn Subscriber<_>>`, or the publisher only as
    /// `dyn Publisher<_>`, use [`Publisher::subscribe`]: nothing is lost but
    /// speed.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use reactive_streams::{StreamError, Subscriber, Subscription};
    /// use reactive_streams_reference::range;
    ///
    /// /// Sums what it receives, requesting 64 at a time.
    /// struct Sum {
    ///     total: u64,
    ///     left: u64,
    ///     subscription: Option<Arc<dyn Subscription>>,
    ///     done: std::sync::mpsc::Sender<u64>,
    /// }
    ///
    /// impl Subscriber<u64> for Sum {
    ///     fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
    ///         self.left = 64;
    ///         subscription.request(64);
    ///         self.subscription = Some(subscription);
    ///     }
    ///     fn on_next(&mut self, x: u64) {
    ///         self.total += x;
    ///         self.left -= 1;
    ///         if self.left == 0 {
    ///             self.left = 64;
    ///             self.subscription.as_ref().unwrap().request(64);
    ///         }
    ///     }
    ///     fn on_error(&mut self, _: StreamError) {}
    ///     fn on_complete(&mut self) {
    ///         self.subscription = None; // §3.13: let go of the publisher
    ///         let _ = self.done.send(self.total);
    ///     }
    /// }
    ///
    /// let (done, total) = std::sync::mpsc::channel();
    /// let sum = Sum { total: 0, left: 0, subscription: None, done };
    /// range(1, 1000).map(|x| x * 2).subscribe_static(sum);
    /// assert_eq!(total.recv().unwrap(), 1000 * 1001); // 2 × (1 + … + 1000)
    /// ```
    pub fn subscribe_static<S>(&self, subscriber: S)
    where
        S: Subscriber<I::Item> + 'static,
    {
        drain::subscribe(
            Box::new(subscriber),
            IterProducer((self.factory)()),
            self.executor.clone(),
        );
    }
}

impl<I> Publisher<I::Item> for IterPublisher<I>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    fn subscribe(&self, subscriber: Box<dyn Subscriber<I::Item>>) {
        drain::subscribe(
            subscriber,
            IterProducer((self.factory)()),
            self.executor.clone(),
        );
    }
}

/// `count` consecutive integers from `start`, synchronously.
///
/// ```
/// use reactive_streams_reference::{collect, range};
///
/// let all = futures::executor::block_on(collect(&range(5, 3))).unwrap();
/// assert_eq!(all, vec![5, 6, 7]);
/// ```
pub fn range(start: u64, count: u64) -> IterPublisher<std::ops::Range<u64>> {
    IterPublisher::new(move || start..start.saturating_add(count))
}

/// A stream that never ends: element `i` is `generate(i)`. Subscribers stop
/// it by cancelling.
///
/// ```
/// use reactive_streams_reference::{infinite, PublisherStream};
/// use futures::StreamExt;
///
/// let squares = infinite(|i| i * i);
/// let first = futures::executor::block_on(
///     PublisherStream::new(&squares, 4).take(4).map(Result::unwrap).collect::<Vec<_>>(),
/// );
/// assert_eq!(first, vec![0, 1, 4, 9]);
/// ```
pub fn infinite<T, G>(generate: G) -> IterPublisher<impl Iterator<Item = T> + Send + 'static>
where
    T: Send + 'static,
    G: Fn(u64) -> T + Send + Sync + 'static,
{
    let generate = Arc::new(generate);
    IterPublisher::new(move || {
        let generate = generate.clone();
        (0u64..).map(move |i| generate(i))
    })
}
