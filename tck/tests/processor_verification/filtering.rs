//! Filtering processors: a factory declares which inputs pass
//! (`ProcessorFactory::passes`); a conforming filter then passes every rule
//! test, and a broken one fails the rule it breaks, with a snapshot-tested
//! message.

use reactive_streams_tck::processor::testkit::{FilteringProcessor, IdentityProcessor};
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
use reactive_streams_tck::processor_verification;

use crate::factories::{failed, generous};

/// Filters keeping the even inputs, declared as such.
pub struct Evens {
    pub stalls: bool,
}

impl ProcessorFactory for Evens {
    type Input = u64;
    type Output = u64;
    type Processor = FilteringProcessor<u64>;

    fn create_processor(&self) -> FilteringProcessor<u64> {
        let even = |x: &u64| x % 2 == 0;
        if self.stalls {
            FilteringProcessor::stalling(even)
        } else {
            FilteringProcessor::new(even)
        }
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn passes(&self, index: u64) -> bool {
        index % 2 == 0
    }

    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

/// The identity processor, declared as a filter keeping even inputs: it
/// emits the inputs it should have dropped.
pub struct EmitsDropped;

impl ProcessorFactory for EmitsDropped {
    type Input = u64;
    type Output = u64;
    type Processor = IdentityProcessor<u64>;

    fn create_processor(&self) -> IdentityProcessor<u64> {
        IdentityProcessor::new()
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn passes(&self, index: u64) -> bool {
        index % 2 == 0
    }

    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

#[test]
fn a_filter_declaring_what_passes_passes_every_rule_test() {
    let results = ProcessorVerification::new(Evens { stalls: false })
        .env(generous())
        .run_all()
        .unwrap();
    crate::verdicts::assert_none_broken(&results, "a conforming processor broke rules");
}

processor_verification!(evens, Evens { stalls: false });

/// A filter that asks upstream only for what downstream asked for: the
/// second element requested downstream never comes, because the input
/// meant to make it was dropped and never replaced.
#[test]
fn a_filter_that_never_replaces_dropped_inputs_fails_4_1() {
    insta::assert_snapshot!(
        "filter_stalls_on_dropped_inputs",
        failed(Evens { stalls: true }, "spec_4_01")
    );
}

/// A processor declared as a filter that emits every input: a publisher of
/// n outputs emits more.
#[test]
fn a_filter_that_emits_dropped_inputs_fails_create_n() {
    insta::assert_snapshot!(
        "filter_emits_dropped_inputs",
        failed(EmitsDropped, "tck_create_n_gives_exactly_n")
    );
}
