//! Correct-but-unusual publishers (see `tests/support/unusual_publishers.rs`)
//! pass the extended verification: generated schedules and stress, no
//! failure, every skip with a reason.

use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::publisher::PublisherVerification;

use crate::unusual::{
    AlwaysEmpty, HandOff, JustOnes, LazyEnds, SerialOnly, SlowFirstRequest, assert_accepted,
};

fn results<F: PublisherFactory>(factory: F) -> Vec<RuleResult> {
    PublisherVerification::new(factory)
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(300, 20))
        .run_extended()
        .unwrap()
}

#[test]
fn a_publisher_finding_its_end_lazily_passes() {
    assert_eq!(assert_accepted(&results(LazyEnds)), Vec::<String>::new());
}

#[test]
fn a_publisher_handing_each_request_to_its_worker_passes() {
    assert_eq!(assert_accepted(&results(HandOff)), Vec::<String>::new());
}

#[test]
fn a_publisher_relying_on_serial_calls_passes() {
    assert_eq!(assert_accepted(&results(SerialOnly)), Vec::<String>::new());
}

#[test]
fn an_always_empty_publisher_passes_its_schedules() {
    assert_eq!(
        assert_accepted(&results(AlwaysEmpty)),
        [
            "tck_extended_stress: needs publishers of up to 99 elements; the factory's max_elements() is 0"
        ]
    );
}

#[test]
fn a_just_like_publisher_passes_its_schedules() {
    assert_eq!(
        assert_accepted(&results(JustOnes)),
        [
            "tck_extended_stress: needs publishers of up to 99 elements; the factory's max_elements() is 1"
        ]
    );
}

/// The first `request` on each subscription blocks for 2 s: schedules and
/// stress pass with the default timing. Every case makes a subscription,
/// so the budget is smaller than the others' (64 schedules, 8 stress
/// iterations: about 2 s per round of 8 schedules).
#[test]
fn a_publisher_whose_first_request_blocks_for_seconds_passes() {
    // Schedules 16 at once, not 8: each mostly sleeps in its blocked
    // request, so this halves the rounds of 2 s (issue 30).
    let config = reactive_streams_tck::ExtendedConfig::builder()
        .cases(64)
        .stress_iterations(8)
        .seed(crate::extended::SEED)
        .parallelism(16)
        .build();
    let results = PublisherVerification::new(SlowFirstRequest)
        .extended(config)
        .run_extended()
        .unwrap();
    assert_eq!(assert_accepted(&results), Vec::<String>::new());
    crate::verdicts::assert_all_passed("slow first request", &results);
}
