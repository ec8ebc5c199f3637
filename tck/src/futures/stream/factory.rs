//! What a user implements to have a `futures::Stream` verified.

use std::fmt::Debug;

use futures_core::Stream;

/// Makes fresh streams for the stream verification.
///
/// Only [`create_stream`](Self::create_stream) is required. A push-based
/// stream (the receiving end of a channel) should also offer
/// [`create_fed_stream`](Self::create_fed_stream): the rules about wake-ups
/// need items that arrive *after* a poll returned `Pending`, and the
/// lost-wake-up race (`stream.2`) needs them to arrive from another thread.
///
/// ```
/// use reactive_streams_tck::futures::stream::StreamFactory;
///
/// struct Counting;
/// impl StreamFactory for Counting {
///     type Item = u64;
///     type Stream = futures_core::stream::BoxStream<'static, u64>;
///     fn create_stream(&self, items: u64) -> Self::Stream {
///         # struct Iter(std::ops::Range<u64>);
///         # impl futures_core::Stream for Iter {
///         #     type Item = u64;
///         #     fn poll_next(self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>)
///         #         -> std::task::Poll<Option<u64>> { std::task::Poll::Ready(self.get_mut().0.next()) }
///         # }
///         Box::pin(Iter(0..items))
///     }
/// }
/// ```
pub trait StreamFactory: Send + Sync + 'static {
    /// What the stream yields (printed in traces).
    type Item: Debug + Send + 'static;
    /// The stream. It must be `Send`: the TCK polls it from several
    /// threads (`stream.7`). A stream that is not goes in a
    /// [`ThreadBound`](super::ThreadBound), with
    /// [`thread_bound`](Self::thread_bound) declared.
    type Stream: Stream<Item = Self::Item> + Send + 'static;

    /// A fresh stream that yields `items` items and then ends, with no help
    /// but being polled (it may use threads or timers of its own). An
    /// [`endless`](Self::endless) stream yields at least `items` items.
    fn create_stream(&self, items: u64) -> Self::Stream;

    /// A fresh stream fed by the TCK, or `None` (the default) when items
    /// cannot be pushed from outside. The stream yields exactly the items
    /// the [`Feeder`] pushed, in order, and ends once the feeder is ended
    /// (or dropped).
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        None
    }

    /// Whether [`create_stream`](Self::create_stream) makes streams that
    /// never end (a timer's ticks). Default `false`.
    fn endless(&self) -> bool {
        false
    }

    /// Which item `item` is: its position `0, 1, …` in a stream made by
    /// [`create_stream`](Self::create_stream), or the `i` of the
    /// [`Feeder`]'s `push(i)` that made it in a fed stream. With it the
    /// verification checks that no item is lost, duplicated or reordered
    /// (`tck.stream_gives_exactly_n`, and the extended schedules); `None`
    /// (the default) leaves the items themselves unchecked, only their
    /// number.
    ///
    /// ```
    /// # use reactive_streams_tck::futures::stream::StreamFactory;
    /// # struct Counting;
    /// # impl StreamFactory for Counting {
    /// #     type Item = u64;
    /// #     type Stream = futures_core::stream::BoxStream<'static, u64>;
    /// #     fn create_stream(&self, items: u64) -> Self::Stream { unimplemented!() }
    /// // A stream of 1, 2, …, n (and a feeder that sends i + 1 for push(i)):
    /// fn item_index(&self, item: &u64) -> Option<u64> {
    ///     item.checked_sub(1)
    /// }
    /// # }
    /// ```
    fn item_index(&self, item: &Self::Item) -> Option<u64> {
        let _ = item;
        None
    }

    /// Whether its streams are latest-value streams (watch-like: the
    /// producer keeps only the newest item, so a stream polled after
    /// several items arrived yields only the newest). Then a stream owes,
    /// of the items made or pushed, the newest, last — intermediate ones may
    /// be skipped — and yields each at most once and in order; everything
    /// else is checked as usual. Default `false`: a stream that skips items
    /// fails `tck.stream_gives_exactly_n`, and the message names this
    /// declaration.
    fn latest_value(&self) -> bool {
        false
    }

    /// Whether its streams must stay on the thread that made them
    /// ([`ThreadBound`](super::ThreadBound) streams, which are not `Send`
    /// inside). The TCK then never polls them from another thread, and
    /// skips `stream.7`, saying why. Default `false`.
    fn thread_bound(&self) -> bool {
        false
    }

    /// For a `futures::stream::FusedStream`, `Some(stream.is_terminated())`;
    /// `None` (the default) for a stream that is not fused, whose behaviour
    /// after `Ready(None)` the verification then only reports.
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        let _ = stream;
        None
    }
}

type Push = Box<dyn FnMut(u64) + Send>;
type End = Box<dyn FnOnce() + Send>;
type Closed = Box<dyn Fn() -> bool + Send + Sync>;

/// The producer side of a fed stream, driven by the TCK.
///
/// The TCK calls `push(i)` with `i = 0, 1, 2, …`. It never has more pushed
/// items waiting in the stream than the declared
/// [`capacity`](Self::capacity) (by default, no bound): when that many are
/// waiting, it first polls one out, as a producer waiting for room would,
/// so `push` may simply `try_send(i).unwrap()`. Ending the stream
/// runs the [`on_end`](Self::on_end) closure, if any, and drops the feeder
/// (and every sender its closures hold).
///
/// ```
/// use reactive_streams_tck::futures::stream::Feeder;
/// let (sender, receiver) = std::sync::mpsc::channel::<u64>();
/// let closed = sender.clone();
/// let feeder = Feeder::new(move |i| sender.send(i).unwrap())
///     // The producer sees the consumer gone: a send fails.
///     .closed(move || closed.send(u64::MAX).is_err());
/// # drop((feeder, receiver));
/// ```
pub struct Feeder {
    push: Push,
    end: Option<End>,
    closed: Option<Closed>,
    capacity: Option<u64>,
}

impl Feeder {
    /// A feeder that makes item `i` available to the stream with `push(i)`
    /// (for example `sender.try_send(i).unwrap()`).
    pub fn new(push: impl FnMut(u64) + Send + 'static) -> Feeder {
        Feeder {
            push: Box::new(push),
            end: None,
            closed: None,
            capacity: None,
        }
    }

    /// How many pushed items the producer can hold before the stream takes
    /// them (a bounded channel's capacity, at least 1); the TCK never has
    /// more waiting.
    pub fn capacity(mut self, items: u64) -> Feeder {
        self.capacity = Some(items.max(1));
        self
    }

    /// The declared [`capacity`](Self::capacity), if any.
    pub(crate) fn room(&self) -> u64 {
        self.capacity.unwrap_or(u64::MAX)
    }

    /// What ends the stream besides dropping the feeder (for example
    /// `sender.close_channel()`).
    pub fn on_end(mut self, end: impl FnOnce() + Send + 'static) -> Feeder {
        self.end = Some(Box::new(end));
        self
    }

    /// A probe of the producer side that returns `true` once it can see the
    /// stream gone (for example `sender.is_closed()`), for producer APIs
    /// that promise that. After the stream is dropped, the verification
    /// expects it to return `true` (`stream.5`). A closure holding a sender
    /// keeps the channel open until the feeder is ended, like `push`.
    pub fn closed(mut self, is_closed: impl Fn() -> bool + Send + Sync + 'static) -> Feeder {
        self.closed = Some(Box::new(is_closed));
        self
    }

    pub(crate) fn push(&mut self, i: u64) {
        (self.push)(i)
    }

    pub(crate) fn has_closed_probe(&self) -> bool {
        self.closed.is_some()
    }

    pub(crate) fn producer_sees_closed(&self) -> bool {
        self.closed.as_ref().is_some_and(|closed| closed())
    }

    pub(crate) fn end(mut self) {
        if let Some(end) = self.end.take() {
            end();
        }
    }
}

impl Debug for Feeder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feeder")
            .field("on_end", &self.end.is_some())
            .field("closed", &self.closed.is_some())
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}
