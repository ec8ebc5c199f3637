//! The cost of datum-done tokens: the same pipeline — range → map → filter
//! → buffer → subscriber — carrying plain `u64` and carrying
//! `Tracked<u64>`, in the same run.
//!
//! `cargo bench -p reactive-streams-reference --bench tokens`
//!
//! * `plain`: the untracked baseline;
//! * `tracked`: a token per element from a ledger whose callback does
//!   nothing (the cost of the token itself: issue, carry, drop);
//! * `checkpointed`: tokens from a [`Checkpoint`], which also keeps the
//!   committable offset (a mutex and an ordered set per datum).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use reactive_streams::Publisher;
use reactive_streams::done::{Checkpoint, DoneLedger, DoneToken, Tracked};
use reactive_streams_reference::{
    BufferProcessor, CallbackSubscriber, FilterProcessor, IterPublisher, MapProcessor, range,
};

const ELEMENTS: u64 = 100_000;
const BATCH: u64 = 256;

fn plain() {
    let map = MapProcessor::new(|x: u64| x.wrapping_mul(3));
    let filter = FilterProcessor::new(|x: &u64| x % 2 == 0);
    let buffer = BufferProcessor::new(BATCH);
    buffer.subscribe(Box::new(CallbackSubscriber::new(BATCH, |x: u64| {
        black_box(x);
    })));
    filter.subscribe(Box::new(buffer));
    map.subscribe(Box::new(filter));
    range(0, ELEMENTS).subscribe(Box::new(map));
}

fn tracked(issue: impl Fn(u64) -> DoneToken + Send + Sync + Clone + 'static) {
    let source = IterPublisher::new(move || {
        let issue = issue.clone();
        (0..ELEMENTS).map(move |i| Tracked::new(i, issue(i)))
    });
    let map = MapProcessor::new(|t: Tracked<u64>| t.map(|x| x.wrapping_mul(3)));
    let filter = FilterProcessor::new(|t: &Tracked<u64>| t.value % 2 == 0);
    let buffer = BufferProcessor::new(BATCH);
    buffer.subscribe(Box::new(CallbackSubscriber::new(
        BATCH,
        |t: Tracked<u64>| {
            black_box(t.value);
        },
    )));
    filter.subscribe(Box::new(buffer));
    map.subscribe(Box::new(filter));
    source.subscribe(Box::new(map));
}

fn pipeline(c: &mut Criterion) {
    let mut group = c.benchmark_group("range_map_filter_buffer");
    group.throughput(Throughput::Elements(ELEMENTS));
    group.bench_function("plain", |b| b.iter(plain));
    group.bench_function("tracked", |b| {
        b.iter(|| {
            let ledger = DoneLedger::new(|id| {
                black_box(id);
            });
            tracked(move |i| ledger.issue(i));
        })
    });
    group.bench_function("checkpointed", |b| {
        b.iter(|| {
            let checkpoint = Checkpoint::new();
            let issuer = checkpoint.clone();
            tracked(move |_| issuer.issue());
            assert_eq!(checkpoint.committable(), Some(ELEMENTS - 1));
        })
    });
    group.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
