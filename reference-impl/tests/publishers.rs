//! One body, every cold publisher: the rule-level behaviour each must show.

mod support;

use std::sync::OnceLock;

use proptest::prelude::*;
use reactive_streams::{Publisher, demand};
use reactive_streams_reference::{
    AsyncPublisher, BufferProcessor, Executor, FilterProcessor, IdentityProcessor, IterPublisher,
    MapProcessor, StreamPublisher, range,
};
use rstest::rstest;
use support::{Probe, recorder, recorder_with};

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap()
    })
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Range,
    Async,
    Pool,
    StreamInline,
    StreamTokio,
    Map,
    Filter,
    Identity,
    Buffer,
}

const KINDS: [Kind; 9] = [
    Kind::Range,
    Kind::Async,
    Kind::Pool,
    Kind::StreamInline,
    Kind::StreamTokio,
    Kind::Map,
    Kind::Filter,
    Kind::Identity,
    Kind::Buffer,
];

/// A publisher of `0..len`.
fn make(kind: Kind, len: u64) -> Box<dyn Publisher<u64>> {
    let handle = runtime().handle().clone();
    match kind {
        Kind::Range => Box::new(range(0, len)),
        Kind::Async => Box::new(AsyncPublisher::new(handle, move || 0..len)),
        Kind::Pool => Box::new(
            IterPublisher::new(move || 0..len).with_executor(Executor::custom(|task| {
                std::thread::spawn(task);
            })),
        ),
        Kind::StreamInline => Box::new(StreamPublisher::new(Executor::Inline, move || {
            futures::stream::iter(0..len)
        })),
        Kind::StreamTokio => Box::new(StreamPublisher::new(Executor::Tokio(handle), move || {
            futures::stream::iter(0..len)
        })),
        Kind::Map => {
            let stage = MapProcessor::new(|x: u64| x);
            range(0, len).subscribe(Box::new(stage.clone()));
            Box::new(stage)
        }
        Kind::Filter => {
            // Interleave rejected odd values with the halved even ones.
            let stage = FilterProcessor::new(|x: &u64| x % 2 == 0);
            let doubled = MapProcessor::new(|x: u64| x / 2);
            range(0, len * 2).subscribe(Box::new(stage.clone()));
            stage.subscribe(Box::new(doubled.clone()));
            Box::new(doubled)
        }
        Kind::Identity => {
            let stage = IdentityProcessor::new();
            AsyncPublisher::new(handle, move || 0..len).subscribe(Box::new(stage.clone()));
            Box::new(stage)
        }
        Kind::Buffer => {
            let stage = BufferProcessor::new(4);
            range(0, len).subscribe(Box::new(stage.clone()));
            Box::new(stage)
        }
    }
}

fn assert_clean(probe: &Probe<u64>) {
    assert!(probe.violations().is_empty(), "{:?}", probe.violations());
    let elements = probe.elements();
    let expected: Vec<u64> = (0..elements.len() as u64).collect();
    assert_eq!(elements, expected, "elements out of order");
    assert!(probe.terminals().len() <= 1);
}

#[rstest]
fn emits_everything_then_completes(
    #[values(0, 1, 10, 3000)] len: u64,
    #[values(
        Kind::Range,
        Kind::Async,
        Kind::Pool,
        Kind::StreamInline,
        Kind::StreamTokio,
        Kind::Map,
        Kind::Filter,
        Kind::Identity,
        Kind::Buffer
    )]
    kind: Kind,
) {
    let (subscriber, probe) = recorder_with(demand::UNBOUNDED, |_| 0);
    make(kind, len).subscribe(Box::new(subscriber));
    assert!(probe.wait_terminal());
    assert!(probe.completed(), "{:?}", probe.terminals());
    assert_eq!(probe.elements().len() as u64, len);
    assert_clean(&probe);
    assert!(
        probe.wait_dropped(),
        "§3.13: subscriber kept after completion"
    );
}

#[rstest]
fn one_at_a_time_from_on_next_does_not_recurse(
    #[values(
        Kind::Range,
        Kind::Async,
        Kind::Pool,
        Kind::StreamInline,
        Kind::StreamTokio,
        Kind::Map,
        Kind::Filter,
        Kind::Identity,
        Kind::Buffer
    )]
    kind: Kind,
) {
    // 100 000 nested calls would overflow the stack without trampolining.
    let len = 100_000;
    let (subscriber, probe) = recorder_with(1, |_| 1);
    make(kind, len).subscribe(Box::new(subscriber));
    assert!(probe.wait_terminal());
    assert!(probe.completed());
    assert_eq!(probe.elements().len() as u64, len);
    assert_clean(&probe);
}

#[rstest]
fn request_zero_fails_with_illegal_demand(
    #[values(
        Kind::Range,
        Kind::Async,
        Kind::Pool,
        Kind::StreamInline,
        Kind::StreamTokio,
        Kind::Map,
        Kind::Filter,
        Kind::Identity,
        Kind::Buffer
    )]
    kind: Kind,
) {
    let (subscriber, probe) = recorder();
    make(kind, 10).subscribe(Box::new(subscriber));
    assert!(probe.wait_subscribed());
    probe.request(2);
    assert!(probe.wait_elements(2));
    probe.request(0);
    assert!(probe.wait_terminal());
    let error = probe.error().expect("on_error");
    assert!(error.is_illegal_demand(), "{error}");
    assert_clean(&probe);
    assert!(probe.wait_dropped());
}

#[rstest]
fn cancel_stops_and_drops_the_subscriber(
    #[values(
        Kind::Range,
        Kind::Async,
        Kind::Pool,
        Kind::StreamInline,
        Kind::StreamTokio,
        Kind::Map,
        Kind::Filter,
        Kind::Identity,
        Kind::Buffer
    )]
    kind: Kind,
) {
    let (subscriber, probe) = recorder();
    make(kind, 10).subscribe(Box::new(subscriber));
    assert!(probe.wait_subscribed());
    probe.request(3);
    assert!(probe.wait_elements(3));
    let subscription = probe.log().subscription.clone().unwrap();
    subscription.cancel();
    assert!(probe.wait_dropped(), "§3.13: subscriber kept after cancel");
    // §3.6, §3.7: later calls are no-ops.
    subscription.request(5);
    subscription.cancel();
    subscription.request(0);
    assert_eq!(probe.elements().len(), 3);
    assert!(probe.terminals().is_empty());
    assert_clean(&probe);
}

#[rstest]
fn cancel_inside_on_subscribe(
    #[values(Kind::Range, Kind::Async, Kind::StreamTokio, Kind::Map, Kind::Buffer)] kind: Kind,
) {
    struct CancelAtOnce(support::Recorder<u64>);
    impl reactive_streams::Subscriber<u64> for CancelAtOnce {
        fn on_subscribe(&mut self, s: std::sync::Arc<dyn reactive_streams::Subscription>) {
            s.request(5);
            s.cancel();
            self.0.on_subscribe(s);
        }
        fn on_next(&mut self, x: u64) {
            self.0.on_next(x)
        }
        fn on_error(&mut self, e: reactive_streams::StreamError) {
            self.0.on_error(e)
        }
        fn on_complete(&mut self) {
            self.0.on_complete()
        }
    }
    let (subscriber, probe) = recorder();
    make(kind, 10).subscribe(Box::new(CancelAtOnce(subscriber)));
    assert!(probe.wait_dropped());
    assert!(probe.log().events.is_empty(), "signals after cancel");
}

#[derive(Debug, Clone)]
enum Op {
    Request(u64),
    Cancel,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (1u64..6).prop_map(Op::Request),
        1 => Just(Op::Request(demand::UNBOUNDED)),
        1 => Just(Op::Request(i64::MAX as u64)),
        1 => Just(Op::Cancel),
    ]
}

fn run_schedule(kind: Kind, len: u64, threads: Vec<Vec<Op>>) {
    let (subscriber, probe) = recorder();
    make(kind, len).subscribe(Box::new(subscriber));
    assert!(probe.wait_subscribed());
    std::thread::scope(|scope| {
        for ops in &threads {
            let probe = probe.clone();
            scope.spawn(move || {
                for op in ops {
                    match op {
                        Op::Request(n) => probe.request(*n),
                        Op::Cancel => probe.cancel(),
                    }
                }
            });
        }
    });
    let cancelled = threads.iter().flatten().any(|op| matches!(op, Op::Cancel));
    if cancelled {
        assert!(probe.wait_dropped(), "§3.13: kept after cancel");
        assert!(
            probe
                .terminals()
                .iter()
                .all(|e| matches!(e, support::Event::Complete))
        );
    } else {
        probe.request(demand::UNBOUNDED);
        assert!(probe.wait_terminal());
        assert!(probe.completed());
        assert_eq!(probe.elements().len() as u64, len);
        assert!(probe.wait_dropped());
    }
    assert_clean(&probe);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn any_schedule_from_one_thread(kind in 0..KINDS.len(), len in 0u64..20, ops in prop::collection::vec(op(), 0..12)) {
        run_schedule(KINDS[kind], len, vec![ops]);
    }

    #[test]
    fn any_schedule_from_three_threads(
        kind in 0..KINDS.len(),
        len in 0u64..40,
        ops in prop::collection::vec(prop::collection::vec(op(), 0..8), 3),
    ) {
        run_schedule(KINDS[kind], len, ops);
    }
}

#[rstest]
fn request_and_cancel_return_while_on_next_blocks(
    #[values(Kind::Range, Kind::Async, Kind::StreamTokio, Kind::Map, Kind::Buffer)] kind: Kind,
) {
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};

    use reactive_streams::{StreamError, Subscriber, Subscription};

    type Shared = Arc<Mutex<Option<Arc<dyn Subscription>>>>;
    struct Blocking {
        shared: Shared,
        entered: mpsc::Sender<()>,
        release: mpsc::Receiver<()>,
    }
    impl Subscriber<u64> for Blocking {
        fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
            *self.shared.lock().unwrap() = Some(subscription.clone());
            subscription.request(1);
        }
        fn on_next(&mut self, _: u64) {
            let _ = self.entered.send(());
            let _ = self.release.recv_timeout(support::DEADLINE);
        }
        fn on_error(&mut self, _: StreamError) {}
        fn on_complete(&mut self) {}
    }

    let shared: Shared = Arc::default();
    let (entered_tx, entered) = mpsc::channel();
    let (release, release_rx) = mpsc::channel();
    let publisher = make(kind, 10);
    let subscriber = Blocking {
        shared: shared.clone(),
        entered: entered_tx,
        release: release_rx,
    };
    // A synchronous publisher emits inside `subscribe`: run it elsewhere.
    let subscribing = std::thread::spawn(move || publisher.subscribe(Box::new(subscriber)));
    entered
        .recv_timeout(support::DEADLINE)
        .expect("on_next entered");
    let subscription = shared.lock().unwrap().clone().unwrap();
    let (done_tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        subscription.request(5);
        subscription.cancel();
        done_tx.send(()).unwrap();
    });
    done.recv_timeout(support::DEADLINE)
        .expect("§3.4/§3.5: request and cancel must not wait for on_next");
    release.send(()).unwrap();
    subscribing.join().unwrap();
}
