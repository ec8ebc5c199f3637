//! The laxest conforming `futures::Sink` (issue 38 §5): written from the
//! texts of `sink.1` … `sink.5` (`spec/src/rules/futures.rs`) and the
//! `futures::Sink` docs they link to, it does the least they require at
//! the latest moment they allow, and passes every quick and extended test.
//!
//! * Every `poll_ready`, `poll_flush` and `poll_close` is `Pending` first,
//!   and goes on only once a helper thread of its own, a moment later,
//!   lets it and wakes every waker it was given since ("pend then
//!   resume", "wake late, from another thread"): `sink.1` asks only that
//!   "the sink wakes the waker of that most recent call once the call
//!   should be made again".
//! * It flushes lazily: `start_send` only buffers (without bound), and
//!   nothing reaches the destination before `poll_flush` or `poll_close`
//!   is called and goes on: `Sink::start_send` docs, "this method only
//!   *begins* the process of sending the item. If the sink employs
//!   buffering, the item isn't fully processed until the buffer is fully
//!   flushed", and `sink.2` binds only what has been delivered "when
//!   poll_flush returns Ready(Ok(()))".
//! * After `poll_close` it still accepts items, and delivers them at the
//!   next flush: `sink.3`, "a send after the close fails or is delivered".
//! * It never fails, so `sink.4` ("after an error … stays unable") never
//!   applies; `sink.5` binds the caller.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use parking_lot::Mutex;
use reactive_streams_tck::futures::sink::{Delivery, FuturesSinkFactory};

/// How long the helper waits before it lets a call go on.
const LATE: Duration = Duration::from_millis(1);

#[derive(Default)]
struct Gate {
    granted: bool,
    helper: bool,
    wakers: Vec<Waker>,
}

#[derive(Default)]
struct Destination {
    items: VecDeque<u64>,
    paused: bool,
    waiting: Vec<Waker>,
}

fn remember(wakers: &mut Vec<Waker>, waker: &Waker) {
    if !wakers.iter().any(|w| w.will_wake(waker)) {
        wakers.push(waker.clone());
    }
}

pub struct LaxSink {
    gate: Arc<Mutex<Gate>>,
    destination: Arc<Mutex<Destination>>,
    buffer: Vec<u64>,
}

impl LaxSink {
    /// Whether the helper has let the call go on; otherwise keeps the
    /// waker and makes sure a helper is on its way.
    fn let_through(&self, cx: &Context<'_>) -> bool {
        let mut gate = self.gate.lock();
        if gate.granted {
            return true;
        }
        remember(&mut gate.wakers, cx.waker());
        if !gate.helper {
            gate.helper = true;
            let shared = self.gate.clone();
            std::thread::spawn(move || {
                std::thread::sleep(LATE);
                let wakers = {
                    let mut gate = shared.lock();
                    gate.granted = true;
                    gate.helper = false;
                    std::mem::take(&mut gate.wakers)
                };
                for waker in wakers {
                    waker.wake();
                }
            });
        }
        false
    }

    fn used_grant(&self) {
        self.gate.lock().granted = false;
    }

    fn flush(&mut self, cx: &Context<'_>) -> Poll<Result<(), String>> {
        if !self.let_through(cx) {
            return Poll::Pending;
        }
        let mut destination = self.destination.lock();
        if destination.paused && !self.buffer.is_empty() {
            remember(&mut destination.waiting, cx.waker());
            return Poll::Pending;
        }
        destination.items.extend(self.buffer.drain(..));
        drop(destination);
        self.used_grant();
        Poll::Ready(Ok(()))
    }
}

impl futures_sink::Sink<u64> for LaxSink {
    type Error = String;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        if !self.let_through(cx) {
            return Poll::Pending;
        }
        self.used_grant();
        Poll::Ready(Ok(()))
    }

    fn start_send(self: Pin<&mut Self>, item: u64) -> Result<(), String> {
        self.get_mut().buffer.push(item);
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        self.get_mut().flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        // Closing is flushing: it keeps nothing open to release.
        self.get_mut().flush(cx)
    }
}

/// Laxest sinks, in front of a destination the TCK can pause or not.
pub struct LaxSinks {
    pub pausable: bool,
}

impl FuturesSinkFactory for LaxSinks {
    type Error = String;
    type Sink = LaxSink;

    fn create_sink(&self) -> (LaxSink, Delivery) {
        let destination = Arc::new(Mutex::new(Destination::default()));
        let taken = destination.clone();
        let paused = destination.clone();
        let delivery = Delivery::new(move || taken.lock().items.pop_front());
        let delivery = if self.pausable {
            delivery.pausable(move |pause| {
                let waiting = {
                    let mut destination = paused.lock();
                    destination.paused = pause;
                    if pause {
                        Vec::new()
                    } else {
                        std::mem::take(&mut destination.waiting)
                    }
                };
                for waker in waiting {
                    waker.wake();
                }
            })
        } else {
            delivery
        };
        let sink = LaxSink {
            gate: Arc::default(),
            destination,
            buffer: Vec::new(),
        };
        (sink, delivery)
    }
}

#[test]
fn the_laxest_sink_passes_quick_and_extended() {
    crate::correct::passes(LaxSinks { pausable: true });
}

/// In front of a destination the TCK cannot pause, it is still `Pending`
/// first every time, with nothing delivered for the TCK to take.
#[test]
fn the_laxest_sink_passes_before_a_destination_that_cannot_pause() {
    crate::correct::passes(LaxSinks { pausable: false });
}

reactive_streams_tck::sink_verification!(laxest_sink, LaxSinks { pausable: true });
