//! Correct-but-unusual processors (issue 14, families 3 and 4) pass the
//! extended verification: upstream pulled later, in batches, lock-step or
//! by a prefetch with a low-water mark; an upstream error recovered from by
//! a fallback.

use reactive_streams_tck::processor::ProcessorVerification;
use rstest::rstest;

use crate::unusual::pacer::Pull;
use crate::unusual::{PREFETCH, Pacers};

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
    let results = ProcessorVerification::new(Pacers { pull, fallback })
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(200, 10))
        .run_extended()
        .unwrap();
    crate::verdicts::assert_passed_or_skipped_with_reason(&format!("{pull:?}"), &results);
}
