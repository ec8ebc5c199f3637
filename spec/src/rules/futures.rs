//! Rules for `futures::Stream` and `futures::Sink` implementations: the
//! asynchronous contract of those traits, as their documentation states it,
//! and what it asks of a stream adapter that wraps other streams. They are
//! not part of Reactive Streams; the TCK's stream, sink and stream-adapter
//! verifications check them (ids `stream.N`, `sink.N` and `adapter.N`).
//! Summaries are our own words; the link is the authority.

use super::{Check, Level, Rule, Subject};

macro_rules! rule {
    ($id:literal, $subject:ident, $level:ident, $summary:literal, $link:literal, $check:expr) => {
        Rule {
            id: $id,
            subject: Subject::$subject,
            level: Level::$level,
            summary: $summary,
            link: $link,
            check: $check,
            conditions: &[],
        }
    };
}

/// The `futures::Stream` rules `stream.1` … `stream.7`, checked by the
/// TCK's stream verification.
///
/// ```
/// use reactive_streams::rules::{self, STREAM_RULES};
///
/// assert_eq!(STREAM_RULES.len(), 7);
/// assert_eq!(rules::find("stream.1").unwrap().id, "stream.1");
/// ```
pub const STREAM_RULES: &[Rule] = &[
    rule!("stream.1", FuturesStream, Must, "After poll_next returns Pending, the stream wakes the waker of that most recent poll once it can make progress (an item or its end is available); waking the wakers of earlier polls as well is allowed.", "https://docs.rs/futures/0.3/futures/stream/trait.Stream.html#tymethod.poll_next", Check::Tested { tests: &["stream::stream_1"] }),
    rule!("stream.2", FuturesStream, MustNot, "Lose the wake-up of an item or end that another thread makes available while poll_next is deciding to return Pending (between its check and its return).", "https://docs.rs/futures/0.3/futures/stream/trait.Stream.html#tymethod.poll_next", Check::Tested { tests: &["stream::stream_2"] }),
    rule!("stream.3", FuturesStream, Must, "size_hint() bounds the items still to come: its lower bound is at most the number remaining, and its upper bound, when Some, at least that number.", "https://docs.rs/futures/0.3/futures/stream/trait.Stream.html#method.size_hint", Check::Tested { tests: &["stream::stream_3"] }),
    rule!("stream.4", FuturesStream, Must, "A FusedStream's is_terminated() returns true once poll_next has returned Ready(None), since a finished stream should no longer be polled (what later polls return is up to the stream).", "https://docs.rs/futures/0.3/futures/stream/trait.FusedStream.html", Check::Tested { tests: &["stream::stream_4"] }),
    rule!("stream.5", FuturesStream, Should, "Dropping the stream at any point (before the first poll, while Pending, part-way, after its end) returns normally, lets its producer see it gone where the producer's API promises that, and, once the producer is dropped too, keeps no clone of a waker it was given.", "https://doc.rust-lang.org/std/task/struct.Waker.html", Check::Tested { tests: &["stream::stream_5"] }),
    rule!("stream.6", FuturesStream, Should, "A poll that no wake-up caused loses no item and, when nothing has arrived, returns Pending without waking its own waker again (no busy-waking).", "https://docs.rs/futures/0.3/futures/stream/trait.Stream.html#tymethod.poll_next", Check::Tested { tests: &["stream::stream_6"] }),
    rule!("stream.7", FuturesStream, Must, "A Send stream polled from different threads in turn yields the same items, in order, and the same end as when polled from one thread.", "https://doc.rust-lang.org/std/marker/trait.Send.html", Check::Tested { tests: &["stream::stream_7"] }),
];

/// The `futures::Sink` rules `sink.1` … `sink.5`, checked by the TCK's sink
/// verification (not to be confused with the Streamlet sink rules
/// `streamlet.3`, `streamlet.5` and `streamlet.6`).
///
/// ```
/// use reactive_streams::rules::{self, SINK_RULES};
///
/// assert_eq!(SINK_RULES.len(), 5);
/// assert_eq!(rules::find("sink.2").unwrap().id, "sink.2");
/// ```
pub const SINK_RULES: &[Rule] = &[
    rule!("sink.1", FuturesSink, Must, "After poll_ready, poll_flush or poll_close returns Pending, the sink wakes the waker of that most recent call once the call should be made again.", "https://docs.rs/futures/0.3/futures/sink/trait.Sink.html#tymethod.poll_ready", Check::Tested { tests: &["sink::sink_1"] }),
    rule!("sink.2", FuturesSink, Must, "When poll_flush returns Ready(Ok(())), every item start_send accepted before it has been delivered.", "https://docs.rs/futures/0.3/futures/sink/trait.Sink.html#tymethod.poll_flush", Check::Tested { tests: &["sink::sink_2"] }),
    rule!("sink.3", FuturesSink, Must, "When poll_close returns Ready(Ok(())), every item accepted before it has been delivered, and no later item is accepted and then lost: a send after the close fails or is delivered.", "https://docs.rs/futures/0.3/futures/sink/trait.Sink.html#tymethod.poll_close", Check::Tested { tests: &["sink::sink_3"] }),
    rule!("sink.4", FuturesSink, Should, "After an error from any of its methods, the sink stays unable to receive items.", "https://docs.rs/futures/0.3/futures/sink/trait.Sink.html#tymethod.start_send", Check::Untested { reason: "the futures docs say only that \"in most cases\" a sink that met an error is permanently unable to receive items, so no check of it would be faithful" }),
    rule!("sink.5", FuturesSink, Must, "start_send is called only after poll_ready returned Ready(Ok(())), once per such poll_ready.", "https://docs.rs/futures/0.3/futures/sink/trait.Sink.html#tymethod.start_send", Check::Untested { reason: "it binds the caller, not the sink: the TCK obeys it (every start_send it makes follows a poll_ready that returned Ready(Ok(()))); a sink that tolerates callers breaking it breaks nothing" }),
];

/// The stream-adapter rules `adapter.1` … `adapter.6`: what a `Stream` that
/// wraps one or more other streams (map, filter, chunks, buffered, select,
/// merge, timeout …) owes the task polling it and the streams it wraps,
/// checked by the TCK's adapter verification around inner streams the TCK
/// provides.
///
/// ```
/// use reactive_streams::rules::{self, ADAPTER_RULES};
///
/// assert_eq!(ADAPTER_RULES.len(), 6);
/// assert_eq!(rules::find("adapter.3").unwrap().id, "adapter.3");
/// ```
pub const ADAPTER_RULES: &[Rule] = &[
    rule!("adapter.1", StreamAdapter, Must, "After the adapter's poll_next returns Pending, a wake-up by an inner stream it polled reaches the task that polled the adapter: the waker of the adapter's most recent poll is woken once the inner stream can make progress.", "https://docs.rs/futures/0.3/futures/stream/trait.Stream.html#tymethod.poll_next", Check::Tested { tests: &["stream_adapter::adapter_1"] }),
    rule!("adapter.2", StreamAdapter, MustNot, "Lose a wake-up of an inner stream that comes while the adapter's poll_next is running (between the adapter's poll of that inner stream and its return of Pending).", "https://docs.rs/futures/0.3/futures/stream/trait.Stream.html#tymethod.poll_next", Check::Tested { tests: &["stream_adapter::adapter_2"] }),
    rule!("adapter.3", StreamAdapter, MustNot, "Poll an inner stream again after it returned Ready(None), unless that stream is a FusedStream (the TCK's inner streams are not).", "https://docs.rs/futures/0.3/futures/stream/trait.Stream.html#panics", Check::Tested { tests: &["stream_adapter::adapter_3"] }),
    rule!("adapter.4", StreamAdapter, Should, "Dropping the adapter at any point (before the first poll, while Pending, part-way, after its end) drops the inner streams it owns and keeps no clone of a waker it was given.", "https://doc.rust-lang.org/std/ops/trait.Drop.html", Check::Tested { tests: &["stream_adapter::adapter_4"] }),
    rule!("adapter.5", StreamAdapter, Must, "An adapter declared to keep its items' identity yields each inner item at most once (exactly once, if declared to pass every item), and the items of one inner stream in the order that stream yielded them.", "https://docs.rs/futures/0.3/futures/stream/trait.StreamExt.html", Check::Tested { tests: &["stream_adapter::adapter_5"] }),
    rule!("adapter.6", StreamAdapter, Must, "The adapter's size_hint() bounds the items it will still yield: its lower bound is at most that number, and its upper bound, when Some, at least that number.", "https://docs.rs/futures/0.3/futures/stream/trait.Stream.html#method.size_hint", Check::Tested { tests: &["stream_adapter::adapter_6"] }),
];
