//! Correct-but-unusual subscribers (issue 14, families 5 and 6) pass the
//! extended verification too: a greedy subscriber, one with a chunking
//! helper, one whose helper cancels.

use reactive_streams_tck::extended::SubscriberWhiteboxExtendedVerification;
use reactive_streams_tck::outcome::RuleResult;

use crate::unusual::unusual_subscribers::{Greedies, Helped, Takers};

fn passes(name: &str, results: Vec<RuleResult>) {
    crate::verdicts::assert_passed_or_skipped_with_reason(name, &results);
}

#[test]
fn unusual_subscribers_pass_the_extended_verification() {
    let config = || crate::extended::config(100, 5);
    passes(
        "greedy",
        SubscriberWhiteboxExtendedVerification::new(Greedies)
            .env(crate::extended::passing_env())
            .config(config())
            .run_all()
            .unwrap(),
    );
    passes(
        "with a helper",
        SubscriberWhiteboxExtendedVerification::new(Helped)
            .env(crate::extended::passing_env())
            .config(config())
            .run_all()
            .unwrap(),
    );
    passes(
        "taking",
        SubscriberWhiteboxExtendedVerification::new(Takers)
            .env(crate::extended::passing_env())
            .config(config())
            .run_all()
            .unwrap(),
    );
}
