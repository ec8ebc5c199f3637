//! A conforming processor passes the extended verification.

use reactive_streams_tck::processor::ProcessorVerification;
use reactive_streams_tck::processor_verification;

use crate::factories::Identities;

// What a user writes.
processor_verification!(extended identity_extended, Identities::conforming(), "identity");

#[test]
fn the_testkit_identity_processor_passes() {
    let results = ProcessorVerification::new(Identities::conforming())
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(300, 10))
        .run_extended()
        .unwrap();
    crate::verdicts::assert_all_passed("IdentityProcessor", &results);
}
