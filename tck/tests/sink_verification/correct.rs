//! A correct bounded sink, with and without a buffer of its own, passes
//! every rule test, quick and extended; so does one that registers its
//! waker before it looks for room.

use reactive_streams_tck::ExtendedConfig;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::futures::sink::{FuturesSinkFactory, FuturesSinkVerification};
use reactive_streams_tck::outcome::Verdict;
use rstest::rstest;

use crate::queue::Sinks;

/// Every test, quick and extended, passes.
pub(crate) fn passes<F: FuturesSinkFactory>(factory: F) {
    let results = FuturesSinkVerification::new(factory)
        .env(TestEnv::default())
        .extended(ExtendedConfig::builder().cases(64).seed(17).build())
        .run_all()
        .unwrap();
    assert_eq!(results.len(), 4);
    for result in results {
        assert_eq!(result.verdict, Verdict::Passed, "{result:#?}");
    }
}

#[rstest]
#[case::direct(false)]
#[case::buffered(true)]
fn a_correct_sink_passes(#[case] buffered: bool) {
    passes(Sinks {
        buffered,
        bug: None,
    });
}

reactive_streams_tck::sink_verification!(
    queue_sink,
    Sinks {
        buffered: true,
        bug: None
    }
);

/// A sink that registers its waker before it looks for room passes the
/// race of room made at the moment it takes its waker.
#[test]
fn a_sink_registering_before_it_looks_passes() {
    passes(crate::queue::RegistersFirst);
}
