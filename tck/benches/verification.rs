//! How long the whole publisher verification takes against the TCK's own
//! conforming synchronous range publisher (`run_all`, default timings
//! except where noted).
//!
//! `cargo bench -p reactive-streams-tck --bench verification`

use criterion::{Criterion, criterion_group, criterion_main};
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::publisher::PublisherVerification;
use reactive_streams_tck::testkit::{AsyncRanges, SyncRanges};

fn verification(c: &mut Criterion) {
    // The documented defaults, whatever the environment says.
    let env = TestEnv::default();
    let mut group = c.benchmark_group("publisher_verification");
    group.sample_size(10);
    group.bench_function("sync_range/run_all", |b| {
        b.iter(|| {
            let results = PublisherVerification::new(SyncRanges)
                .env(env)
                .run_all()
                .unwrap();
            // Without `extended(…)`, the two extended tests are left out.
            assert_eq!(
                results.len(),
                reactive_streams_tck::publisher::TESTS.len() - 2
            );
        })
    });
    group.bench_function("async_range/run_all", |b| {
        b.iter(|| {
            PublisherVerification::new(AsyncRanges)
                .env(env)
                .run_all()
                .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, verification);
criterion_main!(benches);
