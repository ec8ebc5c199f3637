//! The futures stream verification run against the reference's bridge
//! from a publisher into a `futures::Stream`: [`PublisherStream`] over a
//! cold range and, fed by the TCK, over a hot [`MulticastPublisher`].
//! Two batch sizes: the bridge's refill arithmetic differs between a
//! bounded batch and unbounded demand.

use reactive_streams::StreamError;
use reactive_streams_reference::{MulticastPublisher, Overflow, PublisherStream, range};
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
