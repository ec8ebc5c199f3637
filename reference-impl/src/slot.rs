//! One subscriber's inbox in a hot stage (multicast publisher, processor,
//! push-source bridge): a bounded buffer plus a terminal, read by a
//! [`Drain`](crate::drain::Drain) through [`SlotProducer`].

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;
use reactive_streams::StreamError;

use crate::drain::{Emission, Producer};
use crate::overflow::BoundedBuffer;

pub(crate) struct Slot<T> {
    state: Mutex<SlotState<T>>,
    /// Set once, before the drain starts; outside the mutex so `offer`
    /// wakes without cloning it.
    waker: OnceLock<Waker>,
    /// Set with `failed`: lets a [`TakingProducer`] check, without the
    /// lock, that no error must overtake the elements it took.
    failing: AtomicBool,
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
        if state.closed || state.completed || state.failed.is_some() {
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

    /// Number of elements buffered and not yet taken by the reader.
    pub(crate) fn len(&self) -> usize {
        self.state.lock().buffer.len()
    }

    /// Makes the reading drain poll again.
    pub(crate) fn poke(&self) {
        self.wake();
    }

    /// Whether the slot still accepts elements.
    pub(crate) fn is_open(&self) -> bool {
        let state = self.state.lock();
        !(state.closed || state.completed || state.failed.is_some())
    }
}

impl<T: Clone> Slot<T> {
    /// Copies of the elements buffered and not yet taken by the reader,
    /// oldest first (none once the slot failed or was closed).
    pub(crate) fn buffered(&self) -> Vec<T> {
        let mut state = self.state.lock();
        if state.closed || state.failed.is_some() {
            return Vec::new();
        }
        let mut elements = Vec::with_capacity(state.buffer.len());
        while let Some(element) = state.buffer.pop() {
            elements.push(element);
        }
        for element in &elements {
            // Put back what was just taken out: it fits again.
            let _ = state.buffer.offer(element.clone());
        }
        elements
    }
}

/// Reads a [`Slot`] for a drain.
pub(crate) struct SlotProducer<T>(pub(crate) Arc<Slot<T>>);

impl<T: Send + 'static> Producer<T> for SlotProducer<T> {
    fn poll_produce(&mut self, _: &mut Context<'_>) -> Emission<T> {
        let mut state = self.0.state.lock();
        if let Some(error) = state.failed.take() {
            state.closed = true;
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
        state.buffer.clear();
    }
}

/// Reads a [`Slot`] for a drain like [`SlotProducer`], but takes as many
/// elements as the drain may emit at once (never more: what it took is
/// delivered, so [`Slot::buffered`] still shows every element not yet
/// taken) and serves them without the lock. An error still overtakes the
/// elements taken.
pub(crate) struct TakingProducer<T> {
    slot: Arc<Slot<T>>,
    taken: VecDeque<T>,
}

impl<T> TakingProducer<T> {
    pub(crate) fn new(slot: Arc<Slot<T>>) -> Self {
        TakingProducer {
            slot,
            taken: VecDeque::new(),
        }
    }
}

impl<T: Send + 'static> Producer<T> for TakingProducer<T> {
    fn poll_produce(&mut self, cx: &mut Context<'_>) -> Emission<T> {
        self.poll_produce_within(cx, 1)
    }

    #[inline]
    fn poll_produce_within(&mut self, _: &mut Context<'_>, demand: u64) -> Emission<T> {
        if !self.taken.is_empty() {
            if !self.slot.failing.load(Ordering::Acquire) {
                return Poll::Ready(self.taken.pop_front().map(Ok));
            }
            self.taken.clear();
        }
        let mut state = self.slot.state.lock();
        if let Some(error) = state.failed.take() {
            state.closed = true;
            return Poll::Ready(Some(Err(error)));
        }
        let Some(first) = state.buffer.pop() else {
            return if state.completed {
                Poll::Ready(None)
            } else {
                Poll::Pending
            };
        };
        let more = usize::try_from(demand - 1)
            .unwrap_or(usize::MAX)
            .min(state.buffer.len());
        self.taken
            .extend(std::iter::from_fn(|| state.buffer.pop()).take(more));
        Poll::Ready(Some(Ok(first)))
    }

    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        let mut state = self.slot.state.lock();
        if let Some(error) = state.failed.take() {
            state.closed = true;
            self.taken.clear();
            return Some(Some(error));
        }
        if state.completed && state.buffer.is_empty() && self.taken.is_empty() {
            return Some(None);
        }
        None
    }
}

impl<T> Drop for TakingProducer<T> {
    fn drop(&mut self) {
        let mut state = self.slot.state.lock();
        state.closed = true;
        state.buffer.clear();
    }
}
