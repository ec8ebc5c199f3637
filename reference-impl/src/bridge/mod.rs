//! Bridges to `futures`: [`StreamPublisher`] (any `Stream` as a publisher)
//! and [`PublisherStream`] (any publisher as a `Stream`).

mod publisher_to_stream;
mod stream_to_publisher;

pub use publisher_to_stream::PublisherStream;
pub use stream_to_publisher::StreamPublisher;
