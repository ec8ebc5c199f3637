//! A correct-but-unusual sink (issue 14, family 7): one that never starts
//! the stream. Rule 5 says a sink MAY start it, so such a sink breaks no
//! rule: it passes the sink verification with no failure, and the tests
//! that need a started stream are skipped, saying so.

use std::time::Duration;

#[path = "../common/passive_sink.rs"]
pub mod passive_sink;

use passive_sink::Passives;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::streamlet::sink::SinkVerification;
use reactive_streams_tck::streamlet_sink_verification;

/// Short: every test waits the timeout once for a start that never comes.
fn quick() -> TestEnv {
    TestEnv::builder()
        .timeout(Duration::from_millis(300))
        .build()
}

#[test]
fn a_sink_that_never_starts_passes_with_reasons() {
    let results = SinkVerification::new(Passives)
        .env(quick())
        .run_all()
        .unwrap();
    for r in &results {
        assert_ne!(r.verdict, Verdict::Failed, "{}: {:?}", r.test, r.message);
        if r.verdict == Verdict::Skipped {
            assert!(
                r.message.as_deref().is_some_and(|m| !m.is_empty()),
                "{} skipped without a reason",
                r.test
            );
        }
    }
}

/// It used to fail `tck_starts`; now that test is skipped, naming rule 5.
#[test]
fn tck_starts_skips_a_sink_that_never_starts() {
    let result = SinkVerification::new(Passives)
        .env(quick())
        .run("tck_starts")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Skipped, "{:?}", result.message);
    let reason = result.message.unwrap();
    assert!(reason.contains("rule 5"), "{reason}");
}

streamlet_sink_verification!(never_starting_sink, Passives);
