//! Widely used `futures::Stream` implementations, verified exactly as
//! published with the TCK's stream verification (`stream.1` … `stream.7`
//! and the extended schedules). Each test pins the verdict of every rule;
//! the README's table is this file's result. A rule one of them breaks is a
//! finding, asserted here with its message, not hidden.
//!
//! Only an adapter that changes nothing the rules observe is added: the
//! tokio interval is polled inside its runtime's context (`Handle::enter`),
//! which tokio's timers need.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::{ready, Ready};
use futures::stream::{FusedStream, Iter, Unfold};
use futures::Stream;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::extended::ExtendedConfig;
use reactive_streams_tck::outcome::{RuleResult, Verdict};
use reactive_streams_tck::stream::{Feeder, StreamFactory, StreamVerification};

/// Runs every stream rule test against `factory` and returns
/// `(rule, verdict)` in order, printing the message of each rule that did
/// not pass.
fn verify<F: StreamFactory>(name: &str, factory: F) -> Vec<(String, Verdict)> {
    let results = StreamVerification::new(factory)
        .target(name)
        .env(TestEnv::default())
        .extended(ExtendedConfig::builder().cases(64).seed(17).build())
        .run_all()
        .unwrap();
    for result in results.iter().filter(|r| r.verdict != Verdict::Passed) {
        println!(
            "{name} {}: {:?}: {}",
            result.rule,
            result.verdict,
            message(result)
        );
    }
    results.into_iter().map(|r| (r.rule, r.verdict)).collect()
}

fn message(result: &RuleResult) -> &str {
    result.message.as_deref().unwrap_or_default()
}

use Verdict::{Passed as P, Skipped as S};

/// Every rule passes, except those listed as skipped.
fn all_pass_but_skipped(skipped: &[&str]) -> Vec<(String, Verdict)> {
    [
        "stream.1",
        "stream.2",
        "stream.3",
        "stream.4",
        "stream.5",
        "stream.6",
        "stream.7",
        "tck.configuration",
        "tck.stream_gives_exactly_n",
        "tck.extended_schedules",
    ]
    .into_iter()
    .map(|rule| {
        (
            rule.to_string(),
            if skipped.contains(&rule) { S } else { P },
        )
    })
    .collect()
}

// ---------------------------------------------------------------- futures

struct MpscUnbounded;

impl StreamFactory for MpscUnbounded {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = futures::channel::mpsc::UnboundedReceiver<u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (sender, receiver) = futures::channel::mpsc::unbounded();
        for i in 0..items {
            sender.unbounded_send(i).unwrap();
        }
        receiver
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (sender, receiver) = futures::channel::mpsc::unbounded();
        let probe = sender.clone();
        let feeder = Feeder::new(move |i| sender.unbounded_send(i).unwrap())
            .closed(move || probe.is_closed());
        Some((receiver, feeder))
    }
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        Some(FusedStream::is_terminated(stream))
    }
}

struct MpscBounded;

impl StreamFactory for MpscBounded {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = futures::channel::mpsc::Receiver<u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (mut sender, receiver) = futures::channel::mpsc::channel(items as usize);
        for i in 0..items {
            sender.try_send(i).unwrap();
        }
        receiver
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (mut sender, receiver) = futures::channel::mpsc::channel(1);
        let probe = sender.clone();
        let feeder = Feeder::new(move |i| sender.try_send(i).unwrap())
            .closed(move || probe.is_closed())
            .capacity(1);
        Some((receiver, feeder))
    }
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        Some(FusedStream::is_terminated(stream))
    }
}

struct StreamIter;

impl StreamFactory for StreamIter {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = Iter<std::ops::Range<u64>>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        futures::stream::iter(0..items)
    }
}

type Step = fn((u64, u64)) -> Ready<Option<(u64, (u64, u64))>>;

fn count_up((next, end): (u64, u64)) -> Ready<Option<(u64, (u64, u64))>> {
    ready((next < end).then_some((next, (next + 1, end))))
}

struct StreamUnfold;

impl StreamFactory for StreamUnfold {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = Unfold<(u64, u64), Step, Ready<Option<(u64, (u64, u64))>>>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        futures::stream::unfold((0, items), count_up as Step)
    }
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        Some(FusedStream::is_terminated(stream))
    }
}

// ------------------------------------------------------------------ tokio

struct TokioMpsc;

impl StreamFactory for TokioMpsc {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = tokio_stream::wrappers::ReceiverStream<u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (sender, receiver) = tokio::sync::mpsc::channel(items.max(1) as usize);
        for i in 0..items {
            sender.try_send(i).unwrap();
        }
        tokio_stream::wrappers::ReceiverStream::new(receiver)
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (sender, receiver) = tokio::sync::mpsc::channel(1);
        let probe = sender.clone();
        let feeder = Feeder::new(move |i| sender.try_send(i).unwrap())
            .closed(move || probe.is_closed())
            .capacity(1);
        Some((
            tokio_stream::wrappers::ReceiverStream::new(receiver),
            feeder,
        ))
    }
}

/// A stream polled inside a tokio runtime's context, as tokio's timers
/// need; it changes nothing else.
struct InRuntime<S> {
    handle: tokio::runtime::Handle,
    inner: S,
}

impl<S: Stream + Unpin> Stream for InRuntime<S> {
    type Item = S::Item;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let this = self.get_mut();
        let _context = this.handle.enter();
        Pin::new(&mut this.inner).poll_next(cx)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

struct Interval {
    runtime: tokio::runtime::Runtime,
}

impl Interval {
    fn new() -> Interval {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_time()
            .build()
            .unwrap();
        Interval { runtime }
    }
}

impl StreamFactory for Interval {
    type Item = tokio::time::Instant;
    type Stream = InRuntime<tokio_stream::wrappers::IntervalStream>;
    fn create_stream(&self, _items: u64) -> Self::Stream {
        let handle = self.runtime.handle().clone();
        let inner = {
            let _context = handle.enter();
            tokio_stream::wrappers::IntervalStream::new(tokio::time::interval(
                Duration::from_millis(1),
            ))
        };
        InRuntime { handle, inner }
    }
    fn endless(&self) -> bool {
        true
    }
}

// ---------------------------------------------------------- async-channel

struct AsyncChannel {
    capacity: Option<usize>,
}

impl StreamFactory for AsyncChannel {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = async_channel::Receiver<u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (sender, receiver) = match self.capacity {
            Some(_) => async_channel::bounded(items.max(1) as usize),
            None => async_channel::unbounded(),
        };
        for i in 0..items {
            sender.try_send(i).unwrap();
        }
        receiver
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (sender, receiver) = match self.capacity {
            Some(capacity) => async_channel::bounded(capacity),
            None => async_channel::unbounded(),
        };
        let probe = sender.clone();
        let mut feeder =
            Feeder::new(move |i| sender.try_send(i).unwrap()).closed(move || probe.is_closed());
        if let Some(capacity) = self.capacity {
            feeder = feeder.capacity(capacity as u64);
        }
        Some((receiver, feeder))
    }
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        Some(FusedStream::is_terminated(stream))
    }
}

// ------------------------------------------------------------------ flume

struct Flume {
    capacity: Option<usize>,
}

impl StreamFactory for Flume {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = flume::r#async::RecvStream<'static, u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (sender, receiver) = match self.capacity {
            Some(_) => flume::bounded(items.max(1) as usize),
            None => flume::unbounded(),
        };
        for i in 0..items {
            sender.try_send(i).unwrap();
        }
        receiver.into_stream()
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (sender, receiver) = match self.capacity {
            Some(capacity) => flume::bounded(capacity),
            None => flume::unbounded(),
        };
        let probe = sender.clone();
        let mut feeder = Feeder::new(move |i| sender.try_send(i).unwrap())
            .closed(move || probe.is_disconnected());
        if let Some(capacity) = self.capacity {
            feeder = feeder.capacity(capacity as u64);
        }
        Some((receiver.into_stream(), feeder))
    }
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        Some(FusedStream::is_terminated(stream))
    }
}

// ------------------------------------------------------------------ tests

#[test]
fn futures_mpsc_unbounded() {
    assert_eq!(
        verify("futures mpsc unbounded", MpscUnbounded),
        all_pass_but_skipped(&[])
    );
}

#[test]
fn futures_mpsc_bounded() {
    assert_eq!(
        verify("futures mpsc bounded", MpscBounded),
        all_pass_but_skipped(&[])
    );
}

#[test]
fn futures_stream_iter() {
    // No feeder (nothing to race), not a FusedStream.
    assert_eq!(
        verify("futures::stream::iter", StreamIter),
        all_pass_but_skipped(&["stream.2", "stream.4"])
    );
}

#[test]
fn futures_stream_unfold() {
    assert_eq!(
        verify("futures::stream::unfold", StreamUnfold),
        all_pass_but_skipped(&["stream.2"])
    );
}

#[test]
fn tokio_mpsc_receiver_stream() {
    // ReceiverStream is not a FusedStream.
    assert_eq!(
        verify("tokio mpsc ReceiverStream", TokioMpsc),
        all_pass_but_skipped(&["stream.4"])
    );
}

#[test]
fn tokio_interval_stream() {
    // Endless with no feeder: no race, no end to fuse.
    assert_eq!(
        verify("tokio IntervalStream", Interval::new()),
        all_pass_but_skipped(&["stream.2", "stream.4"])
    );
}

#[test]
fn async_channel_bounded_and_unbounded() {
    for capacity in [Some(1), None] {
        assert_eq!(
            verify(
                &format!("async-channel {capacity:?}"),
                AsyncChannel { capacity }
            ),
            all_pass_but_skipped(&[])
        );
    }
}

#[test]
fn flume_bounded_and_unbounded() {
    for capacity in [Some(1), None] {
        assert_eq!(
            verify(&format!("flume {capacity:?}"), Flume { capacity }),
            all_pass_but_skipped(&[])
        );
    }
}

// ------------------------------------------------------------------ sinks

use reactive_streams_tck::sink::{Delivery, SinkFactory, SinkVerification};

/// Runs every sink rule test against `factory`: `(rule, verdict)` in
/// order, printing the message of each rule that did not pass.
fn verify_sink<F: SinkFactory>(name: &str, factory: F) -> Vec<(String, Verdict)> {
    let results = SinkVerification::new(factory)
        .target(name)
        .env(TestEnv::default())
        .extended(ExtendedConfig::builder().cases(64).seed(17).build())
        .run_all()
        .unwrap();
    for result in results.iter().filter(|r| r.verdict != Verdict::Passed) {
        println!(
            "{name} {}: {:?}: {}",
            result.rule,
            result.verdict,
            message(result)
        );
    }
    results.into_iter().map(|r| (r.rule, r.verdict)).collect()
}

fn sink_verdicts(sink_1: Verdict) -> Vec<(String, Verdict)> {
    vec![
        ("sink.1".to_string(), sink_1),
        ("sink.2".to_string(), P),
        ("sink.3".to_string(), P),
        ("tck.extended_schedules".to_string(), P),
    ]
}

struct MpscSender;

impl SinkFactory for MpscSender {
    type Error = futures::channel::mpsc::SendError;
    type Sink = futures::channel::mpsc::Sender<u64>;
    fn create_sink(&self) -> (Self::Sink, Delivery) {
        let (sender, mut receiver) = futures::channel::mpsc::channel(1);
        (sender, Delivery::new(move || receiver.try_recv().ok()))
    }
}

struct MpscUnboundedSender;

impl SinkFactory for MpscUnboundedSender {
    type Error = futures::channel::mpsc::SendError;
    type Sink = futures::channel::mpsc::UnboundedSender<u64>;
    fn create_sink(&self) -> (Self::Sink, Delivery) {
        let (sender, mut receiver) = futures::channel::mpsc::unbounded();
        (sender, Delivery::new(move || receiver.try_recv().ok()))
    }
    // Unbounded: its poll_ready, poll_flush and poll_close never wait.
    fn never_waits(&self) -> bool {
        true
    }
}

struct FlumeSink {
    capacity: Option<usize>,
}

impl SinkFactory for FlumeSink {
    type Error = flume::SendError<u64>;
    type Sink = flume::r#async::SendSink<'static, u64>;
    fn create_sink(&self) -> (Self::Sink, Delivery) {
        let (sender, receiver) = match self.capacity {
            Some(capacity) => flume::bounded(capacity),
            None => flume::unbounded(),
        };
        (
            sender.into_sink(),
            Delivery::new(move || receiver.try_recv().ok()),
        )
    }
    fn never_waits(&self) -> bool {
        self.capacity.is_none()
    }
}

#[test]
fn futures_mpsc_senders_as_sinks() {
    assert_eq!(
        verify_sink("futures mpsc Sender", MpscSender),
        sink_verdicts(P)
    );
    // Never full: it declares never_waits(), so there is nothing to wake.
    assert_eq!(
        verify_sink("futures mpsc UnboundedSender", MpscUnboundedSender),
        sink_verdicts(S)
    );
}

#[test]
fn flume_send_sinks() {
    assert_eq!(
        verify_sink("flume SendSink bounded(1)", FlumeSink { capacity: Some(1) }),
        sink_verdicts(P)
    );
    assert_eq!(
        verify_sink("flume SendSink unbounded", FlumeSink { capacity: None }),
        sink_verdicts(S)
    );
}
