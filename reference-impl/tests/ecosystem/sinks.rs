//! Widely used `futures::Sink` implementations, verified exactly as
//! published with the sink verification (`sink.1` … `sink.3`).

use std::task::{Context, Poll};

use futures::future::{Ready, ready};
use futures::{SinkExt, StreamExt};
use reactive_streams_tck::futures::sink::{Delivery, FuturesSinkFactory};

crate::census! {
    futures_mpsc_sender: sink_verification(MpscSender), "futures-channel", "mpsc::Sender (channel(1))";
    futures_mpsc_unbounded_sender: sink_verification(MpscUnboundedSender), "futures-channel", "mpsc::UnboundedSender";
    futures_sink_buffer: sink_verification(Buffered), "futures-util", "SinkExt::buffer(2) over mpsc::Sender (channel(1))";
    flume_send_sink_bounded: sink_verification(FlumeSink { capacity: Some(1) }), "flume", "SendSink (bounded(1))";
    flume_send_sink_unbounded: sink_verification(FlumeSink { capacity: None }), "flume", "SendSink (unbounded)";
    tokio_util_poll_sender: sink_verification(PollSender), "tokio-util", "sync::PollSender (tokio mpsc channel(1))";
    tokio_util_framed_write: sink_verification(FramedWrite), "tokio-util", "codec::FramedWrite<DuplexStream, LinesCodec> (SinkExt::with)";
    postage_mpsc_sender: sink_verification(PostageSender), "postage", "mpsc::Sender (channel(1))";
}

struct MpscSender;

impl FuturesSinkFactory for MpscSender {
    type Error = futures::channel::mpsc::SendError;
    type Sink = futures::channel::mpsc::Sender<u64>;
    fn create_sink(&self) -> (Self::Sink, Delivery) {
        let (sender, mut receiver) = futures::channel::mpsc::channel(1);
        // Bounded: not reading is a pause.
        (
            sender,
            Delivery::new(move || receiver.try_recv().ok()).pausable(|_| {}),
        )
    }
}

struct MpscUnboundedSender;

impl FuturesSinkFactory for MpscUnboundedSender {
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

struct Buffered;

impl FuturesSinkFactory for Buffered {
    type Error = futures::channel::mpsc::SendError;
    type Sink = futures::sink::Buffer<futures::channel::mpsc::Sender<u64>, u64>;
    fn create_sink(&self) -> (Self::Sink, Delivery) {
        let (sender, mut receiver) = futures::channel::mpsc::channel(1);
        (
            sender.buffer(2),
            Delivery::new(move || receiver.try_recv().ok()).pausable(|_| {}),
        )
    }
}

struct FlumeSink {
    capacity: Option<usize>,
}

impl FuturesSinkFactory for FlumeSink {
    type Error = flume::SendError<u64>;
    type Sink = flume::r#async::SendSink<'static, u64>;
    fn create_sink(&self) -> (Self::Sink, Delivery) {
        let (sender, receiver) = match self.capacity {
            Some(capacity) => flume::bounded(capacity),
            None => flume::unbounded(),
        };
        (
            sender.into_sink(),
            Delivery::new(move || receiver.try_recv().ok()).pausable(|_| {}),
        )
    }
    fn never_waits(&self) -> bool {
        self.capacity.is_none()
    }
}

struct PollSender;

impl FuturesSinkFactory for PollSender {
    type Error = tokio_util::sync::PollSendError<u64>;
    type Sink = tokio_util::sync::PollSender<u64>;
    fn create_sink(&self) -> (Self::Sink, Delivery) {
        let (sender, mut receiver) = tokio::sync::mpsc::channel(1);
        (
            tokio_util::sync::PollSender::new(sender),
            Delivery::new(move || receiver.try_recv().ok()).pausable(|_| {}),
        )
    }
}

type Lines = tokio_util::codec::LinesCodec;
type LinesError = tokio_util::codec::LinesCodecError;
type ToLine = fn(u64) -> Ready<Result<String, LinesError>>;

fn to_line(i: u64) -> Ready<Result<String, LinesError>> {
    ready(Ok(i.to_string()))
}

/// Lines written into an in-memory pipe of 8 bytes, so that the sink must
/// wait for the reader; the delivery side reads whole lines.
struct FramedWrite;

impl FuturesSinkFactory for FramedWrite {
    type Error = LinesError;
    type Sink = futures::sink::With<
        tokio_util::codec::FramedWrite<tokio::io::DuplexStream, Lines>,
        String,
        u64,
        Ready<Result<String, LinesError>>,
        ToLine,
    >;
    fn create_sink(&self) -> (Self::Sink, Delivery) {
        let (writer, reader) = tokio::io::duplex(8);
        let mut framed = tokio_util::codec::FramedWrite::new(writer, Lines::new());
        // Flush from poll_ready once 4 bytes are buffered (default 8 KiB).
        framed.set_backpressure_boundary(4);
        let mut lines = tokio_util::codec::FramedRead::new(reader, Lines::new());
        let delivery = Delivery::new(move || {
            let mut cx = Context::from_waker(futures::task::noop_waker_ref());
            match lines.poll_next_unpin(&mut cx) {
                Poll::Ready(Some(Ok(line))) => line.parse().ok(),
                _ => None,
            }
        });
        // An 8-byte pipe: not reading is a pause.
        (framed.with(to_line as ToLine), delivery.pausable(|_| {}))
    }
}

struct PostageSender;

impl FuturesSinkFactory for PostageSender {
    type Error = postage::sink::SendError<u64>;
    type Sink = postage::mpsc::Sender<u64>;
    fn create_sink(&self) -> (Self::Sink, Delivery) {
        use postage::stream::Stream;
        let (sender, mut receiver) = postage::mpsc::channel(1);
        (
            sender,
            Delivery::new(move || receiver.try_recv().ok()).pausable(|_| {}),
        )
    }
}
