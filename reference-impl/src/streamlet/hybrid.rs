//! [`HybridSource`]: pushes like a listenable source, answers pulls.

use std::sync::Arc;

use reactive_streams::{Sink, Source, StreamError};

use super::listenable::Hot;

/// A hybrid source: data given to [`emit`](HybridSource::emit) is pushed
/// to every started sink (listenable), and a sink's `request` is answered
/// with the latest datum if that sink does not have it yet (pullable) — a
/// "current value plus changes" stream in which every sink gets each value
/// at most once. A request while the sink is up to date brings nothing;
/// the next change is pushed. Stop-then-start pauses and resumes; while
/// stopped a sink misses pushes and may pull the latest value after
/// restarting.
///
/// Values emitted on one thread reach each sink in order. When emissions
/// race on several threads (or a request races with an emission), a sink
/// may miss a value that was superseded meanwhile, or get it after the
/// newer one.
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

#[cfg(test)]
mod tests {
    use reactive_streams::Source;

    use super::HybridSource;
    use crate::streamlet::CollectSink;

    /// A sink that pulls after every datum (as `CollectSink` does) must not
    /// be answered with the value it already has: that is a duplicate, and
    /// with an unlimited `CollectSink` an endless synchronous loop.
    #[test]
    fn a_pull_is_not_answered_with_a_value_the_sink_already_has() {
        let temperature = HybridSource::new();
        temperature.emit(20);
        let (sink, first_two) = CollectSink::take(2);
        temperature.connect(Box::new(sink));
        temperature.emit(21);
        assert_eq!(
            futures::executor::block_on(first_two).unwrap(),
            vec![20, 21]
        );
    }

    /// A pushed value counts as had: the pull that follows it brings
    /// nothing until the next change.
    #[test]
    fn a_collect_sink_gets_each_value_once_then_the_end() {
        let source = HybridSource::new();
        let (sink, all) = CollectSink::new();
        source.connect(Box::new(sink));
        for value in 0..3 {
            source.emit(value);
        }
        source.end(None);
        assert_eq!(futures::executor::block_on(all).unwrap(), vec![0, 1, 2]);
    }
}
