//! `IterPublisher::subscribe_static`: the statically dispatched path must
//! behave exactly like `Publisher::subscribe`. Every test runs both paths
//! with the same concrete recording subscriber.

mod support;

use std::sync::OnceLock;

use reactive_streams::{Publisher, demand};
use reactive_streams_reference::{Executor, IterPublisher, infinite, range};
use rstest::rstest;
use support::{DEADLINE, Event, Recorder, recorder, recorder_with};

#[derive(Debug, Clone, Copy)]
enum Path {
    Dynamic,
    Static,
}

fn subscribe<I>(publisher: &IterPublisher<I>, subscriber: Recorder<I::Item>, path: Path)
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    match path {
        Path::Dynamic => publisher.subscribe(Box::new(subscriber)),
        Path::Static => publisher.subscribe_static(subscriber),
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap()
    })
}

#[rstest]
fn emits_no_more_than_requested(#[values(Path::Dynamic, Path::Static)] path: Path) {
    let (subscriber, probe) = recorder();
    subscribe(&range(0, 10), subscriber, path);
    assert!(probe.wait_subscribed());
    assert!(probe.elements().is_empty());
    probe.request(3);
    assert_eq!(probe.elements(), vec![0, 1, 2]);
    assert!(probe.terminals().is_empty());
    probe.request(6);
    assert_eq!(probe.elements(), (0..9).collect::<Vec<_>>());
    // The look-ahead knows the stream ends after the last element.
    probe.request(1);
    assert_eq!(probe.elements(), (0..10).collect::<Vec<_>>());
    assert!(probe.completed());
    assert!(probe.violations().is_empty(), "{:?}", probe.violations());
}

#[rstest]
fn request_from_on_next_is_trampolined(#[values(Path::Dynamic, Path::Static)] path: Path) {
    // One element at a time, each requested from inside the previous
    // on_next: the recorder reports any re-entrant signal (§3.3, §1.3).
    let (subscriber, probe) = recorder_with(1, |_| 1);
    subscribe(&range(0, 10_000).map(|x| x + 1), subscriber, path);
    assert!(probe.wait_terminal());
    assert_eq!(probe.elements(), (1..=10_000).collect::<Vec<_>>());
    assert!(probe.completed());
    assert!(probe.violations().is_empty(), "{:?}", probe.violations());
}

/// Refills made from inside `on_next` in the middle of a burst are folded
/// in by the burst itself (issue 18): every pattern of top-ups, odd and
/// even, ends exactly where demand does (§1.1) and never recurses (§3.3).
#[rstest]
fn refills_from_on_next_fold_into_the_burst(
    #[values(Path::Dynamic, Path::Static)] path: Path,
    #[values((128, 64), (128, 128), (5, 3), (2, 1), (7, 7))] pattern: (u64, u64),
) {
    let (initial, every) = pattern;
    // Top up by `every` after each `every`-th element, like a
    // `CallbackSubscriber` at its low-water mark, until element `stop`:
    // then demand runs out somewhere in the middle of a burst.
    let stop = 1_000;
    let top_up = move |x: u64| u64::from(x < stop && (x + 1) % every == 0) * every;
    let (subscriber, probe) = recorder_with(initial, move |x: &u64| top_up(*x));
    subscribe(&range(0, 10_000), subscriber, path);
    let (mut demand, mut delivered) = (initial, 0);
    while delivered < demand {
        demand += top_up(delivered);
        delivered += 1;
    }
    assert_eq!(probe.elements(), (0..delivered).collect::<Vec<_>>());
    assert!(probe.terminals().is_empty());
    assert!(probe.violations().is_empty(), "{:?}", probe.violations());
}

#[rstest]
fn cancel_from_on_next_stops_emission(
    #[values(Path::Dynamic, Path::Static)] path: Path,
    // The first and the second element of a turn of the emission loop.
    #[values(4, 5)] last: u64,
) {
    let (subscriber, probe) = recorder_with(demand::UNBOUNDED, |_| 0);
    let canceller = probe.clone();
    // Cancel from inside on_next once `last` elements have arrived.
    let publisher = infinite(|i| i).filter(move |&i| {
        if i == last {
            canceller.cancel();
        }
        true
    });
    subscribe(&publisher, subscriber, path);
    assert!(probe.wait_dropped());
    // The element that was being produced when `cancel` ran is the last.
    assert_eq!(probe.elements(), (0..=last).collect::<Vec<_>>());
    assert!(probe.terminals().is_empty());
    assert!(probe.violations().is_empty(), "{:?}", probe.violations());
}

#[rstest]
fn cancel_from_outside_stops_and_drops(#[values(Path::Dynamic, Path::Static)] path: Path) {
    let (subscriber, probe) = recorder();
    subscribe(&infinite(|i| i), subscriber, path);
    probe.request(4);
    assert_eq!(probe.elements(), vec![0, 1, 2, 3]);
    probe.cancel();
    // §3.13: the subscriber is dropped before `cancel` returns here.
    assert!(probe.log().dropped);
    probe.request(4);
    assert_eq!(probe.elements().len(), 4);
    assert!(probe.terminals().is_empty());
}

#[rstest]
fn subscriber_is_dropped_after_completion(#[values(Path::Dynamic, Path::Static)] path: Path) {
    let (subscriber, probe) = recorder_with(demand::UNBOUNDED, |_| 0);
    subscribe(&range(0, 3).filter(|x| x % 2 == 0), subscriber, path);
    assert_eq!(probe.elements(), vec![0, 2]);
    assert!(probe.completed());
    assert!(probe.log().dropped);
}

#[rstest]
fn request_zero_fails_the_subscription(#[values(Path::Dynamic, Path::Static)] path: Path) {
    let (subscriber, probe) = recorder();
    subscribe(&range(0, 3), subscriber, path);
    probe.request(0);
    let error = probe.error().expect("on_error after request(0)");
    assert!(error.is_illegal_demand());
    assert!(probe.elements().is_empty());
    assert!(probe.log().dropped);
}

#[rstest]
fn request_zero_from_on_next_fails_at_once(
    #[values(Path::Dynamic, Path::Static)] path: Path,
    #[values(4, 5)] last: u64,
) {
    let (subscriber, probe) = recorder_with(100, |_| 0);
    let requester = probe.clone();
    let publisher = infinite(|i| i).filter(move |&i| {
        if i == last {
            requester.request(0);
        }
        true
    });
    subscribe(&publisher, subscriber, path);
    assert!(probe.wait_dropped());
    // §3.9: no element after the one during which `request(0)` was made.
    assert_eq!(probe.elements(), (0..=last).collect::<Vec<_>>());
    assert!(probe.error().expect("on_error").is_illegal_demand());
    assert!(probe.violations().is_empty(), "{:?}", probe.violations());
}

#[rstest]
fn empty_iterator_completes_without_demand(#[values(Path::Dynamic, Path::Static)] path: Path) {
    let (subscriber, probe) = recorder();
    subscribe(&range(0, 0), subscriber, path);
    assert!(matches!(probe.terminals().as_slice(), [Event::Complete]));
}

#[rstest]
fn on_an_executor(#[values(Path::Dynamic, Path::Static)] path: Path) {
    let publisher = range(0, 5_000).with_executor(Executor::Tokio(runtime().handle().clone()));
    let (subscriber, probe) = recorder_with(16, |x| u64::from(x % 16 == 15) * 16);
    subscribe(&publisher, subscriber, path);
    assert!(probe.wait_until(DEADLINE, |log| log.dropped));
    assert_eq!(probe.elements(), (0..5_000).collect::<Vec<_>>());
    assert!(probe.completed());
    assert!(probe.violations().is_empty(), "{:?}", probe.violations());
}
