//! Elements per second through the reference implementation, side by side
//! with the baselines it is judged against.
//!
//! Run: `cargo bench -p reactive-streams-reference --bench throughput -- --warm-up-time 1 --measurement-time 2`

mod support;

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use futures::StreamExt;
use reactive_streams::{demand, Publisher, Subscriber};
use reactive_streams_reference::{
    range, AsyncPublisher, CallbackSubscriber, MapProcessor, QueuedSubscriber, Signal,
};

use support::{floor_subscriber, Batched};

const N: u64 = 100_000;

fn one_thread(c: &mut Criterion) {
    let mut group = c.benchmark_group("one_thread");
    group.throughput(Throughput::Elements(N));

    group.bench_function("plain_loop", |b| {
        b.iter(|| {
            for x in 0..black_box(N) {
                black_box(x * 2);
            }
        })
    });

    group.bench_function("futures_iter_map", |b| {
        b.iter(|| {
            futures::executor::block_on(
                futures::stream::iter(0..black_box(N))
                    .map(|x| x * 2)
                    .for_each(|x| {
                        black_box(x);
                        futures::future::ready(())
                    }),
            )
        })
    });

    // The floor: no publisher, the loop calls the boxed subscriber itself.
    group.bench_function("floor_dyn_on_next_batch_128", |b| {
        b.iter(|| {
            let mut subscriber = floor_subscriber();
            for x in 0..black_box(N) {
                subscriber.on_next(x * 2);
            }
        })
    });

    // The floor plus one uncontended atomic read-modify-write per element
    // (what a lock, an `Arc` clone or a wake-up costs at least).
    group.bench_function("floor_plus_one_atomic_rmw", |b| {
        let counter = AtomicU64::new(0);
        b.iter(|| {
            let mut subscriber = floor_subscriber();
            for x in 0..black_box(N) {
                counter.fetch_add(1, Ordering::AcqRel);
                subscriber.on_next(x * 2);
            }
        })
    });

    for (name, batch) in [
        ("range_map_batch_1", 1),
        ("range_map_batch_128", 128),
        ("range_map_unbounded", demand::UNBOUNDED),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let map = MapProcessor::new(|x: u64| x * 2);
                range(0, black_box(N)).subscribe(Box::new(map.clone()));
                map.subscribe(Box::new(CallbackSubscriber::new(batch, |x| {
                    black_box(x);
                })));
            })
        });
    }

    group.bench_function("range_fused_map_batch_128", |b| {
        b.iter(|| {
            range(0, black_box(N))
                .map(|x| x * 2)
                .subscribe(Box::new(CallbackSubscriber::new(128, |x| {
                    black_box(x);
                })));
        })
    });

    group.bench_function("range_fused_map_unbounded", |b| {
        b.iter(|| {
            range(0, black_box(N))
                .map(|x| x * 2)
                .subscribe(Box::new(CallbackSubscriber::new(demand::UNBOUNDED, |x| {
                    black_box(x);
                })));
        })
    });

    // The same paths through `IterPublisher::subscribe_static`: the
    // emission loop is compiled for the subscriber's type.
    group.bench_function("range_fused_map_batch_128_static", |b| {
        b.iter(|| {
            range(0, black_box(N))
                .map(|x| x * 2)
                .subscribe_static(Batched::new(128));
        })
    });

    group.bench_function("range_fused_map_unbounded_static", |b| {
        b.iter(|| {
            range(0, black_box(N))
                .map(|x| x * 2)
                .subscribe_static(Batched::new(demand::UNBOUNDED));
        })
    });

    group.bench_function("range_batch_128_static", |b| {
        b.iter(|| {
            range(0, black_box(N)).subscribe_static(Batched::new(128));
        })
    });

    // Static dispatch into the drain, but `CallbackSubscriber` still calls
    // its boxed closure per element.
    group.bench_function("range_fused_map_batch_128_static_callback", |b| {
        b.iter(|| {
            range(0, black_box(N))
                .map(|x| x * 2)
                .subscribe_static(CallbackSubscriber::new(128, |x| {
                    black_box(x);
                }));
        })
    });

    group.bench_function("range_batch_128_no_processor", |b| {
        b.iter(|| {
            range(0, black_box(N)).subscribe(Box::new(CallbackSubscriber::new(128, |x| {
                black_box(x * 2);
            })));
        })
    });
    group.finish();
}

fn cross_thread(c: &mut Criterion) {
    let mut group = c.benchmark_group("cross_thread");
    group.throughput(Throughput::Elements(N));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();

    group.bench_function("reference_async_to_queued_256", |b| {
        let publisher = AsyncPublisher::new(runtime.handle().clone(), || 0..N);
        b.iter(|| {
            let (subscriber, worker) = QueuedSubscriber::spawn(256, |signal| {
                if let Signal::Next(x) = signal {
                    black_box(x);
                }
            });
            publisher.subscribe(Box::new(subscriber));
            worker.join().unwrap();
        })
    });

    group.bench_function("tokio_mpsc_256", |b| {
        b.iter(|| {
            let (tx, mut rx) = tokio::sync::mpsc::channel::<u64>(256);
            runtime.spawn(async move {
                for x in 0..N {
                    if tx.send(x).await.is_err() {
                        break;
                    }
                }
            });
            let (done_tx, done_rx) = mpsc::channel();
            std::thread::spawn(move || {
                while let Some(x) = rx.blocking_recv() {
                    black_box(x);
                }
                done_tx.send(()).unwrap();
            });
            done_rx.recv().unwrap();
        })
    });

    group.bench_function("crossbeam_bounded_256", |b| {
        b.iter(|| {
            let (tx, rx) = crossbeam_channel::bounded::<u64>(256);
            let producer = std::thread::spawn(move || {
                for x in 0..N {
                    if tx.send(x).is_err() {
                        break;
                    }
                }
            });
            for x in rx.iter() {
                black_box(x);
            }
            producer.join().unwrap();
        })
    });
    group.finish();
}

criterion_group!(benches, one_thread, cross_thread);
criterion_main!(benches);
