//! How long a whole verification takes, as a ratio against the same run's
//! baseline: one no-signal window (the unit every absence check costs).
//!
//! `cargo bench -p reactive-streams-tck --bench subscriber_processor`

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use reactive_streams::Subscriber;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::processor::testkit::IdentityProcessor;
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
use reactive_streams_tck::subscriber::testkit::{Greedy, Queued};
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxFactory, SubscriberBlackboxVerification, SubscriberWhiteboxFactory,
    SubscriberWhiteboxVerification, WhiteboxProbe,
};

struct Greedies;

impl SubscriberBlackboxFactory for Greedies {
    type Element = u64;
    type Subscriber = Greedy;
    fn create_subscriber(&self) -> Greedy {
        Greedy::new(4)
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
}

struct Queues;

impl SubscriberWhiteboxFactory for Queues {
    type Element = u64;
    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(Queued::new(Some(probe)))
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
}

struct Identities;

impl ProcessorFactory for Identities {
    type Input = u64;
    type Output = u64;
    type Processor = IdentityProcessor<u64>;
    fn create_processor(&self) -> IdentityProcessor<u64> {
        IdentityProcessor::new()
    }
    fn input(&self, index: u64) -> u64 {
        index
    }
    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

fn passed(results: Vec<reactive_streams_tck::outcome::RuleResult>) {
    for result in results {
        assert_ne!(result.verdict, Verdict::Failed, "{:?}", result.message);
    }
}

fn verifications(c: &mut Criterion) {
    let env = TestEnv::default();
    let mut group = c.benchmark_group("verification");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("baseline: one no-signal window", |b| {
        let (_keep, never) = crossbeam_channel::bounded::<()>(0);
        b.iter(|| never.recv_timeout(env.no_signal_timeout()).ok())
    });
    group.bench_function("subscriber_blackbox (Greedy)", |b| {
        b.iter(|| {
            passed(
                SubscriberBlackboxVerification::new(Greedies)
                    .env(env)
                    .run_all()
                    .unwrap(),
            )
        })
    });
    group.bench_function("subscriber_whitebox (Queued)", |b| {
        b.iter(|| {
            passed(
                SubscriberWhiteboxVerification::new(Queues)
                    .env(env)
                    .run_all()
                    .unwrap(),
            )
        })
    });
    group.bench_function("processor (IdentityProcessor)", |b| {
        b.iter(|| {
            passed(
                ProcessorVerification::new(Identities)
                    .env(env)
                    .run_all()
                    .unwrap(),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, verifications);
criterion_main!(benches);
