//! Conforming reference implementations of the [`reactive_streams`] traits.
//!
//! TODO crate docs
#![warn(missing_docs)]

pub mod bridge;
pub mod drain;
mod executor;
mod hub;
pub mod operator;
pub mod overflow;
pub mod processor;
pub mod publisher;
mod slot;
pub mod subscriber;
pub mod tracked;

pub use bridge::{PublisherStream, StreamPublisher};
pub use executor::{Executor, Task};
pub use operator::{
    combine_latest, combine_latest_with, zip, zip_with, CombineLatest, FlatMapProcessor,
    SlidingWindowProcessor, WindowProcessor, Zip,
};
pub use overflow::{BoundedBuffer, BufferOverflow, Overflow};
pub use processor::{BufferProcessor, FilterProcessor, IdentityProcessor, MapProcessor};
pub use publisher::{
    empty, failed, infinite, just, range, reject, AsyncPublisher, EmptyPublisher, FailedPublisher,
    IterPublisher, JustPublisher, MulticastPublisher, SingleUse,
};
pub use subscriber::{
    collect, CallbackSubscriber, Collect, CollectSubscriber, QueuedSubscriber, Signal,
};
