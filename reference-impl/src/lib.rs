//! Conforming reference implementations of the [`reactive_streams`] traits:
//! the implementations every TCK rule test is first proven against, and
//! code meant to be copied.
//!
//! # One emission loop for everything
//!
//! Every type that emits — cold and hot publishers, processors, streamlet
//! sources, the `Stream` bridge — hands its subscriber to the same
//! [`drain::Drain`]: a work-in-progress counter decides who emits, so
//! signals are serial (§1.3), `request` from inside `on_next` is
//! trampolined (§3.3), `request`/`cancel` never block on the subscriber
//! (§3.4, §3.5), `request(0)` fails the subscription (§3.9), demand adds up
//! to unbounded without overflow (§3.17), and the subscriber is dropped as
//! soon as the subscription is cancelled or terminated (§3.13). Where the
//! loop runs is an [`Executor`]: inline, a tokio runtime, or any pool.
//!
//! # Types, and what each lacks
//!
//! | type | constructor | what it lacks |
//! |---|---|---|
//! | [`IterPublisher`] | [`IterPublisher::new`]`(|| iter)`, [`range`]`(start, count)`, [`infinite`]`(|i| x)` | cannot fail (an iterator has no error); emits on the requesting thread unless given an executor |
//! | [`AsyncPublisher`] | [`AsyncPublisher::new`]`(handle, || iter)` | cannot fail; needs a tokio runtime (or [`AsyncPublisher::with_executor`]) |
//! | [`EmptyPublisher`] | [`empty`]`()` | no elements, by design |
//! | [`JustPublisher`] | [`just`]`(value)` | one element; needs `Clone` |
//! | [`FailedPublisher`] | [`failed`]`(error)` | no elements; every subscriber fails at once |
//! | [`SingleUse`] | [`SingleUse::new`]`(publisher)` | rejects every subscriber but the first (`on_subscribe` + `on_error`) |
//! | [`MulticastPublisher`] | [`MulticastPublisher::new`]`(capacity, overflow)` | hot: late subscribers miss earlier values; elements need `Clone`; a full buffer drops or fails per [`Overflow`] |
//! | [`StreamPublisher`] | [`StreamPublisher::new`]`(executor, || stream)`, [`StreamPublisher::fallible`] | polls one item ahead of demand |
//! | [`IdentityProcessor`], [`MapProcessor`], [`FilterProcessor`], [`BufferProcessor`] | `::new()`, `::new(f)` (or `::new_static(f)`, the function inlined), `::new(predicate)`, `::new(capacity)` | elements need `Clone`; multicast to several subscribers at the pace of the slowest; once the last subscriber leaves, upstream is cancelled and the processor refuses new subscribers |
//! | [`CallbackSubscriber`] | [`CallbackSubscriber::new`]`(batch, f)` | cannot cancel from its callback |
//! | [`QueuedSubscriber`] | [`QueuedSubscriber::spawn`]`(batch, handler)` | one OS thread per subscriber; cannot cancel from its handler |
//! | [`CollectSubscriber`] | [`collect`]`(&publisher)`, [`CollectSubscriber::with_batch`] | keeps everything in memory; never cancels |
//! | [`PublisherStream`] | [`PublisherStream::new`]`(&publisher, batch)` | a `Stream` of `Result`s |
//! | [`streamlet::PullSource`] | `PullSource::new(|| iter)` | never pushes |
//! | [`streamlet::ListenSource`] | `ListenSource::new()`, [`streamlet::interval`]`(period)` | never answers pulls; stopped sinks miss data |
//! | [`streamlet::HybridSource`] | `HybridSource::new()` | pulls return only the latest value |
//! | [`streamlet::CollectSink`], [`streamlet::CallbackSink`] | `CollectSink::new()`, `CollectSink::take(n)`, `CallbackSink::new(f)` | pull one datum at a time |
//! | [`streamlet::PublisherSource`] | `PublisherSource::new(publisher)` | pullable only |
//! | [`streamlet::SourcePublisher`] | `SourcePublisher::new(source, capacity, overflow)` | a push source's surplus is dropped or fails per [`Overflow`] |
//! | [`WindowProcessor`], [`SlidingWindowProcessor`], [`FlatMapProcessor`] | `::new(size)`, `::new(size)`, `::new(f)` | one subscriber (later ones are rejected); pull one prefetch batch at a time |
//! | [`Zip`], [`CombineLatest`] | [`zip`]`(a, b)`, [`zip_with`], [`combine_latest`]`(a, b)`, [`combine_latest_with`] | two inputs; each subscriber subscribes to both again |
//! | [`Merge`] | [`merge`]`([a, b, …])` | inputs of one type; each subscriber subscribes to all again |
//! | [`tracked::checkpointed`] | `checkpointed(items, &checkpoint)` | one subscriber; a token per item (see [`tracked`] for datum-done tracking) |
//!
//! # Example
//!
//! ```
//! use reactive_streams::Publisher;
//! use reactive_streams_reference::{collect, range, MapProcessor};
//!
//! let squares = MapProcessor::new(|x: u64| x * x);
//! range(1, 4).subscribe(Box::new(squares.clone()));
//! let all = futures::executor::block_on(collect(&squares)).unwrap();
//! assert_eq!(all, vec![1, 4, 9, 16]);
//! ```
#![warn(missing_docs)]

pub mod bridge;
pub mod drain;
mod executor;
mod hub;
pub mod operator;
pub mod overflow;
pub mod processor;
pub mod publisher;
mod serial;
mod slot;
pub mod streamlet;
pub mod subscriber;
pub mod tracked;

pub use bridge::{PublisherStream, StreamPublisher};
pub use executor::{Executor, Task};
pub use operator::{
    CombineLatest, FlatMapProcessor, Merge, SlidingWindowProcessor, WindowProcessor, Zip,
    combine_latest, combine_latest_with, merge, zip, zip_with,
};
pub use overflow::{BoundedBuffer, BufferOverflow, Overflow};
pub use processor::{BufferProcessor, FilterProcessor, IdentityProcessor, MapProcessor};
pub use publisher::{
    AsyncPublisher, EmptyPublisher, FailedPublisher, IterPublisher, JustPublisher,
    MulticastPublisher, SingleUse, empty, failed, infinite, just, range, reject,
};
pub use subscriber::{
    CallbackSubscriber, Collect, CollectSubscriber, QueuedSubscriber, Signal, collect,
};

/// The code samples of the README and of the guides in `docs/`, compiled
/// (and run) as doc-tests of this crate, which has every crate they use:
/// the TCK, this crate as the implementation under test, and `futures`.
#[cfg(doctest)]
mod docs {
    #[doc = include_str!("../../README.md")]
    struct Readme;
    #[doc = include_str!("../../docs/publisher.md")]
    struct Publisher;
    #[doc = include_str!("../../docs/subscriber.md")]
    struct Subscriber;
    #[doc = include_str!("../../docs/processor.md")]
    struct Processor;
    #[doc = include_str!("../../docs/streamlet.md")]
    struct Streamlet;
    #[doc = include_str!("../../docs/futures.md")]
    struct Futures;
    #[doc = include_str!("../../docs/extended.md")]
    struct Extended;
    #[doc = include_str!("../../docs/checkpointing.md")]
    struct Checkpointing;
    #[doc = include_str!("../../docs/accepts.md")]
    struct Accepts;
    #[doc = include_str!("../../docs/reports.md")]
    struct Reports;
    #[doc = include_str!("../../docs/runner.md")]
    struct Runner;
    #[doc = include_str!("../../docs/timing.md")]
    struct Timing;
    #[doc = include_str!("../../docs/reference.md")]
    struct Reference;
    #[doc = include_str!("../../docs/performance.md")]
    struct Performance;
    #[doc = include_str!("../../docs/performance-history.md")]
    struct PerformanceHistory;
    #[doc = include_str!("../../docs/ci.md")]
    struct Ci;
    #[doc = include_str!("../../docs/ecosystem.md")]
    struct Ecosystem;
}
