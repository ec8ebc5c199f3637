//! The laxest conforming stream (issue 38 §5): written from the texts of
//! `stream.1` … `stream.7` and the factory's declarations, it does the
//! least they require at the latest moment they allow, and passes every
//! quick and extended test. Each freedom it takes cites the sentence it
//! rests on (`spec/src/rules/futures.rs`, and the `futures::Stream` docs
//! the rules link to).
//!
//! * It is `Pending` before every item and before its end, even when the
//!   item or the end is already there, and becomes ready only once a
//!   helper thread of its own, a moment later, says so ("pend then
//!   resume", "end lazily"): `Stream::poll_next` "Poll::Pending means that
//!   this stream's next value is not ready yet", and `stream.1` asks only
//!   that it "wakes the waker of that most recent poll once it can make
//!   progress".
//! * Every wake-up comes from another thread (the helper, or a thread the
//!   producer starts), late, and wakes the wakers of its two most recent
//!   polls, not only the newest: `stream.1`, "waking the wakers of
//!   earlier polls as well is allowed".
//! * Its `size_hint()` is the default `(0, None)`: `stream.3`, "its lower
//!   bound is at most the number remaining, and its upper bound, when Some,
//!   at least that number".
//! * The fused variant says `is_terminated()` only once `poll_next`
//!   returned `Ready(None)` (not when its end is known), and after that
//!   returns `Pending` forever, waking nothing; the plain one panics if
//!   polled again: `stream.4`, "returns true
//!   once poll_next has returned Ready(None) … (what later polls return is
//!   up to the stream)".
//! * Its producer gives no way to see the stream gone (no `closed()`
//!   probe): `stream.5`, "lets its producer see it gone where the
//!   producer's API promises that".
//! * `create_stream(n)` produces its items on a thread of its own, one at
//!   a time, and ends when that thread is done: the factory's
//!   `create_stream` "may use threads or timers of its own".

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use parking_lot::Mutex;
use reactive_streams_tck::futures::stream::{Feeder, StreamFactory};

/// How long the helper waits before it lets the stream go on: late, but
/// well within any wake-up deadline.
const LATE: Duration = Duration::from_millis(1);

#[derive(Default)]
struct State {
    queue: VecDeque<u64>,
    ended: bool,
    /// The wakers of the two most recent polls.
    wakers: Vec<Waker>,
    /// The helper has let the stream take its next item (or its end).
    granted: bool,
    /// A helper is on its way.
    helper: bool,
    /// `Ready(None)` was returned.
    finished: bool,
}

type Shared = Arc<Mutex<State>>;

/// Wakes the wakers of the two most recent polls, from a thread of its
/// own, a moment later.
fn wake_all_elsewhere(shared: &Shared, grant: bool) {
    let shared = shared.clone();
    std::thread::spawn(move || {
        std::thread::sleep(LATE);
        let wakers = {
            let mut state = shared.lock();
            if grant {
                state.granted = true;
                state.helper = false;
            }
            // Kept: a later wake-up still owes them theirs.
            state.wakers.clone()
        };
        for waker in wakers {
            waker.wake();
        }
    });
}

pub struct LaxStream {
    shared: Shared,
    fused: bool,
}

impl futures_core::Stream for LaxStream {
    type Item = u64;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<u64>> {
        let mut state = self.shared.lock();
        if state.finished {
            // Polled after its end: up to the stream (stream.4). The plain
            // one panics, as the Stream docs allow ("calling its poll_next
            // method again may panic, block forever, or cause other kinds
            // of problems"); the fused one stays Pending.
            assert!(self.fused, "LaxStream polled after Ready(None)");
            return Poll::Pending;
        }
        let available = !state.queue.is_empty() || state.ended;
        if available && state.granted {
            state.granted = false;
            return match state.queue.pop_front() {
                Some(item) => Poll::Ready(Some(item)),
                None => {
                    state.finished = true;
                    state.wakers.clear();
                    Poll::Ready(None)
                }
            };
        }
        if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
            if state.wakers.len() > 2 {
                state.wakers.remove(0);
            }
        }
        if available && !state.helper {
            state.helper = true;
            drop(state);
            wake_all_elsewhere(&self.shared, true);
        }
        Poll::Pending
    }
}

/// The producer: pushing or ending wakes the consumer from another thread.
struct Producer(Shared);

impl Producer {
    fn push(&self, item: u64) {
        self.0.lock().queue.push_back(item);
        wake_all_elsewhere(&self.0, false);
    }
}

impl Drop for Producer {
    fn drop(&mut self) {
        self.0.lock().ended = true;
        wake_all_elsewhere(&self.0, false);
    }
}

pub struct LaxStreams {
    pub fused: bool,
}

impl StreamFactory for LaxStreams {
    type Item = u64;
    type Stream = LaxStream;

    fn create_stream(&self, items: u64) -> LaxStream {
        let shared = Shared::default();
        let producer = Producer(shared.clone());
        std::thread::spawn(move || {
            for i in 0..items {
                producer.push(i);
            }
        });
        LaxStream {
            shared,
            fused: self.fused,
        }
    }

    fn create_fed_stream(&self) -> Option<(LaxStream, Feeder)> {
        let shared = Shared::default();
        let producer = Producer(shared.clone());
        Some((
            LaxStream {
                shared,
                fused: self.fused,
            },
            Feeder::new(move |i| producer.push(i)),
        ))
    }

    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }

    fn is_terminated(&self, stream: &LaxStream) -> Option<bool> {
        self.fused.then(|| stream.shared.lock().finished)
    }
}

#[test]
fn the_laxest_stream_passes_quick_and_extended() {
    // Not fused: stream.4 has nothing to check, and says so.
    crate::correct::passes(LaxStreams { fused: false }, &["stream_4"]);
}

#[test]
fn the_laxest_fused_stream_passes_quick_and_extended() {
    crate::correct::passes(LaxStreams { fused: true }, &[]);
}

reactive_streams_tck::stream_verification!(laxest_stream, LaxStreams { fused: true });
