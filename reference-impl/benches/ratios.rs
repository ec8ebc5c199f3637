//! The one-thread path as ratios to its two baselines (a plain loop and
//! `futures::stream::iter(..).map(..)` under `block_on`), measured
//! interleaved so that the machine's drift cancels out.
//!
//! Run: `cargo bench -p reactive-streams-reference --bench ratios`
//!
//! Every round times each case once (for at least `RS_BENCH_SAMPLE_MS`,
//! default 4 ms, rotating the order from round to round) and divides its
//! time per element by the baselines' from the *same* round; the table
//! shows the median of those per-round ratios over `RS_BENCH_ROUNDS`
//! rounds (default 31), with the 10th–90th percentile spread. Criterion's
//! `throughput` bench times one case after another, so on a shared
//! machine its ratios move with whatever else runs; these do not.
//!
//! A positional argument keeps only the cases whose name contains it (the
//! baselines always run).

mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use futures::StreamExt;
use reactive_streams::{demand, Publisher};
use reactive_streams_reference::{range, CallbackSubscriber, MapProcessor};
use support::Batched;

/// Elements per iteration of every case.
const N: u64 = 100_000;

struct Case {
    name: &'static str,
    run: fn(u64),
}

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

/// No publisher: the loop calls a boxed `CallbackSubscriber` itself, the
/// least any path with one dynamic `on_next` per element can cost.
fn dyn_floor(n: u64) {
    let mut subscriber = support::floor_subscriber();
    for x in 0..black_box(n) {
        subscriber.on_next(x * 2);
    }
}

fn processor(n: u64, batch: u64) {
    let map = MapProcessor::new(|x: u64| x * 2);
    range(0, black_box(n)).subscribe(Box::new(map.clone()));
    map.subscribe(Box::new(CallbackSubscriber::new(batch, |x| {
        black_box(x);
    })));
}

fn fused_dyn(n: u64, batch: u64) {
    range(0, black_box(n))
        .map(|x| x * 2)
        .subscribe(Box::new(CallbackSubscriber::new(batch, |x| {
            black_box(x);
        })));
}

fn fused_static(n: u64, batch: u64) {
    range(0, black_box(n))
        .map(|x| x * 2)
        .subscribe_static(Batched::new(batch));
}

fn fused_static_callback(n: u64, batch: u64) {
    range(0, black_box(n))
        .map(|x| x * 2)
        .subscribe_static(CallbackSubscriber::new(batch, |x| {
            black_box(x);
        }));
}

const BASELINES: [Case; 2] = [
    Case {
        name: "plain_loop",
        run: plain_loop,
    },
    Case {
        name: "futures_iter_map",
        run: futures_iter_map,
    },
];

const CASES: &[Case] = &[
    Case {
        name: "dyn_floor_batch_128",
        run: dyn_floor,
    },
    Case {
        name: "processor_batch_1",
        run: |n| processor(n, 1),
    },
    Case {
        name: "processor_batch_128",
        run: |n| processor(n, 128),
    },
    Case {
        name: "processor_unbounded",
        run: |n| processor(n, demand::UNBOUNDED),
    },
    Case {
        name: "fused_dyn_batch_128",
        run: |n| fused_dyn(n, 128),
    },
    Case {
        name: "fused_dyn_unbounded",
        run: |n| fused_dyn(n, demand::UNBOUNDED),
    },
    Case {
        name: "fused_static_batch_1",
        run: |n| fused_static(n, 1),
    },
    Case {
        name: "fused_static_batch_128",
        run: |n| fused_static(n, 128),
    },
    Case {
        name: "fused_static_unbounded",
        run: |n| fused_static(n, demand::UNBOUNDED),
    },
    Case {
        name: "fused_static_callback_batch_128",
        run: |n| fused_static_callback(n, 128),
    },
];

fn env_or(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(value) => value.parse().unwrap_or_else(|_| {
            eprintln!("error: {name}={value:?} is not a whole number; unset it or give e.g. {name}={default}");
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

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

fn main() {
    let filter = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let rounds = env_or("RS_BENCH_ROUNDS", 31).max(1) as usize;
    let at_least = Duration::from_millis(env_or("RS_BENCH_SAMPLE_MS", 4));
    let cases: Vec<&Case> = BASELINES
        .iter()
        .chain(
            CASES
                .iter()
                .filter(|case| filter.as_deref().map_or(true, |f| case.name.contains(f))),
        )
        .collect();

    // Warm up: every case once, untimed.
    for case in &cases {
        (case.run)(N);
    }
    // per_round[c][r]: ns/element of case c in round r.
    let mut per_round = vec![Vec::with_capacity(rounds); cases.len()];
    for round in 0..rounds {
        for offset in 0..cases.len() {
            let c = (round + offset) % cases.len();
            per_round[c].push(sample(cases[c], at_least));
        }
    }

    println!("| case | ns/element | × plain loop (p10–p90) | × futures (p10–p90) |");
    println!("|---|---:|---:|---:|");
    for (c, case) in cases.iter().enumerate() {
        let mut ns = per_round[c].clone();
        ns.sort_by(f64::total_cmp);
        let mut cells = vec![format!("{:.2}", percentile(&ns, 0.5))];
        for baseline in 0..BASELINES.len() {
            let mut ratios: Vec<f64> = (0..rounds)
                .map(|r| per_round[c][r] / per_round[baseline][r])
                .collect();
            ratios.sort_by(f64::total_cmp);
            cells.push(format!(
                "{:.2} ({:.2}–{:.2})",
                percentile(&ratios, 0.5),
                percentile(&ratios, 0.1),
                percentile(&ratios, 0.9)
            ));
        }
        println!("| {} | {} |", case.name, cells.join(" | "));
    }
}
