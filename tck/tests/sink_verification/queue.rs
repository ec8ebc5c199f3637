//! A bounded sink into a queue, with and without a buffer of its own, and
//! optionally one deliberate bug.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;
use reactive_streams_tck::futures::sink::{Delivery, FuturesSinkFactory};

const ROOM: usize = 2;

/// One deliberate bug each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bug {
    /// `poll_ready` on a full queue returns `Pending` without keeping the
    /// waker (sink.1).
    NeverWakes,
    /// `poll_flush` reports success with its last buffered item dropped
    /// (sink.2).
    LosesOnFlush,
    /// After `poll_close`, it still accepts and flushes items, and drops
    /// them (sink.3).
    AcceptsAfterClose,
    /// `poll_close` returns `Pending` having let go of the waker its flush
    /// registered: nothing will wake the closing task (sink.1).
    LosesCloseWakeup,
    /// Keeps the waker of a `Pending` `poll_ready` apart from that of a
    /// `Pending` `poll_flush`, and when room appears wakes only the flush
    /// waker if there is one, letting the other go: after `poll_flush` then
    /// `poll_ready` both
    /// returned `Pending`, the most recent call is never woken (sink.1).
    /// Each method alone is woken correctly, so only a schedule that mixes
    /// them finds it.
    FlushWakerFirst,
    /// `poll_ready` on a full queue lets go of the queue's lock once it has
    /// found it full, and only then registers its waker: room made in
    /// between is never announced (sink.1). No delay between: the window
    /// of a real crate, a few instructions wide.
    CheckThenRegister,
}

#[derive(Default)]
struct Queue {
    items: VecDeque<u64>,
    waker: Option<Waker>,
    /// Only `FlushWakerFirst` uses it: the waker of its `poll_ready`.
    ready_waker: Option<Waker>,
}

/// A sink into a queue of `ROOM` items, optionally through a buffer of its
/// own that only a flush empties.
pub struct QueueSink {
    queue: Arc<Mutex<Queue>>,
    buffer: Option<Vec<u64>>,
    closed: bool,
    bug: Option<Bug>,
    registers_first: bool,
}

impl QueueSink {
    fn poll_room(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        if self.registers_first {
            // Registered before it looks, outside the lock.
            let waker = cx.waker().clone();
            self.queue.lock().waker = Some(waker);
            let full = self.queue.lock().items.len() >= ROOM;
            return if full {
                Poll::Pending
            } else {
                Poll::Ready(Ok(()))
            };
        }
        if self.bug == Some(Bug::CheckThenRegister) {
            let full = self.queue.lock().items.len() >= ROOM;
            if !full {
                return Poll::Ready(Ok(()));
            }
            let waker = cx.waker().clone();
            self.queue.lock().waker = Some(waker);
            return Poll::Pending;
        }
        let mut queue = self.queue.lock();
        if queue.items.len() < ROOM {
            return Poll::Ready(Ok(()));
        }
        if self.bug != Some(Bug::NeverWakes) {
            queue.waker = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl futures_sink::Sink<u64> for QueueSink {
    type Error = String;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        let this = self.get_mut();
        if this.closed && this.bug != Some(Bug::AcceptsAfterClose) {
            return Poll::Ready(Err(String::from("closed")));
        }
        match &this.buffer {
            Some(buffer) if buffer.len() < ROOM => Poll::Ready(Ok(())),
            Some(_) if this.bug == Some(Bug::FlushWakerFirst) => {
                let mut queue = this.queue.lock();
                let buffer = this.buffer.as_mut().unwrap();
                while !buffer.is_empty() && queue.items.len() < ROOM {
                    queue.items.push_back(buffer.remove(0));
                }
                if buffer.len() < ROOM {
                    return Poll::Ready(Ok(()));
                }
                queue.ready_waker = Some(cx.waker().clone());
                Poll::Pending
            }
            Some(_) => Pin::new(&mut *this).poll_flush(cx),
            None => this.poll_room(cx),
        }
    }

    fn start_send(self: Pin<&mut Self>, item: u64) -> Result<(), String> {
        let this = self.get_mut();
        if this.closed {
            // The bug: accepted, and dropped.
            return if this.bug == Some(Bug::AcceptsAfterClose) {
                Ok(())
            } else {
                Err(String::from("closed"))
            };
        }
        match &mut this.buffer {
            Some(buffer) => buffer.push(item),
            None => this.queue.lock().items.push_back(item),
        }
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        let this = self.get_mut();
        let Some(buffer) = this.buffer.as_mut() else {
            return Poll::Ready(Ok(()));
        };
        if this.bug == Some(Bug::LosesOnFlush) && buffer.len() > 1 {
            buffer.pop();
        }
        while !buffer.is_empty() {
            let mut queue = this.queue.lock();
            if queue.items.len() >= ROOM {
                queue.waker = Some(cx.waker().clone());
                return Poll::Pending;
            }
            queue.items.push_back(buffer.remove(0));
        }
        Poll::Ready(Ok(()))
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        match self.as_mut().poll_flush(cx) {
            Poll::Ready(Ok(())) => {
                self.closed = true;
                Poll::Ready(Ok(()))
            }
            Poll::Pending if self.bug == Some(Bug::LosesCloseWakeup) => {
                self.queue.lock().waker = None;
                Poll::Pending
            }
            other => other,
        }
    }
}

#[derive(Clone, Copy)]
pub struct Sinks {
    pub buffered: bool,
    pub bug: Option<Bug>,
}

/// The unbuffered queue sink whose `poll_ready` registers its waker before
/// it looks for room (correct: room made in between is seen).
#[derive(Clone, Copy)]
pub struct RegistersFirst;

impl FuturesSinkFactory for RegistersFirst {
    type Error = String;
    type Sink = QueueSink;

    fn create_sink(&self) -> (QueueSink, Delivery) {
        let (mut sink, delivery) = Sinks {
            buffered: false,
            bug: None,
        }
        .create_sink();
        sink.registers_first = true;
        (sink, delivery)
    }
}

impl FuturesSinkFactory for Sinks {
    type Error = String;
    type Sink = QueueSink;

    fn create_sink(&self) -> (QueueSink, Delivery) {
        let queue = Arc::new(Mutex::new(Queue::default()));
        let consumer = queue.clone();
        let delivery = Delivery::new(move || {
            let mut queue = consumer.lock();
            let item = queue.items.pop_front();
            if item.is_some() {
                let waker = match queue.waker.take() {
                    // FlushWakerFirst's bug: the ready waker is let go.
                    Some(flush) => {
                        queue.ready_waker = None;
                        Some(flush)
                    }
                    None => queue.ready_waker.take(),
                };
                if let Some(waker) = waker {
                    waker.wake();
                }
            }
            item
        });
        let sink = QueueSink {
            queue,
            buffer: self.buffered.then(Vec::new),
            closed: false,
            bug: self.bug,
            registers_first: false,
        };
        (sink, delivery)
    }
}
