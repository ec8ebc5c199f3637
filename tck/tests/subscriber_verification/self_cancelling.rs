//! Subscribers that end their own subscription (issue 26 §3) pass every
//! subscriber verification, quick and extended, blackbox and whitebox:
//! the tests that need demand are skipped, saying the subscriber
//! cancelled itself.

#[path = "../common/self_cancelling.rs"]
pub mod corpus;

use reactive_streams_tck::subscriber::{
    SubscriberBlackboxVerification, SubscriberWhiteboxVerification,
};

use crate::factories::generous;
use corpus::{Ends, SelfCancellingBlackbox, SelfCancellingWhitebox};

fn check(name: &str, results: &[reactive_streams_tck::outcome::RuleResult]) {
    for skip in crate::verdicts::assert_clean_and_skips_explained(name, results) {
        eprintln!("{name}: skipped {skip}");
    }
}

#[test]
fn self_cancelling_blackbox_subscribers_pass_the_quick_verification() {
    for ends in Ends::ALL {
        let results = SubscriberBlackboxVerification::new(SelfCancellingBlackbox(ends))
            .env(generous())
            .run_all()
            .unwrap();
        check(ends.name(), &results);
    }
}

#[test]
fn self_cancelling_whitebox_subscribers_pass_the_quick_verification() {
    for ends in Ends::ALL {
        let results = SubscriberWhiteboxVerification::new(SelfCancellingWhitebox(ends))
            .env(generous())
            .run_all()
            .unwrap();
        check(ends.name(), &results);
    }
}

#[test]
fn self_cancelling_subscribers_pass_the_extended_verifications() {
    let config = || crate::extended::config(100, 10);
    for ends in Ends::ALL {
        let results = SubscriberBlackboxVerification::new(SelfCancellingBlackbox(ends))
            .env(crate::extended::passing_env())
            .extended(config())
            .run_extended()
            .unwrap();
        check(ends.name(), &results);
        let results = SubscriberWhiteboxVerification::new(SelfCancellingWhitebox(ends))
            .env(crate::extended::passing_env())
            .extended(config())
            .run_extended()
            .unwrap();
        check(ends.name(), &results);
    }
}
