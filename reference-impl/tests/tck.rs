//! The TCK run against the reference publishers (the streamlets, and the
//! bridges between the two protocols, are in `tck_streamlets.rs`).
//!
//! `cargo test -p reactive-streams-reference --test tck` runs it as plain
//! tests; `cargo xtask tck` runs the same tests one process each and
//! reports rule by rule.

use std::sync::OnceLock;

use futures::StreamExt;
use reactive_streams::{Publisher, StreamError};
use reactive_streams_reference::{
    empty, failed, just, range, AsyncPublisher, Executor, IterPublisher, StreamPublisher,
};
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::publisher_verification;

/// One runtime for every asynchronous type; it outlives all rule tests.
fn runtime() -> tokio::runtime::Handle {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("reference-tokio")
                .build()
                .expect("a tokio runtime")
        })
        .handle()
        .clone()
}

fn failure() -> StreamError {
    StreamError::msg("the reference failed publisher fails")
}

/// A factory from a function `elements -> publisher`, with `failed` as the
/// failed publisher.
struct Publishers<F>(F);

impl<F, P> PublisherFactory for Publishers<F>
where
    F: Fn(u64) -> P + Send + Sync + 'static,
    P: Publisher<u64> + 'static,
{
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new((self.0)(elements))
    }

    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(failed::<u64>(failure())))
    }
}

/// `empty` for 0, `just` for 1, a range otherwise: the simple publishers.
fn simple(elements: u64) -> Box<dyn Publisher<u64>> {
    match elements {
        0 => Box::new(empty()),
        1 => Box::new(just(0)),
        n => Box::new(range(0, n)),
    }
}

publisher_verification!(range_publisher, Publishers(|n| range(0, n)));
publisher_verification!(simple_publishers, Publishers(simple));
publisher_verification!(
    fused_map_filter,
    Publishers(
        |n: u64| IterPublisher::new(move || 0..n.saturating_mul(2).max(n))
            .filter(|x: &u64| x % 2 == 0)
            .map(|x: u64| x / 2)
    )
);
publisher_verification!(
    async_publisher,
    Publishers(|n| AsyncPublisher::new(runtime(), move || 0..n))
);
publisher_verification!(
    thread_pool_publisher,
    Publishers(|n| AsyncPublisher::with_executor(
        Executor::custom(|task| {
            std::thread::spawn(task);
        }),
        move || 0..n
    ))
);

// The futures bridge, over Stream types of well-known crates.
publisher_verification!(
    stream_iter_bridge,
    Publishers(|n| StreamPublisher::new(Executor::Inline, move || futures::stream::iter(0..n)))
);
publisher_verification!(
    futures_mpsc_bridge,
    Publishers(
        |n| StreamPublisher::new(Executor::Tokio(runtime()), move || {
            let (mut sender, receiver) = futures::channel::mpsc::channel(16);
            std::thread::spawn(move || {
                for x in 0..n {
                    // The receiver is gone once the subscription ended.
                    if futures::executor::block_on(futures::SinkExt::send(&mut sender, x)).is_err()
                    {
                        break;
                    }
                }
            });
            receiver
        })
    )
);
publisher_verification!(
    tokio_stream_bridge,
    Publishers(
        |n| StreamPublisher::new(Executor::Tokio(runtime()), move || {
            let (sender, receiver) = tokio::sync::mpsc::channel(16);
            runtime().spawn(async move {
                for x in 0..n {
                    if sender.send(x).await.is_err() {
                        break;
                    }
                }
            });
            tokio_stream::wrappers::ReceiverStream::new(receiver).map(|x| x)
        })
    )
);
