//! A conforming pullable source and a conforming sink the TCK verifies
//! itself against (doc examples, self-tests, benchmarks). Not part of the
//! supported API.

use std::sync::Arc;

use reactive_streams::{Sink, Source, StreamError, Talkback};

use crate::testkit::{Trampoline, Turn};

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

/// Where a pullable source's stream stands: what [`PullRange`] shares with
/// the self-tests' (deliberately buggy) pullable sources.
#[derive(Debug, Clone)]
pub struct PullState {
    /// The next element.
    pub next: u64,
    /// How many elements the source has (`u64::MAX`: infinite).
    pub count: u64,
    /// Requests not yet served.
    pub pending: u64,
    /// Started and not stopped since.
    pub live: bool,
    /// Ended (`end` decided).
    pub ended: bool,
}

impl PullState {
    /// A stream of `count` elements, not started.
    pub fn new(count: u64) -> Self {
        PullState {
            next: 0,
            count,
            pending: 0,
            live: false,
            ended: false,
        }
    }

    /// A `start`: whether it starts the stream (neither live nor ended).
    pub fn start(&mut self) -> bool {
        if self.ended || self.live {
            return false;
        }
        self.live = true;
        true
    }

    /// A `request`: whether it counts (the stream is live, not ended).
    pub fn request(&mut self) -> bool {
        if !self.live || self.ended {
            return false;
        }
        self.pending += 1;
        true
    }

    /// A `stop`: no longer live, nothing pending (a start resumes).
    pub fn stop(&mut self) {
        self.live = false;
        self.pending = 0;
    }

    /// The next element, counted as emitted.
    pub fn take_next(&mut self) -> u64 {
        self.next += 1;
        self.next - 1
    }
}

struct PullStream {
    state: Trampoline<PullState, Box<dyn Sink<u64>>>,
}

impl PullStream {
    fn drain(&self) {
        self.state.drain(
            |state| {
                if state.ended || !state.live {
                    return Turn::Wait;
                }
                if state.next == state.count {
                    state.ended = true;
                    return Turn::Last(Emission::End(None));
                }
                if state.pending == 0 {
                    return Turn::Wait;
                }
                state.pending -= 1;
                Turn::Signal(Emission::Receive(state.take_next()))
            },
            Emission::deliver,
        );
    }
}

/// One signal to a sink, decided under a lock and delivered outside it
/// (see [`Trampoline`]).
#[derive(Debug)]
pub enum Emission<T> {
    /// `receive(data)`.
    Receive(T),
    /// `end(reason)`.
    End(Option<StreamError>),
}

impl<T> Emission<T> {
    /// Sends this signal to `sink`.
    pub fn deliver(sink: &mut Box<dyn Sink<T>>, emission: Self) {
        match emission {
            Emission::Receive(data) => sink.receive(data),
            Emission::End(reason) => sink.end(reason),
        }
    }
}

struct PullTalkback(Arc<PullStream>);

impl Talkback for PullTalkback {
    fn start(&self) {
        if self.0.state.state().start() {
            self.0.drain();
        }
    }

    fn request(&self) {
        if self.0.state.state().request() {
            self.0.drain();
        }
    }

    fn stop(&self, _reason: Option<StreamError>) {
        self.0.state.state().stop();
    }
}

impl Source<u64> for PullRange {
    fn connect(&self, mut sink: Box<dyn Sink<u64>>) {
        // Draining during greet: a start or request from inside it is
        // served by the drain below.
        let stream = Arc::new(PullStream {
            state: Trampoline::new(PullState::new(self.count)),
        });
        sink.greet(Arc::new(PullTalkback(stream.clone())));
        stream.state.attach(sink);
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
