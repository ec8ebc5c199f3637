//! A correct-but-unusual sink (issue 14, family 7) passes the extended
//! verification too: a sink that never starts.

use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::streamlet::sink::SinkVerification;

use crate::unusual_sinks::passive_sink::Passives;

fn passes(name: &str, results: Vec<RuleResult>) {
    crate::verdicts::assert_passed_or_skipped_with_reason(name, &results);
}

#[test]
fn a_sink_that_never_starts_passes_the_extended_verification() {
    passes(
        "passive sink",
        SinkVerification::new(Passives)
            .env(
                reactive_streams_tck::env::TestEnv::builder()
                    .timeout(std::time::Duration::from_millis(300))
                    .no_signal_timeout(std::time::Duration::from_millis(5))
                    .build(),
            )
            .extended(crate::extended::config(50, 5))
            .run_extended()
            .unwrap(),
    );
}
