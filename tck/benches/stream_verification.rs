//! How long the whole stream verification of one stream takes, as a ratio
//! against the whole publisher verification of the TCK's synchronous range
//! publisher, measured in the same run (default timings).
//!
//! `cargo bench -p reactive-streams-tck --bench stream_verification`
//!
//! Criterion times each; the last lines print the medians of per-round
//! ratios over interleaved rounds (stream, then publisher, in each round),
//! so that load on the machine weighs on both sides alike.

use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};

use reactive_streams_tck::ExtendedConfig;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::futures::stream::{Feeder, StreamFactory, StreamVerification};
use reactive_streams_tck::publisher::PublisherVerification;
use reactive_streams_tck::testkit::SyncRanges;

/// futures' unbounded channel, fed by the TCK.
struct Unbounded;

impl StreamFactory for Unbounded {
    type Item = u64;
    type Stream = futures::channel::mpsc::UnboundedReceiver<u64>;
    fn create_stream(&self, items: u64) -> Self::Stream {
        let (sender, receiver) = futures::channel::mpsc::unbounded();
        for i in 0..items {
            sender.unbounded_send(i).unwrap();
        }
        receiver
    }
    fn create_fed_stream(&self) -> Option<(Self::Stream, Feeder)> {
        let (sender, receiver) = futures::channel::mpsc::unbounded();
        let probe = sender.clone();
        let feeder = Feeder::new(move |i| sender.unbounded_send(i).unwrap())
            .closed(move || probe.is_closed());
        Some((receiver, feeder))
    }
    fn is_terminated(&self, stream: &Self::Stream) -> Option<bool> {
        Some(futures::stream::FusedStream::is_terminated(stream))
    }
}

fn stream_all(env: TestEnv) {
    let results = StreamVerification::new(Unbounded)
        .env(env)
        .extended(ExtendedConfig::builder().build())
        .run_all()
        .unwrap();
    assert!(results.iter().all(|r| r.verdict.as_str() == "passed"));
}

fn stream_quick(env: TestEnv) {
    StreamVerification::new(Unbounded)
        .env(env)
        .run_all()
        .unwrap();
}

fn publisher_all(env: TestEnv) {
    PublisherVerification::new(SyncRanges)
        .env(env)
        .run_all()
        .unwrap();
}

fn verification(c: &mut Criterion) {
    // The documented defaults, whatever the environment says.
    let env = TestEnv::default();
    let mut group = c.benchmark_group("stream_vs_publisher");
    group.sample_size(10);
    group.bench_function("stream/run_all (quick + 256 extended schedules)", |b| {
        b.iter(|| stream_all(env))
    });
    group.bench_function("stream/run_quick", |b| b.iter(|| stream_quick(env)));
    group.bench_function("publisher/sync_range/run_all", |b| {
        b.iter(|| publisher_all(env))
    });
    group.finish();
}

fn seconds(f: impl FnOnce()) -> f64 {
    let started = Instant::now();
    f();
    started.elapsed().as_secs_f64()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn ratios(_: &mut Criterion) {
    let env = TestEnv::default();
    let (mut all, mut quick, mut base, mut all_s) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..10 {
        let a = seconds(|| stream_all(env));
        let q = seconds(|| stream_quick(env));
        let p = seconds(|| publisher_all(env));
        all.push(a / p);
        quick.push(q / p);
        base.push(p);
        all_s.push(a);
    }
    println!(
        "stream run_all: median {:.3} s; publisher run_all: median {:.3} s",
        median(all_s),
        median(base)
    );
    println!(
        "ratio stream/publisher (median of 10 interleaved rounds): run_all {:.3}, run_quick {:.3}",
        median(all),
        median(quick)
    );
}

criterion_group!(benches, verification, ratios);
criterion_main!(benches);
