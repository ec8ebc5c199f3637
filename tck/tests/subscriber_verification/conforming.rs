//! Conforming subscribers pass every rule test, in both verifications.

use reactive_streams::Subscriber;
use reactive_streams_tck::outcome::{RuleResult, Verdict};
use reactive_streams_tck::subscriber::testkit::{Greedy, Queued};
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxVerification, SubscriberWhiteboxVerification, WhiteboxProbe,
};
use reactive_streams_tck::{subscriber_blackbox_verification, subscriber_whitebox_verification};
use rstest::rstest;

use crate::factories::{generous, Blackbox, Whitebox};

fn assert_all_pass(results: Vec<RuleResult>) {
    crate::verdicts::assert_none_broken(&results, "a conforming subscriber broke rules");
    assert!(results.iter().any(|r| r.verdict == Verdict::Passed));
}

#[rstest]
#[case::greedy_one_at_a_time(Blackbox::new(|| Greedy::new(1)))]
#[case::greedy_batches(Blackbox::new(|| Greedy::new(8)))]
#[case::greedy_unbounded(Blackbox::new(|| Greedy::new(u64::MAX / 2)))]
#[case::queued_worker_thread(Blackbox::new(|| Queued::new(None)))]
fn conforming_subscribers_pass_the_blackbox_verification<S: Subscriber<u64> + 'static>(
    #[case] factory: Blackbox<S>,
) {
    assert_all_pass(
        SubscriberBlackboxVerification::new(factory)
            .env(generous())
            .run_all()
            .unwrap(),
    );
}

#[rstest]
#[case::reports_from_its_logic(Whitebox(|probe| Box::new(Greedy::new(4).with_probe(probe))))]
#[case::reports_from_its_worker_thread(Whitebox(|probe| Box::new(Queued::new(Some(probe)))))]
#[case::wrapped(Whitebox(|probe: WhiteboxProbe<u64>| Box::new(probe.wrap(Greedy::new(2)))))]
fn conforming_subscribers_pass_the_whitebox_verification(#[case] factory: Whitebox) {
    assert_all_pass(
        SubscriberWhiteboxVerification::new(factory)
            .env(generous())
            .run_all()
            .unwrap(),
    );
}

// The macros, as a user writes them: one `#[test]` per rule, named
// `greedy::subscriber_blackbox::spec_2_01` and so on.
subscriber_blackbox_verification!(greedy, Blackbox::new(|| Greedy::new(4)));
subscriber_blackbox_verification!(
    queued,
    Blackbox::new(|| Queued::new(None)),
    "Queued (worker thread)"
);
subscriber_whitebox_verification!(
    greedy_whitebox,
    Whitebox(|probe| Box::new(Greedy::new(4).with_probe(probe)))
);
