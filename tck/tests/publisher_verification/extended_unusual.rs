//! Correct-but-unusual publishers (see `tests/support/unusual_publishers.rs`)
//! pass the extended verification: generated schedules and stress, no
//! failure, every skip with a reason.

use reactive_streams_tck::extended::PublisherExtendedVerification;
use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::publisher::PublisherFactory;

use crate::unusual::{assert_accepted, AlwaysEmpty, JustOnes, LazyEnds, SerialOnly};

fn results<F: PublisherFactory>(factory: F) -> Vec<RuleResult> {
    PublisherExtendedVerification::new(factory)
        .env(crate::extended::passing_env())
        .config(crate::extended::config(300, 20))
        .run_all()
        .unwrap()
}

#[test]
fn a_publisher_finding_its_end_lazily_passes() {
    assert_eq!(assert_accepted(&results(LazyEnds)), Vec::<String>::new());
}

#[test]
fn a_publisher_relying_on_serial_calls_passes() {
    assert_eq!(assert_accepted(&results(SerialOnly)), Vec::<String>::new());
}

#[test]
fn an_always_empty_publisher_passes_its_schedules() {
    assert_eq!(
        assert_accepted(&results(AlwaysEmpty)),
        ["tck_extended_stress: needs publishers of up to 99 elements; the factory's max_elements() is 0"]
    );
}

#[test]
fn a_just_like_publisher_passes_its_schedules() {
    assert_eq!(
        assert_accepted(&results(JustOnes)),
        ["tck_extended_stress: needs publishers of up to 99 elements; the factory's max_elements() is 1"]
    );
}
