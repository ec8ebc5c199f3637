//! Correct-but-unusual publishers (see `tests/support/unusual_publishers.rs`)
//! pass the whole publisher verification: no failure, and every skip says
//! why.

use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::publisher::{PublisherFactory, PublisherVerification};
use reactive_streams_tck::publisher_verification;

#[path = "../support/unusual_publishers.rs"]
mod corpus;

pub use corpus::{AlwaysEmpty, JustOnes, LazyEnds, SerialOnly};

use crate::self_test_env;

publisher_verification!(lazy_end, LazyEnds);
publisher_verification!(always_empty, AlwaysEmpty);
publisher_verification!(just_one, JustOnes);
publisher_verification!(serial_only, SerialOnly);

fn results<F: PublisherFactory>(factory: F) -> Vec<RuleResult> {
    PublisherVerification::new(factory)
        .env(self_test_env())
        .run_all()
        .unwrap()
}

/// No failure; every skip carries a reason. Returns the skips as
/// `test: reason`.
pub fn assert_accepted(results: &[RuleResult]) -> Vec<String> {
    crate::verdicts::assert_no_failure_and_skips_explained("unusual publisher", results)
}

#[test]
fn a_publisher_finding_its_end_lazily_passes() {
    let skipped = assert_accepted(&results(LazyEnds));
    assert!(skipped.is_empty(), "{skipped:#?}");
}

#[test]
fn a_publisher_relying_on_serial_calls_passes() {
    let skipped = assert_accepted(&results(SerialOnly));
    assert!(skipped.is_empty(), "{skipped:#?}");
}

#[test]
fn an_always_empty_publisher_is_verified_by_what_needs_no_element() {
    let results = results(AlwaysEmpty);
    let skipped = assert_accepted(&results);
    crate::verdicts::assert_these_passed(
        &results,
        &[
            "tck_configuration",
            "tck_create_n_gives_exactly_n",
            "spec_1_05",
            "spec_1_09",
        ],
    );
    insta::assert_snapshot!(skipped.join("\n"));
}

#[test]
fn a_just_like_publisher_is_verified_at_its_one_length() {
    let results = results(JustOnes);
    let skipped = assert_accepted(&results);
    crate::verdicts::assert_these_passed(
        &results,
        &[
            "spec_1_02",
            "spec_1_05",
            "spec_1_06",
            "spec_1_07",
            "spec_1_09",
            "spec_3_11",
        ],
    );
    insta::assert_snapshot!(skipped.join("\n"));
}
