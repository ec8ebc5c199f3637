//! Sinks: [`CollectSink`] and [`CallbackSink`].

use std::sync::Arc;

use futures::channel::oneshot;
use reactive_streams::{Sink, StreamError, Talkback};

use crate::subscriber::Collect;

/// A sink that starts at once, pulls one datum at a time (so it works with
/// pullable, listenable and hybrid sources alike) and gathers everything
/// into a [`Collect`] future. [`CollectSink::take`] stops after `n` data.
///
/// ```
/// use reactive_streams::Source;
/// use reactive_streams_reference::streamlet::{CollectSink, PullSource};
///
/// let (sink, first) = CollectSink::take(2);
/// PullSource::new(|| 0..).connect(Box::new(sink));
/// assert_eq!(futures::executor::block_on(first).unwrap(), vec![0, 1]);
/// ```
pub struct CollectSink<T> {
    talkback: Option<Arc<dyn Talkback>>,
    items: Vec<T>,
    limit: Option<usize>,
    done: Option<oneshot::Sender<Result<Vec<T>, StreamError>>>,
}

impl<T> CollectSink<T> {
    /// A sink collecting until the source ends.
    pub fn new() -> (Self, Collect<T>) {
        Self::with_limit(None)
    }

    /// A sink collecting `n` data, then stopping the source.
    pub fn take(n: usize) -> (Self, Collect<T>) {
        Self::with_limit(Some(n))
    }

    fn with_limit(limit: Option<usize>) -> (Self, Collect<T>) {
        let (done, future) = Collect::channel();
        (
            CollectSink {
                talkback: None,
                items: Vec::new(),
                limit,
                done: Some(done),
            },
            future,
        )
    }

    fn finish(&mut self, result: Result<(), StreamError>) {
        self.talkback = None;
        if let Some(done) = self.done.take() {
            let _ = done.send(result.map(|()| std::mem::take(&mut self.items)));
        }
    }
}

impl<T: Send> Sink<T> for CollectSink<T> {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        if self.limit == Some(0) {
            self.finish(Ok(()));
            return;
        }
        self.talkback = Some(talkback.clone());
        talkback.start();
        if self.talkback.is_some() {
            talkback.request();
        }
    }

    fn receive(&mut self, data: T) {
        self.items.push(data);
        let Some(talkback) = self.talkback.clone() else {
            return;
        };
        if Some(self.items.len()) == self.limit {
            talkback.stop(None);
            self.finish(Ok(()));
        } else {
            talkback.request();
        }
    }

    fn end(&mut self, reason: Option<StreamError>) {
        self.finish(reason.map_or(Ok(()), Err));
    }
}

type EndCallback = Box<dyn FnOnce(Option<StreamError>) + Send>;

/// A sink calling a closure per datum; it starts at once and pulls one
/// datum after each.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use reactive_streams::Source;
/// use reactive_streams_reference::streamlet::{CallbackSink, PullSource};
///
/// let sum = Arc::new(Mutex::new(0));
/// let total = sum.clone();
/// PullSource::new(|| 1..=4).connect(Box::new(CallbackSink::new(move |x| *total.lock().unwrap() += x)));
/// assert_eq!(*sum.lock().unwrap(), 10);
/// ```
pub struct CallbackSink<T> {
    talkback: Option<Arc<dyn Talkback>>,
    on_data: Box<dyn FnMut(T) + Send>,
    on_end: Option<EndCallback>,
}

impl<T> CallbackSink<T> {
    /// A sink calling `on_data` for every datum.
    pub fn new(on_data: impl FnMut(T) + Send + 'static) -> Self {
        CallbackSink {
            talkback: None,
            on_data: Box::new(on_data),
            on_end: None,
        }
    }

    /// Called once when the source ends the stream.
    pub fn on_end(mut self, on_end: impl FnOnce(Option<StreamError>) + Send + 'static) -> Self {
        self.on_end = Some(Box::new(on_end));
        self
    }
}

impl<T> Sink<T> for CallbackSink<T> {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        self.talkback = Some(talkback.clone());
        talkback.start();
        talkback.request();
    }

    fn receive(&mut self, data: T) {
        (self.on_data)(data);
        if let Some(talkback) = &self.talkback {
            talkback.request();
        }
    }

    fn end(&mut self, reason: Option<StreamError>) {
        self.talkback = None;
        if let Some(on_end) = self.on_end.take() {
            on_end(reason);
        }
    }
}
