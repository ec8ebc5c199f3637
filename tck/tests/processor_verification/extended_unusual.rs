//! Correct-but-unusual processors (issue 14, families 3 and 4) pass the
//! extended verification: upstream pulled later, in batches, lock-step or
//! by a prefetch with a low-water mark; an upstream error recovered from by
//! a fallback.

#[path = "../common/pacer.rs"]
mod pacer;

use pacer::{Pacer, Pull};
use reactive_streams_tck::extended::ProcessorExtendedVerification;
use reactive_streams_tck::processor::ProcessorFactory;
use rstest::rstest;

struct Pacers {
    pull: Pull,
    fallback: Option<Vec<u64>>,
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
}

const PREFETCH: Pull = Pull::Prefetch { high: 8, low: 2 };

#[rstest]
#[case::later(Pull::Later, None)]
#[case::batches(Pull::Batch(3), None)]
#[case::lock_step(Pull::LockStep, None)]
#[case::prefetch(PREFETCH, None)]
#[case::greedy(Pull::Prefetch { high: u64::MAX, low: 0 }, None)]
#[case::recovering_empty(Pull::LockStep, Some(vec![]))]
#[case::recovering_fallback(PREFETCH, Some(vec![1000, 1001]))]
fn an_unusual_processor_passes_the_extended_verification(
    #[case] pull: Pull,
    #[case] fallback: Option<Vec<u64>>,
) {
    let results = ProcessorExtendedVerification::new(Pacers { pull, fallback })
        .env(crate::extended::env())
        .config(crate::extended::config(200, 10))
        .run_all()
        .unwrap();
    crate::verdicts::assert_passed_or_skipped_with_reason(&format!("{pull:?}"), &results);
}
