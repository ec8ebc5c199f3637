//! Self-tests of the `futures::Sink` verification: a correct bounded sink
//! (with and without a buffer of its own) passes; each broken sink fails
//! exactly the rule it breaks, with a snapshotted message.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::sink::{Delivery, SinkFactory, SinkVerification};
use rstest::rstest;

const ROOM: usize = 2;

/// One deliberate bug each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bug {
    /// `poll_ready` on a full queue returns `Pending` without keeping the
    /// waker (sink.1).
    NeverWakes,
    /// `poll_flush` reports success with its last buffered item dropped
    /// (sink.2).
    LosesOnFlush,
    /// After `poll_close`, it still accepts and flushes items, and drops
    /// them (sink.3).
    AcceptsAfterClose,
}

#[derive(Default)]
struct Queue {
    items: VecDeque<u64>,
    waker: Option<Waker>,
}

/// A sink into a queue of `ROOM` items, optionally through a buffer of its
/// own that only a flush empties.
struct QueueSink {
    queue: Arc<Mutex<Queue>>,
    buffer: Option<Vec<u64>>,
    closed: bool,
    bug: Option<Bug>,
}

impl QueueSink {
    fn poll_room(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), String>> {
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
            other => other,
        }
    }
}

#[derive(Clone, Copy)]
struct Sinks {
    buffered: bool,
    bug: Option<Bug>,
}

impl SinkFactory for Sinks {
    type Error = String;
    type Sink = QueueSink;

    fn create_sink(&self) -> (QueueSink, Delivery) {
        let queue = Arc::new(Mutex::new(Queue::default()));
        let consumer = queue.clone();
        let delivery = Delivery::new(move || {
            let mut queue = consumer.lock();
            let item = queue.items.pop_front();
            if item.is_some() {
                if let Some(waker) = queue.waker.take() {
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
        };
        (sink, delivery)
    }
}

fn verdicts(factory: Sinks) -> Vec<(String, Verdict, Option<String>)> {
    SinkVerification::new(factory)
        .env(TestEnv::default())
        .run_all()
        .unwrap()
        .into_iter()
        .map(|r| (r.rule, r.verdict, r.message))
        .collect()
}

#[rstest]
#[case::direct(false)]
#[case::buffered(true)]
fn a_correct_sink_passes(#[case] buffered: bool) {
    for (rule, verdict, message) in verdicts(Sinks {
        buffered,
        bug: None,
    }) {
        assert_eq!(verdict, Verdict::Passed, "{rule}: {message:?}");
    }
}

#[rstest]
#[case::never_wakes(Bug::NeverWakes, false, &["sink.1"])]
// Its close flushes the same way, so it loses an item on close too.
#[case::loses_on_flush(Bug::LosesOnFlush, true, &["sink.2", "sink.3"])]
#[case::accepts_after_close(Bug::AcceptsAfterClose, false, &["sink.3"])]
fn a_broken_sink_fails_exactly_its_rules(
    #[case] bug: Bug,
    #[case] buffered: bool,
    #[case] failing: &[&str],
) {
    let results = verdicts(Sinks {
        buffered,
        bug: Some(bug),
    });
    let failed: Vec<&str> = results
        .iter()
        .filter(|(_, verdict, _)| *verdict == Verdict::Failed)
        .map(|(rule, _, _)| rule.as_str())
        .collect();
    assert_eq!(failed, failing, "{results:#?}");
    let message = results
        .iter()
        .find(|(rule, _, _)| rule == failing[0])
        .and_then(|(_, _, message)| message.clone())
        .unwrap();
    insta::with_settings!({ snapshot_suffix => format!("{bug:?}") }, {
        insta::assert_snapshot!(message);
    });
}

reactive_streams_tck::sink_verification!(
    queue_sink,
    Sinks {
        buffered: true,
        bug: None
    }
);
