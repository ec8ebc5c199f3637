//! Issue 27 in the extended processor verification: the publisher's
//! schedules and stress on the output side, and the upstream scripts,
//! check a declared `element_index` as the quick rule tests do. The
//! processor passing input 2 on as a second 1 (see `exact_delivery.rs`)
//! fails all three under `tck.create_n_gives_exactly_n`; the conforming
//! one, declaring the same, passes.

use reactive_streams_tck::processor::ProcessorVerification;
use reactive_streams_tck::testkit::{anything_broken, broken_rules};

use crate::exact_delivery::Relabellings;

#[test]
fn a_processor_relabelling_an_output_fails_the_extended_verification() {
    let results = ProcessorVerification::new(Relabellings(true))
        .env(crate::extended::env())
        .extended(crate::extended::config(64, 8))
        .run_extended()
        .unwrap();
    insta::assert_snapshot!(broken_rules(&results));
    crate::extended::assert_each_failed_with(
        &results,
        &[
            "tck_extended_schedules",
            "tck_extended_stress",
            "tck_extended_upstream",
        ],
        "tck.create_n_gives_exactly_n: expected each element once and in order, by the factory's element_index",
    );
}

#[test]
fn a_processor_declaring_element_index_passes_the_extended_verification() {
    let results = ProcessorVerification::new(Relabellings(false))
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(64, 8))
        .run_extended()
        .unwrap();
    assert_eq!(anything_broken(&results), Vec::<String>::new());
}
