//! Publishers broken in ways only the extended verification sees: the
//! quick verification passes them, the extended one fails them with the
//! intended, readable message, and the whole extended run breaks exactly
//! the rules snapshotted as `…_rules`.

use reactive_streams_tck::publisher::PublisherVerification;
use reactive_streams_tck::testkit::broken_rules;

use crate::flawed::{Flaw, Flawed};

fn quick_passes(flaw: Flaw) {
    let results = PublisherVerification::new(Flawed(flaw)).run_all().unwrap();
    let failed: Vec<_> = results
        .iter()
        .filter(|r| !r.broken_rules().is_empty())
        .collect();
    assert!(
        failed.is_empty(),
        "the quick verification caught {flaw:?}: {failed:#?}"
    );
}

/// Runs the whole extended verification of `Flawed(flaw)`: `test` must
/// fail it. Returns its message and every rule the run broke.
fn extended(flaw: Flaw, test: &str, cases: u64, iterations: u64) -> (String, String) {
    let results = PublisherVerification::new(Flawed(flaw))
        .target("FlawedRange")
        .env(crate::extended::env())
        .extended(crate::extended::config(cases, iterations))
        .run_extended()
        .unwrap();
    let result = crate::extended::failed(&results, test);
    assert!(!result.trace.is_empty());
    (result.message.clone().unwrap(), broken_rules(&results))
}

#[test]
fn an_extra_element_after_a_late_unbounded_request_needs_a_generated_schedule() {
    quick_passes(Flaw::ReplayAfterUnbounded);
    let (message, rules) = extended(
        Flaw::ReplayAfterUnbounded,
        "tck_extended_schedules",
        1000,
        1,
    );
    insta::assert_snapshot!(message);
    insta::assert_snapshot!("replay_after_unbounded_rules", rules);
}

#[test]
fn demand_lost_across_requesting_threads_needs_the_stress() {
    quick_passes(Flaw::ForeignBatchDemand);
    let (message, rules) = extended(Flaw::ForeignBatchDemand, "tck_extended_stress", 1, 20);
    insta::assert_snapshot!("foreign_batch_demand_rules", rules);
    eprintln!("{message}");
    assert!(
        message.contains("§3.8: expected ")
            && message.contains("demand was lost when several threads requested"),
        "{message}"
    );
    assert!(message.contains("what each thread did"), "{message}");
    for thread in ["stress-1: request(", "stress-4: request("] {
        assert!(message.contains(thread), "{message}");
    }
    assert!(
        message.contains("replay it alone with RS_TCK_SEED=0x"),
        "{message}"
    );
}
