//! Widely used `futures::Stream` implementations, verified exactly as
//! published with the stream verification (`stream.1` … `stream.7`).

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::{Ready, ready};
use futures::stream::{FusedStream, Iter, Unfold};
use futures::{Stream, StreamExt};
use reactive_streams_tck::futures::stream::{Feeder, StreamFactory};

use crate::support::InRuntime;

crate::census! {
    futures_mpsc_unbounded: stream_verification(MpscUnbounded), "futures-channel", "mpsc::UnboundedReceiver";
    futures_mpsc_bounded: stream_verification(MpscBounded), "futures-channel", "mpsc::Receiver (channel(1))";
    futures_stream_iter: stream_verification(StreamIter), "futures-util", "stream::iter";
    futures_stream_unfold: stream_verification(StreamUnfold), "futures-util", "stream::unfold";
    futures_ordered: stream_verification(Ordered), "futures-util", "stream::FuturesOrdered (ready futures)";
    futures_unordered: stream_verification(Unordered), "futures-util", "stream::FuturesUnordered (ready futures)";
    tokio_receiver_stream: stream_verification(TokioMpsc), "tokio-stream", "wrappers::ReceiverStream (tokio mpsc)";
    tokio_unbounded_receiver_stream: stream_verification(TokioUnbounded), "tokio-stream", "wrappers::UnboundedReceiverStream";
    tokio_interval_stream: stream_verification(Interval), "tokio-stream", "wrappers::IntervalStream (1 ms, endless)";
    tokio_broadcast_stream: stream_verification(TokioBroadcast), "tokio-stream", "wrappers::BroadcastStream (capacity 4)";
    tokio_stream_iter: stream_verification(TokioIter), "tokio-stream", "iter";
    async_channel_bounded: stream_verification(AsyncChannel { capacity: Some(1) }), "async-channel", "Receiver (bounded(1))";
    async_channel_unbounded: stream_verification(AsyncChannel { capacity: None }), "async-channel", "Receiver (unbounded)";
    flume_bounded: stream_verification(Flume { capacity: Some(1) }), "flume", "RecvStream (bounded(1))";
    flume_unbounded: stream_verification(Flume { capacity: None }), "flume", "RecvStream (unbounded)";
    kanal_bounded: stream_verification(Kanal { capacity: Some(1) }), "kanal", "ReceiveStream (bounded_async(1))", breaks KANAL;
    kanal_unbounded: stream_verification(Kanal { capacity: None }), "kanal", "ReceiveStream (unbounded_async)", breaks KANAL;
    postage_mpsc: stream_verification(PostageMpsc), "postage", "mpsc::Receiver (channel(4))";
    async_broadcast_receiver: stream_verification(AsyncBroadcast), "async-broadcast", "Receiver (broadcast(4))";
    async_stream_generator: stream_verification(Generator), "async-stream", "stream! over a futures mpsc receiver";
    tokio_util_framed_read: stream_verification(FramedLines), "tokio-util", "codec::FramedRead<DuplexStream, LinesCodec>";
    tokio_lines_stream: stream_verification(DuplexLines), "tokio-stream", "wrappers::LinesStream over tokio::io::duplex";
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

struct Interval;

impl StreamFactory for Interval {
    type Item = tokio::time::Instant;
    type Stream = InRuntime<tokio_stream::wrappers::IntervalStream>;
    fn create_stream(&self, _items: u64) -> Self::Stream {
        InRuntime::make(|| {
            tokio_stream::wrappers::IntervalStream::new(tokio::time::interval(
                Duration::from_millis(1),
            ))
        })
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

struct Ordered;

impl StreamFactory for Ordered {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = futures::stream::FuturesOrdered<Ready<u64>>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        (0..items).map(ready).collect()
    }
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        Some(FusedStream::is_terminated(stream))
    }
}

/// Completion order is unspecified: no `item_index`.
struct Unordered;

impl StreamFactory for Unordered {
    type Item = u64;
    type Stream = futures::stream::FuturesUnordered<Ready<u64>>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        (0..items).map(ready).collect()
    }
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        Some(FusedStream::is_terminated(stream))
    }
}

// ------------------------------------------------------------------ tokio

struct TokioUnbounded;

impl StreamFactory for TokioUnbounded {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = tokio_stream::wrappers::UnboundedReceiverStream<u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        for i in 0..items {
            sender.send(i).unwrap();
        }
        tokio_stream::wrappers::UnboundedReceiverStream::new(receiver)
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        let probe = sender.clone();
        let feeder =
            Feeder::new(move |i| sender.send(i).unwrap()).closed(move || probe.is_closed());
        Some((
            tokio_stream::wrappers::UnboundedReceiverStream::new(receiver),
            feeder,
        ))
    }
}

struct TokioBroadcast;

impl StreamFactory for TokioBroadcast {
    type Item = Result<u64, tokio_stream::wrappers::errors::BroadcastStreamRecvError>;
    fn item_index(&self, item: &Self::Item) -> Option<u64> {
        item.as_ref().ok().copied()
    }
    type Stream = tokio_stream::wrappers::BroadcastStream<u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (sender, receiver) = tokio::sync::broadcast::channel(items.max(1) as usize);
        for i in 0..items {
            sender.send(i).unwrap();
        }
        tokio_stream::wrappers::BroadcastStream::new(receiver)
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (sender, receiver) = tokio::sync::broadcast::channel(4);
        let probe = sender.clone();
        let feeder = Feeder::new(move |i| {
            sender.send(i).unwrap();
        })
        .closed(move || probe.receiver_count() == 0)
        .capacity(4);
        Some((
            tokio_stream::wrappers::BroadcastStream::new(receiver),
            feeder,
        ))
    }
}

struct TokioIter;

impl StreamFactory for TokioIter {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = tokio_stream::Iter<std::ops::Range<u64>>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        tokio_stream::iter(0..items)
    }
}

// ------------------------------------------------------------------ kanal

/// A finding (see `findings.rs`): an item yielded twice when the stream is
/// polled again after `Pending`, and, in the extended schedules, the
/// process aborted by a corrupted heap.
const KANAL: [&str; 2] = ["tck.stream_gives_exactly_n", crate::support::ABORTS];

/// kanal's stream borrows its receiver: the two are kept together.
struct KanalStream {
    stream: std::mem::ManuallyDrop<kanal::ReceiveStream<'static, u64>>,
    receiver: *mut kanal::AsyncReceiver<u64>,
}

// SAFETY: the receiver is owned here (only the stream borrows it) and
// both are `Send`; the raw pointer is what keeps the borrow sound.
unsafe impl Send for KanalStream {}

impl KanalStream {
    fn new(receiver: kanal::AsyncReceiver<u64>) -> Self {
        let receiver = Box::into_raw(Box::new(receiver));
        // SAFETY: the receiver lives on the heap until `drop`, which drops
        // the stream first; it is never moved or used mutably meanwhile.
        let stream = unsafe { (*receiver).stream() };
        KanalStream {
            stream: std::mem::ManuallyDrop::new(stream),
            receiver,
        }
    }
}

impl Drop for KanalStream {
    fn drop(&mut self) {
        // SAFETY: dropped once, the borrowing stream before its receiver.
        unsafe {
            std::mem::ManuallyDrop::drop(&mut self.stream);
            drop(Box::from_raw(self.receiver));
        }
    }
}

impl Stream for KanalStream {
    type Item = u64;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<u64>> {
        self.get_mut().stream.poll_next_unpin(cx)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.stream.size_hint()
    }
}

struct Kanal {
    capacity: Option<usize>,
}

impl Kanal {
    fn channel(&self, room: usize) -> (kanal::AsyncSender<u64>, kanal::AsyncReceiver<u64>) {
        match self.capacity {
            Some(_) => kanal::bounded_async(room),
            None => kanal::unbounded_async(),
        }
    }
}

impl StreamFactory for Kanal {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = KanalStream;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (sender, receiver) = self.channel(items.max(1) as usize);
        for i in 0..items {
            assert!(sender.try_send(i).unwrap());
        }
        KanalStream::new(receiver)
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (sender, receiver) = self.channel(self.capacity.unwrap_or(1));
        let probe = sender.clone();
        let mut feeder = Feeder::new(move |i| assert!(sender.try_send(i).unwrap()))
            .closed(move || probe.is_disconnected());
        if let Some(capacity) = self.capacity {
            feeder = feeder.capacity(capacity as u64);
        }
        Some((KanalStream::new(receiver), feeder))
    }
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        Some(FusedStream::is_terminated(&*stream.stream))
    }
}

// ---------------------------------------------------------------- postage

struct PostageMpsc;

impl StreamFactory for PostageMpsc {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = postage::mpsc::Receiver<u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        use postage::sink::Sink;
        let (mut sender, receiver) = postage::mpsc::channel(items.max(1) as usize);
        for i in 0..items {
            sender.try_send(i).unwrap();
        }
        receiver
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        use postage::sink::Sink;
        let (mut sender, receiver) = postage::mpsc::channel(4);
        let feeder = Feeder::new(move |i| sender.try_send(i).unwrap()).capacity(4);
        Some((receiver, feeder))
    }
}

// -------------------------------------------------------- async-broadcast

struct AsyncBroadcast;

impl StreamFactory for AsyncBroadcast {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = async_broadcast::Receiver<u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (sender, receiver) = async_broadcast::broadcast(items.max(1) as usize);
        for i in 0..items {
            sender.try_broadcast(i).unwrap();
        }
        receiver
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (sender, receiver) = async_broadcast::broadcast(4);
        let probe = sender.clone();
        let feeder = Feeder::new(move |i| {
            sender.try_broadcast(i).unwrap();
        })
        .closed(move || probe.is_closed())
        .capacity(4);
        Some((receiver, feeder))
    }
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        Some(FusedStream::is_terminated(stream))
    }
}

// ----------------------------------------------------------- async-stream

struct Generator;

impl StreamFactory for Generator {
    type Item = u64;
    fn item_index(&self, item: &u64) -> Option<u64> {
        Some(*item)
    }
    type Stream = futures::stream::BoxStream<'static, u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        async_stream::stream! {
            for i in 0..items {
                yield i;
            }
        }
        .boxed()
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (sender, mut receiver) = futures::channel::mpsc::unbounded::<u64>();
        let probe = sender.clone();
        let stream = async_stream::stream! {
            while let Some(i) = receiver.next().await {
                yield i;
            }
        };
        let feeder = Feeder::new(move |i| sender.unbounded_send(i).unwrap())
            .closed(move || probe.is_closed());
        Some((stream.boxed(), feeder))
    }
}

// ----------------------------------------------- tokio-util, tokio-stream

/// Room in the in-memory pipe, in bytes: far more than the TCK ever has
/// unread.
const PIPE: usize = 4096;
const LINES: u64 = 16;

/// Writes `i` as a line into the pipe (an in-memory duplex: no runtime
/// needed); the TCK keeps at most [`LINES`] unread, so it never blocks.
fn write_line(writer: &mut tokio::io::DuplexStream, i: u64) {
    use tokio::io::AsyncWriteExt;
    futures::executor::block_on(writer.write_all(format!("{i}\n").as_bytes())).unwrap();
}

/// A duplex pipe holding `items` lines and closed, or open with a feeder
/// writing the lines.
fn pipe(items: Option<u64>) -> (tokio::io::DuplexStream, Option<Feeder>) {
    let (mut writer, reader) = tokio::io::duplex(PIPE);
    match items {
        Some(items) => {
            for i in 0..items {
                write_line(&mut writer, i);
            }
            (reader, None)
        }
        None => {
            let feeder = Feeder::new(move |i| write_line(&mut writer, i)).capacity(LINES);
            (reader, Some(feeder))
        }
    }
}

fn line_index<E>(item: &Result<String, E>) -> Option<u64> {
    item.as_ref().ok().and_then(|line| line.parse().ok())
}

struct FramedLines;

impl StreamFactory for FramedLines {
    type Item = Result<String, tokio_util::codec::LinesCodecError>;
    fn item_index(&self, item: &Self::Item) -> Option<u64> {
        line_index(item)
    }
    type Stream =
        tokio_util::codec::FramedRead<tokio::io::DuplexStream, tokio_util::codec::LinesCodec>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (reader, _) = pipe(Some(items));
        tokio_util::codec::FramedRead::new(reader, tokio_util::codec::LinesCodec::new())
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (reader, feeder) = pipe(None);
        let stream =
            tokio_util::codec::FramedRead::new(reader, tokio_util::codec::LinesCodec::new());
        Some((stream, feeder?))
    }
}

struct DuplexLines;

type Lines = tokio_stream::wrappers::LinesStream<tokio::io::BufReader<tokio::io::DuplexStream>>;

impl StreamFactory for DuplexLines {
    type Item = std::io::Result<String>;
    fn item_index(&self, item: &Self::Item) -> Option<u64> {
        line_index(item)
    }
    type Stream = Lines;
    fn create_stream(&self, items: u64) -> Self::Stream {
        use tokio::io::AsyncBufReadExt;
        let (reader, _) = pipe(Some(items));
        tokio_stream::wrappers::LinesStream::new(tokio::io::BufReader::new(reader).lines())
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        use tokio::io::AsyncBufReadExt;
        let (reader, feeder) = pipe(None);
        let stream =
            tokio_stream::wrappers::LinesStream::new(tokio::io::BufReader::new(reader).lines());
        Some((stream, feeder?))
    }
}
