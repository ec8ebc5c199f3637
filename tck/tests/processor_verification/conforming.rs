//! A conforming processor passes every rule test.

use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::processor::ProcessorVerification;
use reactive_streams_tck::processor_verification;

use crate::factories::Identities;

#[test]
fn the_identity_processor_passes_every_rule_test() {
    let results = ProcessorVerification::new(Identities::conforming())
        .run_all()
        .unwrap();
    let failed: Vec<String> = results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| format!("{}: {}", r.test, r.message.as_deref().unwrap_or_default()))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
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
