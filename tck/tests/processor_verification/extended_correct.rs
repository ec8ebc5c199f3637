//! A conforming processor passes the extended verification.

use reactive_streams_tck::extended::ProcessorExtendedVerification;
use reactive_streams_tck::processor_extended_verification;

use crate::factories::Identities;

// What a user writes.
processor_extended_verification!(identity_extended, Identities::conforming(), "identity");

#[test]
fn the_testkit_identity_processor_passes() {
    let results = ProcessorExtendedVerification::new(Identities::conforming())
        .env(crate::extended::passing_env())
        .config(crate::extended::config(300, 10))
        .run_all()
        .unwrap();
    crate::verdicts::assert_all_passed("IdentityProcessor", &results);
}
