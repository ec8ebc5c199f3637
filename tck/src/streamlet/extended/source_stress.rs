//! Concurrency stress for Streamlet sources: the TCK's sink probe starts and
//! requests from several threads at once, and stops from inside emissions.
//!
//! Each iteration creates a source of [`STRESS_ELEMENTS`], connects the
//! source verification's judging sink probe (pulling: it also requests
//! from inside every emission, and stops from inside the emissions the
//! plan names), and runs [`ROUNDS`] rounds: several threads, lined up by a
//! barrier, each `request()` once or twice at the same instant; then one of
//! them `start()`s again (a restart, where the factory supports restarts
//! and the stream was stopped). The probe judges every emission and end as
//! it arrives (rules 1, 2, 4); every talkback call must return normally.
//! Pullable and hybrid sources only: a listenable source takes no
//! requests.

use std::fmt;
use std::sync::Barrier;

use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::explore::splitmix64;
use crate::streamlet::probe::{Mode, SinkProbe};
use crate::streamlet::source::SourceFactory;

/// Elements of a stressed source (fewer when the factory's `max_elements()`
/// is lower).
pub const STRESS_ELEMENTS: u64 = 24;
/// Rounds per iteration.
pub const ROUNDS: usize = 6;

/// One iteration's plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceStressPlan {
    /// `requests[round][thread]`: 1 or 2 `request()`s.
    pub requests: Vec<Vec<u8>>,
    /// The thread that starts the stream again after each round.
    pub restarters: Vec<usize>,
    /// Stop from inside these emissions (whole stream).
    pub stops: Vec<u64>,
}

impl SourceStressPlan {
    /// The plan drawn from `seed` for `threads` threads and a source of
    /// `elements`.
    pub fn draw(seed: u64, threads: usize, elements: u64) -> SourceStressPlan {
        let threads = threads.max(1);
        let mut state = seed;
        let mut pick = |n: u64| splitmix64(&mut state) % n.max(1);
        let requests = (0..ROUNDS)
            .map(|_| (0..threads).map(|_| 1 + pick(2) as u8).collect())
            .collect();
        let restarters = (0..ROUNDS).map(|_| pick(threads as u64) as usize).collect();
        let mut stops: Vec<u64> = (0..pick(4)).map(|_| 1 + pick(elements)).collect();
        stops.sort_unstable();
        stops.dedup();
        SourceStressPlan {
            requests,
            restarters,
            stops,
        }
    }
}

impl fmt::Display for SourceStressPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stops: Vec<String> = self
            .stops
            .iter()
            .map(|k| format!("stop() inside emission #{k}"))
            .collect();
        writeln!(f, "  sink: connect (pull, {})", stops.join(", "))?;
        for (round, requests) in self.requests.iter().enumerate() {
            let threads: Vec<String> = requests
                .iter()
                .enumerate()
                .map(|(thread, n)| format!("stress-{}: {n}× request()", thread + 1))
                .collect();
            writeln!(
                f,
                "  round {}: {}; then stress-{}: start()",
                round + 1,
                threads.join(", "),
                self.restarters[round] + 1
            )?;
        }
        Ok(())
    }
}

/// Runs one iteration of `plan` against a fresh source of `factory`.
pub(crate) fn run<F: SourceFactory>(
    cx: &RuleCx,
    factory: &F,
    plan: &SourceStressPlan,
    elements: u64,
) -> RuleBody {
    let source = cx.try_step(cx.rule(), format!("create_source({elements})"), || {
        factory.create_source(elements)
    })?;
    let mut probe = SinkProbe::new(cx, "sink").mode(Mode::Pull);
    for &k in &plan.stops {
        probe = probe.stop_at(k, None);
    }
    probe.connect_to(&*source)?;
    probe.expect_greet()?;
    probe.start()?;
    let threads = plan.requests.first().map_or(1, Vec::len);
    let barrier = Barrier::new(threads);
    let restart = factory.supports_restart();
    let results: Vec<Result<(), Failure>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|me| {
                let (probe, barrier) = (&probe, &barrier);
                std::thread::Builder::new()
                    .name(format!("stress-{}", me + 1))
                    .spawn_scoped(scope, move || -> Result<(), Failure> {
                        let mut outcome = Ok(());
                        for (round, requests) in plan.requests.iter().enumerate() {
                            barrier.wait();
                            for _ in 0..requests[me] {
                                if outcome.is_ok() {
                                    outcome = probe.request();
                                }
                            }
                            barrier.wait();
                            if restart && plan.restarters[round] == me && outcome.is_ok() {
                                outcome = probe.start();
                            }
                        }
                        outcome
                    })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| match handle {
                Ok(handle) => handle.join().unwrap_or_else(|_| {
                    Err(cx.failure("a stress thread to finish", "it panicked"))
                }),
                Err(error) => Err(cx.failure("the TCK to start a thread", error.to_string())),
            })
            .collect()
    });
    // (A thread that could not start would leave the others at the
    // barrier: the iteration's watchdog then fails it, naming the wait.)
    for result in results {
        result?;
    }
    probe.quiet();
    drop(source);
    Ok(Outcome::Passed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_drawn_from_the_seed() {
        let plan = SourceStressPlan::draw(3, 4, STRESS_ELEMENTS);
        assert_eq!(plan, SourceStressPlan::draw(3, 4, STRESS_ELEMENTS));
        assert_eq!(plan.requests.len(), ROUNDS);
        assert!(plan.requests.iter().all(|r| r.len() == 4));
        assert!(
            plan.stops
                .iter()
                .all(|&k| (1..=STRESS_ELEMENTS).contains(&k))
        );
        assert!(plan.to_string().contains("round 1: stress-1: "));
    }
}
