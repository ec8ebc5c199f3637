//! A small hand-written channel whose receiving end is a `futures::Stream`:
//! correct by default, with one deliberate bug at a time for the broken
//! corpus, and a few unusual-but-correct shapes for the conforming one.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::thread::ThreadId;
use std::time::Duration;

use parking_lot::Mutex;
use reactive_streams_tck::futures::stream::{Feeder, StreamFactory};

/// One deliberate bug, each breaking one stream rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bug {
    /// Returns `Pending` without keeping the waker: nothing will wake the
    /// task (stream.1).
    NeverWakes,
    /// Keeps the waker of the first `Pending` poll and ignores later ones
    /// (stream.1).
    StaleWaker,
    /// Checks the queue, lets go of the lock, then registers the waker: an
    /// item pushed in between is never announced (stream.2).
    CheckThenRegister,
    /// The same with no delay between the check and the registration, as
    /// in a real crate: the window is a few instructions wide, hit by
    /// chance in a few rounds of a hundred (stream.2).
    CheckThenRegisterTight,
    /// Claims one item more than it holds (stream.3).
    LyingSizeHint,
    /// A `FusedStream` whose `is_terminated()` stays `false` and that
    /// starts over after `Ready(None)` (stream.4).
    FusedYieldsAfterEnd,
    /// Never tells the producer that it is gone (stream.5).
    SilentDrop,
    /// Wakes itself on every `Pending` (stream.6).
    BusyWakes,
    /// Polled again after a `Pending` with no wake-up since (a poll no
    /// wake-up caused), it takes its producer for gone and returns
    /// `Ready(None)`: every item pushed later is lost. Data loss, which
    /// `stream.6`'s test (and `stream.1`'s, which polls with two wakers in
    /// turn) sees: failed under `tck.stream_gives_exactly_n`, never that
    /// SHOULD rule's warning.
    EndsOnRepoll,
    /// Reads its items through the thread that polled it first: polled on
    /// another thread, it finds nothing and ends (stream.7).
    ThreadBound,
    /// Takes the newest queued item first: the right number of items, in
    /// the wrong order (tck.stream_gives_exactly_n).
    Reorders,
    /// Yields its first item twice when two are queued, and loses the
    /// second: the right number of items, one duplicated and one lost
    /// (tck.stream_gives_exactly_n).
    DuplicatesFirst,
    /// The producer wakes the consumer first and makes its item visible
    /// only then: a poll caused by that wake-up finds nothing, and nothing
    /// wakes it again (stream.2).
    WakesBeforeVisible,
    /// A factory whose `is_terminated()` answers `None` (not fused) until
    /// the stream has ended, then `Some(true)`: a declaration that does
    /// not hold for every stream (tck.configuration).
    FusedOnlyOnceEnded,
}

/// Unusual but correct shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// The plain channel, with an exact `size_hint()`.
    #[default]
    Plain,
    /// `Pending` (waking itself) before every item.
    PendingFirst,
    /// Every wake-up comes from another thread; `create_stream` produces
    /// its items on a thread of its own.
    WakesFromAnotherThread,
    /// The default `size_hint()`, `(0, None)`.
    DefaultSizeHint,
    /// The producer wakes the consumer before its item is visible, and
    /// again after: nothing is lost.
    WakesTwice,
    /// The producer wakes the consumer while still holding the channel's
    /// lock, after the item is in.
    WakesUnderLock,
    /// Stores the waker first (cloned outside any lock), then looks for an
    /// item under the lock, taken again: register, then recheck.
    RegistersFirst,
}

#[derive(Default)]
struct State {
    queue: VecDeque<u64>,
    waker: Option<Waker>,
    producer_done: bool,
    consumer_gone: bool,
    /// The last poll returned `Pending` and nothing has woken it since.
    unwoken_pending: bool,
}

type Shared = Arc<Mutex<State>>;

/// The sending end; dropping it ends the stream.
struct Producer {
    shared: Shared,
    shape: Shape,
    bug: Option<Bug>,
}

fn wake(waker: Option<Waker>, shape: Shape) {
    if let Some(waker) = waker {
        if shape == Shape::WakesFromAnotherThread {
            std::thread::spawn(move || waker.wake());
        } else {
            waker.wake();
        }
    }
}

impl Producer {
    fn push(&self, item: u64) {
        if self.bug == Some(Bug::WakesBeforeVisible) || self.shape == Shape::WakesTwice {
            let waker = self.shared.lock().waker.take();
            wake(waker, self.shape);
            let mut state = self.shared.lock();
            if state.consumer_gone {
                return;
            }
            state.queue.push_back(item);
            if self.shape == Shape::WakesTwice {
                let waker = state.waker.take();
                drop(state);
                wake(waker, self.shape);
            }
            return;
        }
        if self.shape == Shape::WakesUnderLock {
            let mut state = self.shared.lock();
            if !state.consumer_gone {
                state.queue.push_back(item);
                if let Some(waker) = state.waker.take() {
                    waker.wake();
                }
            }
            return;
        }
        let waker = {
            let mut state = self.shared.lock();
            if state.consumer_gone {
                return;
            }
            state.queue.push_back(item);
            state.unwoken_pending = false;
            state.waker.take()
        };
        wake(waker, self.shape);
    }
}

impl Drop for Producer {
    fn drop(&mut self) {
        let waker = {
            let mut state = self.shared.lock();
            state.producer_done = true;
            state.unwoken_pending = false;
            state.waker.take()
        };
        wake(waker, self.shape);
    }
}

/// The receiving end: the stream under test.
pub struct Receiver {
    shared: Shared,
    bug: Option<Bug>,
    shape: Shape,
    first_thread: Option<ThreadId>,
    paused: bool,
    ended: bool,
    duplicated: bool,
}

impl futures_core::Stream for Receiver {
    type Item = u64;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<u64>> {
        let this = self.get_mut();
        if this.bug == Some(Bug::ThreadBound) {
            let here = std::thread::current().id();
            if *this.first_thread.get_or_insert(here) != here {
                return Poll::Ready(None);
            }
        }
        if this.shape == Shape::PendingFirst && !this.paused {
            this.paused = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        this.paused = false;
        if this.shape == Shape::RegistersFirst {
            let waker = cx.waker().clone();
            this.shared.lock().waker = Some(waker);
        }
        let mut state = this.shared.lock();
        if this.bug == Some(Bug::Reorders) {
            if let Some(item) = state.queue.pop_back() {
                return Poll::Ready(Some(item));
            }
        }
        if this.bug == Some(Bug::DuplicatesFirst) && !this.duplicated && state.queue.len() >= 2 {
            this.duplicated = true;
            state.queue.remove(1);
            return Poll::Ready(state.queue.front().copied());
        }
        if let Some(item) = state.queue.pop_front() {
            return Poll::Ready(Some(item));
        }
        if state.producer_done {
            if this.bug == Some(Bug::FusedYieldsAfterEnd) && this.ended {
                // Starts over: one more item after the end.
                this.ended = false;
                return Poll::Ready(Some(99));
            }
            this.ended = true;
            return Poll::Ready(None);
        }
        if this.bug == Some(Bug::EndsOnRepoll) && state.unwoken_pending {
            this.ended = true;
            return Poll::Ready(None);
        }
        state.unwoken_pending = true;
        match this.bug {
            Some(Bug::NeverWakes) => {}
            Some(Bug::StaleWaker) => {
                if state.waker.is_none() {
                    state.waker = Some(cx.waker().clone());
                }
            }
            Some(Bug::CheckThenRegister) => {
                drop(state);
                // The window in which a push finds no waker to wake.
                std::thread::sleep(Duration::from_millis(2));
                this.shared.lock().waker = Some(cx.waker().clone());
            }
            Some(Bug::CheckThenRegisterTight) => {
                drop(state);
                let waker = cx.waker().clone();
                this.shared.lock().waker = Some(waker);
            }
            Some(Bug::BusyWakes) => {
                state.waker = Some(cx.waker().clone());
                cx.waker().wake_by_ref();
            }
            _ if this.shape == Shape::RegistersFirst => {}
            _ => state.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.shape == Shape::DefaultSizeHint {
            return (0, None);
        }
        let state = self.shared.lock();
        let held = state.queue.len() + usize::from(self.bug == Some(Bug::LyingSizeHint));
        (held, state.producer_done.then_some(held))
    }
}

impl Receiver {
    fn is_terminated(&self) -> bool {
        self.ended && self.bug != Some(Bug::FusedYieldsAfterEnd)
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if self.bug == Some(Bug::SilentDrop) {
            return;
        }
        let mut state = self.shared.lock();
        state.consumer_gone = true;
        state.queue.clear();
        state.waker = None;
    }
}

/// Makes channels with one bug, or none, in one shape.
#[derive(Debug, Clone, Copy, Default)]
pub struct Channels {
    pub bug: Option<Bug>,
    pub shape: Shape,
}

impl Channels {
    pub fn broken(bug: Bug) -> Channels {
        Channels {
            bug: Some(bug),
            shape: Shape::Plain,
        }
    }

    pub fn shaped(shape: Shape) -> Channels {
        Channels { bug: None, shape }
    }

    fn pair(&self) -> (Receiver, Producer) {
        let shared = Shared::default();
        let receiver = Receiver {
            shared: shared.clone(),
            bug: self.bug,
            shape: self.shape,
            first_thread: None,
            paused: false,
            ended: false,
            duplicated: false,
        };
        let producer = Producer {
            shared,
            shape: self.shape,
            bug: self.bug,
        };
        (receiver, producer)
    }
}

impl StreamFactory for Channels {
    type Item = u64;
    type Stream = Receiver;

    fn create_stream(&self, items: u64) -> Receiver {
        let (receiver, producer) = self.pair();
        if self.shape == Shape::WakesFromAnotherThread {
            std::thread::spawn(move || {
                for i in 0..items {
                    std::thread::yield_now();
                    producer.push(i);
                }
            });
        } else {
            for i in 0..items {
                producer.push(i);
            }
        }
        receiver
    }

    fn create_fed_stream(&self) -> Option<(Receiver, Feeder)> {
        let (receiver, producer) = self.pair();
        let shared = producer.shared.clone();
        let feeder =
            Feeder::new(move |i| producer.push(i)).closed(move || shared.lock().consumer_gone);
        Some((receiver, feeder))
    }

    fn is_terminated(&self, stream: &Receiver) -> Option<bool> {
        if self.bug == Some(Bug::FusedOnlyOnceEnded) && !stream.ended {
            return None;
        }
        Some(stream.is_terminated())
    }

    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
}

/// The same channels with no feeder: only `create_stream` (a pull-based
/// stream, as the TCK sees it).
#[derive(Debug, Clone, Copy, Default)]
pub struct Unfed(pub Channels);

impl StreamFactory for Unfed {
    type Item = u64;
    type Stream = Receiver;

    fn create_stream(&self, items: u64) -> Receiver {
        self.0.create_stream(items)
    }

    fn item_index(&self, item: &u64) -> Option<u64> {
        self.0.item_index(item)
    }
}
