//! Self-tests of the `futures::Sink` verification: a correct bounded sink
//! (with and without a buffer of its own) passes; each broken sink fails
//! exactly the rule it breaks, with a snapshotted message.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::extended::ExtendedConfig;
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
        };
        (sink, delivery)
    }
}

/// The verdicts of the quick rule tests.
fn verdicts(factory: Sinks) -> Vec<(String, Verdict, Option<String>)> {
    SinkVerification::new(factory)
        .env(TestEnv::default())
        .run_quick()
        .unwrap()
        .into_iter()
        .map(|r| (r.rule, r.verdict, r.message))
        .collect()
}

#[rstest]
#[case::direct(false)]
#[case::buffered(true)]
fn a_correct_sink_passes(#[case] buffered: bool) {
    let results = SinkVerification::new(Sinks {
        buffered,
        bug: None,
    })
    .env(TestEnv::default())
    .extended(ExtendedConfig::builder().cases(64).seed(17).build())
    .run_all()
    .unwrap();
    assert_eq!(results.len(), 4);
    for result in results {
        assert_eq!(result.verdict, Verdict::Passed, "{result:#?}");
    }
}

#[rstest]
#[case::never_wakes(Bug::NeverWakes, false, &["sink.1"])]
// Its close flushes the same way, so it loses an item on close too.
#[case::loses_on_flush(Bug::LosesOnFlush, true, &["sink.2", "sink.3"])]
#[case::accepts_after_close(Bug::AcceptsAfterClose, false, &["sink.3"])]
#[case::loses_close_wakeup(Bug::LosesCloseWakeup, true, &["sink.1"])]
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

/// A bug no quick rule test finds: the extended schedules mix
/// `poll_flush` and `poll_ready` and shrink it to a minimal script, which
/// fails `sink.1`.
#[test]
fn the_extended_schedules_find_a_flush_waker_woken_instead_of_the_ready_one() {
    let factory = Sinks {
        buffered: true,
        bug: Some(Bug::FlushWakerFirst),
    };
    for (rule, verdict, message) in verdicts(factory) {
        assert_eq!(verdict, Verdict::Passed, "{rule}: {message:?}");
    }
    let result = SinkVerification::new(factory)
        .env(
            TestEnv::builder()
                .timeout(std::time::Duration::from_millis(100))
                .build(),
        )
        .extended(ExtendedConfig::builder().cases(64).seed(5).build())
        .run("tck_extended_schedules")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Failed);
    let message = result.message.unwrap();
    let (script, rest) = message.split_once(" → ").unwrap();
    assert!(
        rest.starts_with("sink.1: expected a wake-up of "),
        "{message}"
    );
    let flush = script.find("poll_flush [").expect(script);
    let ready = script.rfind("poll_ready [").expect(script);
    assert!(flush < ready, "{script}");
    assert!(script.ends_with("take delivered"), "{script}");
    insta::assert_snapshot!(message);
}

reactive_streams_tck::sink_verification!(
    queue_sink,
    Sinks {
        buffered: true,
        bug: None
    }
);
