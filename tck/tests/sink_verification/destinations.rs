//! Sinks in front of a destination: a forwarding sink (with and without a
//! buffer of its own) into the TCK's [`Outlet`], a sink writing into an
//! in-memory pipe of its own whose [`Delivery`] can pause it, a sink that
//! never waits, and latest-value (watch-like) sinks — correct, unusual and
//! broken.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use futures_sink::Sink;
use parking_lot::Mutex;
use reactive_streams_tck::futures::sink::{Delivery, FuturesSinkFactory, Outlet};

/// One deliberate bug each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bug {
    /// Its `poll_flush` asks the destination with a waker of its own
    /// making that wakes nobody: a flush that waits on a paused
    /// destination is never woken (sink.1).
    FlushForgetsWaker,
    /// Its `poll_ready` on a full buffer drains it into the destination
    /// with a waker that wakes nobody: when the destination waits, so does
    /// `poll_ready`, and nothing will wake it (sink.1).
    ReadyForgetsWaker,
}

/// A sink that forwards into `S`, through a buffer of `capacity` items of
/// its own (none: every item goes straight on).
pub struct Forward<S> {
    inner: S,
    buffer: VecDeque<u64>,
    capacity: usize,
    bug: Option<Bug>,
}

impl<S: Sink<u64> + Unpin> Forward<S> {
    /// Moves buffered items into the destination while it is ready.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        while let Some(&item) = self.buffer.front() {
            match Pin::new(&mut self.inner).poll_ready(cx) {
                Poll::Ready(Ok(())) => {}
                other => return other,
            }
            self.buffer.pop_front();
            Pin::new(&mut self.inner).start_send(item)?;
        }
        Poll::Ready(Ok(()))
    }
}

fn forgetful(cx: &mut Context<'_>) -> Waker {
    let _ = cx;
    futures::task::noop_waker()
}

impl<S: Sink<u64> + Unpin> Sink<u64> for Forward<S> {
    type Error = S::Error;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        let this = self.get_mut();
        if this.capacity == 0 {
            return Pin::new(&mut this.inner).poll_ready(cx);
        }
        if this.buffer.len() < this.capacity {
            return Poll::Ready(Ok(()));
        }
        let waker = forgetful(cx);
        let mut own = Context::from_waker(&waker);
        let drained = if this.bug == Some(Bug::ReadyForgetsWaker) {
            this.drain(&mut own)
        } else {
            this.drain(cx)
        };
        match drained {
            Poll::Ready(Ok(())) => Poll::Ready(Ok(())),
            Poll::Pending if this.buffer.len() < this.capacity => Poll::Ready(Ok(())),
            other => other,
        }
    }

    fn start_send(self: Pin<&mut Self>, item: u64) -> Result<(), S::Error> {
        let this = self.get_mut();
        if this.capacity == 0 {
            return Pin::new(&mut this.inner).start_send(item);
        }
        this.buffer.push_back(item);
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        let this = self.get_mut();
        if this.bug == Some(Bug::FlushForgetsWaker) {
            let waker = forgetful(cx);
            let mut own = Context::from_waker(&waker);
            std::task::ready!(this.drain(&mut own))?;
            return Pin::new(&mut this.inner).poll_flush(&mut own);
        }
        std::task::ready!(this.drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        std::task::ready!(self.as_mut().poll_flush(cx))?;
        Pin::new(&mut self.get_mut().inner).poll_close(cx)
    }
}

/// Forwarding sinks into the TCK's [`Outlet`].
#[derive(Debug, Clone, Copy)]
pub struct Forwards {
    pub capacity: usize,
    pub bug: Option<Bug>,
}

impl FuturesSinkFactory for Forwards {
    type Error = std::convert::Infallible;
    type Sink = Forward<Outlet>;

    fn create_sink(&self) -> (Forward<Outlet>, Delivery) {
        let (outlet, delivery) = Outlet::new();
        let sink = Forward {
            inner: outlet,
            buffer: VecDeque::new(),
            capacity: self.capacity,
            bug: self.bug,
        };
        (sink, delivery)
    }
}

// ------------------------------------------------- an in-memory pipe

#[derive(Default)]
struct Pipe {
    items: VecDeque<u64>,
    stalled: bool,
    writer: Option<Waker>,
}

/// Writes into an unbounded in-memory pipe, waiting while its reader has
/// stalled it.
pub struct PipeWriter(Arc<Mutex<Pipe>>);

impl PipeWriter {
    fn poll_open(&self, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        let mut pipe = self.0.lock();
        if pipe.stalled {
            pipe.writer = Some(cx.waker().clone());
            return Poll::Pending;
        }
        Poll::Ready(Ok(()))
    }
}

impl Sink<u64> for PipeWriter {
    type Error = String;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        self.poll_open(cx)
    }

    fn start_send(self: Pin<&mut Self>, item: u64) -> Result<(), String> {
        self.0.lock().items.push_back(item);
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        self.poll_open(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        self.poll_open(cx)
    }
}

/// A pipe whose [`Delivery`] can stall it; `pausable: false` gives the
/// same pipe a delivery side that cannot (a destination the TCK never
/// sees waiting).
#[derive(Debug, Clone, Copy)]
pub struct Pipes {
    pub pausable: bool,
}

impl FuturesSinkFactory for Pipes {
    type Error = String;
    type Sink = PipeWriter;

    fn create_sink(&self) -> (PipeWriter, Delivery) {
        let pipe = Arc::new(Mutex::new(Pipe::default()));
        let reader = pipe.clone();
        let delivery = Delivery::new(move || reader.lock().items.pop_front());
        if !self.pausable {
            return (PipeWriter(pipe), delivery);
        }
        let switch = pipe.clone();
        let delivery = delivery.pausable(move |paused| {
            let writer = {
                let mut pipe = switch.lock();
                pipe.stalled = paused;
                if paused { None } else { pipe.writer.take() }
            };
            if let Some(writer) = writer {
                writer.wake();
            }
        });
        (PipeWriter(pipe), delivery)
    }
}

/// An unbounded sink that never waits, declaring it or not, or declaring
/// it falsely (its delivery side can stall it).
#[derive(Debug, Clone, Copy)]
pub struct NeverWaits {
    pub declared: bool,
    /// Declares `never_waits()` though its pipe can be stalled.
    pub lies: bool,
}

impl FuturesSinkFactory for NeverWaits {
    type Error = String;
    type Sink = PipeWriter;

    fn create_sink(&self) -> (PipeWriter, Delivery) {
        Pipes {
            pausable: self.lies,
        }
        .create_sink()
    }

    fn never_waits(&self) -> bool {
        self.declared || self.lies
    }
}

// --------------------------------------------- latest-value sinks

#[derive(Default)]
struct Slot {
    value: Option<u64>,
    /// The item a broken sink keeps back on flush.
    held: Option<u64>,
}

/// A watch-like sink: every item overwrites the one before; the delivery
/// side sees the newest, once.
pub struct Watch {
    slot: Arc<Mutex<Slot>>,
    /// The bug: it makes an item visible only when the next one comes, so
    /// a flush leaves the latest unseen (sink.2).
    one_behind: bool,
}

impl Sink<u64> for Watch {
    type Error = String;

    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), String>> {
        Poll::Ready(Ok(()))
    }

    fn start_send(self: Pin<&mut Self>, item: u64) -> Result<(), String> {
        let mut slot = self.slot.lock();
        if self.one_behind {
            if let Some(previous) = slot.held.replace(item) {
                slot.value = Some(previous);
            }
        } else {
            slot.value = Some(item);
        }
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), String>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), String>> {
        Poll::Ready(Ok(()))
    }
}

/// Watch-like sinks, declared latest-value or not.
#[derive(Debug, Clone, Copy)]
pub struct Watches {
    pub declared: bool,
    pub one_behind: bool,
}

impl FuturesSinkFactory for Watches {
    type Error = String;
    type Sink = Watch;

    fn create_sink(&self) -> (Watch, Delivery) {
        let slot = Arc::new(Mutex::new(Slot::default()));
        let seen = slot.clone();
        let sink = Watch {
            slot,
            one_behind: self.one_behind,
        };
        (sink, Delivery::new(move || seen.lock().value.take()))
    }

    fn never_waits(&self) -> bool {
        true
    }

    fn latest_value(&self) -> bool {
        self.declared
    }
}
