//! The driver of a sink under test: it polls the sink with the TCK's own
//! wakers, takes what the delivery side received and records every call in
//! the rule's trace. Shared by the quick rule tests, the races at the take
//! of a waker and the extended schedules.

use std::fmt::Debug;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use futures_sink::Sink;

use super::{Delivery, FuturesSinkFactory};
use crate::context::{Failure, RuleCx};
use crate::wakers::{WakeProbe, WakerSet, poll_slice};

/// Items sent at most while filling a sink to make `poll_ready` return
/// `Pending` (`sink.1`).
pub(super) const FILL_LIMIT: u64 = 64;

pub(super) type Answer<E> = Poll<Result<(), E>>;

pub(super) fn show<E: Debug>(answer: &Answer<E>) -> String {
    match answer {
        Poll::Pending => String::from("Pending"),
        Poll::Ready(Ok(())) => String::from("Ready(Ok(()))"),
        Poll::Ready(Err(error)) => format!("Ready(Err({error:?}))"),
    }
}

/// A sink under test, its delivery side and what has been sent and seen.
pub(super) struct Driver<F: FuturesSinkFactory> {
    pub(super) cx: RuleCx,
    sink: Pin<Box<F::Sink>>,
    pub(super) delivery: Delivery,
    pub(super) wakers: WakerSet,
    pub(super) sent: u64,
    /// Every item taken from the delivery side, in order.
    pub(super) delivered: Vec<u64>,
    /// Whether the TCK holds the destination paused.
    pub(super) paused: bool,
}

impl<F: FuturesSinkFactory> Driver<F> {
    pub(super) fn new(cx: &RuleCx, factory: &F) -> Self {
        let (sink, delivery) = factory.create_sink();
        cx.trace("create_sink()");
        Driver {
            cx: cx.clone(),
            sink: Box::pin(sink),
            delivery,
            wakers: WakerSet::new(cx),
            sent: 0,
            delivered: Vec::new(),
            paused: false,
        }
    }

    /// Whether the delivery side can pause its destination.
    pub(super) fn can_pause(&self) -> bool {
        self.delivery.can_pause()
    }

    /// The delivery side, lent to another thread (a race making room from
    /// there); the driver holds a stand-in that takes nothing until
    /// [`return_delivery`](Self::return_delivery).
    pub(super) fn lend_delivery(&mut self) -> Delivery {
        std::mem::replace(&mut self.delivery, Delivery::new(|| None))
    }

    pub(super) fn return_delivery(&mut self, delivery: Delivery) {
        self.delivery = delivery;
    }

    /// Stalls (`true`) or resumes (`false`) the destination, traced.
    pub(super) fn pause(&mut self, paused: bool) {
        self.cx.trace(if paused {
            "delivery: paused"
        } else {
            "delivery: resumed"
        });
        self.paused = paused;
        self.delivery.pause(paused);
    }

    pub(super) fn call(
        &mut self,
        method: &str,
        waker: &Arc<WakeProbe>,
        rule: &str,
    ) -> Result<Answer<F::Error>, Failure> {
        let what = format!("{method} [{}]", waker.name());
        let std_waker = waker.waker();
        let sink = &mut self.sink;
        let answer = self.cx.try_step(rule, what.clone(), || {
            let mut cx = Context::from_waker(&std_waker);
            match method {
                "poll_ready" => sink.as_mut().poll_ready(&mut cx),
                "poll_flush" => sink.as_mut().poll_flush(&mut cx),
                _ => sink.as_mut().poll_close(&mut cx),
            }
        })?;
        self.cx.trace(format!("{what} → {}", show(&answer)));
        Ok(answer)
    }

    pub(super) fn start_send(&mut self, rule: &str) -> Result<Result<(), F::Error>, Failure> {
        let item = self.sent;
        let sink = &mut self.sink;
        let result = self.cx.try_step(rule, format!("start_send({item})"), || {
            sink.as_mut().start_send(item)
        })?;
        match &result {
            Ok(()) => self.sent += 1,
            Err(error) => self
                .cx
                .trace(format!("start_send({item}) → Err({error:?})")),
        }
        Ok(result)
    }

    /// Takes every item delivered so far; how many.
    pub(super) fn take_delivered(&mut self) -> usize {
        let before = self.delivered.len();
        while let Some(item) = self.delivery.take() {
            self.cx.trace(format!("delivery: took {item}"));
            self.delivered.push(item);
        }
        self.delivered.len() - before
    }

    /// Calls `method` until it is ready, taking what was delivered after
    /// each `Pending` and waiting a little for a wake-up (lenient: the
    /// wake-up rule is `sink.1`'s).
    pub(super) fn until_ready(
        &mut self,
        method: &str,
        rule: &str,
    ) -> Result<Result<(), F::Error>, Failure> {
        let timeout = self.cx.env().timeout();
        let slice = poll_slice(self.cx.env());
        let deadline = Instant::now() + timeout;
        let waker = self.wakers.fresh();
        loop {
            let since = waker.wakes();
            match self.call(method, &waker, rule)? {
                Poll::Ready(result) => return Ok(result),
                Poll::Pending if Instant::now() >= deadline => {
                    return Err(self.cx.failure(
                        format!("{method} to be ready while the TCK takes every delivered item"),
                        format!("Pending for {} ms", timeout.as_millis()),
                    ));
                }
                Poll::Pending => {
                    self.take_delivered();
                    waker.wait_woken(since, slice);
                }
            }
        }
    }

    /// Pauses the destination if it can be, then sends with `waker` until
    /// `poll_ready` returns `Pending`, at most [`FILL_LIMIT`] items: whether
    /// it did, or why the sink could not be filled (`poll_ready` failed).
    /// A refused `start_send` after a ready `poll_ready` fails
    /// `tck.sink_accepts_when_ready`.
    pub(super) fn fill(
        &mut self,
        waker: &Arc<WakeProbe>,
        rule: &str,
    ) -> Result<Result<bool, String>, Failure> {
        if self.can_pause() {
            self.pause(true);
        }
        while self.sent < FILL_LIMIT {
            match self.call("poll_ready", waker, rule)? {
                Poll::Ready(Ok(())) => {
                    if self.start_send(rule)?.is_err() {
                        return Err(self.cx.failure_of(
                            "tck.sink_accepts_when_ready",
                            "start_send after poll_ready returned Ready(Ok(())) to accept the item",
                            "Err",
                        ));
                    }
                }
                Poll::Ready(Err(error)) => {
                    return Ok(Err(format!(
                        "poll_ready failed before the sink was full: {error:?}"
                    )));
                }
                Poll::Pending => return Ok(Ok(true)),
            }
        }
        Ok(Ok(false))
    }

    /// `poll_ready` until ready, then `start_send`; `Ok(false)` if the sink
    /// refused with an error.
    pub(super) fn send(&mut self, rule: &str) -> Result<bool, Failure> {
        if self.until_ready("poll_ready", rule)?.is_err() {
            return Ok(false);
        }
        Ok(self.start_send(rule)?.is_ok())
    }
}
