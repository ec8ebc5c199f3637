//! One subscriber's inbox in a hot stage (multicast publisher, processor,
//! push-source bridge): a bounded buffer plus a terminal, read by a
//! [`Drain`](crate::drain::Drain) through [`SlotProducer`]. A processor
//! keeps its subscribers' elements in its own state and uses the slot for
//! the terminal signal and the wake-up only.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;
use reactive_streams::StreamError;

use crate::drain::{Claim, Drain, Emission, Producer};
use crate::overflow::BoundedBuffer;

/// What [`Slot::offer_to`] did.
pub(crate) enum Offered {
    /// The slot no longer accepts elements.
    Refused,
    /// Buffered. `poke`: the caller must [`poke`](Slot::poke) the reader
    /// (see [`Slot::push`]); `held`: the drain was claimed but cannot emit
    /// now (see [`Claim::Held`]), the caller must release it. Both once the
    /// caller holds no lock.
    Queued { poke: bool, held: bool },
    /// Not buffered: the drain is claimed for the caller, who hands the
    /// element to it.
    Claimed,
}

pub(crate) struct Slot<T> {
    state: Mutex<SlotState<T>>,
    /// Set once, before the drain starts; outside the mutex so `offer`
    /// wakes without cloning it.
    waker: OnceLock<Waker>,
    /// Set with `failed`: lets a reader that took elements out check,
    /// without the lock, that no error must overtake them.
    failing: AtomicBool,
    /// Mirrors `closed` (set under the lock, never cleared): lets the
    /// reader look at it once per element without the lock.
    closed: AtomicBool,
}

struct SlotState<T> {
    buffer: BoundedBuffer<T>,
    /// `Some(None)`: completes once the buffer is empty.
    completed: bool,
    /// Delivered before any buffered element (§4.2: errors go at once).
    failed: Option<StreamError>,
    closed: bool,
}

impl<T> Slot<T> {
    pub(crate) fn new(buffer: BoundedBuffer<T>) -> Arc<Self> {
        Arc::new(Slot {
            state: Mutex::new(SlotState {
                buffer,
                completed: false,
                failed: None,
                closed: false,
            }),
            waker: OnceLock::new(),
            failing: AtomicBool::new(false),
            closed: AtomicBool::new(false),
        })
    }

    /// The waker of the drain that reads this slot; called before the drain
    /// starts.
    pub(crate) fn set_waker(&self, waker: Waker) {
        let _ = self.waker.set(waker);
    }

    fn wake(&self) {
        if let Some(waker) = self.waker.get() {
            waker.wake_by_ref();
        }
    }

    /// Buffers `element` (overflow policy applies); `false` if the slot no
    /// longer accepts elements.
    pub(crate) fn offer(&self, element: T) -> bool {
        match self.push(element) {
            None => false,
            Some(wake) => {
                if wake {
                    self.wake();
                }
                true
            }
        }
    }

    /// Buffers `element` without waking the reader: `None` if the slot no
    /// longer accepts elements, else whether the caller must
    /// [`poke`](Slot::poke) the reader. Only a push into an empty buffer
    /// (or an overflow failure) needs it: while elements are buffered the
    /// reader either is polling them and will see this one, or waits for
    /// demand, whose arrival wakes it anyway. So a burst costs one wake-up,
    /// not one per element.
    pub(crate) fn push(&self, element: T) -> Option<bool> {
        let mut state = self.state.lock();
        self.push_locked(&mut state, element)
    }

    /// [`Slot::offer`] with the synchronous hand-off: when nothing is
    /// buffered and `drain` (the drain reading this slot, on an inline
    /// executor) is idle with demand, the drain is claimed for the caller
    /// and `element` is not made (the claim is taken under the slot's lock,
    /// so nothing is buffered ahead of the caller's element meanwhile).
    /// Otherwise `element()` is buffered. Never wakes or runs the drain
    /// (see [`Offered`]), so the caller may hold a lock. A slot of capacity
    /// 0 keeps its meaning (every element overflows) and is never handed
    /// to.
    pub(crate) fn offer_to<P>(&self, drain: &Drain<T, P>, element: impl FnOnce() -> T) -> Offered
    where
        T: Send + 'static,
        P: Producer<T>,
    {
        let mut state = self.state.lock();
        if self.is_ended(&state) {
            // Refused before the element is made: nothing to drop here.
            return Offered::Refused;
        }
        let claim = if state.buffer.is_empty() && state.buffer.capacity() > 0 {
            drain.try_claim()
        } else {
            Claim::Busy
        };
        if claim == Claim::Ready {
            return Offered::Claimed;
        }
        match self.push_locked(&mut state, element()) {
            None => Offered::Refused,
            Some(poke) => Offered::Queued {
                poke,
                held: claim == Claim::Held,
            },
        }
    }

    fn is_ended(&self, state: &SlotState<T>) -> bool {
        state.closed || state.completed || state.failed.is_some()
    }

    fn push_locked(&self, state: &mut SlotState<T>, element: T) -> Option<bool> {
        if self.is_ended(state) {
            return None;
        }
        let was_empty = state.buffer.is_empty();
        if let Err(overflow) = state.buffer.offer(element) {
            state.buffer.clear();
            state.failed = Some(StreamError::new(overflow));
            self.failing.store(true, Ordering::Release);
            return Some(true);
        }
        Some(was_empty)
    }

    /// Ends the slot: an error overtakes buffered elements, completion
    /// follows them.
    pub(crate) fn finish(&self, reason: Option<StreamError>) {
        if self.end(reason) {
            self.wake();
        }
    }

    /// [`finish`](Slot::finish) without waking the reader: whether the
    /// caller must [`poke`](Slot::poke) it.
    pub(crate) fn end(&self, reason: Option<StreamError>) -> bool {
        let mut state = self.state.lock();
        if state.closed || state.completed || state.failed.is_some() {
            return false;
        }
        match reason {
            Some(error) => {
                state.buffer.clear();
                state.failed = Some(error);
                self.failing.store(true, Ordering::Release);
            }
            None => state.completed = true,
        }
        true
    }

    /// Whether the slot failed: a reader that took elements out of it
    /// checks this, without the lock, before handing each one on.
    pub(crate) fn is_failing(&self) -> bool {
        self.failing.load(Ordering::Acquire)
    }

    /// For a reader whose elements come from elsewhere: `Err` with the
    /// failure (handed over once; the slot is closed), else whether the
    /// slot completed.
    pub(crate) fn ending(&self) -> Result<bool, StreamError> {
        let mut state = self.state.lock();
        if let Some(error) = state.failed.take() {
            state.closed = true;
            self.closed.store(true, Ordering::Release);
            return Err(error);
        }
        Ok(state.completed)
    }

    /// The reader is gone: refuse further elements.
    pub(crate) fn close(&self) {
        let mut state = self.state.lock();
        state.closed = true;
        self.closed.store(true, Ordering::Release);
        state.buffer.clear();
    }

    /// Whether the reader is gone (or took the failure): nothing more is
    /// read from this slot.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Makes the reading drain poll again.
    pub(crate) fn poke(&self) {
        self.wake();
    }
}

/// Reads a [`Slot`] for a drain.
pub(crate) struct SlotProducer<T>(pub(crate) Arc<Slot<T>>);

impl<T: Send + 'static> Producer<T> for SlotProducer<T> {
    fn poll_produce(&mut self, _: &mut Context<'_>) -> Emission<T> {
        let mut state = self.0.state.lock();
        if let Some(error) = state.failed.take() {
            state.closed = true;
            self.0.closed.store(true, Ordering::Release);
            return Poll::Ready(Some(Err(error)));
        }
        match state.buffer.pop() {
            Some(element) => Poll::Ready(Some(Ok(element))),
            None if state.completed => Poll::Ready(None),
            None => Poll::Pending,
        }
    }

    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        let mut state = self.0.state.lock();
        if let Some(error) = state.failed.take() {
            state.closed = true;
            self.0.closed.store(true, Ordering::Release);
            return Some(Some(error));
        }
        if state.completed && state.buffer.is_empty() {
            return Some(None);
        }
        None
    }
}

impl<T> Drop for SlotProducer<T> {
    fn drop(&mut self) {
        // The drain is gone (cancelled or terminated): refuse further
        // elements. (The drain no longer holds this producer, so the
        // slot → waker → drain reference is no longer a cycle.)
        let mut state = self.0.state.lock();
        state.closed = true;
        self.0.closed.store(true, Ordering::Release);
        state.buffer.clear();
    }
}
