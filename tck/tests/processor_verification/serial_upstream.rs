//! §2.7 on a processor's upstream with calls from two threads: a filter
//! whose replacement `request`, made from inside `on_next`, is not serial
//! with the downstream `request` it passes on from another thread.

use reactive_streams_tck::processor::testkit::FilteringProcessor;
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
use reactive_streams_tck::testkit::broken_rules;

use crate::factories::{failed, patient};

/// Filters keeping the even inputs, declared as such, whose calls
/// upstream are not made serial.
struct UnserialisedEvens;

impl ProcessorFactory for UnserialisedEvens {
    type Input = u64;
    type Output = u64;
    type Processor = FilteringProcessor<u64>;

    fn create_processor(&self) -> FilteringProcessor<u64> {
        FilteringProcessor::unserialised(|x: &u64| x % 2 == 0)
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn passes(&self, index: u64) -> bool {
        index % 2 == 0
    }

    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

/// The TCK holds the filter's upstream call for a downstream `request`
/// made on a second thread open while it delivers an input the filter
/// drops: the replacement `request` overlaps it.
#[test]
fn a_filter_requesting_replacements_unserialised_fails_2_7() {
    insta::assert_snapshot!(
        "unserialised_replacements",
        failed(UnserialisedEvens, "spec_2_07")
    );
}

#[test]
fn a_filter_requesting_replacements_unserialised_breaks_exactly_2_7() {
    let results = ProcessorVerification::new(UnserialisedEvens)
        .env(patient())
        .run_all()
        .unwrap();
    insta::assert_snapshot!("unserialised_replacements_rules", broken_rules(&results));
}
