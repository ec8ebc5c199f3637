//! The futures stream verification run against the reference's bridge
//! from a publisher into a `futures::Stream`: [`PublisherStream`] over a
//! cold range and, fed by the TCK, over a hot [`MulticastPublisher`].
//! Two batch sizes: the bridge's refill arithmetic differs between a
//! bounded batch and unbounded demand. A third target fails upstream and
//! is handed on part-way.

use futures::{FutureExt, StreamExt};
use reactive_streams::StreamError;
use reactive_streams_reference::{
    Executor, MulticastPublisher, Overflow, PublisherStream, StreamPublisher, range,
};
use reactive_streams_tck::futures::stream::{Feeder, StreamFactory};
use reactive_streams_tck::stream_verification;

/// `PublisherStream::new(publisher, batch)` over `range(0, n)`, and over a
/// hot publisher the TCK pushes into.
struct PublisherStreams {
    batch: u64,
}

impl StreamFactory for PublisherStreams {
    type Item = Result<u64, StreamError>;
    type Stream = PublisherStream<u64>;

    fn create_stream(&self, items: u64) -> PublisherStream<u64> {
        PublisherStream::new(&range(0, items), self.batch)
    }

    /// The stream subscribes to the hot publisher as it is made, so it
    /// misses nothing the feeder pushes; the hot publisher's buffer holds
    /// every element the stream has not asked for yet.
    fn create_fed_stream(&self) -> Option<(PublisherStream<u64>, Feeder)> {
        let hot = MulticastPublisher::new(1024, Overflow::Error);
        let stream = PublisherStream::new(&hot, self.batch);
        let (pushing, ending, watching) = (hot.clone(), hot.clone(), hot);
        let feeder = Feeder::new(move |i| {
            pushing.push(i);
        })
        .capacity(1024)
        .on_end(move || ending.complete())
        // A dropped stream cancels its subscription: the hot publisher
        // then has no subscriber left.
        .closed(move || watching.subscriber_count() == 0);
        Some((stream, feeder))
    }

    fn item_index(&self, item: &Self::Item) -> Option<u64> {
        item.as_ref().ok().copied()
    }
}

stream_verification!(publisher_stream_batch_8, PublisherStreams { batch: 8 });
stream_verification!(
    publisher_stream_unbounded,
    PublisherStreams { batch: u64::MAX }
);

/// How many items a [`FailingLate`] stream has yielded before the TCK gets
/// it. A batch of 8 is topped up as the 4th, 8th, 12th … item is taken;
/// from the 12th on the elements the TCK polls were requested by a refill
/// after the second, so they come only if the count of what is
/// outstanding stayed right (the error needs no demand).
const TAKEN: u64 = 11;

/// `PublisherStream::new(publisher, 8)` over a stream publisher whose
/// upstream fails, handed on after its first [`TAKEN`] items:
/// `create_stream(n)` yields the `n - 1` elements after those, then the
/// upstream's error as its `n`-th item, then the end. What the other two
/// targets do not reach: an upstream error (the stream's `Err` item) and
/// refills after the first few.
struct FailingLate;

impl StreamFactory for FailingLate {
    type Item = Result<u64, StreamError>;
    type Stream = PublisherStream<u64>;

    fn create_stream(&self, items: u64) -> PublisherStream<u64> {
        let elements = TAKEN + items.saturating_sub(1);
        let fails = items > 0;
        let upstream = StreamPublisher::fallible(Executor::Inline, move || {
            let error = fails.then(|| Err(StreamError::msg("the upstream failed")));
            futures::stream::iter((0..elements).map(Ok).chain(error))
        });
        let mut stream = PublisherStream::new(&upstream, 8);
        for i in 0..TAKEN {
            // A synchronous upstream: every item is there at once.
            let item = stream.next().now_or_never();
            assert!(
                matches!(item, Some(Some(Ok(x))) if x == i),
                "item {i} of the upstream before the stream is handed on, got {item:?}"
            );
        }
        stream
    }

    /// `Ok(TAKEN + i)` is item `i`; the error, the last item, is not told.
    fn item_index(&self, item: &Self::Item) -> Option<u64> {
        // An element from before the hand-over shows as a wrong index.
        item.as_ref().ok().map(|x| x.wrapping_sub(TAKEN))
    }
}

stream_verification!(publisher_stream_failing_late, FailingLate);
