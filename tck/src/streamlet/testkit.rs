//! A conforming pullable source and a conforming sink the TCK verifies
//! itself against (doc examples, self-tests, benchmarks). Not part of the
//! supported API.

use std::sync::Arc;

use parking_lot::Mutex;
use reactive_streams::{Sink, Source, StreamError, Talkback};

/// A pullable source of `0..count` (`u64::MAX`: infinite): one element per
/// request while the stream is live, then an end. Pause and resume: a
/// stopped stream continues where it left off after a new start.
///
/// A request from inside `receive` only adds to the pending count; the
/// loop already emitting picks it up (trampolining), so the recursion depth
/// is 1 and the sink may call its talkback from inside any signal.
#[derive(Debug, Clone, Copy)]
pub struct PullRange {
    count: u64,
}

impl PullRange {
    /// `count` elements (`u64::MAX`: infinite).
    pub fn new(count: u64) -> Self {
        PullRange { count }
    }
}

struct PullState {
    sink: Option<Box<dyn Sink<u64>>>,
    next: u64,
    count: u64,
    pending: u64,
    live: bool,
    ended: bool,
    /// One thread emits at a time; the others leave their requests to it.
    draining: bool,
}

struct PullStream {
    state: Mutex<PullState>,
}

impl PullStream {
    fn drain(&self) {
        let mut state = self.state.lock();
        if state.draining {
            return;
        }
        state.draining = true;
        loop {
            if state.ended || !state.live {
                state.draining = false;
                return;
            }
            if state.next == state.count {
                state.ended = true;
                let sink = state.sink.take();
                drop(state);
                if let Some(mut sink) = sink {
                    sink.end(None);
                }
                return;
            }
            if state.pending == 0 {
                state.draining = false;
                return;
            }
            let Some(mut sink) = state.sink.take() else {
                state.draining = false;
                return;
            };
            state.pending -= 1;
            let element = state.next;
            state.next += 1;
            drop(state);
            sink.receive(element);
            state = self.state.lock();
            state.sink = Some(sink);
        }
    }
}

struct PullTalkback(Arc<PullStream>);

impl Talkback for PullTalkback {
    fn start(&self) {
        {
            let mut state = self.0.state.lock();
            if state.ended || state.live {
                return;
            }
            state.live = true;
        }
        self.0.drain();
    }

    fn request(&self) {
        {
            let mut state = self.0.state.lock();
            if !state.live || state.ended {
                return;
            }
            state.pending += 1;
        }
        self.0.drain();
    }

    fn stop(&self, _reason: Option<StreamError>) {
        let mut state = self.0.state.lock();
        state.live = false;
        state.pending = 0;
    }
}

impl Source<u64> for PullRange {
    fn connect(&self, mut sink: Box<dyn Sink<u64>>) {
        let stream = Arc::new(PullStream {
            state: Mutex::new(PullState {
                sink: None,
                next: 0,
                count: self.count,
                pending: 0,
                live: false,
                ended: false,
                // Held during greet: a start or request from inside it is
                // served by the drain below.
                draining: true,
            }),
        });
        sink.greet(Arc::new(PullTalkback(stream.clone())));
        {
            let mut state = stream.state.lock();
            state.sink = Some(sink);
            state.draining = false;
        }
        stream.drain();
    }
}

/// A sink that starts when greeted, requests one element at a time (if
/// `pulls`) and stops after `n` elements — the protocol's example sink.
#[derive(Debug)]
pub struct TakeN {
    n: u64,
    pulls: bool,
    received: u64,
    talkback: Option<Arc<dyn Talkback>>,
}

impl TakeN {
    /// Takes `n` elements, requesting each (`pulls`) or waiting for pushes.
    pub fn new(n: u64, pulls: bool) -> Self {
        TakeN {
            n,
            pulls,
            received: 0,
            talkback: None,
        }
    }
}

impl<T: Send> Sink<T> for TakeN {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        talkback.start();
        if self.pulls {
            talkback.request();
        }
        self.talkback = Some(talkback);
    }

    fn receive(&mut self, _data: T) {
        self.received += 1;
        let Some(talkback) = self.talkback.clone() else {
            return;
        };
        if self.received == self.n {
            talkback.stop(None);
            self.talkback = None;
        } else if self.pulls {
            talkback.request();
        }
    }

    fn end(&mut self, _reason: Option<StreamError>) {
        self.talkback = None;
    }
}
