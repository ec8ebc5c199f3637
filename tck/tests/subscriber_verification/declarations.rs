//! Issue 26 §2: every declaration a subscriber factory makes is honoured
//! by the quick and the extended verifications alike. Each correct
//! subscriber below needs its declaration and passes both, blackbox and
//! whitebox where the declaration exists in both.

use std::sync::Arc;

use reactive_streams::{StreamError, Subscriber, Subscription};
use reactive_streams_tck::outcome::{RuleResult, Verdict};
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxFactory, SubscriberBlackboxVerification, SubscriberWhiteboxFactory,
    SubscriberWhiteboxVerification, WhiteboxProbe,
};

use crate::factories::generous;
use crate::resubscribing::Repeaters;
use crate::self_cancelling::corpus::{
    Ends, SelfCancelling, SelfCancellingBlackbox, SelfCancellingWhitebox,
};

fn clean(name: &str, results: &[RuleResult]) {
    crate::verdicts::assert_clean_and_skips_explained(name, results);
}

fn blackbox_passes_quick_and_extended<F: SubscriberBlackboxFactory>(
    name: &str,
    factory: impl Fn() -> F,
) -> Vec<RuleResult> {
    let quick = SubscriberBlackboxVerification::new(factory())
        .env(generous())
        .run_all()
        .unwrap();
    clean(name, &quick);
    let extended = SubscriberBlackboxVerification::new(factory())
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(200, 10))
        .run_extended()
        .unwrap();
    clean(name, &extended);
    quick
}

fn whitebox_passes_quick_and_extended<F: SubscriberWhiteboxFactory>(
    name: &str,
    factory: impl Fn() -> F,
) -> Vec<RuleResult> {
    let quick = SubscriberWhiteboxVerification::new(factory())
        .env(generous())
        .run_all()
        .unwrap();
    clean(name, &quick);
    let extended = SubscriberWhiteboxVerification::new(factory())
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(200, 10))
        .run_extended()
        .unwrap();
    clean(name, &extended);
    quick
}

fn verdict(results: &[RuleResult], test: &str) -> Verdict {
    results.iter().find(|r| r.test == test).unwrap().verdict
}

/// A `take(1)`: requests one element and cancels from its `on_next`,
/// declaring `stops_after() = Some(1)`.
struct TakeOne;

impl SubscriberBlackboxFactory for TakeOne {
    type Element = u64;
    type Subscriber = SelfCancelling;
    fn create_subscriber(&self) -> SelfCancelling {
        SubscriberBlackboxFactory::create_subscriber(&SelfCancellingBlackbox(Ends::OnFirstNext))
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
    fn stops_after(&self) -> Option<u64> {
        Some(1)
    }
}

impl SubscriberWhiteboxFactory for TakeOne {
    type Element = u64;
    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        SelfCancellingWhitebox(Ends::OnFirstNext).create_subscriber(probe)
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
    fn stops_after(&self) -> Option<u64> {
        Some(1)
    }
}

/// `stops_after`.
#[test]
fn a_declared_take_passes_quick_and_extended() {
    let quick = blackbox_passes_quick_and_extended("take(1) blackbox", || TakeOne);
    assert_eq!(verdict(&quick, "spec_2_06"), Verdict::Passed);
    let quick = whitebox_passes_quick_and_extended("take(1) whitebox", || TakeOne);
    assert_eq!(verdict(&quick, "spec_2_06"), Verdict::Passed);
}

/// Requests only when told to, two at a time, through its owner's nudge.
struct OnlyWhenNudged {
    subscription: Option<Arc<dyn Subscription>>,
}

impl Subscriber<u64> for OnlyWhenNudged {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            return subscription.cancel();
        }
        self.subscription = Some(subscription);
    }
    fn on_next(&mut self, _: u64) {}
    fn on_error(&mut self, _: StreamError) {
        self.subscription = None;
    }
    fn on_complete(&mut self) {
        self.subscription = None;
    }
}

struct Nudged;

impl SubscriberBlackboxFactory for Nudged {
    type Element = u64;
    type Subscriber = OnlyWhenNudged;
    fn create_subscriber(&self) -> OnlyWhenNudged {
        OnlyWhenNudged { subscription: None }
    }
    fn element(&self, index: u64) -> u64 {
        index
    }
    fn trigger_request(&self, subscriber: &mut OnlyWhenNudged) {
        if let Some(subscription) = &subscriber.subscription {
            subscription.request(2);
        }
    }
}

/// `trigger_request` (blackbox).
#[test]
fn a_subscriber_requesting_only_when_nudged_passes_quick_and_extended() {
    let quick = blackbox_passes_quick_and_extended("nudged", || Nudged);
    assert_eq!(verdict(&quick, "spec_2_01"), Verdict::Passed);
}

/// `create_subscriber_with_publisher` (whitebox): a subscriber that
/// subscribes again from a thread of its own after a terminal signal.
#[test]
fn a_resubscribing_subscriber_passes_quick_and_extended() {
    let quick = whitebox_passes_quick_and_extended("repeating", || Repeaters { inline: false });
    assert_eq!(verdict(&quick, "spec_2_03"), Verdict::Passed);
}
