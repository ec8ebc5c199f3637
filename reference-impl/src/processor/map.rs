//! [`MapProcessor`]: transforms every element.

use std::sync::Arc;

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

use super::stage::{HandOff, Stage};
use crate::executor::Executor;

/// Applies a function to every element.
///
/// `F` is the function's type, kept in an `Arc` shared by the handle's
/// clones. [`MapProcessor::new`] keeps any function as
/// `dyn Fn(T) -> R` (the default, so `MapProcessor<T, R>` names that
/// processor, as it always has); [`MapProcessor::new_static`] keeps the
/// function's own type, so it is inlined where the processor passes
/// elements through (one indirect call less per element).
///
/// ```
/// use reactive_streams::Publisher;
/// use reactive_streams_reference::{collect, range, MapProcessor};
///
/// let double = MapProcessor::new(|x: u64| x * 2);
/// let all = collect(&double);
/// range(1, 3).subscribe(Box::new(double.clone()));
/// assert_eq!(futures::executor::block_on(all).unwrap(), vec![2, 4, 6]);
/// ```
pub struct MapProcessor<T, R: Send + 'static, F: ?Sized = dyn Fn(T) -> R + Send + Sync + 'static> {
    stage: Arc<Stage<R>>,
    /// This handle\'s side of the synchronous hand-off (not shared by clones).
    hand_off: HandOff<R>,
    map: Arc<F>,
    /// `fn(T)`: the processor consumes `T`s, it does not hold one.
    element: std::marker::PhantomData<fn(T)>,
}

impl<T, R: Clone + Send + 'static> MapProcessor<T, R> {
    /// A processor emitting `map(element)` for every upstream element.
    pub fn new(map: impl Fn(T) -> R + Send + Sync + 'static) -> Self {
        MapProcessor {
            stage: Stage::new(0, Executor::Inline),
            hand_off: HandOff::default(),
            map: Arc::new(map),
            element: std::marker::PhantomData,
        }
    }
}

impl<T, R, F> MapProcessor<T, R, F>
where
    R: Clone + Send + 'static,
    F: Fn(T) -> R + Send + Sync + 'static,
{
    /// [`MapProcessor::new`] keeping `map`'s own type: the same processor,
    /// but where it passes elements through to its one subscriber, `map`
    /// is compiled into the processor instead of called through a pointer
    /// (`cargo bench -p reactive-streams-reference --bench throughput`,
    /// rows `processor_*`). Its type names the function, so use it where
    /// the type is inferred (or is a generic parameter). An
    /// [`IterPublisher`](crate::IterPublisher) can then
    /// [`subscribe_static`](crate::IterPublisher::subscribe_static) the
    /// processor itself: its emission loop is compiled for it, and the one
    /// dynamic call per element left is the subscriber's (row
    /// `processor_static_upstream_static_batch_128`).
    ///
    /// ```
    /// use reactive_streams::Publisher;
    /// use reactive_streams_reference::{collect, range, MapProcessor};
    ///
    /// let double = MapProcessor::new_static(|x: u64| x * 2);
    /// let all = collect(&double);
    /// range(1, 3).subscribe_static(double.clone());
    /// assert_eq!(futures::executor::block_on(all).unwrap(), vec![2, 4, 6]);
    /// ```
    pub fn new_static(map: F) -> Self {
        MapProcessor {
            stage: Stage::new(0, Executor::Inline),
            hand_off: HandOff::default(),
            map: Arc::new(map),
            element: std::marker::PhantomData,
        }
    }
}

impl<T, R: Send + 'static, F: ?Sized> Clone for MapProcessor<T, R, F> {
    fn clone(&self) -> Self {
        MapProcessor {
            stage: self.stage.clone(),
            hand_off: HandOff::default(),
            map: self.map.clone(),
            element: std::marker::PhantomData,
        }
    }
}

impl<T, R, F> Subscriber<T> for MapProcessor<T, R, F>
where
    T: Send + 'static,
    R: Clone + Send + 'static,
    F: Fn(T) -> R + Send + Sync + ?Sized + 'static,
{
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.hand_off.on_subscribe(&self.stage, subscription);
    }
    #[inline]
    fn on_next(&mut self, element: T) {
        if self.hand_off.passing(&self.stage) {
            // Usually a tail call into the subscriber's `on_next`.
            return self.hand_off.deliver((self.map)(element), &self.stage);
        }
        self.on_next_other(element);
    }
    fn on_error(&mut self, error: StreamError) {
        self.stage.on_terminal(Some(error), &mut self.hand_off);
    }
    fn on_complete(&mut self) {
        self.stage.on_terminal(None, &mut self.hand_off);
    }
}

impl<T, R, F> MapProcessor<T, R, F>
where
    T: Send + 'static,
    R: Clone + Send + 'static,
    F: Fn(T) -> R + Send + Sync + ?Sized + 'static,
{
    /// `on_next` when the element does not simply pass through (see
    /// [`HandOff::passing`]).
    #[inline(never)]
    fn on_next_other(&mut self, element: T) {
        if self.hand_off.claim(&self.stage) {
            return self.hand_off.deliver((self.map)(element), &self.stage);
        }
        self.stage.on_next((self.map)(element), &mut self.hand_off);
    }
}

impl<T, R, F> Publisher<R> for MapProcessor<T, R, F>
where
    T: Send + 'static,
    R: Clone + Send + 'static,
    F: Send + Sync + ?Sized + 'static,
{
    fn subscribe(&self, subscriber: Box<dyn Subscriber<R>>) {
        self.stage.subscribe(subscriber);
    }
}
