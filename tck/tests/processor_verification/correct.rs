//! A conforming processor passes every rule test.

use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::processor::ProcessorVerification;
use reactive_streams_tck::processor_verification;

use crate::factories::{Identities, generous};

#[test]
fn the_identity_processor_passes_every_rule_test() {
    let results = ProcessorVerification::new(Identities::conforming())
        .env(generous())
        .run_all()
        .unwrap();
    crate::verdicts::assert_none_broken(&results, "a conforming processor broke rules");
    let skipped: Vec<&str> = results
        .iter()
        .filter(|r| r.verdict == Verdict::Skipped)
        .map(|r| r.test.as_str())
        .collect();
    // One subscriber only: the multi-subscriber tests say so and skip.
    assert!(
        skipped.contains(&"tck_late_subscriber_demand"),
        "{skipped:?}"
    );
}

processor_verification!(identity, Identities::conforming());

struct Multicasts;

impl reactive_streams_tck::processor::ProcessorFactory for Multicasts {
    type Input = u64;
    type Output = u64;
    type Processor = reactive_streams_tck::processor::testkit::MulticastProcessor<u64>;

    fn create_processor(&self) -> Self::Processor {
        Self::Processor::new()
    }

    fn input(&self, index: u64) -> u64 {
        index
    }
}

/// With several subscribers supported, the two-subscriber paths run too:
/// §1.11, §4.2 with a subscriber without demand, a late subscriber.
#[test]
fn the_multicast_processor_passes_every_rule_test_none_skipped() {
    let results = ProcessorVerification::new(Multicasts)
        .env(generous())
        .run_all()
        .unwrap();
    let not_passed: Vec<String> = results
        .iter()
        .filter(|r| r.verdict != Verdict::Passed && r.verdict != Verdict::EnforcedByTypes)
        .map(|r| {
            format!(
                "{} {}: {}",
                r.test,
                r.verdict,
                r.message.as_deref().unwrap_or_default()
            )
        })
        .collect();
    assert!(not_passed.is_empty(), "{not_passed:#?}");
}

processor_verification!(multicast, Multicasts);
