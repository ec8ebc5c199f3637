//! Several subscribers of one hot stage, driven from several threads.

mod support;

use proptest::prelude::*;
use reactive_streams::{Publisher, demand};
use reactive_streams_reference::{
    AsyncPublisher, BufferProcessor, IdentityProcessor, MulticastPublisher, Overflow, range,
};
use support::{Probe, recorder};

#[derive(Debug, Clone)]
enum Op {
    Request(u64),
    Cancel,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => (1u64..8).prop_map(Op::Request),
        1 => Just(Op::Request(demand::UNBOUNDED)),
        1 => Just(Op::Cancel),
    ]
}

fn drive(probes: &[Probe<u64>], schedules: &[Vec<Op>]) {
    std::thread::scope(|scope| {
        for (probe, ops) in probes.iter().zip(schedules) {
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
}

/// Elements form a contiguous run of the upstream sequence (a late
/// subscriber may start later), never more than demanded, at most one
/// terminal, nothing after it.
fn assert_clean(probe: &Probe<u64>) {
    assert!(probe.violations().is_empty(), "{:?}", probe.violations());
    let elements = probe.elements();
    for pair in elements.windows(2) {
        assert_eq!(pair[1], pair[0] + 1, "gap or reordering: {elements:?}");
    }
    assert!(probe.terminals().len() <= 1);
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn processor_with_several_subscribers(
        asynchronous in any::<bool>(),
        len in 0u64..60,
        schedules in prop::collection::vec(prop::collection::vec(op(), 0..10), 1..4),
    ) {
        let runtime = runtime();
        let stage = IdentityProcessor::new();
        let probes: Vec<_> = schedules
            .iter()
            .map(|_| {
                let (subscriber, probe) = recorder::<u64>();
                stage.subscribe(Box::new(subscriber));
                probe
            })
            .collect();
        // Subscribe upstream after the downstream subscribers arrived.
        let upstream: Box<dyn Publisher<u64>> = if asynchronous {
            Box::new(AsyncPublisher::new(runtime.handle().clone(), move || 0..len))
        } else {
            Box::new(range(0, len))
        };
        upstream.subscribe(Box::new(stage.clone()));
        drive(&probes, &schedules);
        for (probe, ops) in probes.iter().zip(&schedules) {
            if ops.iter().any(|op| matches!(op, Op::Cancel)) {
                prop_assert!(probe.wait_dropped());
            }
        }
        // Everyone still subscribed asks for the rest: all must complete.
        for probe in &probes {
            probe.request(demand::UNBOUNDED);
        }
        for (probe, ops) in probes.iter().zip(&schedules) {
            if !ops.iter().any(|op| matches!(op, Op::Cancel)) {
                prop_assert!(probe.wait_terminal());
                prop_assert!(probe.completed(), "{:?}", probe.terminals());
                prop_assert_eq!(probe.elements(), (0..len).collect::<Vec<_>>());
            }
            prop_assert!(probe.wait_dropped());
            assert_clean(probe);
        }
    }

    #[test]
    fn buffer_processor_with_several_subscribers(
        buffer in 1u64..5,
        len in 0u64..60,
        schedules in prop::collection::vec(prop::collection::vec(op(), 0..10), 1..4),
    ) {
        let stage = BufferProcessor::new(buffer);
        let probes: Vec<_> = schedules
            .iter()
            .map(|_| {
                let (subscriber, probe) = recorder::<u64>();
                stage.subscribe(Box::new(subscriber));
                probe
            })
            .collect();
        range(0, len).subscribe(Box::new(stage.clone()));
        drive(&probes, &schedules);
        for probe in &probes {
            probe.request(demand::UNBOUNDED);
        }
        for (probe, ops) in probes.iter().zip(&schedules) {
            if !ops.iter().any(|op| matches!(op, Op::Cancel)) {
                prop_assert!(probe.wait_terminal());
                prop_assert!(probe.completed());
                prop_assert_eq!(probe.elements(), (0..len).collect::<Vec<_>>());
            }
            prop_assert!(probe.wait_dropped());
            assert_clean(probe);
        }
    }

    #[test]
    fn multicast_pushed_while_subscribers_request_and_cancel(
        capacity in 1usize..8,
        policy in prop_oneof![Just(Overflow::DropOldest), Just(Overflow::DropNewest), Just(Overflow::Error)],
        len in 0u64..100,
        schedules in prop::collection::vec(prop::collection::vec(op(), 0..10), 1..4),
    ) {
        let hot = MulticastPublisher::new(capacity, policy);
        let probes: Vec<_> = schedules
            .iter()
            .map(|_| {
                let (subscriber, probe) = recorder::<u64>();
                hot.subscribe(Box::new(subscriber));
                probe
            })
            .collect();
        std::thread::scope(|scope| {
            let hot = hot.clone();
            scope.spawn(move || {
                for i in 0..len {
                    hot.push(i);
                }
                hot.complete();
            });
            drive(&probes, &schedules);
        });
        for probe in &probes {
            probe.request(demand::UNBOUNDED);
        }
        for probe in &probes {
            prop_assert!(probe.wait_dropped());
            prop_assert!(probe.violations().is_empty(), "{:?}", probe.violations());
            let elements = probe.elements();
            // Dropping policies may leave gaps, never reorder.
            prop_assert!(elements.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(probe.terminals().len() <= 1);
        }
    }
}
