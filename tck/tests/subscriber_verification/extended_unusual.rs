//! Correct-but-unusual subscribers (issue 14, families 5 and 6) pass the
//! extended verification too: a greedy subscriber, one with a chunking
//! helper, one whose helper cancels.

use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::subscriber::SubscriberWhiteboxVerification;

use crate::unusual::unusual_subscribers::{Greedies, Helped, Takers};

fn passes(name: &str, results: Vec<RuleResult>) {
    crate::verdicts::assert_passed_or_skipped_with_reason(name, &results);
}

#[test]
fn unusual_subscribers_pass_the_extended_verification() {
    let config = || crate::extended::config(100, 5);
    passes(
        "greedy",
        SubscriberWhiteboxVerification::new(Greedies)
            .env(crate::extended::passing_env())
            .extended(config())
            .run_extended()
            .unwrap(),
    );
    passes(
        "with a helper",
        SubscriberWhiteboxVerification::new(Helped)
            .env(crate::extended::passing_env())
            .extended(config())
            .run_extended()
            .unwrap(),
    );
    passes(
        "taking",
        SubscriberWhiteboxVerification::new(Takers)
            .env(crate::extended::passing_env())
            .extended(config())
            .run_extended()
            .unwrap(),
    );
}
