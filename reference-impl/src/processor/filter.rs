//! [`FilterProcessor`]: keeps the elements a predicate accepts.

use std::sync::Arc;

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

use super::stage::{HandOff, Stage};
use crate::executor::Executor;

/// Passes only the elements a predicate accepts; each rejected element is
/// replaced by a `request(1)` upstream, so downstream demand is still met.
///
/// `F` is the predicate's type, kept in an `Arc` shared by the handle's
/// clones. [`FilterProcessor::new`] keeps any predicate as
/// `dyn Fn(&T) -> bool` (the default, so `FilterProcessor<T>` names that
/// processor, as it always has); [`FilterProcessor::new_static`] keeps the
/// predicate's own type, so it is inlined where the processor passes
/// elements through (one indirect call less per element).
///
/// ```
/// use reactive_streams::Publisher;
/// use reactive_streams_reference::{collect, range, FilterProcessor};
///
/// let even = FilterProcessor::new(|x: &u64| x % 2 == 0);
/// let all = collect(&even);
/// range(0, 6).subscribe(Box::new(even.clone()));
/// assert_eq!(futures::executor::block_on(all).unwrap(), vec![0, 2, 4]);
/// ```
pub struct FilterProcessor<T: Send + 'static, F: ?Sized = dyn Fn(&T) -> bool + Send + Sync> {
    stage: Arc<Stage<T>>,
    /// This handle\'s side of the synchronous hand-off (not shared by clones).
    hand_off: HandOff<T>,
    keep: Arc<F>,
}

impl<T: Clone + Send + 'static> FilterProcessor<T> {
    /// A processor passing the elements for which `keep` is true.
    pub fn new(keep: impl Fn(&T) -> bool + Send + Sync + 'static) -> Self {
        FilterProcessor {
            stage: Stage::new(0, Executor::Inline),
            hand_off: HandOff::default(),
            keep: Arc::new(keep),
        }
    }
}

impl<T, F> FilterProcessor<T, F>
where
    T: Clone + Send + 'static,
    F: Fn(&T) -> bool + Send + Sync + 'static,
{
    /// [`FilterProcessor::new`] keeping `keep`'s own type: the same
    /// processor, but where it passes elements through to its one
    /// subscriber, `keep` is compiled into the processor instead of called
    /// through a pointer (`cargo bench -p reactive-streams-reference
    /// --bench throughput`, row `processor_chain_static_batch_128`). Its
    /// type names the predicate, so use it where the type is inferred (or
    /// is a generic parameter).
    ///
    /// ```
    /// use reactive_streams::Publisher;
    /// use reactive_streams_reference::{collect, range, FilterProcessor};
    ///
    /// let even = FilterProcessor::new_static(|x: &u64| x % 2 == 0);
    /// let all = collect(&even);
    /// range(0, 6).subscribe(Box::new(even.clone()));
    /// assert_eq!(futures::executor::block_on(all).unwrap(), vec![0, 2, 4]);
    /// ```
    pub fn new_static(keep: F) -> Self {
        FilterProcessor {
            stage: Stage::new(0, Executor::Inline),
            hand_off: HandOff::default(),
            keep: Arc::new(keep),
        }
    }
}

impl<T: Send + 'static, F: ?Sized> Clone for FilterProcessor<T, F> {
    fn clone(&self) -> Self {
        FilterProcessor {
            stage: self.stage.clone(),
            hand_off: HandOff::default(),
            keep: self.keep.clone(),
        }
    }
}

impl<T, F> Subscriber<T> for FilterProcessor<T, F>
where
    T: Clone + Send + 'static,
    F: Fn(&T) -> bool + Send + Sync + ?Sized + 'static,
{
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.hand_off.on_subscribe(&self.stage, subscription);
    }
    fn on_next(&mut self, element: T) {
        if self.hand_off.passing(&self.stage) || self.hand_off.claim(&self.stage) {
            if (self.keep)(&element) {
                return self.hand_off.deliver(element, &self.stage);
            }
            self.hand_off.drop_one();
            self.hand_off.settle(&self.stage);
            return;
        }
        if (self.keep)(&element) {
            self.stage.on_next(element, &mut self.hand_off);
        } else {
            self.stage.on_discard(&mut self.hand_off);
        }
    }
    fn on_error(&mut self, error: StreamError) {
        self.stage.on_terminal(Some(error), &mut self.hand_off);
    }
    fn on_complete(&mut self) {
        self.stage.on_terminal(None, &mut self.hand_off);
    }
}

impl<T, F> Publisher<T> for FilterProcessor<T, F>
where
    T: Clone + Send + 'static,
    F: Send + Sync + ?Sized + 'static,
{
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        self.stage.subscribe(subscriber);
    }
}
