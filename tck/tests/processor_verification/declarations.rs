//! Issue 26 §2: every declaration a processor factory makes is honoured by
//! the quick and the extended verification alike. Each correct processor
//! below needs its declaration (it would fail without it) and passes both.

use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};

use reactive_streams_tck::processor::testkit::{IdentityProcessor, Quirk};

use crate::factories::generous;
use crate::filtering::{EmitsDropped, Evens};
use crate::unusual::{PREFETCH, Pacers};

fn passes_quick_and_extended<F: ProcessorFactory>(name: &str, factory: impl Fn() -> F) {
    let quick = ProcessorVerification::new(factory())
        .env(generous())
        .run_all()
        .unwrap();
    crate::verdicts::assert_clean_and_skips_explained(name, &quick);
    let extended = ProcessorVerification::new(factory())
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(200, 10))
        .run_extended()
        .unwrap();
    crate::verdicts::assert_clean_and_skips_explained(name, &extended);
}

/// `passes`: a filter keeping the even inputs.
#[test]
fn a_declared_filter_passes_quick_and_extended() {
    passes_quick_and_extended("evens", || Evens { stalls: false });
}

/// The extended verification judges a declared filter by what passes, and
/// still catches broken ones: a filter that emits the inputs it declared
/// dropped, and one that never replaces a dropped input.
#[test]
fn broken_declared_filters_fail_the_extended_verification() {
    fn broken<F: ProcessorFactory>(factory: F) -> String {
        let results = ProcessorVerification::new(factory)
            .env(crate::extended::short_timeout_env())
            .extended(crate::extended::config(200, 10))
            .run_extended()
            .unwrap();
        reactive_streams_tck::testkit::broken_rules(&results)
    }
    insta::assert_snapshot!(
        "extended_filter_stalls_on_dropped_inputs_rules",
        broken(Evens { stalls: true })
    );
    insta::assert_snapshot!(
        "extended_filter_emits_dropped_inputs_rules",
        broken(EmitsDropped)
    );
}

/// An identity processor that keeps its upstream running when its
/// downstream cancels, declaring `propagates_cancellation() == false`, and
/// declining the stochastic tests (`run_stochastic() == false`).
struct KeepsUpstream;

impl ProcessorFactory for KeepsUpstream {
    type Input = u64;
    type Output = u64;
    type Processor = IdentityProcessor<u64>;
    fn create_processor(&self) -> IdentityProcessor<u64> {
        IdentityProcessor::with_quirk(Quirk::KeepsUpstreamOnCancel)
    }
    fn input(&self, index: u64) -> u64 {
        index
    }
    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
    fn propagates_cancellation(&self) -> bool {
        false
    }
    fn run_stochastic(&self) -> bool {
        false
    }
}

/// `propagates_cancellation`, `run_stochastic`.
#[test]
fn a_processor_keeping_its_upstream_passes_quick_and_extended() {
    passes_quick_and_extended("keeps upstream", || KeepsUpstream);
}

/// `recovers_from_errors` and `max_upstream_demand`: a prefetching
/// processor that switches to a fallback on an upstream error.
#[test]
fn a_recovering_prefetching_processor_passes_quick_and_extended() {
    passes_quick_and_extended("recovering", || Pacers {
        pull: PREFETCH,
        fallback: Some(vec![1000, 1001]),
    });
}
