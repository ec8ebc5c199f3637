//! Factories that put the reference publishers under the TCK, shared by
//! the quick (`tck.rs`) and extended (`tck_extended.rs`) runs.

use std::sync::OnceLock;

use futures::StreamExt;
use reactive_streams::{Publisher, StreamError};
use reactive_streams_reference::{
    AsyncPublisher, Executor, IterPublisher, StreamPublisher, empty, failed, infinite, just, range,
};
use reactive_streams_tck::publisher::PublisherFactory;

/// One runtime for every asynchronous type; it outlives all tests.
pub fn runtime() -> tokio::runtime::Handle {
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

/// A factory from a function `elements -> publisher` (`u64::MAX`: an
/// infinite one, for the extended schedules), with the reference failed
/// publisher as its failed one.
pub struct Publishers<F>(pub F);

impl<F, P> PublisherFactory for Publishers<F>
where
    F: Fn(u64) -> P + Send + Sync + 'static,
    P: Publisher<u64> + 'static,
{
    type Element = u64;

    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new((self.0)(elements))
    }

    /// Every publisher here emits `0..n`: element `i` is `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }

    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(failed::<u64>(StreamError::msg(
            "the reference failed publisher fails",
        ))))
    }
}

/// `empty` for 0, `just` for 1, `infinite` for `u64::MAX`, a range
/// otherwise: the simple publishers.
pub fn simple(elements: u64) -> Box<dyn Publisher<u64>> {
    match elements {
        0 => Box::new(empty()),
        1 => Box::new(just(0)),
        u64::MAX => Box::new(infinite(|i| i)),
        n => Box::new(range(0, n)),
    }
}

/// `0..n` through fused `filter` and `map` over twice as many items.
pub fn fused_map_filter(n: u64) -> impl Publisher<u64> {
    IterPublisher::new(move || 0..n.saturating_mul(2).max(n))
        .filter(|x: &u64| x % 2 == 0)
        .map(|x: u64| x / 2)
}

/// `0..n` emitted from tokio tasks.
pub fn async_range(n: u64) -> impl Publisher<u64> {
    AsyncPublisher::new(runtime(), move || 0..n)
}

/// `0..n` emitted from a new thread per run (a custom executor).
pub fn thread_pool_range(n: u64) -> impl Publisher<u64> {
    AsyncPublisher::with_executor(
        Executor::custom(|task| {
            std::thread::spawn(task);
        }),
        move || 0..n,
    )
}

/// The futures bridge over `futures::stream::iter(0..n)`.
pub fn stream_iter_bridge(n: u64) -> impl Publisher<u64> {
    StreamPublisher::new(Executor::Inline, move || futures::stream::iter(0..n))
}

/// The futures bridge over a `futures::channel::mpsc` receiver fed from a
/// thread.
pub fn futures_mpsc_bridge(n: u64) -> impl Publisher<u64> {
    StreamPublisher::new(Executor::Tokio(runtime()), move || {
        let (mut sender, receiver) = futures::channel::mpsc::channel(16);
        std::thread::spawn(move || {
            for x in 0..n {
                // The receiver is gone once the subscription ended.
                if futures::executor::block_on(futures::SinkExt::send(&mut sender, x)).is_err() {
                    break;
                }
            }
        });
        receiver
    })
}

/// The futures bridge over a tokio mpsc receiver fed from a task.
pub fn tokio_stream_bridge(n: u64) -> impl Publisher<u64> {
    StreamPublisher::new(Executor::Tokio(runtime()), move || {
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
}
