//! Calls a subscriber makes on the TCK's subscription after its scenario
//! ended (issue 15, item 5), and `request(0)`, which the TCK's subscription
//! answers with `on_error` as §3.9 asks of every subscription.
//!
//! * [`LateRequester`] leaves a thread behind at its terminal signal that
//!   calls `request(1)` once the *next* scenario of the same rule test has
//!   subscribed its subscriber (it waits for that, with a deadline: no
//!   sleep). The call breaks §2.4 (the subscription is to be considered
//!   cancelled once the terminal signal was received) and must be filed
//!   under the scenario it belongs to, as "late, from an earlier scenario:
//!   …", never under the one running when it lands.
//! * [`RequestsZeroOnce`] asks for one element at a time and, after its
//!   first element, calls `request(0)` once; an `on_error` after it must
//!   be the illegal-demand error, and nothing may follow an `on_error`: it
//!   panics otherwise. (Elements may still arrive after it: a whitebox
//!   puppet may have cancelled first, which makes the `request(0)` a no-op,
//!   §3.6, and leaves elements in flight, §2.8.) Requesting 0 breaks no Subscriber rule: it
//!   passes every test (the ones that need more elements are skipped,
//!   saying why).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use reactive_streams::{StreamError, Subscriber, Subscription};
use reactive_streams_tck::outcome::{RuleResult, Verdict};
use reactive_streams_tck::subscriber::{
    SubscriberBlackboxVerification, SubscriberWhiteboxVerification,
};
use reactive_streams_tck::testkit::broken_rules;

use crate::factories::{Blackbox, Whitebox, generous, patient};

/// How many subscribers were subscribed on each thread. A rule test
/// subscribes its subscribers on its own thread, so a later count on the
/// same thread means a later scenario of the same rule test.
static SUBSCRIBED: Mutex<Vec<(ThreadId, u64)>> = Mutex::new(Vec::new());
static CHANGED: Condvar = Condvar::new();

/// Counts a subscription on this thread; returns (thread, its count).
fn note_subscribed() -> (ThreadId, u64) {
    let me = std::thread::current().id();
    let mut counts = SUBSCRIBED.lock().unwrap();
    let count = match counts.iter_mut().find(|(thread, _)| *thread == me) {
        Some((_, count)) => {
            *count += 1;
            *count
        }
        None => {
            counts.push((me, 1));
            1
        }
    };
    CHANGED.notify_all();
    (me, count)
}

/// Waits until another subscriber is subscribed on `thread` after the
/// `seen`-th, up to `within`; whether one was.
fn wait_next_subscribed(thread: ThreadId, seen: u64, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut counts = SUBSCRIBED.lock().unwrap();
    loop {
        let count = counts
            .iter()
            .find(|(t, _)| *t == thread)
            .map_or(0, |(_, count)| *count);
        if count > seen {
            return true;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        counts = CHANGED.wait_timeout(counts, deadline - now).unwrap().0;
    }
}

/// Requests one element at a time; at its terminal signal it leaves a
/// thread behind that requests 1 once the next scenario has subscribed.
#[derive(Default)]
pub struct LateRequester {
    subscription: Option<Arc<dyn Subscription>>,
    subscribed: Option<(ThreadId, u64)>,
}

impl LateRequester {
    fn leave_a_thread_behind(&mut self) {
        let (Some(subscription), Some((thread, seen))) =
            (self.subscription.take(), self.subscribed)
        else {
            return;
        };
        std::thread::spawn(move || {
            // Long enough for the next scenario on a loaded machine; a
            // test with no next scenario lets the thread give up quietly.
            if wait_next_subscribed(thread, seen, Duration::from_secs(10)) {
                subscription.request(1);
            }
        });
    }
}

impl Subscriber<u64> for LateRequester {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            return subscription.cancel();
        }
        self.subscribed = Some(note_subscribed());
        subscription.request(1);
        self.subscription = Some(subscription);
    }

    fn on_next(&mut self, _: u64) {
        if let Some(subscription) = &self.subscription {
            subscription.request(1);
        }
    }

    fn on_error(&mut self, _: StreamError) {
        self.leave_a_thread_behind();
    }

    fn on_complete(&mut self) {
        self.leave_a_thread_behind();
    }
}

fn blackbox_results() -> Vec<RuleResult> {
    SubscriberBlackboxVerification::new(Blackbox::new(LateRequester::default))
        .env(patient())
        .run_all()
        .unwrap()
}

fn whitebox_results() -> Vec<RuleResult> {
    SubscriberWhiteboxVerification::new(Whitebox(|probe| {
        Box::new(probe.wrap(LateRequester::default()))
    }))
    .env(patient())
    .run_all()
    .unwrap()
}

/// The messages of every §2.4 violation the run saw, with the test.
fn late_violations(results: &[RuleResult]) -> String {
    let mut lines = Vec::new();
    for result in results {
        for violation in result.violations.iter().filter(|v| v.rule == "2.4") {
            lines.push(format!("{}: {}", result.test, violation.message));
        }
        if result.verdict == Verdict::Failed && result.rule == "2.4" {
            lines.push(format!(
                "{}: {}",
                result.test,
                result.message.clone().unwrap_or_default()
            ));
        }
    }
    lines.sort();
    lines.dedup();
    lines.join("\n")
}

/// The run breaks exactly §2.4, and every late call is tagged with the
/// scenario it belongs to, never with a later one's.
fn assert_filed_as_late(kind: &str, results: &[RuleResult], own_scenario: &str) {
    insta::assert_snapshot!(format!("late_request_{kind}_rules"), broken_rules(results));
    let messages = late_violations(results);
    assert!(
        messages.contains(&format!("[late, from an earlier scenario: {own_scenario}]")),
        "{messages}"
    );
    assert!(!messages.contains("[on_error"), "{messages}");
    insta::assert_snapshot!(format!("late_request_{kind}"), messages);
}

#[test]
fn a_late_request_is_filed_under_its_own_scenario_blackbox() {
    assert_filed_as_late(
        "blackbox",
        &blackbox_results(),
        "on_complete after the first request",
    );
}

#[test]
fn a_late_request_is_filed_under_its_own_scenario_whitebox() {
    assert_filed_as_late(
        "whitebox",
        &whitebox_results(),
        "on_complete with demand outstanding",
    );
}

/// How many illegal-demand errors [`RequestsZeroOnce`] subscribers received.
static ILLEGAL_DEMAND_ERRORS: AtomicU64 = AtomicU64::new(0);

/// Requests 1 at a time; after its first element it calls `request(0)`
/// once, then accepts only the subscription's illegal-demand `on_error`.
#[derive(Default)]
pub struct RequestsZeroOnce {
    subscription: Option<Arc<dyn Subscription>>,
    received: u64,
    requested_zero: bool,
    ended: bool,
}

impl Subscriber<u64> for RequestsZeroOnce {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() || self.ended {
            return subscription.cancel();
        }
        subscription.request(1);
        self.subscription = Some(subscription);
    }

    fn on_next(&mut self, _: u64) {
        assert!(!self.ended, "a signal after on_error");
        self.received += 1;
        if let Some(subscription) = &self.subscription {
            if self.received == 1 {
                self.requested_zero = true;
                subscription.request(0);
            } else {
                subscription.request(1);
            }
        }
    }

    fn on_error(&mut self, error: StreamError) {
        assert!(!self.ended, "a signal after on_error");
        if error.is_illegal_demand() {
            ILLEGAL_DEMAND_ERRORS.fetch_add(1, Ordering::SeqCst);
        }
        if self.requested_zero {
            assert!(
                error.is_illegal_demand(),
                "expected the illegal-demand error, got {error}"
            );
        }
        self.ended = true;
        self.subscription = None;
    }

    fn on_complete(&mut self) {
        assert!(!self.ended, "a signal after on_error");
        self.ended = true;
        self.subscription = None;
    }
}

#[test]
fn requesting_zero_once_passes_blackbox_and_whitebox() {
    let blackbox = SubscriberBlackboxVerification::new(Blackbox::new(RequestsZeroOnce::default))
        .env(generous())
        .run_all()
        .unwrap();
    let mut skips = crate::verdicts::assert_no_failure_and_skips_explained(
        "requests 0 once (blackbox)",
        &blackbox,
    );
    crate::verdicts::assert_none_broken(&blackbox, "requests 0 once (blackbox)");
    let whitebox = SubscriberWhiteboxVerification::new(Whitebox(|probe| {
        Box::new(probe.wrap(RequestsZeroOnce::default()))
    }))
    .env(generous())
    .run_all()
    .unwrap();
    skips.extend(
        crate::verdicts::assert_no_failure_and_skips_explained(
            "requests 0 once (whitebox)",
            &whitebox,
        )
        .into_iter()
        .map(|skip| format!("whitebox {skip}")),
    );
    crate::verdicts::assert_none_broken(&whitebox, "requests 0 once (whitebox)");
    insta::assert_snapshot!("requests_zero_once_skips", skips.join("\n"));
    // The subscription answered with the illegal-demand on_error (the
    // subscriber checks which error, and that nothing follows it).
    assert!(ILLEGAL_DEMAND_ERRORS.load(Ordering::SeqCst) > 0);
}

#[test]
fn requesting_zero_once_passes_the_extended_blackbox_verification() {
    let results = SubscriberBlackboxVerification::new(Blackbox::new(RequestsZeroOnce::default))
        .env(generous())
        .run_extended()
        .unwrap();
    crate::verdicts::assert_no_failure_and_skips_explained("requests 0 once (extended)", &results);
    crate::verdicts::assert_none_broken(&results, "requests 0 once (extended)");
}
