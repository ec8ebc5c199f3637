//! Elements through the reference implementation as ratios to the baselines
//! it is judged against, measured interleaved so that the machine's drift
//! cancels out.
//!
//! Run: `cargo bench -p reactive-streams-reference --bench throughput`
//!
//! Every round times each case of a group once (for at least
//! `RS_BENCH_SAMPLE_MS`, default 8 ms, rotating the order from round to
//! round) and divides its time per element by the baselines' from the
//! *same* round; the tables show the median of those per-round ratios over
//! `RS_BENCH_ROUNDS` rounds (default 41) with the 10th–90th percentile
//! spread. Timing one case after another (as criterion does) lets whatever
//! else runs on a shared machine move the ratios; this does not.
//!
//! A positional argument keeps only the cases whose name contains it (the
//! baselines always run).

use std::hint::black_box;
use std::sync::{OnceLock, mpsc};
use std::time::{Duration, Instant};

use futures::StreamExt;
use reactive_streams::{Publisher, Subscriber, demand};
use reactive_streams_reference::{
    AsyncPublisher, BufferProcessor, CallbackSubscriber, FilterProcessor, IdentityProcessor,
    MapProcessor, MulticastPublisher, Overflow, QueuedSubscriber, Signal, range,
};

/// Elements per iteration of every case.
const N: u64 = 100_000;

struct Case {
    name: &'static str,
    what: &'static str,
    run: fn(u64),
}

struct Group {
    title: &'static str,
    baselines: &'static [Case],
    cases: &'static [Case],
}

// ---- one thread -----------------------------------------------------------

fn plain_loop(n: u64) {
    for x in 0..black_box(n) {
        black_box(x * 2);
    }
}

fn futures_iter_map(n: u64) {
    futures::executor::block_on(
        futures::stream::iter(0..black_box(n))
            .map(|x| x * 2)
            .for_each(|x| {
                black_box(x);
                futures::future::ready(())
            }),
    )
}

/// A `CallbackSubscriber` with batch 128 (refill at half), called in a loop
/// through `Box<dyn Subscriber>` with no publisher: the least any path
/// with one dynamic `on_next` per element can cost. The box goes through
/// `black_box`, or the compiler, seeing the concrete type, calls (and
/// inlines) `on_next` directly.
fn dyn_floor(n: u64) {
    struct Ignored;
    impl reactive_streams::Subscription for Ignored {
        fn request(&self, _: u64) {}
        fn cancel(&self) {}
    }
    let mut boxed: Box<dyn Subscriber<u64>> = Box::new(CallbackSubscriber::new(128, |x| {
        black_box(x);
    }));
    let subscriber: &mut dyn Subscriber<u64> = black_box(&mut *boxed);
    subscriber.on_subscribe(std::sync::Arc::new(Ignored));
    for x in 0..black_box(n) {
        subscriber.on_next(x * 2);
    }
}

fn consumer(batch: u64) -> CallbackSubscriber<u64, impl FnMut(u64) + Send> {
    CallbackSubscriber::new(batch, |x| {
        black_box(x);
    })
}

/// The plain loop plus one uncontended atomic read-modify-write per
/// element (`fetch_add` on a counter only this thread touches): what any
/// path that settles demand, claims a loop or counts an element atomically
/// per element pays at least.
fn floor_atomic_rmw(n: u64) {
    let counter = std::sync::atomic::AtomicU64::new(0);
    let counter = black_box(&counter);
    for x in 0..black_box(n) {
        counter.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        black_box(x * 2);
    }
}

/// The plain loop plus one uncontended `parking_lot::Mutex` lock and
/// unlock per element (two atomic read-modify-writes): what an element
/// that passes through a processor's shared state under its lock pays at
/// least.
fn floor_lock(n: u64) {
    let state = parking_lot::Mutex::new(0u64);
    let state = black_box(&state);
    for x in 0..black_box(n) {
        *state.lock() += 1;
        black_box(x * 2);
    }
}

fn processor(n: u64, batch: u64) {
    let map = MapProcessor::new(|x: u64| x * 2);
    range(0, black_box(n)).subscribe(Box::new(map.clone()));
    map.subscribe(Box::new(consumer(batch)));
}

/// [`processor`] with the function's own type ([`MapProcessor::new_static`]).
fn processor_static(n: u64, batch: u64) {
    let map = MapProcessor::new_static(|x: u64| x * 2);
    range(0, black_box(n)).subscribe(Box::new(map.clone()));
    map.subscribe(Box::new(consumer(batch)));
}

/// [`processor_static`] with the range compiled for the processor
/// (`subscribe_static`): the processor's `on_next` is inlined into the
/// range's loop, so the one dynamic call per element is the subscriber's.
fn processor_static_upstream_static(n: u64, batch: u64) {
    let map = MapProcessor::new_static(|x: u64| x * 2);
    range(0, black_box(n)).subscribe_static(map.clone());
    map.subscribe(Box::new(consumer(batch)));
}

fn fused_dyn(n: u64, batch: u64) {
    range(0, black_box(n))
        .map(|x| x * 2)
        .subscribe(Box::new(consumer(batch)));
}

fn fused_static(n: u64, batch: u64) {
    range(0, black_box(n))
        .map(|x| x * 2)
        .subscribe_static(consumer(batch));
}

/// Batch 128, asking for the next 128 only when all have arrived: every
/// `request` is for exactly 128.
fn fused_static_whole_batches(n: u64) {
    range(0, black_box(n))
        .map(|x| x * 2)
        .subscribe_static(consumer(128).low_water(0));
}

const ONE_THREAD: Group = Group {
    title: "One thread: range(0, 100 000) → map(x × 2) → subscriber",
    baselines: &[
        Case {
            name: "plain_loop",
            what: "plain `for` loop (the limit)",
            run: plain_loop,
        },
        Case {
            name: "futures_iter_map",
            what: "`futures::stream::iter(..).map(..)` + `block_on`",
            run: futures_iter_map,
        },
    ],
    cases: &[
        Case {
            name: "dyn_floor",
            what: "floor: boxed `CallbackSubscriber` called in a loop, no publisher",
            run: dyn_floor,
        },
        Case {
            name: "processor_floor_atomic_rmw",
            what: "floor of any path with one atomic read-modify-write per element: the loop + one uncontended `fetch_add`",
            run: floor_atomic_rmw,
        },
        Case {
            name: "processor_floor_lock",
            what: "floor of any path with one lock per element: the loop + one uncontended `parking_lot::Mutex` lock/unlock",
            run: floor_lock,
        },
        Case {
            name: "processor_batch_1",
            what: "`range → MapProcessor → subscriber`, batch 1",
            run: |n| processor(n, 1),
        },
        Case {
            name: "processor_batch_128",
            what: "`range → MapProcessor → subscriber`, batch 128",
            run: |n| processor(n, 128),
        },
        Case {
            name: "processor_unbounded",
            what: "`range → MapProcessor → subscriber`, unbounded",
            run: |n| processor(n, demand::UNBOUNDED),
        },
        Case {
            name: "processor_static_batch_128",
            what: "`range → MapProcessor::new_static → subscriber`, batch 128",
            run: |n| processor_static(n, 128),
        },
        Case {
            name: "processor_static_unbounded",
            what: "`range → MapProcessor::new_static → subscriber`, unbounded",
            run: |n| processor_static(n, demand::UNBOUNDED),
        },
        Case {
            name: "processor_static_upstream_static_batch_128",
            what: "`range(..).subscribe_static(MapProcessor::new_static) → subscriber`, batch 128",
            run: |n| processor_static_upstream_static(n, 128),
        },
        Case {
            name: "fused_dyn_batch_128",
            what: "`range(..).map(f)`, `subscribe` (dyn), batch 128",
            run: |n| fused_dyn(n, 128),
        },
        Case {
            name: "fused_dyn_unbounded",
            what: "`range(..).map(f)`, `subscribe` (dyn), unbounded",
            run: |n| fused_dyn(n, demand::UNBOUNDED),
        },
        Case {
            name: "fused_static_batch_1",
            what: "`range(..).map(f)`, `subscribe_static`, batch 1",
            run: |n| fused_static(n, 1),
        },
        Case {
            name: "fused_static_batch_128",
            what: "`range(..).map(f)`, `subscribe_static`, batch 128 (refill at half: `request(64)`)",
            run: |n| fused_static(n, 128),
        },
        Case {
            name: "fused_static_whole_batches_128",
            what: "`range(..).map(f)`, `subscribe_static`, batch 128 (refill when empty: `request(128)`)",
            run: fused_static_whole_batches,
        },
        Case {
            name: "fused_static_unbounded",
            what: "`range(..).map(f)`, `subscribe_static`, unbounded",
            run: |n| fused_static(n, demand::UNBOUNDED),
        },
    ],
};

// ---- one thread, a chain of processors ------------------------------------

/// The chain's steps: `map(x × 2) → filter(keeps two in three) → map(x + 1)`.
fn chain_double(x: u64) -> u64 {
    x * 2
}
fn chain_keep(x: &u64) -> bool {
    x % 3 != 0
}
fn chain_inc(x: u64) -> u64 {
    x + 1
}

fn plain_chain_loop(n: u64) {
    for x in 0..black_box(n) {
        let x = chain_double(x);
        if chain_keep(&x) {
            black_box(chain_inc(x));
        }
    }
}

fn futures_chain(n: u64) {
    futures::executor::block_on(
        futures::stream::iter(0..black_box(n))
            .map(chain_double)
            .filter(|x| futures::future::ready(chain_keep(x)))
            .map(chain_inc)
            .for_each(|x| {
                black_box(x);
                futures::future::ready(())
            }),
    )
}

fn processor_chain(n: u64, batch: u64) {
    let double = MapProcessor::new(chain_double);
    let keep = FilterProcessor::new(chain_keep);
    let inc = MapProcessor::new(chain_inc);
    inc.subscribe(Box::new(consumer(batch)));
    keep.subscribe(Box::new(inc.clone()));
    double.subscribe(Box::new(keep.clone()));
    range(0, black_box(n)).subscribe(Box::new(double));
}

/// [`processor_chain`] with `new_static` processors and the range compiled
/// for the first (`subscribe_static`).
fn processor_chain_static(n: u64, batch: u64) {
    let double = MapProcessor::new_static(chain_double);
    let keep = FilterProcessor::new_static(chain_keep);
    let inc = MapProcessor::new_static(chain_inc);
    inc.subscribe(Box::new(consumer(batch)));
    keep.subscribe(Box::new(inc.clone()));
    double.subscribe(Box::new(keep.clone()));
    range(0, black_box(n)).subscribe_static(double);
}

fn fused_chain_dyn(n: u64) {
    range(0, black_box(n))
        .map(chain_double)
        .filter(chain_keep)
        .map(chain_inc)
        .subscribe(Box::new(consumer(128)));
}

const CHAIN: Group = Group {
    title: "One thread, a chain: range(0, 100 000) → map(x × 2) → filter(x mod 3 ≠ 0) → map(x + 1) → subscriber",
    baselines: &[
        Case {
            name: "plain_chain_loop",
            what: "plain `for` loop with the same steps (the limit)",
            run: plain_chain_loop,
        },
        Case {
            name: "futures_chain",
            what: "`futures::stream::iter(..).map(..).filter(..).map(..)` + `block_on`",
            run: futures_chain,
        },
    ],
    cases: &[
        Case {
            name: "processor_chain_batch_128",
            what: "`range → MapProcessor → FilterProcessor → MapProcessor → subscriber`, batch 128",
            run: |n| processor_chain(n, 128),
        },
        Case {
            name: "processor_chain_unbounded",
            what: "the same processors, unbounded",
            run: |n| processor_chain(n, demand::UNBOUNDED),
        },
        Case {
            name: "processor_chain_static_batch_128",
            what: "the same with `new_static` processors, the range `subscribe_static` to the first, batch 128",
            run: |n| processor_chain_static(n, 128),
        },
        Case {
            name: "fused_chain_dyn_batch_128",
            what: "`range(..).map(..).filter(..).map(..)`, `subscribe` (dyn), batch 128",
            run: fused_chain_dyn,
        },
    ],
};

// ---- one thread, multicast -----------------------------------------------

/// Subscribers of the multicast cases.
const FAN_OUT: usize = 4;

/// `tokio::sync::broadcast` with 4 receivers on one thread: 128 sent, then
/// each receiver takes them, until all are through (every receiver gets
/// every element; the channel never lags).
fn tokio_broadcast(n: u64) {
    let (tx, first) = tokio::sync::broadcast::channel::<u64>(128);
    let mut receivers: Vec<_> = (1..FAN_OUT).map(|_| tx.subscribe()).collect();
    receivers.push(first);
    let n = black_box(n);
    let mut next = 0;
    while next < n {
        let end = (next + 128).min(n);
        for x in next..end {
            let _ = tx.send(x);
        }
        next = end;
        for receiver in &mut receivers {
            while let Ok(x) = receiver.try_recv() {
                black_box(x);
            }
        }
    }
}

fn processor_multicast(n: u64, batch: u64) {
    let hub = IdentityProcessor::new();
    for _ in 0..FAN_OUT {
        hub.subscribe(Box::new(consumer(batch)));
    }
    range(0, black_box(n)).subscribe(Box::new(hub));
}

/// The same fan-out through a `BufferProcessor` prefetching 128 ahead.
fn buffer_multicast(n: u64) {
    let hub = BufferProcessor::new(128);
    for _ in 0..FAN_OUT {
        hub.subscribe(Box::new(consumer(128)));
    }
    range(0, black_box(n)).subscribe(Box::new(hub));
}

/// A hot `MulticastPublisher` (buffer 128 per subscriber) pushed to in a
/// loop, 4 subscribers at batch 128.
fn hot_multicast(n: u64) {
    let hot = MulticastPublisher::new(128, Overflow::Error);
    for _ in 0..FAN_OUT {
        hot.subscribe(Box::new(consumer(128)));
    }
    for x in 0..black_box(n) {
        hot.push(x);
    }
    hot.complete();
}

const MULTICAST: Group = Group {
    title: "One thread, multicast: range(0, 100 000) → 4 subscribers (time per element sent)",
    baselines: &[Case {
        name: "tokio_broadcast_4",
        what: "`tokio::sync::broadcast::channel(128)`, 4 receivers, one thread: send 128, each receiver takes them",
        run: tokio_broadcast,
    }],
    cases: &[
        Case {
            name: "processor_multicast_4_batch_128",
            what: "`range → IdentityProcessor → 4 subscribers`, batch 128",
            run: |n| processor_multicast(n, 128),
        },
        Case {
            name: "processor_multicast_4_unbounded",
            what: "the same, unbounded",
            run: |n| processor_multicast(n, demand::UNBOUNDED),
        },
        Case {
            name: "buffer_processor_multicast_4_batch_128",
            what: "`range → BufferProcessor(128) → 4 subscribers`, batch 128",
            run: buffer_multicast,
        },
        Case {
            name: "multicast_publisher_4_batch_128",
            what: "`MulticastPublisher::new(128, Overflow::Error)`, `push` in a loop, 4 subscribers, batch 128",
            run: hot_multicast,
        },
    ],
};

// ---- across threads -------------------------------------------------------

/// One tokio worker thread shared by the cases that need a runtime.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .expect("a one-worker tokio runtime")
    })
}

fn tokio_mpsc(n: u64) {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<u64>(256);
    runtime().spawn(async move {
        for x in 0..n {
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
        let _ = done_tx.send(());
    });
    done_rx.recv().expect("the receiving thread ends");
}

fn async_to_queued(n: u64) {
    let publisher = AsyncPublisher::new(runtime().handle().clone(), move || 0..n);
    let (subscriber, worker) = QueuedSubscriber::spawn(256, |signal| {
        if let Signal::Next(x) = signal {
            black_box(x);
        }
    });
    publisher.subscribe(Box::new(subscriber));
    worker.join().expect("the subscriber's worker ends");
}

fn crossbeam(n: u64) {
    let (tx, rx) = crossbeam_channel::bounded::<u64>(256);
    let producer = std::thread::spawn(move || {
        for x in 0..n {
            if tx.send(x).is_err() {
                break;
            }
        }
    });
    for x in rx.iter() {
        black_box(x);
    }
    producer.join().expect("the sending thread ends");
}

const CROSS_THREAD: Group = Group {
    title: "Across threads, batch / capacity 256",
    baselines: &[Case {
        name: "tokio_mpsc_256",
        what: "`tokio::sync::mpsc::channel(256)`, tokio task → thread",
        run: tokio_mpsc,
    }],
    cases: &[
        Case {
            name: "async_publisher_to_queued_subscriber_256",
            what: "`AsyncPublisher` (tokio, 1 worker) → `QueuedSubscriber` (own thread)",
            run: async_to_queued,
        },
        Case {
            name: "crossbeam_bounded_256",
            what: "`crossbeam_channel::bounded(256)`, thread → thread",
            run: crossbeam,
        },
    ],
};

// ---- the harness ----------------------------------------------------------

/// Pairs `(case, reference)` of one group whose per-round ratio is printed
/// below its table: how a path compares with the path it is built on, in
/// the same rounds (the plain loop is so short that a loaded machine moves
/// the ratios to it more than these). A filter that keeps `case` keeps
/// `reference` too.
const SAME_ROUND: &[(&str, &str)] = &[
    ("fused_dyn_batch_128", "dyn_floor"),
    ("fused_static_batch_128", "dyn_floor"),
    ("processor_batch_128", "fused_dyn_batch_128"),
    ("processor_static_batch_128", "fused_dyn_batch_128"),
    ("processor_static_batch_128", "dyn_floor"),
    (
        "processor_static_upstream_static_batch_128",
        "fused_dyn_batch_128",
    ),
    ("processor_static_upstream_static_batch_128", "dyn_floor"),
    (
        "processor_chain_static_batch_128",
        "processor_chain_batch_128",
    ),
];

fn env_or(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(value) => value.parse().unwrap_or_else(|_| {
            eprintln!(
                "error: {name}={value:?} is not a whole number; unset it or set e.g. {name}={default}"
            );
            std::process::exit(2)
        }),
        Err(_) => default,
    }
}

/// Nanoseconds per element of one sample of `case`.
fn sample(case: &Case, at_least: Duration) -> f64 {
    let start = Instant::now();
    let mut iterations = 0u64;
    loop {
        (case.run)(N);
        iterations += 1;
        let elapsed = start.elapsed();
        if elapsed >= at_least {
            return elapsed.as_nanos() as f64 / (iterations * N) as f64;
        }
    }
}

/// The `p`-quantile of `values` (nearest rank).
fn quantile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn run_group(group: &Group, filter: Option<&str>, rounds: usize, at_least: Duration) {
    let kept = |name: &str| filter.is_none_or(|f| name.contains(f));
    let cases: Vec<&Case> = group
        .baselines
        .iter()
        .chain(group.cases.iter().filter(|case| {
            kept(case.name)
                || SAME_ROUND
                    .iter()
                    .any(|&(of, to)| to == case.name && kept(of))
        }))
        .collect();
    if cases.len() == group.baselines.len() && filter.is_some() {
        return;
    }
    for case in &cases {
        (case.run)(N); // warm-up, untimed
    }
    // ns[c][r]: nanoseconds per element of case c in round r.
    let mut ns = vec![Vec::with_capacity(rounds); cases.len()];
    for round in 0..rounds {
        for offset in 0..cases.len() {
            let c = (round + offset) % cases.len();
            ns[c].push(sample(cases[c], at_least));
        }
    }

    println!("\n### {}\n", group.title);
    let mut header = String::from("| case | path | ns/element |");
    let mut rule = String::from("|---|---|---:|");
    for baseline in group.baselines {
        header += &format!(" × `{}` (p10–p90) |", baseline.name);
        rule += "---:|";
    }
    println!("{header}\n{rule}");
    for (c, case) in cases.iter().enumerate() {
        let mut row = format!(
            "| `{}` | {} | {:.2} |",
            case.name,
            case.what,
            quantile(&ns[c], 0.5)
        );
        for b in 0..group.baselines.len() {
            let ratios: Vec<f64> = (0..rounds).map(|r| ns[c][r] / ns[b][r]).collect();
            row += &format!(
                " {:.2} ({:.2}–{:.2}) |",
                quantile(&ratios, 0.5),
                quantile(&ratios, 0.1),
                quantile(&ratios, 0.9)
            );
        }
        println!("{row}");
    }
    let index = |name: &str| cases.iter().position(|case| case.name == name);
    for &(of, to) in SAME_ROUND {
        let (Some(a), Some(b)) = (index(of), index(to)) else {
            continue;
        };
        let ratios: Vec<f64> = (0..rounds).map(|r| ns[a][r] / ns[b][r]).collect();
        println!(
            "\n`{of}` ÷ `{to}`, same rounds: {:.2} ({:.2}–{:.2})",
            quantile(&ratios, 0.5),
            quantile(&ratios, 0.1),
            quantile(&ratios, 0.9)
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a bare word is a filter.
    let filter = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let rounds = env_or("RS_BENCH_ROUNDS", 41).max(1) as usize;
    let at_least = Duration::from_millis(env_or("RS_BENCH_SAMPLE_MS", 8));
    println!(
        "{rounds} rounds, samples of at least {} ms, {N} elements per iteration; \
         ratios are medians of per-round ratios",
        at_least.as_millis()
    );
    for group in [&ONE_THREAD, &CHAIN, &MULTICAST, &CROSS_THREAD] {
        run_group(group, filter.as_deref(), rounds, at_least);
    }
}
