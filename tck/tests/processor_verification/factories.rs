//! A processor factory over the TCK's identity processor, with a quirk.

use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::processor::testkit::{IdentityProcessor, Quirk};
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};

#[path = "../support/timing.rs"]
mod timing;
pub use timing::{generous, patient};

pub struct Identities {
    pub quirk: Quirk,
    pub recovers: bool,
}

impl Identities {
    pub fn conforming() -> Self {
        Identities {
            quirk: Quirk::None,
            recovers: false,
        }
    }

    pub fn with(quirk: Quirk) -> Self {
        Identities {
            quirk,
            recovers: false,
        }
    }
}

impl ProcessorFactory for Identities {
    type Input = u64;
    type Output = u64;
    type Processor = IdentityProcessor<u64>;

    fn create_processor(&self) -> IdentityProcessor<u64> {
        IdentityProcessor::with_quirk(self.quirk)
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn supports_multiple_subscribers(&self) -> bool {
        false
    }

    fn recovers_from_errors(&self) -> bool {
        self.recovers
    }

    /// It asks upstream for exactly downstream's demand: declared by the
    /// conforming processor, and by the one that refills per element (which
    /// breaks the declaration once elements flow); the others keep the
    /// default, so each quirk keeps its exact rule set.
    fn max_upstream_demand(&self) -> u64 {
        match self.quirk {
            Quirk::None | Quirk::RefillsPerElement => 0,
            _ => 1024,
        }
    }

    /// Output `i` is input `i`; declared by the conforming processor only,
    /// so each quirk keeps its exact rule set.
    fn element_index(&self, output: &u64) -> Option<u64> {
        (self.quirk == Quirk::None && !self.recovers).then_some(*output)
    }
}

/// Runs `test` against a broken processor: it must fail; returns the
/// message.
pub fn failed<F: ProcessorFactory>(factory: F, test: &str) -> String {
    let result = ProcessorVerification::new(factory)
        .env(patient())
        .run(test)
        .unwrap();
    assert_eq!(
        result.verdict,
        Verdict::Failed,
        "{test} was expected to fail: {:?}",
        result.message
    );
    result.message.unwrap_or_default()
}
