//! Broken subscribers: one that goes wrong only after a second
//! `on_subscribe` followed by an element passes the quick verification and
//! fails the extended one. Each breaks exactly the rules snapshotted as
//! `…_rules` (over the whole extended run; for the puppet caught by the
//! quick verification, over the quick run).

use std::sync::Arc;

use parking_lot::Mutex;

use reactive_streams::{StreamError, Subscriber, Subscription};
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::subscriber::{
    Puppet, SubscriberBlackboxVerification, SubscriberWhiteboxVerification, WhiteboxProbe,
};

use crate::factories::{Blackbox, Whitebox};
use reactive_streams_tck::testkit::broken_rules;

/// Requests one element at a time. Its flaw: it cancels a second
/// subscription as §2.5 demands, but then keeps it as its own, so the next
/// element makes it request from the cancelled, rejected subscription.
#[derive(Default)]
pub struct Switcheroo {
    subscription: Option<Arc<dyn Subscription>>,
}

impl Subscriber<u64> for Switcheroo {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            subscription.cancel();
        } else {
            subscription.request(1);
        }
        self.subscription = Some(subscription);
    }
    fn on_next(&mut self, _: u64) {
        if let Some(subscription) = &self.subscription {
            subscription.request(1);
        }
    }
    fn on_error(&mut self, _: StreamError) {
        self.subscription = None;
    }
    fn on_complete(&mut self) {
        self.subscription = None;
    }
}

#[test]
fn a_subscriber_keeping_the_rejected_subscription_needs_a_generated_script() {
    crate::verdicts::assert_quick_misses(
        SubscriberBlackboxVerification::new(Blackbox::new(Switcheroo::default)).run_all(),
    );

    crate::extended::assert_schedules_fail!(
        SubscriberBlackboxVerification::new(Blackbox::new(Switcheroo::default)),
        "Switcheroo",
        1000,
        "switcheroo_rules"
    );
}

/// Requests one element at a time, like `Switcheroo` without its flaw. Its
/// own flaw: it assumes every signal comes on the thread that delivered
/// `on_subscribe` and panics in `on_next` when one does not — while §1.3
/// lets a publisher signal from any thread, one signal after the other.
#[derive(Default)]
pub struct ThreadBound {
    home: Option<std::thread::ThreadId>,
    subscription: Option<Arc<dyn Subscription>>,
}

impl Subscriber<u64> for ThreadBound {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            return subscription.cancel();
        }
        self.home = Some(std::thread::current().id());
        subscription.request(1);
        self.subscription = Some(subscription);
    }
    fn on_next(&mut self, _: u64) {
        assert_eq!(
            self.home,
            Some(std::thread::current().id()),
            "ThreadBound: on_next on a thread other than on_subscribe's"
        );
        if let Some(subscription) = &self.subscription {
            subscription.request(1);
        }
    }
    fn on_error(&mut self, _: StreamError) {
        self.subscription = None;
    }
    fn on_complete(&mut self) {
        self.subscription = None;
    }
}

#[test]
fn a_subscriber_bound_to_one_thread_needs_the_stress() {
    crate::verdicts::assert_quick_misses(
        SubscriberBlackboxVerification::new(Blackbox::new(ThreadBound::default)).run_all(),
    );
    let results = SubscriberBlackboxVerification::new(Blackbox::new(ThreadBound::default))
        .target("ThreadBound")
        .env(crate::extended::env())
        .extended(crate::extended::config(300, 5))
        .run_extended()
        .unwrap();
    crate::extended::passed(&results, "tck_extended_schedules");
    insta::assert_snapshot!("thread_bound_rules", broken_rules(&results));

    let result = crate::extended::failed(&results, "tck_extended_stress");
    let message = result.message.clone().unwrap();
    eprintln!("{message}");
    assert!(
        message.starts_with("tck.extended_stress: expected every stress iteration to pass; actual: iteration 1 of 5 → §2.13"),
        "{message}"
    );
    assert!(
        message.contains("the signals, one thread after the other: signals-"),
        "{message}"
    );
    assert!(
        message.contains("replay it alone with RS_TCK_SEED=0x"),
        "{message}"
    );
}

/// Requests one element at a time from the subscription it keeps, and
/// cancels a second one as §2.5 demands. Its flaw is in its instrumentation
/// path: the puppet it registers requests through a "current subscription"
/// slot that `on_subscribe` fills before deciding to reject — so after a
/// rejected second subscription, the next `trigger_request` goes to it.
pub struct PuppetOnLatest {
    probe: WhiteboxProbe<u64>,
    kept: Option<Arc<dyn Subscription>>,
    latest: Arc<Mutex<Option<Arc<dyn Subscription>>>>,
}

struct LatestPuppet(Arc<Mutex<Option<Arc<dyn Subscription>>>>);

impl Puppet for LatestPuppet {
    fn trigger_request(&self, n: u64) {
        let latest = self.0.lock().clone();
        if let Some(subscription) = latest {
            subscription.request(n);
        }
    }
    fn trigger_cancel(&self) {
        let latest = self.0.lock().clone();
        if let Some(subscription) = latest {
            subscription.cancel();
        }
    }
}

impl Subscriber<u64> for PuppetOnLatest {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        *self.latest.lock() = Some(subscription.clone());
        if self.kept.is_some() {
            return subscription.cancel();
        }
        self.probe.registered(LatestPuppet(self.latest.clone()));
        subscription.request(1);
        self.kept = Some(subscription);
    }
    fn on_next(&mut self, element: u64) {
        self.probe.received_next(&element);
        if let Some(subscription) = &self.kept {
            subscription.request(1);
        }
    }
    fn on_error(&mut self, error: StreamError) {
        self.probe.received_error(&error);
        self.kept = None;
    }
    fn on_complete(&mut self) {
        self.probe.received_complete();
        self.kept = None;
    }
}

fn puppet_on_latest(probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
    Box::new(PuppetOnLatest {
        probe,
        kept: None,
        latest: Arc::default(),
    })
}

fn wrapped_switcheroo(probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
    Box::new(probe.wrap(Switcheroo::default()))
}

#[test]
fn a_whitebox_subscriber_keeping_the_rejected_subscription_needs_a_generated_script() {
    crate::verdicts::assert_quick_misses(
        SubscriberWhiteboxVerification::new(Whitebox(wrapped_switcheroo)).run_all(),
    );

    let results = SubscriberWhiteboxVerification::new(Whitebox(wrapped_switcheroo))
        .target("Switcheroo (whitebox)")
        .env(crate::extended::env())
        .extended(crate::extended::config(1000, 0))
        .run_extended()
        .unwrap();
    let result = crate::extended::failed(&results, "tck_extended_schedules");
    insta::assert_snapshot!(result.message.clone().unwrap());
    insta::assert_snapshot!("switcheroo_whitebox_rules", broken_rules(&results));
}

/// Calls made through the whitebox puppet are judged like any other call:
/// a puppet that requests from the rejected second subscription — the
/// subscriber's own code breaking §2.5 — fails §2.5 (it was a blind spot:
/// such calls counted as the TCK's doing).
#[test]
fn a_whitebox_puppet_on_the_rejected_subscription_fails_2_5() {
    let quick = SubscriberWhiteboxVerification::new(Whitebox(puppet_on_latest))
        .target("PuppetOnLatest")
        .env(crate::extended::env())
        .run_all()
        .unwrap();
    let failed: Vec<&str> = quick
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| r.test.as_str())
        .collect();
    assert_eq!(failed, ["spec_2_05"]);
    let result = quick.iter().find(|r| r.test == "spec_2_05").unwrap();
    insta::assert_snapshot!(result.message.as_deref().unwrap());
    insta::assert_snapshot!("puppet_on_latest_rules", broken_rules(&quick));
}
