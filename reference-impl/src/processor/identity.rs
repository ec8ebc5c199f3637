//! [`IdentityProcessor`]: passes elements through.

use std::sync::Arc;

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

use super::stage::{HandOff, Stage};
use crate::executor::Executor;

/// Passes elements through unchanged.
///
/// ```
/// use reactive_streams::Publisher;
/// use reactive_streams_reference::{collect, range, IdentityProcessor};
///
/// let stage = IdentityProcessor::new();
/// let all = collect(&stage);
/// range(0, 3).subscribe(Box::new(stage.clone()));
/// assert_eq!(futures::executor::block_on(all).unwrap(), vec![0, 1, 2]);
/// ```
pub struct IdentityProcessor<T: Send + 'static> {
    stage: Arc<Stage<T>>,
    /// This handle\'s side of the synchronous hand-off (not shared by clones).
    hand_off: HandOff<T>,
}

impl<T: Clone + Send + 'static> IdentityProcessor<T> {
    /// A new, unsubscribed processor.
    pub fn new() -> Self {
        IdentityProcessor {
            stage: Stage::new(0, Executor::Inline),
            hand_off: HandOff::default(),
        }
    }
}

impl<T: Clone + Send + 'static> Default for IdentityProcessor<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Send + 'static> Clone for IdentityProcessor<T> {
    fn clone(&self) -> Self {
        IdentityProcessor {
            stage: self.stage.clone(),
            hand_off: HandOff::default(),
        }
    }
}

impl<T: Clone + Send + 'static> Subscriber<T> for IdentityProcessor<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.hand_off.on_subscribe(&self.stage, subscription);
    }
    fn on_next(&mut self, element: T) {
        if self.hand_off.passing(&self.stage) || self.hand_off.claim(&self.stage) {
            // Usually a tail call into the subscriber's `on_next`.
            return self.hand_off.deliver(element, &self.stage);
        }
        self.stage.on_next(element, &mut self.hand_off);
    }
    fn on_error(&mut self, error: StreamError) {
        self.stage.on_terminal(Some(error), &mut self.hand_off);
    }
    fn on_complete(&mut self) {
        self.stage.on_terminal(None, &mut self.hand_off);
    }
}

super::publisher_role!(IdentityProcessor<T>, T);
