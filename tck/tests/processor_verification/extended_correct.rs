//! A conforming processor passes the extended verification.

use reactive_streams_tck::extended::ProcessorExtendedVerification;
use reactive_streams_tck::processor::testkit::IdentityProcessor;
use reactive_streams_tck::processor::ProcessorFactory;
use reactive_streams_tck::processor_extended_verification;

pub struct Identities;

impl ProcessorFactory for Identities {
    type Input = u64;
    type Output = u64;
    type Processor = IdentityProcessor<u64>;
    fn create_processor(&self) -> IdentityProcessor<u64> {
        IdentityProcessor::new()
    }
    fn input(&self, index: u64) -> u64 {
        index
    }
    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

// What a user writes.
processor_extended_verification!(identity_extended, Identities, "identity");

#[test]
fn the_testkit_identity_processor_passes() {
    let results = ProcessorExtendedVerification::new(Identities)
        .env(crate::extended::env())
        .config(crate::extended::config(300, 10))
        .run_all()
        .unwrap();
    crate::verdicts::assert_all_passed("IdentityProcessor", &results);
}
