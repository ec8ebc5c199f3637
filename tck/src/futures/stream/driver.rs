//! The TCK's own executor for one stream: it polls with named, instrumented
//! wakers ([`WakeProbe`]), traces every poll and its answer, and counts what
//! the stream yielded. No runtime is involved: the rule's thread polls, and
//! a wake-up only tells it that polling again is worthwhile.

use std::fmt::Debug;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use futures_core::Stream;

use crate::context::{Failure, RuleCx};
use crate::wakers::{WakeProbe, WakerSet, poll_slice};

/// One poll's answer, as traces print it.
pub(crate) fn show<T: Debug>(answer: &Poll<Option<T>>) -> String {
    match answer {
        Poll::Pending => String::from("Pending"),
        Poll::Ready(Some(item)) => format!("Ready(Some({item:?}))"),
        Poll::Ready(None) => String::from("Ready(None)"),
    }
}

/// A stream under test and what the TCK knows about it.
pub(crate) struct Driver<S: Stream> {
    pub(crate) cx: RuleCx,
    stream: Option<Pin<Box<S>>>,
    /// How the stream was made (`create_stream(3)`, `fed stream`).
    pub(crate) label: String,
    pub(crate) wakers: WakerSet,
    /// Items yielded so far.
    pub(crate) yielded: u64,
    /// Whether it has returned `Ready(None)`.
    pub(crate) ended: bool,
    /// Whether it is a latest-value stream (its factory declares
    /// `latest_value()`).
    pub(crate) latest: bool,
    polls: u64,
}

impl<S: Stream + Send> Driver<S>
where
    S::Item: Debug,
{
    pub(crate) fn new(cx: &RuleCx, stream: S, label: impl Into<String>) -> Self {
        let label = label.into();
        cx.trace(format!("{label}: made"));
        Driver {
            cx: cx.clone(),
            stream: Some(Box::pin(stream)),
            label,
            wakers: WakerSet::new(cx),
            yielded: 0,
            ended: false,
            latest: false,
            polls: 0,
        }
    }

    /// The same driver, for a latest-value stream if `latest`.
    pub(crate) fn latest_value(mut self, latest: bool) -> Self {
        self.latest = latest;
        self
    }

    pub(crate) fn stream(&self) -> Option<&S> {
        self.stream.as_deref()
    }

    /// `size_hint()`, traced.
    pub(crate) fn size_hint(&self) -> (usize, Option<usize>) {
        let hint = self.stream.as_ref().map_or((0, Some(0)), |s| s.size_hint());
        self.cx.trace(format!("size_hint() → {hint:?}"));
        hint
    }

    /// A new named waker.
    pub(crate) fn fresh_waker(&mut self) -> Arc<WakeProbe> {
        self.wakers.fresh()
    }

    /// One `poll_next` with `waker`; a panic fails `rule`.
    pub(crate) fn poll(
        &mut self,
        waker: &Arc<WakeProbe>,
        rule: &str,
    ) -> Result<Poll<Option<S::Item>>, Failure> {
        let stream = self
            .stream
            .as_mut()
            .expect("rs-tck: poll after the stream was dropped");
        self.polls += 1;
        let what = format!("poll_next [{}] #{}", waker.name(), self.polls);
        let std_waker = waker.waker();
        let answer = self.cx.try_step(rule, what.clone(), || {
            stream
                .as_mut()
                .poll_next(&mut Context::from_waker(&std_waker))
        })?;
        drop(std_waker);
        self.cx.trace(format!("{what} → {}", show(&answer)));
        match &answer {
            Poll::Ready(Some(_)) => self.yielded += 1,
            Poll::Ready(None) => self.ended = true,
            Poll::Pending => {}
        }
        Ok(answer)
    }

    /// Drops the stream; a panic fails `rule`.
    pub(crate) fn drop_stream(&mut self, rule: &str) -> Result<(), Failure> {
        if let Some(stream) = self.stream.take() {
            self.cx
                .try_step(rule, format!("drop({})", self.label), || drop(stream))?;
        }
        Ok(())
    }

    /// Polls until the stream yields an item or ends, without holding it to
    /// wake-ups: after each `Pending` it waits for the wake-up at most
    /// `slice`, then polls again anyway. Rules other than the wake-up rules
    /// use this, so that a lost wake-up fails `stream.1`/`stream.2` only.
    /// `Ok(None)` at the end; a stream that makes no progress within the
    /// rule's timeout withholds an item or end it owes: that breaks the
    /// factory's promise, `tck.stream_gives_exactly_n` (data loss is never
    /// only a warning), and another rule's test reports it "not
    /// concluded", not as a failure of its own rule.
    pub(crate) fn next_lenient(&mut self, rule: &str) -> Result<Option<S::Item>, Failure> {
        let timeout = self.cx.env().timeout();
        let slice = poll_slice(self.cx.env());
        let deadline = Instant::now() + timeout;
        let waker = self.fresh_waker();
        loop {
            let since = waker.wakes();
            match self.poll(&waker, rule)? {
                Poll::Ready(item) => return Ok(item),
                Poll::Pending => {
                    if Instant::now() >= deadline {
                        return Err(self.cx.failure_of(
                            super::rules::EXACT_ITEMS,
                            format!(
                                "{} to yield its item #{} or its end",
                                self.label,
                                self.yielded + 1
                            ),
                            format!(
                                "poll_next returned Pending for {} ms, woken or not",
                                timeout.as_millis()
                            ),
                        ));
                    }
                    waker.wait_woken(since, slice);
                }
            }
        }
    }

    /// Polls until the end, leniently; the number of items yielded on the
    /// way.
    pub(crate) fn drain_lenient(&mut self, rule: &str) -> Result<u64, Failure> {
        let before = self.yielded;
        while self.next_lenient(rule)?.is_some() {}
        Ok(self.yielded - before)
    }
}
