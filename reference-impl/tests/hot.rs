//! Multicast publisher and multi-subscriber processors.

mod support;

use reactive_streams::{Publisher, StreamError, Subscriber};
use reactive_streams_reference::{
    BufferOverflow, BufferProcessor, IdentityProcessor, MapProcessor, MulticastPublisher, Overflow,
};
use rstest::rstest;
use support::{recorder, recorder_with, spy::SpyPublisher};

#[test]
fn multicast_subscribers_have_their_own_demand() {
    let hot = MulticastPublisher::new(8, Overflow::Error);
    let (a, pa) = recorder::<u64>();
    let (b, pb) = recorder::<u64>();
    hot.subscribe(Box::new(a));
    hot.subscribe(Box::new(b));
    pa.request(2);
    pb.request(5);
    for i in 0..5 {
        assert_eq!(hot.push(i), 2);
    }
    assert_eq!(pa.elements(), vec![0, 1]);
    assert_eq!(pb.elements(), vec![0, 1, 2, 3, 4]);
    pa.request(10);
    assert_eq!(pa.elements(), vec![0, 1, 2, 3, 4]);
    hot.complete();
    assert!(pa.completed() && pb.completed());
    assert!(pa.wait_dropped() && pb.wait_dropped());
    assert!(pa.violations().is_empty() && pb.violations().is_empty());
}

#[rstest]
#[case(Overflow::DropOldest, vec![2, 3])]
#[case(Overflow::DropNewest, vec![0, 1])]
fn multicast_overflow_drops(#[case] policy: Overflow, #[case] kept: Vec<u64>) {
    let hot = MulticastPublisher::new(2, policy);
    let (a, pa) = recorder::<u64>();
    hot.subscribe(Box::new(a));
    for i in 0..4 {
        hot.push(i);
    }
    pa.request(10);
    assert_eq!(pa.elements(), kept);
    assert!(pa.terminals().is_empty());
}

#[test]
fn multicast_overflow_error_fails_at_once() {
    let hot = MulticastPublisher::new(2, Overflow::Error);
    let (a, pa) = recorder::<u64>();
    let (b, pb) = recorder::<u64>();
    hot.subscribe(Box::new(a));
    hot.subscribe(Box::new(b));
    pb.request(100);
    for i in 0..3 {
        hot.push(i);
    }
    let error = pa.error().expect("overflow error without demand");
    assert!(error.downcast_ref::<BufferOverflow>().is_some());
    assert!(pa.wait_dropped());
    assert_eq!(pb.elements(), vec![0, 1, 2]);
    hot.push(3);
    assert_eq!(hot.subscriber_count(), 1);
}

#[test]
fn multicast_hands_pushes_to_idle_subscribers_within_demand() {
    // The eager one asks for one more from inside each `on_next`: every
    // push is handed to it directly; the idle one buffers until it asks.
    let hot = MulticastPublisher::new(4, Overflow::Error);
    let (eager, pe) = recorder_with::<u64>(1, |_| 1);
    let (idle, pi) = recorder::<u64>();
    hot.subscribe(Box::new(eager));
    hot.subscribe(Box::new(idle));
    for i in 0..4 {
        assert_eq!(hot.push(i), 2);
    }
    assert_eq!(pe.elements(), vec![0, 1, 2, 3]);
    assert!(pi.elements().is_empty());
    pi.request(10);
    assert_eq!(pi.elements(), vec![0, 1, 2, 3]);
    hot.complete();
    assert!(pe.completed() && pi.completed());
    assert!(pe.violations().is_empty() && pi.violations().is_empty());
}

#[test]
fn multicast_capacity_zero_overflows_even_with_demand() {
    let hot = MulticastPublisher::new(0, Overflow::Error);
    let (a, pa) = recorder::<u64>();
    hot.subscribe(Box::new(a));
    pa.request(5);
    hot.push(1);
    assert!(pa.error().is_some(), "nothing handed over a buffer of 0");
    assert!(pa.elements().is_empty());
}

#[test]
fn multicast_cancel_and_late_subscribers() {
    let hot = MulticastPublisher::new(2, Overflow::Error);
    let (a, pa) = recorder::<u64>();
    hot.subscribe(Box::new(a));
    pa.request(1);
    pa.cancel();
    assert!(pa.wait_dropped());
    assert_eq!(hot.push(1), 0);
    hot.error(StreamError::msg("boom"));
    let (late, pl) = recorder::<u64>();
    hot.subscribe(Box::new(late));
    assert_eq!(pl.error().unwrap().to_string(), "boom");
    assert!(pl.wait_dropped());
}

#[test]
fn processor_serves_a_late_second_subscriber_at_the_slowest_pace() {
    let upstream = SpyPublisher::new();
    let stage = IdentityProcessor::<u64>::new();
    upstream.subscribe(Box::new(stage.clone()));
    assert_eq!(
        upstream.spy.requested(),
        0,
        "nothing requested without downstream"
    );
    let (a, pa) = recorder::<u64>();
    stage.subscribe(Box::new(a));
    pa.request(2);
    assert_eq!(upstream.spy.requested(), 2);
    upstream.with(|s| {
        s.on_next(0);
        s.on_next(1);
    });
    assert_eq!(pa.elements(), vec![0, 1]);

    let (b, pb) = recorder::<u64>();
    stage.subscribe(Box::new(b));
    pb.request(3);
    assert_eq!(upstream.spy.requested(), 2, "A has no demand left");
    pa.request(5);
    assert_eq!(upstream.spy.requested(), 5, "min(A=5, B=3) more");
    upstream.with(|s| (2..5).for_each(|i| s.on_next(i)));
    assert_eq!(pa.elements(), vec![0, 1, 2, 3, 4]);
    assert_eq!(pb.elements(), vec![2, 3, 4]);

    pa.cancel();
    assert!(pa.wait_dropped());
    assert!(!upstream.spy.cancelled());
    pb.request(1);
    assert_eq!(upstream.spy.requested(), 6);
    pb.cancel();
    assert!(pb.wait_dropped());
    assert!(
        upstream.spy.cancelled(),
        "last subscriber's cancel reaches upstream"
    );

    let (late, pl) = recorder::<u64>();
    stage.subscribe(Box::new(late));
    assert!(pl.error().is_some());
}

#[test]
fn processor_forwards_errors_ahead_of_buffered_elements() {
    let upstream = SpyPublisher::new();
    let stage = BufferProcessor::<u64>::new(4);
    upstream.subscribe(Box::new(stage.clone()));
    let (a, pa) = recorder::<u64>();
    stage.subscribe(Box::new(a));
    assert_eq!(upstream.spy.requested(), 4, "prefetches its buffer");
    upstream.with(|s| {
        s.on_next(1);
        s.on_next(2);
        s.on_error(StreamError::msg("upstream failed"));
    });
    assert!(pa.elements().is_empty());
    assert_eq!(pa.error().unwrap().to_string(), "upstream failed");
    assert!(pa.wait_dropped());
}

#[test]
fn processor_never_requests_more_than_demand_plus_buffer() {
    let upstream = SpyPublisher::new();
    let stage = MapProcessor::new(|x: u64| x + 1);
    upstream.subscribe(Box::new(stage.clone()));
    let (a, pa) = recorder::<u64>();
    stage.subscribe(Box::new(a));
    for n in [1, 3, 2] {
        pa.request(n);
    }
    assert_eq!(upstream.spy.requested(), 6);
    pa.request(0);
    assert!(pa.error().unwrap().is_illegal_demand());
    assert!(upstream.spy.cancelled());
}

#[test]
fn processor_rejects_a_second_upstream_subscription() {
    let stage = IdentityProcessor::<u64>::new();
    let first = SpyPublisher::new();
    let second = SpyPublisher::new();
    first.subscribe(Box::new(stage.clone()));
    second.subscribe(Box::new(stage.clone()));
    assert!(second.spy.cancelled(), "§2.5");
    assert!(!first.spy.cancelled());
}

#[test]
fn processor_replays_completion_to_late_subscribers() {
    let upstream = SpyPublisher::new();
    let stage = IdentityProcessor::<u64>::new();
    upstream.subscribe(Box::new(stage.clone()));
    upstream.with(|s: &mut dyn Subscriber<u64>| s.on_complete());
    let (late, pl) = recorder::<u64>();
    stage.subscribe(Box::new(late));
    assert!(pl.completed());
}

/// Regression (§1.11, found by the processor verification): elements a
/// `BufferProcessor` prefetched for its first subscriber, before a second
/// one arrived, reached only the first.
#[test]
fn buffer_processor_shares_what_it_prefetched_with_a_late_subscriber() {
    let upstream = SpyPublisher::new();
    let stage = BufferProcessor::<u64>::new(8);
    upstream.subscribe(Box::new(stage.clone()));
    let (a, pa) = recorder::<u64>();
    stage.subscribe(Box::new(a));
    assert_eq!(upstream.spy.requested(), 8, "prefetches its buffer");
    upstream.with(|s| (0..3).for_each(|i| s.on_next(i)));

    let (b, pb) = recorder::<u64>();
    stage.subscribe(Box::new(b));
    for _ in 0..3 {
        pa.request(1);
        pb.request(1);
    }
    assert_eq!(pa.elements(), vec![0, 1, 2]);
    assert_eq!(pb.elements(), vec![0, 1, 2]);
    upstream.with(|s| s.on_next(3));
    assert_eq!(pb.elements(), vec![0, 1, 2], "B's demand is met");
    pa.request(1);
    pb.request(1);
    assert_eq!(pa.elements(), vec![0, 1, 2, 3]);
    assert_eq!(pb.elements(), vec![0, 1, 2, 3]);
    assert!(pa.violations().is_empty() && pb.violations().is_empty());
}

/// The same, when upstream completed before the second subscriber
/// arrived: the prefetched elements still reach it, then completion.
#[test]
fn buffer_processor_replays_prefetched_elements_after_completion() {
    let upstream = SpyPublisher::new();
    let stage = BufferProcessor::<u64>::new(8);
    upstream.subscribe(Box::new(stage.clone()));
    let (a, pa) = recorder::<u64>();
    stage.subscribe(Box::new(a));
    upstream.with(|s| {
        (0..3).for_each(|i| s.on_next(i));
        s.on_complete();
    });

    let (b, pb) = recorder::<u64>();
    stage.subscribe(Box::new(b));
    assert!(pb.terminals().is_empty(), "elements come first");
    for _ in 0..3 {
        pa.request(1);
        pb.request(1);
    }
    for probe in [&pa, &pb] {
        assert_eq!(probe.elements(), vec![0, 1, 2]);
        assert!(probe.completed());
        assert!(probe.wait_dropped());
        assert!(probe.violations().is_empty());
    }
    // Everything was delivered: a later subscriber only completes.
    let (late, pl) = recorder::<u64>();
    stage.subscribe(Box::new(late));
    assert!(pl.completed() && pl.elements().is_empty());
}
