//! [`BufferProcessor`]: prefetches ahead of downstream demand.

use std::sync::Arc;

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

use super::stage::{HandOff, Stage};
use crate::executor::Executor;

/// Prefetches up to `capacity` elements ahead of downstream demand, so a
/// bursty consumer finds them ready.
///
/// ```
/// use reactive_streams::Publisher;
/// use reactive_streams_reference::{collect, range, BufferProcessor};
///
/// let stage = BufferProcessor::new(16);
/// let all = collect(&stage);
/// range(0, 100).subscribe(Box::new(stage.clone()));
/// assert_eq!(futures::executor::block_on(all).unwrap().len(), 100);
/// ```
pub struct BufferProcessor<T: Send + 'static> {
    stage: Arc<Stage<T>>,
    /// This handle\'s side of the synchronous hand-off (not shared by clones).
    hand_off: HandOff<T>,
}

impl<T: Clone + Send + 'static> BufferProcessor<T> {
    /// A processor that asks upstream for up to `capacity` elements more
    /// than its slowest subscriber has requested.
    pub fn new(capacity: u64) -> Self {
        BufferProcessor {
            stage: Stage::new(capacity, Executor::Inline),
            hand_off: HandOff::default(),
        }
    }
}

impl<T: Send + 'static> Clone for BufferProcessor<T> {
    fn clone(&self) -> Self {
        BufferProcessor {
            stage: self.stage.clone(),
            hand_off: HandOff::default(),
        }
    }
}

impl<T: Clone + Send + 'static> Subscriber<T> for BufferProcessor<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.stage.on_subscribe(subscription);
    }
    fn on_next(&mut self, element: T) {
        self.stage.on_next(element, &mut self.hand_off);
    }
    fn on_error(&mut self, error: StreamError) {
        self.stage.on_terminal(Some(error), &mut self.hand_off);
    }
    fn on_complete(&mut self) {
        self.stage.on_terminal(None, &mut self.hand_off);
    }
}

super::publisher_role!(BufferProcessor<T>, T);
