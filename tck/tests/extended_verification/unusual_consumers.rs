//! Correct-but-unusual subscribers and sinks (issue 14, families 5, 6 and
//! 7) pass the extended verification too: a greedy subscriber, one with a
//! chunking helper, one whose helper cancels, a sink that never starts.

#[path = "../common/passive_sink.rs"]
mod passive_sink;
#[path = "../common/unusual_subscribers.rs"]
mod unusual_subscribers;

use reactive_streams_tck::extended::{
    SinkExtendedVerification, SubscriberWhiteboxExtendedVerification,
};
use reactive_streams_tck::outcome::RuleResult;

use passive_sink::Passives;
use unusual_subscribers::{Greedies, Helped, Takers};

fn passes(name: &str, results: Vec<RuleResult>) {
    crate::verdicts::assert_passed_or_skipped_with_reason(name, &results);
}

#[test]
fn unusual_subscribers_pass_the_extended_verification() {
    let config = || crate::config(100, 5);
    passes(
        "greedy",
        SubscriberWhiteboxExtendedVerification::new(Greedies)
            .env(crate::env())
            .config(config())
            .run_all()
            .unwrap(),
    );
    passes(
        "with a helper",
        SubscriberWhiteboxExtendedVerification::new(Helped)
            .env(crate::env())
            .config(config())
            .run_all()
            .unwrap(),
    );
    passes(
        "taking",
        SubscriberWhiteboxExtendedVerification::new(Takers)
            .env(crate::env())
            .config(config())
            .run_all()
            .unwrap(),
    );
}

#[test]
fn a_sink_that_never_starts_passes_the_extended_verification() {
    passes(
        "passive sink",
        SinkExtendedVerification::new(Passives)
            .env(
                reactive_streams_tck::env::TestEnv::builder()
                    .timeout(std::time::Duration::from_millis(300))
                    .no_signal_timeout(std::time::Duration::from_millis(5))
                    .build(),
            )
            .config(crate::config(50, 5))
            .run_all()
            .unwrap(),
    );
}
