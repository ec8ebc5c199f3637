//! Correct-but-unusual processors (issue 14, families 3 and 4): each pulls
//! upstream in its own way, or recovers from an upstream error, as the
//! specification allows; each passes the whole processor verification with
//! no failure, and every skip says why.
//!
//! The generated `#[test]`s below are the regression tests: before issue
//! 14, `spec_3_08` failed the batching, lock-step, prefetching and
//! recovering processors (upstream demand had to grow by exactly `n` at
//! `request(n)`), `spec_2_08` and `spec_2_11` the lock-step one,
//! `spec_2_10` and `spec_2_03` the recovering ones (the error had to reach
//! downstream).

#[path = "../common/pacer.rs"]
pub mod pacer;

use pacer::{Pacer, Pull};
use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
use reactive_streams_tck::processor_verification;

use crate::factories::generous;

/// Processors pulling by `pull`, recovering with `fallback` if given.
pub struct Pacers {
    pub pull: Pull,
    pub fallback: Option<Vec<u64>>,
}

impl Pacers {
    pub const fn pulling(pull: Pull) -> Self {
        Pacers {
            pull,
            fallback: None,
        }
    }
}

impl ProcessorFactory for Pacers {
    type Input = u64;
    type Output = u64;
    type Processor = Pacer;

    fn create_processor(&self) -> Pacer {
        match &self.fallback {
            Some(fallback) => Pacer::recovering(self.pull, fallback.clone()),
            None => Pacer::new(self.pull),
        }
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn supports_multiple_subscribers(&self) -> bool {
        false
    }

    fn recovers_from_errors(&self) -> bool {
        self.fallback.is_some()
    }

    fn max_upstream_demand(&self) -> u64 {
        self.pull.ahead()
    }

    /// Output `i` is input `i` (a fallback after an upstream error is
    /// numbered by no input; the verification does not check it).
    fn element_index(&self, output: &u64) -> Option<u64> {
        Some(*output)
    }
}

pub const PREFETCH: Pull = Pull::Prefetch { high: 8, low: 2 };

fn later() -> Pacers {
    Pacers::pulling(Pull::Later)
}
fn batches() -> Pacers {
    Pacers::pulling(Pull::Batch(3))
}
fn lock_step() -> Pacers {
    Pacers::pulling(Pull::LockStep)
}
fn prefetching() -> Pacers {
    Pacers::pulling(PREFETCH)
}
/// Requests `u64::MAX` upstream at once (a greedy input side), and says so.
fn greedy() -> Pacers {
    Pacers::pulling(Pull::Prefetch {
        high: u64::MAX,
        low: 0,
    })
}
fn recovering_empty() -> Pacers {
    Pacers {
        pull: Pull::LockStep,
        fallback: Some(Vec::new()),
    }
}
fn recovering_fallback() -> Pacers {
    Pacers {
        pull: PREFETCH,
        fallback: Some(vec![1000, 1001]),
    }
}

/// Runs the whole verification; no failure, and every skip has a reason.
fn passes(name: &str, factory: Pacers) -> Vec<RuleResult> {
    let results = ProcessorVerification::new(factory)
        .env(generous())
        .run_all()
        .unwrap();
    crate::verdicts::assert_no_failure_and_skips_explained(name, &results);
    results
}

#[test]
fn a_processor_pulling_later_passes() {
    passes("later", later());
}

#[test]
fn a_processor_pulling_in_batches_passes() {
    passes("batches", batches());
}

#[test]
fn a_lock_step_processor_passes() {
    passes("lock-step", lock_step());
}

#[test]
fn a_prefetching_processor_passes() {
    passes("prefetch", prefetching());
}

#[test]
fn a_processor_requesting_everything_upstream_passes() {
    passes("greedy", greedy());
}

#[test]
fn a_processor_recovering_with_an_empty_fallback_passes() {
    passes("recovering (empty)", recovering_empty());
}

#[test]
fn a_processor_recovering_with_a_fallback_passes() {
    passes("recovering (fallback)", recovering_fallback());
}

processor_verification!(pacer_later, later());
processor_verification!(pacer_batches, batches());
processor_verification!(pacer_lock_step, lock_step());
processor_verification!(pacer_prefetch, prefetching());
processor_verification!(pacer_greedy, greedy());
processor_verification!(pacer_recovering_empty, recovering_empty());
processor_verification!(pacer_recovering_fallback, recovering_fallback());
