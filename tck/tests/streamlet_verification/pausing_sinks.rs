//! Correct-but-unusual sinks that pause and resume before they stop for
//! good, each declaring `stops_after(TAKE)` (issue 38 §3). Written from the
//! protocol text, they take its freedoms:
//!
//! * "The protocol also provides a standardized method of stopping and
//!   restarting streams (in effect, pausing and resuming)": a stop followed
//!   by a start is a pause, not the end of the sink's interest.
//! * Rule 5: "A sink MAY start a stream IF AND ONLY IF […] The sink has not
//!   started the stream yet, or it has stopped the stream after the last
//!   time it has started it": a start right after its own stop, wherever
//!   the sink is (inside `receive`, on a thread of its own).
//! * Rule 6: "A sink MAY stop a stream IF AND ONLY IF all of the conditions
//!   of (2) hold": a stop whenever the stream is live, from any thread.
//! * Rule 3: "A sink MAY request data": the pushed ones never do.
//! * Rule 1: "A source MAY greet a connected sink synchronously or
//!   asynchronously": nothing makes a sink start inside `greet` either; the
//!   late starter starts from a thread of its own.
//!
//! The protocol says nothing about threads, so a sink calling its talkback
//! from several threads keeps its own calls in order: one caller at a time
//! (`busy`), and its state changed before each call. It never holds a
//! lock its `receive` needs while it calls the talkback (a source may make
//! a stop wait for the emission in flight, as the reference's threaded
//! sources do), and `receive` never waits: an element that arrives while
//! another thread of the sink is calling is counted, and that caller makes
//! the final stop if it is then owed. `end` waits for the caller in flight,
//! so no call of the sink's follows the end it returned from.

use std::sync::Arc;
use std::thread::ThreadId;

use parking_lot::{Condvar, Mutex};
use reactive_streams::{Sink, StreamError, Talkback};
use reactive_streams_tck::streamlet::sink::SinkFactory;

/// Every pausing sink stops for good after this many elements.
pub const TAKE: u64 = 5;

/// Where a sink pauses: at the elements `AT` (its 1st, 2nd and 4th), each
/// pause made this way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pause {
    /// Stop then start, both inside `receive`; pulling (a request after
    /// the new start and inside every other `receive`).
    InsideReceive,
    /// Stop inside `receive`; a thread of its own starts again.
    ResumeFromThread,
    /// A thread spawned in `receive` stops and starts again, whenever it
    /// runs (maybe after later elements, maybe never if the sink is done
    /// by then).
    FromThread,
    /// Starts from a thread of its own once greeted, and then pauses from
    /// threads as `FromThread` does.
    LateStartFromThread,
}

/// The elements (1-based) a sink pauses at.
const AT: [u64; 3] = [1, 2, 4];

/// A factory of pausing sinks: each declares `starts_on_greet()` and
/// `stops_after(TAKE)`.
#[derive(Debug, Clone, Copy)]
pub struct PausingSinks(pub Pause);

impl SinkFactory for PausingSinks {
    type Element = u64;

    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        Box::new(PausingSink {
            pause: self.0,
            inner: Arc::new(Inner::default()),
        })
    }

    fn create_element(&self, index: u64) -> u64 {
        index
    }

    fn stops_after(&self) -> Option<u64> {
        Some(TAKE)
    }

    fn starts_on_greet(&self) -> bool {
        true
    }
}

#[derive(Default)]
struct State {
    talkback: Option<Arc<dyn Talkback>>,
    received: u64,
    /// The stream as the sink left it with its last call.
    live: bool,
    /// It has received `TAKE`: it wants the stream stopped for good.
    done: bool,
    /// The source ended the stream.
    ended: bool,
    /// The thread making the sink's talkback calls, if any.
    busy: Option<ThreadId>,
    /// Pausing threads spawned, and those that have had their turn (or
    /// found the stream over).
    pausers: u64,
    pausers_in: u64,
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    freed: Condvar,
}

/// Who has the talkback for a sequence of calls.
enum Turn {
    /// This thread took it: release it after the calls.
    Taken,
    /// This thread already had it (a call inside a call of its own).
    Nested,
}

impl Inner {
    /// Takes the talkback, waiting for another thread of the sink that has
    /// it; `None` once the stream ended.
    fn take(&self) -> Option<(Turn, Arc<dyn Talkback>)> {
        let me = std::thread::current().id();
        let mut state = self.state.lock();
        loop {
            let talkback = state.talkback.clone()?;
            match state.busy {
                Some(thread) if thread == me => return Some((Turn::Nested, talkback)),
                Some(_) => self.freed.wait(&mut state),
                None => {
                    state.busy = Some(me);
                    return Some((Turn::Taken, talkback));
                }
            }
        }
    }

    /// Takes the talkback if nobody has it (never waits).
    fn try_take(&self) -> Option<(Turn, Arc<dyn Talkback>)> {
        let me = std::thread::current().id();
        let mut state = self.state.lock();
        let talkback = state.talkback.clone()?;
        match state.busy {
            Some(thread) if thread == me => Some((Turn::Nested, talkback)),
            Some(_) => None,
            None => {
                state.busy = Some(me);
                Some((Turn::Taken, talkback))
            }
        }
    }

    /// Gives the talkback back, first making the final stop if it is owed
    /// (the sink is done and left the stream live).
    fn give_back(&self, turn: Turn, talkback: &Arc<dyn Talkback>) {
        if let Turn::Nested = turn {
            return;
        }
        let owed = {
            let mut state = self.state.lock();
            let owed = state.done && state.live && !state.ended;
            state.live &= !owed;
            owed
        };
        if owed {
            talkback.stop(None);
        }
        self.state.lock().busy = None;
        self.freed.notify_all();
    }

    /// `talkback.start()`, if the stream is stopped and the sink not done.
    fn start(&self, talkback: &Arc<dyn Talkback>) -> bool {
        {
            let mut state = self.state.lock();
            if state.live || state.done || state.ended {
                return false;
            }
            state.live = true;
        }
        talkback.start();
        true
    }

    /// `talkback.stop()`, if the stream is live.
    fn stop(&self, talkback: &Arc<dyn Talkback>) -> bool {
        {
            let mut state = self.state.lock();
            if !state.live || state.ended {
                return false;
            }
            state.live = false;
        }
        talkback.stop(None);
        true
    }

    /// `talkback.request()`, if the stream is live and the sink not done.
    fn request(&self, talkback: &Arc<dyn Talkback>) {
        let live = {
            let state = self.state.lock();
            state.live && !state.done && !state.ended
        };
        if live {
            talkback.request();
        }
    }

    /// A thread of the sink's own pauses the stream: stop, then start.
    /// Waits until that thread has its turn (it then stops whenever it
    /// runs next), never for its calls: its stop may wait for the
    /// emission this runs in.
    fn pause_from_thread(self: &Arc<Self>) {
        let inner = self.clone();
        let ticket = {
            let mut state = self.state.lock();
            state.pausers += 1;
            state.pausers
        };
        std::thread::spawn(move || {
            let turn = inner.take();
            {
                inner.state.lock().pausers_in += 1;
                inner.freed.notify_all();
            }
            if let Some((turn, talkback)) = turn {
                if inner.stop(&talkback) {
                    inner.start(&talkback);
                }
                inner.give_back(turn, &talkback);
            }
        });
        let mut state = self.state.lock();
        while state.pausers_in < ticket {
            self.freed.wait(&mut state);
        }
    }

    /// A thread of the sink's own starts the stream.
    fn start_from_thread(self: &Arc<Self>) {
        let inner = self.clone();
        std::thread::spawn(move || {
            if let Some((turn, talkback)) = inner.take() {
                inner.start(&talkback);
                inner.give_back(turn, &talkback);
            }
        });
    }
}

/// See the [module](self) docs.
pub struct PausingSink {
    pause: Pause,
    inner: Arc<Inner>,
}

impl PausingSink {
    fn pulls(&self) -> bool {
        self.pause == Pause::InsideReceive
    }
}

impl Sink<u64> for PausingSink {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        self.inner.state.lock().talkback = Some(talkback);
        if self.pause == Pause::LateStartFromThread {
            self.inner.start_from_thread();
            return;
        }
        if let Some((turn, talkback)) = self.inner.try_take() {
            self.inner.start(&talkback);
            if self.pulls() {
                self.inner.request(&talkback);
            }
            self.inner.give_back(turn, &talkback);
        }
    }

    fn receive(&mut self, _data: u64) {
        let received = {
            let mut state = self.inner.state.lock();
            state.received += 1;
            state.done |= state.received >= TAKE;
            state.received
        };
        // Another thread of the sink is calling: it makes the final stop,
        // if owed, when it gives the talkback back.
        let Some((turn, talkback)) = self.inner.try_take() else {
            return;
        };
        let pause_here = received < TAKE && AT.contains(&received);
        if pause_here {
            match self.pause {
                Pause::InsideReceive => {
                    if self.inner.stop(&talkback) {
                        self.inner.start(&talkback);
                    }
                }
                Pause::ResumeFromThread => {
                    if self.inner.stop(&talkback) {
                        self.inner.start_from_thread();
                    }
                }
                Pause::FromThread | Pause::LateStartFromThread => {}
            }
        }
        if self.pulls() {
            self.inner.request(&talkback);
        }
        // Makes the final stop once done.
        let nested = matches!(turn, Turn::Nested);
        self.inner.give_back(turn, &talkback);
        if pause_here
            && !nested
            && matches!(self.pause, Pause::FromThread | Pause::LateStartFromThread)
        {
            self.inner.pause_from_thread();
        }
    }

    fn end(&mut self, _reason: Option<StreamError>) {
        let me = std::thread::current().id();
        let mut state = self.inner.state.lock();
        state.ended = true;
        state.talkback = None;
        // No call of the sink's may follow the end: wait for the one in
        // flight on another thread (it raced with the end).
        while state.busy.is_some_and(|thread| thread != me) {
            self.inner.freed.wait(&mut state);
        }
    }
}
