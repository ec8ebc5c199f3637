//! The laxest conforming publishers (`tests/support/lax_publishers.rs`,
//! issue 38 §1 and §5) pass the whole publisher verification, quick and
//! extended: no failure, no warning, no violation, every skip with a
//! reason.

use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::publisher::{PublisherFactory, PublisherVerification};

#[path = "../support/lax_publishers.rs"]
pub mod corpus;

pub use corpus::{Lax, Laxest};

/// The self-tests' timing, with the prompt bound a user gets (250 ms):
/// it also bounds "eventually" after a cancel (the larger of it and the
/// no-signal window), and a conforming worker finishing its batch on a
/// loaded machine is given that much.
pub fn lax_env() -> reactive_streams_tck::env::TestEnv {
    reactive_streams_tck::env::TestEnv::builder()
        .timeout(std::time::Duration::from_millis(1000))
        .no_signal_timeout(std::time::Duration::from_millis(15))
        .watchdog(std::time::Duration::from_millis(3000))
        .build()
}

fn quick<F: PublisherFactory>(factory: F) -> Vec<RuleResult> {
    PublisherVerification::new(factory)
        .env(lax_env())
        .run_all()
        .unwrap()
}

use crate::many_parties::extended;

/// Nothing found at all (no failure, warning or violation) and nothing
/// skipped.
#[track_caller]
fn all_passed(name: &str, results: &[RuleResult]) {
    let skipped = crate::verdicts::assert_clean_and_skips_explained(name, results);
    assert!(skipped.is_empty(), "{name}: {skipped:#?}");
}

/// Issue 38 §1 (a): "eventually" means eventually, wherever the cancel
/// was made.
#[test]
fn a_publisher_looking_at_cancel_only_between_batches_of_8_passes() {
    all_passed("batching", &quick(Lax::BATCHING));
}

#[test]
fn a_publisher_looking_at_cancel_only_between_batches_of_8_passes_the_extended_verification() {
    all_passed("batching", &extended(Lax::BATCHING));
}

/// Issue 38 §1 (b).
#[test]
fn a_publisher_completing_right_after_a_cancel_inside_the_last_on_next_passes() {
    all_passed(
        "completes after cancel",
        &quick(Lax::COMPLETES_AFTER_CANCEL),
    );
}

#[test]
fn a_publisher_completing_right_after_a_cancel_inside_the_last_on_next_passes_the_extended_verification()
 {
    all_passed(
        "completes after cancel",
        &extended(Lax::COMPLETES_AFTER_CANCEL),
    );
}

/// Issue 38, left over from §1: `on_complete` right after any cancel,
/// wherever it was made (from the test's thread with every element
/// requested delivered, before any request, racing other threads'
/// requests in the stress), passes §3.5, §3.6, §3.7, §3.12 and the
/// stress alike.
#[test]
fn a_publisher_completing_right_after_any_cancel_passes() {
    all_passed(
        "completes on any cancel",
        &quick(Lax::COMPLETES_ON_ANY_CANCEL),
    );
}

#[test]
fn a_publisher_completing_right_after_any_cancel_passes_the_extended_verification() {
    all_passed(
        "completes on any cancel",
        &extended(Lax::COMPLETES_ON_ANY_CANCEL),
    );
}

/// Issue 38 §5: every freedom at once.
#[test]
fn the_laxest_publisher_passes() {
    all_passed("laxest", &quick(Laxest));
}

#[test]
fn the_laxest_publisher_passes_the_extended_verification() {
    all_passed("laxest", &extended(Laxest));
}
