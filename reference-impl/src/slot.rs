//! One subscriber's inbox in a hot stage (multicast publisher, processor,
//! push-source bridge): a bounded buffer plus a terminal, read by a
//! [`Drain`](crate::drain::Drain) through [`SlotProducer`].

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
        {
            let mut state = self.state.lock();
            if state.closed || state.completed || state.failed.is_some() {
                return false;
            }
            if let Err(overflow) = state.buffer.offer(element) {
                state.buffer.clear();
                state.failed = Some(StreamError::new(overflow));
            }
        }
        self.wake();
        true
    }

    /// Ends the slot: an error overtakes buffered elements, completion
    /// follows them.
    pub(crate) fn finish(&self, reason: Option<StreamError>) {
        {
            let mut state = self.state.lock();
            if state.closed || state.completed || state.failed.is_some() {
                return;
            }
            match reason {
                Some(error) => {
                    state.buffer.clear();
                    state.failed = Some(error);
                }
                None => state.completed = true,
            }
        }
        self.wake();
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
