//! Issue 27 in the extended source verification: the generated scripts and
//! the stress iterations check a declared `element_index` as the quick
//! rule tests do. The source sending element 1 again in place of element 2
//! (see `broken_sources.rs`) fails both under `tck.create_n`, named in the
//! message.

use reactive_streams_tck::streamlet::source::SourceVerification;
use reactive_streams_tck::testkit::broken_rules;

use crate::broken_sources::{BadSource, Bug};

#[test]
fn a_source_repeating_an_element_fails_the_extended_verification() {
    let results = SourceVerification::new(BadSource::Buggy(Bug::RepeatsOne))
        .env(crate::extended::env())
        .extended(crate::extended::config(64, 8))
        .run_extended()
        .unwrap();
    insta::assert_snapshot!(broken_rules(&results));
    crate::extended::assert_each_failed_with(
        &results,
        &["tck_extended_schedules", "tck_extended_stress"],
        "tck.create_n: expected each element once and in order, by the factory's element_index",
    );
}
