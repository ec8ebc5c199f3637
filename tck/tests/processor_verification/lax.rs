//! The laxest conforming processor (issue 38 §1 and §5): a prefetching
//! identity stage ([`Pacer::lax`]) that, after a downstream cancel,
//! cancels upstream at once but still delivers up to [`LAX_BATCH`](crate::unusual::pacer::LAX_BATCH)
//! elements it holds within downstream demand, and the `on_complete` of an
//! upstream that already completed. It asks upstream by a prefetch with a
//! low-water mark (§3.8 lets it: `request` only "register[s]" demand, and
//! §4's processor is both a subscriber and a publisher that obeys each
//! side's contract, no more), serves one subscriber and refuses a second
//! with `on_subscribe`, then `on_error` (§1.9, §1.11). It passes the whole
//! processor verification, quick and extended; so does its variant that
//! then tidies up every downstream cancel with `on_complete`
//! ([`Pacer::completing_on_cancel`]).

use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};

use crate::unusual::PREFETCH;
use crate::unusual::pacer::Pacer;

/// Makes [`Pacer::lax`] stages; `completing`: ones that then complete
/// downstream after any downstream cancel ([`Pacer::completing_on_cancel`]).
pub struct LaxPacers {
    pub completing: bool,
}

impl ProcessorFactory for LaxPacers {
    type Input = u64;
    type Output = u64;
    type Processor = Pacer;

    fn create_processor(&self) -> Pacer {
        let pacer = Pacer::lax(PREFETCH);
        if self.completing {
            pacer.completing_on_cancel()
        } else {
            pacer
        }
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn supports_multiple_subscribers(&self) -> bool {
        false
    }

    fn max_upstream_demand(&self) -> u64 {
        PREFETCH.ahead()
    }

    fn element_index(&self, output: &u64) -> Option<u64> {
        Some(*output)
    }
}

/// The whole processor verification of `factory`, quick or extended,
/// with the self-tests' timing for conforming processors.
pub fn verified<F: ProcessorFactory>(factory: F, extended: bool) -> Vec<RuleResult> {
    let verification = ProcessorVerification::new(factory);
    if extended {
        verification
            .env(crate::extended::passing_env())
            .extended(crate::extended::config(200, 10))
            .run_extended()
            .unwrap()
    } else {
        verification
            .env(crate::factories::generous())
            .run_all()
            .unwrap()
    }
}

fn results(completing: bool, extended: bool) -> Vec<RuleResult> {
    verified(LaxPacers { completing }, extended)
}

/// Nothing found at all; the only skips are the tests needing several
/// subscribers.
#[track_caller]
fn passes(name: &str, results: &[RuleResult]) {
    let skipped = crate::verdicts::assert_clean_and_skips_explained(name, results);
    for skip in skipped {
        assert!(
            skip.contains("supports_multiple_subscribers() is false"),
            "{skip}"
        );
    }
}

#[test]
fn a_processor_delivering_a_batch_after_a_downstream_cancel_passes() {
    passes("lax pacer", &results(false, false));
}

#[test]
fn a_processor_delivering_a_batch_after_a_downstream_cancel_passes_the_extended_verification() {
    passes("lax pacer", &results(false, true));
}

/// Issue 38, left over: `on_complete` downstream right after any
/// downstream cancel (inside `on_next`, from the test's thread with all
/// demand delivered mid-stream, before any request) passes §3.5, §3.6,
/// §3.7, §3.12 and the rest, quick and extended.
#[test]
fn a_processor_completing_downstream_right_after_any_cancel_passes() {
    passes("completing lax pacer", &results(true, false));
}

#[test]
fn a_processor_completing_downstream_right_after_any_cancel_passes_the_extended_verification() {
    passes("completing lax pacer", &results(true, true));
}
