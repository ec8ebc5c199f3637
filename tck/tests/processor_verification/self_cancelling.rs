//! Processors that end their own upstream subscription (issue 26 §3): a
//! `take(k)`, and a `take(0)` that cancels from inside `on_subscribe` and
//! completes downstream at once. Each declares
//! [`max_outputs`](ProcessorFactory::max_outputs) and passes the whole
//! quick and extended processor verification; every skip says why.

#[path = "../common/taking.rs"]
pub mod taking;

use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::processor::testkit::IdentityProcessor;
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
use reactive_streams_tck::processor_verification;
use reactive_streams_tck::testkit::broken_rules;
use rstest::rstest;

use crate::factories::generous;
use taking::Take;

/// `take(k)` processors, declaring at most `k` outputs.
pub struct Takes(pub u64);

impl ProcessorFactory for Takes {
    type Input = u64;
    type Output = u64;
    type Processor = Take;

    fn create_processor(&self) -> Take {
        Take::new(self.0)
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn max_outputs(&self) -> u64 {
        self.0
    }

    fn supports_multiple_subscribers(&self) -> bool {
        false
    }

    fn max_upstream_demand(&self) -> u64 {
        0
    }
}

fn check(name: &str, results: &[RuleResult]) {
    for skip in crate::verdicts::assert_clean_and_skips_explained(name, results) {
        eprintln!("{name}: skipped {skip}");
    }
}

#[rstest]
#[case::take_0(0)]
#[case::take_1(1)]
#[case::take_3(3)]
#[case::take_20(20)]
fn a_processor_ending_its_own_upstream_subscription_passes(#[case] k: u64) {
    let results = ProcessorVerification::new(Takes(k))
        .env(generous())
        .run_all()
        .unwrap();
    check(&format!("take({k})"), &results);
}

#[rstest]
#[case::take_0(0)]
#[case::take_1(1)]
#[case::take_3(3)]
#[case::take_20(20)]
fn a_processor_ending_its_own_upstream_subscription_passes_the_extended_verification(
    #[case] k: u64,
) {
    let results = ProcessorVerification::new(Takes(k))
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(200, 10))
        .run_extended()
        .unwrap();
    check(&format!("take({k})"), &results);
}

processor_verification!(take_0, Takes(0));
processor_verification!(take_3, Takes(3));
processor_verification!(extended take_0_extended, Takes(0));
processor_verification!(extended take_3_extended, Takes(3));

/// Broken: an identity processor declaring at most 2 outputs, which emits
/// every input. Its publishers of up to 2 outputs are right, so the quick
/// verification and the extended schedules see nothing wrong; the
/// extended upstream scripts feed it more and catch the third output
/// (`tck.extended_upstream`, and nothing else).
struct OverEmits;

impl ProcessorFactory for OverEmits {
    type Input = u64;
    type Output = u64;
    type Processor = IdentityProcessor<u64>;

    fn create_processor(&self) -> IdentityProcessor<u64> {
        IdentityProcessor::new()
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn max_outputs(&self) -> u64 {
        2
    }

    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

#[test]
fn a_processor_emitting_more_than_its_max_outputs_fails_the_extended_upstream_scripts() {
    let quick = ProcessorVerification::new(OverEmits)
        .env(generous())
        .run_all();
    crate::verdicts::assert_quick_misses(quick);
    let results = ProcessorVerification::new(OverEmits)
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(200, 10))
        .run_extended()
        .unwrap();
    insta::assert_snapshot!("over_emits_rules", broken_rules(&results));
    let upstream = crate::extended::failed(&results, "tck_extended_upstream");
    insta::assert_snapshot!(
        "over_emits",
        crate::extended::redact_numbers(upstream.message.as_deref().unwrap_or_default())
    );
}
