//! Conforming sources and sinks: every rule test must pass against them.
//!
//! * [`PullRange`] (the TCK's testkit): pullable, synchronous, pause and
//!   resume.
//! * [`ThreadSource::listenable`]: pushes from a thread of its own once
//!   started, pause and resume.
//! * [`ThreadSource::hybrid`]: pushes from its thread on every tick and
//!   answers requests at once; a restart after a stop ends the stream
//!   cleanly (it does not resume).

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex, ReentrantMutex};
use reactive_streams::{Sink, Source, StreamError, Talkback};
use reactive_streams_tck::streamlet::sink::SinkFactory;
use reactive_streams_tck::streamlet::source::{SourceFactory, SourceKind};
use reactive_streams_tck::streamlet::testkit::{PullRange, TakeN};

/// A source pushing from one thread per connected sink.
#[derive(Debug, Clone, Copy)]
pub struct ThreadSource {
    count: u64,
    /// `None`: pushes back to back; `Some(t)`: one push per tick, or at
    /// once on a request.
    tick: Option<Duration>,
    /// Whether a stopped stream resumes on a new start (else it ends).
    resumes: bool,
}

impl ThreadSource {
    /// Listenable: pushes `count` elements once started, then ends.
    pub fn listenable(count: u64) -> Self {
        ThreadSource {
            count,
            tick: None,
            resumes: true,
        }
    }

    /// Listenable at its own pace: one push per `tick` (at once on a
    /// request), pause and resume.
    pub fn paced(count: u64, tick: Duration) -> Self {
        ThreadSource {
            count,
            tick: Some(tick),
            resumes: true,
        }
    }

    /// Hybrid: pushes every millisecond and on every request.
    pub fn hybrid(count: u64) -> Self {
        ThreadSource {
            count,
            tick: Some(Duration::from_millis(1)),
            resumes: false,
        }
    }
}

struct ThreadState {
    live: bool,
    stopped_once: bool,
    end_now: bool,
    ended: bool,
    next: u64,
    requests: u64,
    /// No talkback is left: nobody can start the stream again.
    orphaned: bool,
}

struct Stream {
    source: ThreadSource,
    state: Mutex<ThreadState>,
    wake: Condvar,
    /// Held by the emitting thread for each signal, so signals never
    /// overlap. A `stop` takes it too (re-entrantly from inside a signal),
    /// so a stop from another thread waits for the emission in flight and
    /// none begins after it returned (rule 2).
    sink: ReentrantMutex<RefCell<Box<dyn Sink<u64>>>>,
}

impl Stream {
    fn run(&self) {
        loop {
            {
                let mut state = self.state.lock();
                while !(state.live || state.orphaned) {
                    self.wake.wait(&mut state);
                }
                if state.orphaned && !state.live {
                    return;
                }
            }
            let emitting = self.sink.lock();
            let mut sink = emitting.borrow_mut();
            let mut state = self.state.lock();
            // Checked again under the sink's lock: a stop may have come in
            // between.
            if !state.live || state.ended {
                if state.ended {
                    return;
                }
                continue;
            }
            if state.end_now || state.next == self.source.count {
                state.ended = true;
                state.live = false;
                drop(state);
                sink.end(None);
                return;
            }
            let element = state.next;
            state.next += 1;
            state.requests = state.requests.saturating_sub(1);
            drop(state);
            sink.receive(element);
            drop(sink);
            drop(emitting);
            if let Some(tick) = self.source.tick {
                let mut state = self.state.lock();
                if state.requests == 0 && state.live {
                    self.wake.wait_for(&mut state, tick);
                }
            }
        }
    }
}

struct ThreadTalkback(Arc<Stream>);

impl Talkback for ThreadTalkback {
    fn start(&self) {
        let mut state = self.0.state.lock();
        if state.live || state.ended {
            return;
        }
        state.live = true;
        if state.stopped_once && !self.0.source.resumes {
            state.end_now = true;
        }
        self.0.wake.notify_all();
    }

    fn request(&self) {
        let mut state = self.0.state.lock();
        if state.live && self.0.source.tick.is_some() {
            state.requests += 1;
            self.0.wake.notify_all();
        }
    }

    fn stop(&self, _reason: Option<StreamError>) {
        let _no_emission_in_flight = self.0.sink.lock();
        let mut state = self.0.state.lock();
        state.live = false;
        state.stopped_once = true;
        state.requests = 0;
    }
}

impl Drop for ThreadTalkback {
    fn drop(&mut self) {
        self.0.state.lock().orphaned = true;
        self.0.wake.notify_all();
    }
}

impl Source<u64> for ThreadSource {
    fn connect(&self, sink: Box<dyn Sink<u64>>) {
        let stream = Arc::new(Stream {
            source: *self,
            state: Mutex::new(ThreadState {
                live: false,
                stopped_once: false,
                end_now: false,
                ended: false,
                next: 0,
                requests: 0,
                orphaned: false,
            }),
            wake: Condvar::new(),
            sink: ReentrantMutex::new(RefCell::new(sink)),
        });
        let talkback = Arc::new(ThreadTalkback(stream.clone()));
        stream.sink.lock().borrow_mut().greet(talkback);
        let worker = stream.clone();
        std::thread::Builder::new()
            .name(String::from("thread-source"))
            .spawn(move || worker.run())
            .expect("a thread for the source");
    }
}

/// A source that fails: it greets, and ends the stream with an error as
/// soon as the sink starts it.
#[derive(Debug, Clone, Copy)]
pub struct FailedSource;

struct FailedStream {
    sink: Mutex<Option<Box<dyn Sink<u64>>>>,
    /// (started, ended).
    state: Mutex<(bool, bool)>,
}

impl FailedStream {
    /// Ends the stream if it was started and not ended yet, and the sink
    /// is at hand (not inside its greet).
    fn settle(&self) {
        // Busy means a signal is running on the sink (a start from inside
        // it): whoever holds the sink settles after.
        let Some(mut slot) = self.sink.try_lock() else {
            return;
        };
        let Some(sink) = slot.as_mut() else {
            return;
        };
        let mut state = self.state.lock();
        let (started, ended) = *state;
        if started && !ended {
            state.1 = true;
            drop(state);
            sink.end(Some(StreamError::msg("the source failed")));
        }
    }
}

struct FailedTalkback(Arc<FailedStream>);

impl Talkback for FailedTalkback {
    fn start(&self) {
        self.0.state.lock().0 = true;
        // From inside greet the sink is not at hand yet: connect settles.
        self.0.settle();
    }

    fn request(&self) {}

    fn stop(&self, _reason: Option<StreamError>) {
        self.0.state.lock().0 = false;
    }
}

impl Source<u64> for FailedSource {
    fn connect(&self, mut sink: Box<dyn Sink<u64>>) {
        let stream = Arc::new(FailedStream {
            sink: Mutex::new(None),
            state: Mutex::new((false, false)),
        });
        sink.greet(Arc::new(FailedTalkback(stream.clone())));
        *stream.sink.lock() = Some(sink);
        stream.settle();
    }
}

/// The conforming sources, as one factory type so rstest can iterate.
#[derive(Debug, Clone, Copy)]
pub enum GoodSource {
    Pullable,
    Listenable,
    Hybrid,
}

impl SourceFactory for GoodSource {
    type Element = u64;

    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        match self {
            GoodSource::Pullable => Box::new(PullRange::new(elements)),
            GoodSource::Listenable => Box::new(ThreadSource::listenable(elements)),
            GoodSource::Hybrid => Box::new(ThreadSource::hybrid(elements)),
        }
    }

    fn kind(&self) -> SourceKind {
        match self {
            GoodSource::Pullable => SourceKind::Pullable,
            GoodSource::Listenable => SourceKind::Listenable,
            GoodSource::Hybrid => SourceKind::Hybrid,
        }
    }

    fn supports_restart(&self) -> bool {
        !matches!(self, GoodSource::Hybrid)
    }

    /// Each delivers `0..n`: element `i` is `i`.
    fn element_index(&self, data: &u64) -> Option<u64> {
        Some(*data)
    }

    fn create_failed_source(&self) -> Option<Box<dyn Source<u64>>> {
        matches!(self, GoodSource::Pullable).then(|| Box::new(FailedSource) as Box<dyn Source<u64>>)
    }
}

/// The conforming sinks.
#[derive(Debug, Clone, Copy)]
pub enum GoodSink {
    /// Starts, pulls one at a time, stops after five (the protocol's
    /// example).
    TakeFivePulling,
    /// Starts and stops after three, never requests.
    TakeThreePushed,
    /// Starts, pulls, never stops.
    Drain,
}

impl SinkFactory for GoodSink {
    type Element = u64;

    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        match self {
            GoodSink::TakeFivePulling => Box::new(TakeN::new(5, true)),
            GoodSink::TakeThreePushed => Box::new(TakeN::new(3, false)),
            GoodSink::Drain => Box::new(TakeN::new(u64::MAX, true)),
        }
    }

    fn create_element(&self, index: u64) -> u64 {
        index
    }

    fn stops_after(&self) -> Option<u64> {
        match self {
            GoodSink::TakeFivePulling => Some(5),
            GoodSink::TakeThreePushed => Some(3),
            GoodSink::Drain => None,
        }
    }

    /// Each starts inside its greet.
    fn starts_on_greet(&self) -> bool {
        true
    }
}
