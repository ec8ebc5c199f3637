//! Subscribers and the futures bridges.

mod support;

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use reactive_streams::{Publisher, StreamError, Subscriber};
use reactive_streams_reference::{
    AsyncPublisher, CallbackSubscriber, CollectSubscriber, Executor, PublisherStream,
    QueuedSubscriber, Signal, StreamPublisher, collect, failed, infinite, range,
};
use support::spy::SpyPublisher;

#[test]
fn callback_subscriber_refills_at_the_low_water_mark() {
    let upstream = SpyPublisher::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let ended = Arc::new(Mutex::new(None));
    let end = ended.clone();
    upstream.subscribe(Box::new(
        CallbackSubscriber::new(4, move |x| sink.lock().unwrap().push(x))
            .low_water(1)
            .on_end(move |r| *end.lock().unwrap() = Some(r.is_ok())),
    ));
    assert_eq!(upstream.spy.requests(), vec![4]);
    upstream.with(|s| (0..3).for_each(|i| s.on_next(i)));
    assert_eq!(upstream.spy.requests(), vec![4, 3]);
    upstream.with(|s| s.on_complete());
    assert_eq!(*seen.lock().unwrap(), vec![0, 1, 2]);
    assert_eq!(*ended.lock().unwrap(), Some(true));
}

#[test]
fn subscribers_cancel_a_second_subscription() {
    let first = SpyPublisher::new();
    let second = SpyPublisher::new();
    let mut subscriber = CallbackSubscriber::new(1, |_: u64| {});
    subscriber.on_subscribe(Arc::new(first.spy.clone()));
    subscriber.on_subscribe(Arc::new(second.spy.clone()));
    assert!(second.spy.cancelled() && !first.spy.cancelled());
}

#[test]
fn collect_in_batches_and_errors() {
    let (subscriber, all) = CollectSubscriber::with_batch(3);
    range(0, 10).subscribe(Box::new(subscriber));
    assert_eq!(futures::executor::block_on(all).unwrap().len(), 10);
    let error = futures::executor::block_on(collect(&failed::<u8>(StreamError::msg("x"))));
    assert_eq!(error.unwrap_err().to_string(), "x");
}

#[test]
fn queued_subscriber_consumes_on_its_own_thread() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let publisher = AsyncPublisher::new(runtime.handle().clone(), || 0..10_000u64);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let (subscriber, worker) = QueuedSubscriber::spawn(16, move |signal| {
        sink.lock().unwrap().push(signal);
    });
    publisher.subscribe(Box::new(subscriber));
    worker.join().unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 10_001);
    assert!(matches!(seen.last(), Some(Signal::Complete)));
    for (i, signal) in seen.iter().take(10_000).enumerate() {
        assert!(matches!(signal, Signal::Next(x) if *x == i as u64));
    }
}

#[test]
fn publisher_stream_cancels_when_dropped() {
    let upstream = SpyPublisher::new();
    let stream = PublisherStream::new(&upstream, 8);
    assert_eq!(upstream.spy.requests(), vec![8]);
    drop(stream);
    assert!(upstream.spy.cancelled());

    let first: Vec<u64> = futures::executor::block_on(
        PublisherStream::new(&infinite(|i| i), 3)
            .take(10)
            .map(Result::unwrap)
            .collect(),
    );
    assert_eq!(first, (0..10).collect::<Vec<_>>());
}

#[test]
fn stream_publisher_on_tokio_with_pending_items() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (tx, rx) = futures::channel::mpsc::unbounded::<u64>();
    let rx = Mutex::new(Some(rx));
    let publisher = StreamPublisher::new(Executor::Tokio(runtime.handle().clone()), move || {
        rx.lock().unwrap().take().expect("one subscriber")
    });
    let (subscriber, probe) = support::recorder::<u64>();
    publisher.subscribe(Box::new(subscriber));
    probe.request(2);
    for i in 0..5 {
        tx.unbounded_send(i).unwrap();
    }
    assert!(probe.wait_elements(2));
    drop(tx);
    probe.request(10);
    assert!(probe.wait_terminal());
    assert!(probe.completed());
    assert_eq!(probe.elements(), vec![0, 1, 2, 3, 4]);
    assert!(probe.violations().is_empty());
}

#[test]
fn stream_publisher_fallible_signals_on_error() {
    let publisher = StreamPublisher::fallible(Executor::Inline, || {
        futures::stream::iter(vec![Ok(1u8), Err(StreamError::msg("bad item")), Ok(3)])
    });
    let error = futures::executor::block_on(collect(&publisher)).unwrap_err();
    assert_eq!(error.to_string(), "bad item");
}
