//! [`HybridSource`]: pushes like a listenable source, answers pulls.

use std::sync::Arc;

use reactive_streams::{Sink, Source, StreamError};

use super::listenable::Hot;

/// A hybrid source: data given to [`emit`](HybridSource::emit) is pushed
/// to every started sink (listenable), and a sink's `request` is answered
/// with the latest datum (pullable) — a "current value plus changes" stream.
/// Stop-then-start pauses and resumes; while stopped a sink misses pushes
/// and may pull the latest value after restarting.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use reactive_streams::{Sink, Source, StreamError, Talkback};
/// use reactive_streams_reference::streamlet::HybridSource;
///
/// let temperature = HybridSource::new();
/// temperature.emit(20);
///
/// struct ReadOnce(Arc<Mutex<Vec<i32>>>);
/// impl Sink<i32> for ReadOnce {
///     fn greet(&mut self, talkback: Arc<dyn Talkback>) {
///         talkback.start();
///         talkback.request(); // pull the current value
///     }
///     fn receive(&mut self, t: i32) { self.0.lock().unwrap().push(t); }
///     fn end(&mut self, _: Option<StreamError>) {}
/// }
///
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// temperature.connect(Box::new(ReadOnce(seen.clone())));
/// temperature.emit(21); // pushed
/// assert_eq!(*seen.lock().unwrap(), vec![20, 21]);
/// ```
pub struct HybridSource<T: Send + 'static> {
    hot: Arc<Hot<T>>,
}

impl<T: Clone + Send + 'static> HybridSource<T> {
    /// A source with no value and no sinks yet.
    pub fn new() -> Self {
        HybridSource {
            hot: Hot::new(true),
        }
    }

    /// Records `data` as the latest value and pushes it to every started
    /// sink.
    pub fn emit(&self, data: T) {
        self.hot.emit(data);
    }

    /// Ends the stream, with an optional reason.
    pub fn end(&self, reason: Option<StreamError>) {
        self.hot.end(reason);
    }
}

impl<T: Clone + Send + 'static> Default for HybridSource<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Send + 'static> Clone for HybridSource<T> {
    fn clone(&self) -> Self {
        HybridSource {
            hot: self.hot.clone(),
        }
    }
}

impl<T: Clone + Send + 'static> Source<T> for HybridSource<T> {
    fn connect(&self, sink: Box<dyn Sink<T>>) {
        self.hot.connect(sink);
    }
}
