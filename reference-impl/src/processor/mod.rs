//! Processors: [`IdentityProcessor`], [`MapProcessor`], [`FilterProcessor`]
//! and [`BufferProcessor`].
//!
//! A processor is a cheap cloneable handle: give one clone to upstream as a
//! `Box<dyn Subscriber<T>>`, subscribe downstream subscribers to another.
//!
//! # Behaviour shared by all processors
//!
//! * **Several downstream subscribers** are supported (multicast). Each has
//!   its own demand; upstream is asked for at most the *smallest* downstream
//!   demand plus the processor's buffer (0 for identity, map and filter), so
//!   a late second subscriber's demand is served and nobody is flooded. A
//!   subscriber that joins while elements are in flight may receive those
//!   elements beyond its demand being buffered for it (never emitted beyond
//!   its demand).
//! * **Errors** from upstream reach every downstream subscriber at once,
//!   ahead of buffered elements (§4.2); completion follows buffered
//!   elements.
//! * **Cancellation**: when the last downstream subscriber cancels (or sends
//!   `request(0)`), upstream is cancelled, and later subscribers get
//!   `on_subscribe` + `on_error`. Before the first downstream subscriber
//!   arrives nothing is requested from upstream.
//! * Subscribers arriving after the upstream terminated get that terminal
//!   right after `on_subscribe`.
//! * Elements must be `Clone` (each subscriber gets its own copy; the last
//!   one gets the original).
//! * Signals are emitted on the thread that delivered the upstream signal or
//!   made the `request`.

mod stage;

use std::sync::Arc;

use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

use crate::executor::Executor;
use stage::Stage;

macro_rules! publisher_role {
    ($name:ident < $($g:ident),* >, $out:ty) => {
        impl<$($g),*> Publisher<$out> for $name<$($g),*>
        where
            $($g: Send + 'static,)*
            $out: Clone,
        {
            fn subscribe(&self, subscriber: Box<dyn Subscriber<$out>>) {
                self.stage.subscribe(subscriber);
            }
        }
    };
}

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
}

impl<T: Clone + Send + 'static> IdentityProcessor<T> {
    /// A new, unsubscribed processor.
    pub fn new() -> Self {
        IdentityProcessor {
            stage: Stage::new(0, Executor::Inline),
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
        }
    }
}

impl<T: Clone + Send + 'static> Subscriber<T> for IdentityProcessor<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.stage.on_subscribe(subscription);
    }
    fn on_next(&mut self, element: T) {
        self.stage.on_next(element);
    }
    fn on_error(&mut self, error: StreamError) {
        self.stage.on_terminal(Some(error));
    }
    fn on_complete(&mut self) {
        self.stage.on_terminal(None);
    }
}

publisher_role!(IdentityProcessor<T>, T);

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
}

impl<T: Clone + Send + 'static> BufferProcessor<T> {
    /// A processor that asks upstream for up to `capacity` elements more
    /// than its slowest subscriber has requested.
    pub fn new(capacity: u64) -> Self {
        BufferProcessor {
            stage: Stage::new(capacity, Executor::Inline),
        }
    }
}

impl<T: Send + 'static> Clone for BufferProcessor<T> {
    fn clone(&self) -> Self {
        BufferProcessor {
            stage: self.stage.clone(),
        }
    }
}

impl<T: Clone + Send + 'static> Subscriber<T> for BufferProcessor<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.stage.on_subscribe(subscription);
    }
    fn on_next(&mut self, element: T) {
        self.stage.on_next(element);
    }
    fn on_error(&mut self, error: StreamError) {
        self.stage.on_terminal(Some(error));
    }
    fn on_complete(&mut self) {
        self.stage.on_terminal(None);
    }
}

publisher_role!(BufferProcessor<T>, T);

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
    map: Arc<dyn Fn(T) -> R + Send + Sync>,
}

impl<T, R: Clone + Send + 'static> MapProcessor<T, R> {
    /// A processor emitting `map(element)` for every upstream element.
    pub fn new(map: impl Fn(T) -> R + Send + Sync + 'static) -> Self {
        MapProcessor {
            stage: Stage::new(0, Executor::Inline),
            map: Arc::new(map),
        }
    }
}

impl<T, R: Send + 'static> Clone for MapProcessor<T, R> {
    fn clone(&self) -> Self {
        MapProcessor {
            stage: self.stage.clone(),
            map: self.map.clone(),
        }
    }
}

impl<T: Send + 'static, R: Clone + Send + 'static> Subscriber<T> for MapProcessor<T, R> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.stage.on_subscribe(subscription);
    }
    fn on_next(&mut self, element: T) {
        self.stage.on_next((self.map)(element));
    }
    fn on_error(&mut self, error: StreamError) {
        self.stage.on_terminal(Some(error));
    }
    fn on_complete(&mut self) {
        self.stage.on_terminal(None);
    }
}

publisher_role!(MapProcessor<T, R>, R);

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
    keep: Arc<dyn Fn(&T) -> bool + Send + Sync>,
}

impl<T: Clone + Send + 'static> FilterProcessor<T> {
    /// A processor passing the elements for which `keep` is true.
    pub fn new(keep: impl Fn(&T) -> bool + Send + Sync + 'static) -> Self {
        FilterProcessor {
            stage: Stage::new(0, Executor::Inline),
            keep: Arc::new(keep),
        }
    }
}

impl<T: Send + 'static> Clone for FilterProcessor<T> {
    fn clone(&self) -> Self {
        FilterProcessor {
            stage: self.stage.clone(),
            keep: self.keep.clone(),
        }
    }
}

impl<T: Clone + Send + 'static> Subscriber<T> for FilterProcessor<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.stage.on_subscribe(subscription);
    }
    fn on_next(&mut self, element: T) {
        if (self.keep)(&element) {
            self.stage.on_next(element);
        } else {
            self.stage.on_discard();
        }
    }
    fn on_error(&mut self, error: StreamError) {
        self.stage.on_terminal(Some(error));
    }
    fn on_complete(&mut self) {
        self.stage.on_terminal(None);
    }
}

publisher_role!(FilterProcessor<T>, T);
