//! Issue 27 in the extended verification: the generated schedules and the
//! stress iterations check a declared `element_index` as the quick rule
//! tests do. The ranges that repeat, swap or skip an element (written for
//! the quick verification, see `exact_delivery.rs`) fail both extended
//! tests under `tck.create_n_gives_exactly_n`, named in the message.

use reactive_streams_tck::publisher::PublisherVerification;
use reactive_streams_tck::testkit::broken_rules;
use rstest::rstest;

use crate::exact_delivery::{Quirk, Quirky};

#[rstest]
#[case::repeating_one(Quirk::RepeatsOne)]
#[case::swapping_two(Quirk::SwapsTwo)]
#[case::skipping_one(Quirk::SkipsOne)]
fn a_range_delivering_out_of_order_fails_the_extended_verification(#[case] quirk: Quirk) {
    let results = PublisherVerification::new(Quirky(quirk))
        .env(crate::extended::env())
        .extended(crate::extended::config(64, 8))
        .run_extended()
        .unwrap();
    insta::assert_snapshot!(
        format!("extended_identity_{quirk:?}_rules"),
        broken_rules(&results)
    );
    crate::extended::assert_each_failed_with(
        &results,
        &["tck_extended_schedules", "tck_extended_stress"],
        "tck.create_n_gives_exactly_n: expected each element once and in order, by the factory's element_index",
    );
}
