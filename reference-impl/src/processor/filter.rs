//! [`FilterProcessor`]: keeps the elements a predicate accepts.

use std::sync::Arc;

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

use super::stage::{HandOff, Stage};
use crate::executor::Executor;

/// Passes only the elements a predicate accepts; each rejected element is
/// replaced by a `request(1)` upstream, so downstream demand is still met.
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
pub struct FilterProcessor<T: Send + 'static> {
    stage: Arc<Stage<T>>,
    /// This handle\'s side of the synchronous hand-off (not shared by clones).
    hand_off: HandOff<T>,
    keep: Arc<dyn Fn(&T) -> bool + Send + Sync>,
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

impl<T: Send + 'static> Clone for FilterProcessor<T> {
    fn clone(&self) -> Self {
        FilterProcessor {
            stage: self.stage.clone(),
            hand_off: HandOff::default(),
            keep: self.keep.clone(),
        }
    }
}

impl<T: Clone + Send + 'static> Subscriber<T> for FilterProcessor<T> {
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

super::publisher_role!(FilterProcessor<T>, T);
