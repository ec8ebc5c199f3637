//! A correct bounded sink, with and without a buffer of its own, passes
//! every rule test, quick and extended.

use reactive_streams_tck::ExtendedConfig;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::futures::sink::FuturesSinkVerification;
use reactive_streams_tck::outcome::Verdict;
use rstest::rstest;

use crate::queue::Sinks;

#[rstest]
#[case::direct(false)]
#[case::buffered(true)]
fn a_correct_sink_passes(#[case] buffered: bool) {
    let results = FuturesSinkVerification::new(Sinks {
        buffered,
        bug: None,
    })
    .env(TestEnv::default())
    .extended(ExtendedConfig::builder().cases(64).seed(17).build())
    .run_all()
    .unwrap();
    assert_eq!(results.len(), 4);
    for result in results {
        assert_eq!(result.verdict, Verdict::Passed, "{result:#?}");
    }
}

reactive_streams_tck::sink_verification!(
    queue_sink,
    Sinks {
        buffered: true,
        bug: None
    }
);
