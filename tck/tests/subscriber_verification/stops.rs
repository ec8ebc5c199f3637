//! §2.6: subscribers that declare they stop after `k` elements
//! (`stops_after`) must cancel once they have them. One that cancels
//! passes every rule test; one that drops its subscription, or keeps it
//! and stops requesting, fails exactly §2.6.

use std::collections::BTreeSet;
use std::sync::Arc;

use reactive_streams::{StreamError, Subscriber, Subscription};
use reactive_streams_tck::outcome::{RuleResult, Verdict};
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxFactory, SubscriberBlackboxVerification, SubscriberWhiteboxFactory,
    SubscriberWhiteboxVerification, WhiteboxProbe,
};

use crate::factories::{generous, patient};

/// More than the other rule tests ever send (16), so that only §2.6 sees
/// the subscriber stop.
const TAKE: u64 = 20;

/// What a taker does once it has its `TAKE` elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Done {
    /// Cancels: correct.
    Cancels,
    /// Drops its subscription without cancelling.
    Drops,
    /// Keeps the subscription and simply stops requesting.
    Abandons,
}

/// Takes `TAKE` elements, requesting one at a time.
struct Taker {
    done: Done,
    subscribed: bool,
    subscription: Option<Arc<dyn Subscription>>,
    taken: u64,
}

impl Subscriber<u64> for Taker {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscribed {
            return subscription.cancel();
        }
        self.subscribed = true;
        subscription.request(1);
        self.subscription = Some(subscription);
    }
    fn on_next(&mut self, _: u64) {
        self.taken += 1;
        if self.taken < TAKE {
            if let Some(subscription) = &self.subscription {
                subscription.request(1);
            }
            return;
        }
        match self.done {
            Done::Cancels => {
                if let Some(subscription) = self.subscription.take() {
                    subscription.cancel();
                }
            }
            Done::Drops => self.subscription = None,
            Done::Abandons => {}
        }
    }
    fn on_error(&mut self, _: StreamError) {
        self.subscription = None;
    }
    fn on_complete(&mut self) {
        self.subscription = None;
    }
}

fn taker(done: Done) -> Taker {
    Taker {
        done,
        subscribed: false,
        subscription: None,
        taken: 0,
    }
}

struct Takers(Done);

impl SubscriberBlackboxFactory for Takers {
    type Element = u64;
    type Subscriber = Taker;
    fn create_subscriber(&self) -> Taker {
        taker(self.0)
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
    fn stops_after(&self) -> Option<u64> {
        Some(TAKE)
    }
}

impl SubscriberWhiteboxFactory for Takers {
    type Element = u64;
    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(probe.wrap(taker(self.0)))
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
    fn stops_after(&self) -> Option<u64> {
        Some(TAKE)
    }
}

fn failed(results: &[RuleResult]) -> BTreeSet<&str> {
    results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| r.test.as_str())
        .collect()
}

fn explain(results: &[RuleResult]) -> String {
    results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(reactive_streams_tck::runner::failure_text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn message<'a>(results: &'a [RuleResult], test: &str) -> &'a str {
    let result = results.iter().find(|r| r.test == test).unwrap();
    result.message.as_deref().unwrap_or("(passed)")
}

fn blackbox(done: Done, env: reactive_streams_tck::env::TestEnv) -> Vec<RuleResult> {
    SubscriberBlackboxVerification::new(Takers(done))
        .target(format!("{done:?}"))
        .env(env)
        .run_all()
        .unwrap()
}

fn whitebox(done: Done, env: reactive_streams_tck::env::TestEnv) -> Vec<RuleResult> {
    SubscriberWhiteboxVerification::new(Takers(done))
        .target(format!("{done:?}"))
        .env(env)
        .run_all()
        .unwrap()
}

#[test]
fn a_taker_that_cancels_passes_every_rule_and_2_6_runs() {
    for results in [
        blackbox(Done::Cancels, generous()),
        whitebox(Done::Cancels, generous()),
    ] {
        assert!(failed(&results).is_empty(), "{}", explain(&results));
        let result = results.iter().find(|r| r.test == "spec_2_06").unwrap();
        assert_eq!(result.verdict, Verdict::Passed);
    }
}

#[test]
fn a_subscriber_without_stops_after_skips_2_6() {
    let result = SubscriberBlackboxVerification::new(crate::factories::Blackbox::new(|| {
        taker(Done::Cancels)
    }))
    .env(generous())
    .run("spec_2_06")
    .unwrap();
    assert_eq!(result.verdict, Verdict::Skipped);
}

#[test]
fn a_taker_dropping_its_subscription_fails_2_6() {
    let results = blackbox(Done::Drops, patient());
    assert_eq!(
        failed(&results),
        BTreeSet::from(["spec_2_06"]),
        "{}",
        explain(&results)
    );
    insta::assert_snapshot!("blackbox_drops", message(&results, "spec_2_06"));
    let results = whitebox(Done::Drops, patient());
    assert_eq!(
        failed(&results),
        BTreeSet::from(["spec_2_06"]),
        "{}",
        explain(&results)
    );
    insta::assert_snapshot!("whitebox_drops", message(&results, "spec_2_06"));
}

#[test]
fn a_taker_abandoning_its_subscription_fails_2_6() {
    let results = blackbox(Done::Abandons, patient());
    assert_eq!(
        failed(&results),
        BTreeSet::from(["spec_2_06"]),
        "{}",
        explain(&results)
    );
    insta::assert_snapshot!("blackbox_abandons", message(&results, "spec_2_06"));
    let results = whitebox(Done::Abandons, patient());
    assert_eq!(
        failed(&results),
        BTreeSet::from(["spec_2_06"]),
        "{}",
        explain(&results)
    );
    insta::assert_snapshot!("whitebox_abandons", message(&results, "spec_2_06"));
}
