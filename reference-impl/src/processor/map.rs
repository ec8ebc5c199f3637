//! [`MapProcessor`]: transforms every element.

use std::sync::Arc;

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

use super::stage::{HandOff, Stage};
use crate::executor::Executor;

/// Applies a function to every element.
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
pub struct MapProcessor<T, R: Send + 'static> {
    stage: Arc<Stage<R>>,
    /// This handle\'s side of the synchronous hand-off (not shared by clones).
    hand_off: HandOff<R>,
    map: Arc<dyn Fn(T) -> R + Send + Sync>,
}

impl<T, R: Clone + Send + 'static> MapProcessor<T, R> {
    /// A processor emitting `map(element)` for every upstream element.
    pub fn new(map: impl Fn(T) -> R + Send + Sync + 'static) -> Self {
        MapProcessor {
            stage: Stage::new(0, Executor::Inline),
            hand_off: HandOff::default(),
            map: Arc::new(map),
        }
    }
}

impl<T, R: Send + 'static> Clone for MapProcessor<T, R> {
    fn clone(&self) -> Self {
        MapProcessor {
            stage: self.stage.clone(),
            hand_off: HandOff::default(),
            map: self.map.clone(),
        }
    }
}

impl<T: Send + 'static, R: Clone + Send + 'static> Subscriber<T> for MapProcessor<T, R> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.hand_off.accepted = self.stage.on_subscribe(subscription);
    }
    fn on_next(&mut self, element: T) {
        if self.hand_off.pass(&self.stage) {
            self.hand_off.emit((self.map)(element));
            self.hand_off.settle(&self.stage);
            return;
        }
        self.stage.on_next((self.map)(element), &mut self.hand_off);
    }
    fn on_error(&mut self, error: StreamError) {
        self.stage.on_terminal(Some(error), &mut self.hand_off);
    }
    fn on_complete(&mut self) {
        self.stage.on_terminal(None, &mut self.hand_off);
    }
}

super::publisher_role!(MapProcessor<T, R>, R);
