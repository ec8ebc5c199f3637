//! [`ListenSource`]: a listenable (push) source, and [`interval`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::Mutex;
use reactive_streams::{Sink, Source, StreamError, Subscription, Talkback, demand};

use super::SinkSubscriber;
use crate::executor::Executor;
use crate::hub::{self, SlotDrain};
use crate::overflow::BoundedBuffer;
use crate::slot::Slot;

/// The shared engine of the hot sources: connected sinks, each with a slot
/// and a drain; data goes only to sinks that are started.
pub(crate) struct Hot<T: Send + 'static> {
    sinks: Mutex<Vec<Arc<Connection<T>>>>,
    ended: Mutex<Option<Option<StreamError>>>,
    /// The latest datum and its version (1, 2, …); kept only by a source
    /// that answers requests.
    latest: Mutex<Option<(u64, T)>>,
    answers_requests: bool,
}

pub(crate) struct Connection<T: Send + 'static> {
    slot: Arc<Slot<T>>,
    drain: Arc<SlotDrain<T>>,
    /// Weak: the source owns its connections, not the other way round.
    hot: Weak<Hot<T>>,
    /// The version of the newest datum this sink was sent (pushed or
    /// pulled): a request is answered only with a newer one.
    had: AtomicU64,
}

impl<T: Send + 'static> Connection<T> {
    /// Whether `version` is newer than anything this sink was sent; if so
    /// it now counts as sent. One atomic step, so a push and a pull of the
    /// same datum racing on two threads send it once.
    fn take_newer(&self, version: u64) -> bool {
        self.had.fetch_max(version, Ordering::AcqRel) < version
    }
}

impl<T: Clone + Send + 'static> Hot<T> {
    pub(crate) fn new(answers_requests: bool) -> Arc<Self> {
        Arc::new(Hot {
            sinks: Mutex::new(Vec::new()),
            ended: Mutex::new(None),
            latest: Mutex::new(None),
            answers_requests,
        })
    }

    pub(crate) fn emit(&self, data: T) {
        let version = self.answers_requests.then(|| {
            let mut latest = self.latest.lock();
            let version = latest.as_ref().map_or(1, |(version, _)| version + 1);
            *latest = Some((version, data.clone()));
            version
        });
        let sinks = self.sinks.lock().clone();
        for connection in sinks {
            if connection.drain.is_paused() {
                continue;
            }
            // Marked as sent before the offer: the sink may pull from inside
            // `receive`, on this thread, and must not get it twice.
            if version.is_some_and(|version| !connection.take_newer(version)) {
                continue;
            }
            connection.slot.offer(data.clone());
        }
    }

    pub(crate) fn end(&self, reason: Option<StreamError>) {
        {
            let mut ended = self.ended.lock();
            if ended.is_some() {
                return;
            }
            *ended = Some(reason.clone());
        }
        let sinks = std::mem::take(&mut *self.sinks.lock());
        for connection in sinks {
            connection.slot.finish(reason.clone());
        }
    }

    pub(crate) fn connect(self: &Arc<Self>, sink: Box<dyn Sink<T>>) {
        let (slot, drain) = hub::open(BoundedBuffer::unbounded(), Executor::Inline);
        drain.pause();
        let connection = Arc::new(Connection {
            slot: slot.clone(),
            drain: drain.clone(),
            hot: Arc::downgrade(self),
            had: AtomicU64::new(0),
        });
        {
            let ended = self.ended.lock();
            match &*ended {
                Some(reason) => slot.finish(reason.clone()),
                None => self.sinks.lock().push(connection.clone()),
            }
        }
        let subscription: Arc<dyn Subscription> = drain.clone();
        drain.start(
            Box::new(SinkSubscriber {
                sink,
                talkback: Some(connection),
            }),
            subscription,
        );
    }
}

impl<T: Clone + Send + 'static> Talkback for Connection<T> {
    fn start(&self) {
        self.drain.request(demand::UNBOUNDED);
        self.drain.resume();
    }

    fn request(&self) {
        let Some(hot) = self.hot.upgrade() else {
            return;
        };
        if hot.answers_requests && !self.drain.is_paused() {
            let latest = hot.latest.lock().clone();
            if let Some((version, latest)) = latest {
                if self.take_newer(version) {
                    self.slot.offer(latest);
                }
            }
        }
    }

    fn stop(&self, _reason: Option<StreamError>) {
        self.drain.pause();
    }
}

/// A listenable source: data given to [`emit`](ListenSource::emit) is
/// pushed to every connected sink that has started, in order; a stopped sink
/// misses what is emitted until it starts again. `request` is ignored.
/// [`end`](ListenSource::end) ends every sink (a stopped one when it
/// restarts: rule 4) and every later one.
///
/// Lacks: no pulling; no memory of past data (see [`HybridSource`](super::HybridSource)).
///
/// ```
/// use reactive_streams::Source;
/// use reactive_streams_reference::streamlet::{CollectSink, ListenSource};
///
/// let clicks = ListenSource::new();
/// let (sink, all) = CollectSink::new();
/// clicks.connect(Box::new(sink));
/// clicks.emit("a");
/// clicks.emit("b");
/// clicks.end(None);
/// assert_eq!(futures::executor::block_on(all).unwrap(), vec!["a", "b"]);
/// ```
pub struct ListenSource<T: Send + 'static> {
    hot: Arc<Hot<T>>,
}

impl<T: Clone + Send + 'static> ListenSource<T> {
    /// A source with no sinks yet.
    pub fn new() -> Self {
        ListenSource {
            hot: Hot::new(false),
        }
    }

    /// Pushes `data` to every started sink.
    pub fn emit(&self, data: T) {
        self.hot.emit(data);
    }

    /// Ends the stream, with an optional reason.
    pub fn end(&self, reason: Option<StreamError>) {
        self.hot.end(reason);
    }
}

impl<T: Clone + Send + 'static> Default for ListenSource<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Send + 'static> Clone for ListenSource<T> {
    fn clone(&self) -> Self {
        ListenSource {
            hot: self.hot.clone(),
        }
    }
}

impl<T: Clone + Send + 'static> Source<T> for ListenSource<T> {
    fn connect(&self, sink: Box<dyn Sink<T>>) {
        self.hot.connect(sink);
    }
}

/// A listenable source ticking `0, 1, 2, …` every `period` from a
/// background thread, which ends when the source is dropped.
///
/// ```no_run
/// use std::time::Duration;
/// use reactive_streams::Source;
/// use reactive_streams_reference::streamlet::{interval, CollectSink};
///
/// let ticks = interval(Duration::from_millis(10));
/// let (sink, first) = CollectSink::take(3);
/// ticks.connect(Box::new(sink));
/// assert_eq!(futures::executor::block_on(first).unwrap(), vec![0, 1, 2]);
/// ```
pub fn interval(period: Duration) -> ListenSource<u64> {
    let source = ListenSource::new();
    let weak = Arc::downgrade(&source.hot);
    let ticks = AtomicU64::new(0);
    std::thread::spawn(move || {
        loop {
            // The period is what this source produces (a timer), not a wait
            // for another thread; nothing synchronises on it.
            std::thread::sleep(period);
            let Some(hot) = weak.upgrade() else {
                return;
            };
            hot.emit(ticks.fetch_add(1, Ordering::Relaxed));
        }
    });
    source
}
