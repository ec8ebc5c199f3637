//! The broken-subscriber corpus: each subscriber breaks one rule, and the
//! rule test for that rule must fail with a message naming it. Messages
//! are deterministic (no timings, no thread ids) and snapshot-tested.

use std::sync::{Arc, Barrier};

use reactive_streams::{StreamError, Subscriber, Subscription};
use reactive_streams_tck::outcome::{RuleResult, Verdict};
use reactive_streams_tck::subscriber::{
    Puppet, SubscriberBlackboxFactory, SubscriberBlackboxVerification,
    SubscriberWhiteboxVerification, WhiteboxProbe,
};
use reactive_streams_tck::testkit::broken_rules;
use rstest::rstest;

use crate::factories::{Blackbox, Whitebox, patient};

/// What every broken subscriber shares: it keeps its subscription and
/// requests `initial` in `on_subscribe` (0: only when nudged).
#[derive(Default)]
struct Base {
    subscription: Option<Arc<dyn Subscription>>,
    requested: u64,
    received: u64,
    on_drop: Option<fn(&mut Base)>,
}

impl Drop for Base {
    fn drop(&mut self) {
        if let Some(on_drop) = self.on_drop {
            on_drop(self);
        }
    }
}

impl Base {
    fn subscribe(&mut self, subscription: Arc<dyn Subscription>, initial: u64) {
        if self.subscription.is_some() {
            return subscription.cancel();
        }
        self.subscription = Some(subscription.clone());
        if initial > 0 {
            self.requested += initial;
            subscription.request(initial);
        }
    }

    fn request(&mut self, n: u64) {
        if let Some(subscription) = &self.subscription {
            self.requested += n;
            subscription.request(n);
        }
    }
}

/// A subscriber defined by what it does in each signal.
struct Scripted {
    base: Base,
    initial: u64,
    on_next: fn(&mut Base, u64),
    on_complete: fn(&mut Base),
    on_error: fn(&mut Base),
    on_subscribe_again: fn(&mut Base, Arc<dyn Subscription>),
}

impl Scripted {
    /// Requests `initial` up front, then one more per element; conforming
    /// until a script says otherwise.
    fn new(initial: u64) -> Self {
        Scripted {
            base: Base::default(),
            initial,
            on_next: |base, _| base.request(1),
            on_complete: |base| base.subscription = None,
            on_error: |base| base.subscription = None,
            on_subscribe_again: |_, second| second.cancel(),
        }
    }
}

impl Subscriber<u64> for Scripted {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.base.subscription.is_some() {
            return (self.on_subscribe_again)(&mut self.base, subscription);
        }
        self.base.subscribe(subscription, self.initial);
    }

    fn on_next(&mut self, element: u64) {
        self.base.received += 1;
        (self.on_next)(&mut self.base, element);
    }

    fn on_error(&mut self, _: StreamError) {
        (self.on_error)(&mut self.base);
    }

    fn on_complete(&mut self) {
        (self.on_complete)(&mut self.base);
    }
}

/// Calls `request(1)` from another thread and waits for it: a call on any
/// thread but the signalling one, made while the signal is still running
/// (§2.3 when that signal is `on_complete` / `on_error`).
fn request_from_another_thread(base: &mut Base) {
    if let Some(subscription) = base.subscription.clone() {
        std::thread::spawn(move || subscription.request(1))
            .join()
            .unwrap();
    }
}

fn never_requests() -> Scripted {
    Scripted {
        on_next: |_, _| {},
        ..Scripted::new(0)
    }
}

fn requests_zero() -> Scripted {
    Scripted::new(0)
}

fn requests_after_complete() -> Scripted {
    Scripted {
        on_complete: request_from_another_thread,
        ..Scripted::new(1)
    }
}

/// Hands the subscription to a thread from `on_error`, which cancels it
/// while `on_error` waits for it: a call `on_error` makes, through a
/// helper (§2.3). The same call after `on_error` returned would be §2.4
/// (see `late_calls::LateRequester`).
fn cancels_after_error_from_a_thread() -> Scripted {
    Scripted {
        on_error: |base| {
            if let Some(subscription) = base.subscription.take() {
                std::thread::spawn(move || subscription.cancel())
                    .join()
                    .unwrap();
            }
        },
        ..Scripted::new(1)
    }
}

fn requests_inside_on_error() -> Scripted {
    Scripted {
        on_error: |base| base.request(1),
        ..Scripted::new(1)
    }
}

fn ignores_second_subscription() -> Scripted {
    Scripted {
        on_subscribe_again: |_, _| {},
        ..Scripted::new(1)
    }
}

fn switches_to_second_subscription() -> Scripted {
    Scripted {
        on_subscribe_again: |base, second| {
            second.request(1);
            base.subscription = Some(second);
        },
        ..Scripted::new(1)
    }
}

/// Requests from two threads that start together: unserialised calls.
struct RequestsFromTwoThreads;

impl Subscriber<u64> for RequestsFromTwoThreads {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        let start = Arc::new(Barrier::new(2));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let (subscription, start) = (subscription.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    for _ in 0..8 {
                        subscription.request(1);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
    }
    fn on_next(&mut self, _: u64) {}
    fn on_error(&mut self, _: StreamError) {}
    fn on_complete(&mut self) {}
}

fn panics_in_on_next() -> Scripted {
    Scripted {
        on_next: |_, element| panic!("cannot handle element {element}"),
        ..Scripted::new(1)
    }
}

fn panics_on_complete_without_request() -> Scripted {
    Scripted {
        on_complete: |base| assert!(base.requested > 0, "on_complete before any request"),
        ..Scripted::new(0)
    }
}

fn panics_on_error_without_request() -> Scripted {
    Scripted {
        on_error: |base| assert!(base.requested > 0, "on_error before any request"),
        ..Scripted::new(0)
    }
}

fn leaks_its_subscription() -> Scripted {
    // Keeps the subscription past on_complete and hands it to a thread
    // when dropped.
    let mut subscriber = Scripted {
        on_complete: |_| {},
        ..Scripted::new(1)
    };
    subscriber.base.on_drop = Some(request_from_another_thread);
    subscriber
}

fn overflows_what_it_requested() -> Scripted {
    Scripted {
        on_next: |base, _| assert!(base.received <= 4, "buffer of 4 overflowed"),
        ..Scripted::new(8)
    }
}

fn nudge_request_one(subscriber: &mut Scripted) {
    subscriber.base.request(1);
}

fn nudge_request_zero(subscriber: &mut Scripted) {
    if let Some(subscription) = &subscriber.base.subscription {
        subscription.request(0);
    }
}

/// The failure the test reported: its own rule's, or else the first other
/// rule it saw broken (a factory check such as `tck.whitebox_probe`).
fn failed(result: &RuleResult) -> String {
    if result.verdict == Verdict::Failed {
        return result.message.clone().unwrap_or_default();
    }
    match result.violations.iter().find(|v| !v.warning) {
        Some(violation) => violation.message.clone(),
        None => panic!("{} was expected to fail: {:?}", result.test, result.message),
    }
}

fn blackbox<F: SubscriberBlackboxFactory>(factory: F, test: &str) -> String {
    let verification = SubscriberBlackboxVerification::new(factory).env(patient());
    failed(&verification.run(test).unwrap())
}

#[rstest]
#[case::never_requests("never_requests", Blackbox::new(never_requests), "spec_2_01")]
#[case::requests_zero(
    "requests_zero",
    Blackbox::nudged(requests_zero, nudge_request_zero),
    "spec_2_01"
)]
#[case::requests_after_complete(
    "requests_after_complete",
    Blackbox::new(requests_after_complete),
    "spec_2_03"
)]
#[case::cancels_after_error_from_a_thread(
    "cancels_after_error_from_a_thread",
    Blackbox::new(cancels_after_error_from_a_thread),
    "spec_2_03"
)]
#[case::requests_inside_on_error(
    "requests_inside_on_error",
    Blackbox::new(requests_inside_on_error),
    "spec_2_03"
)]
#[case::ignores_second_subscription(
    "ignores_second_subscription",
    Blackbox::new(ignores_second_subscription),
    "spec_2_05"
)]
#[case::switches_to_second_subscription(
    "switches_to_second_subscription",
    Blackbox::new(switches_to_second_subscription),
    "spec_2_05"
)]
#[case::panics_in_on_next("panics_in_on_next", Blackbox::new(panics_in_on_next), "spec_2_13")]
#[case::panics_on_complete_without_request(
    "panics_on_complete_without_request",
    Blackbox::nudged(panics_on_complete_without_request, nudge_request_one),
    "spec_2_09"
)]
#[case::panics_on_error_without_request(
    "panics_on_error_without_request",
    Blackbox::nudged(panics_on_error_without_request, nudge_request_one),
    "spec_2_10"
)]
#[case::leaks_its_subscription(
    "leaks_its_subscription",
    Blackbox::new(leaks_its_subscription),
    "spec_3_01"
)]
#[case::overflows_what_it_requested(
    "overflows_what_it_requested",
    Blackbox::new(overflows_what_it_requested),
    "spec_3_08"
)]
fn broken_subscribers_fail_their_blackbox_rule(
    #[case] name: &str,
    #[case] factory: Blackbox<Scripted>,
    #[case] test: &str,
) {
    insta::assert_snapshot!(format!("blackbox__{name}"), blackbox(factory, test));
    // Over the whole verification each breaks exactly these rules (where
    // each was seen is in the report; a defect filed under the wrong rule
    // changes a line here).
    insta::assert_snapshot!(format!("blackbox__{name}_rules"), blackbox_rules(factory));
}

fn blackbox_rules<F: SubscriberBlackboxFactory>(factory: F) -> String {
    let results = SubscriberBlackboxVerification::new(factory)
        .env(patient())
        .run_all()
        .unwrap();
    broken_rules(&results)
}

#[test]
fn requests_from_two_threads_fails_2_07() {
    let message = blackbox(Blackbox::new(|| RequestsFromTwoThreads), "spec_2_07");
    insta::assert_snapshot!("blackbox__requests_from_two_threads", message);
    insta::assert_snapshot!(
        "blackbox__requests_from_two_threads_rules",
        blackbox_rules(Blackbox::new(|| RequestsFromTwoThreads))
    );
}

/// §2.12 binds the caller of `on_subscribe` — here the TCK — so a
/// subscriber verification skips it, naming the tests that check it.
#[test]
fn rule_2_12_is_left_to_the_publisher_verifications() {
    let result = SubscriberBlackboxVerification::new(Blackbox::new(never_requests))
        .run("spec_2_12")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Skipped);
    assert!(
        result
            .message
            .as_deref()
            .is_some_and(|m| m.contains("publisher::spec_2_12")),
        "{result:?}"
    );
}

// ---- whitebox ----

/// Whitebox-instrumented, with a defect picked by `flaw`.
struct Instrumented {
    probe: WhiteboxProbe<u64>,
    flaw: Flaw,
    subscription: Option<Arc<dyn Subscription>>,
    cancelled: Arc<std::sync::atomic::AtomicBool>,
    held: Vec<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flaw {
    ForgetsToRegister,
    /// After reporting its terminal signal, requests from a thread it
    /// waits for, inside `on_complete` / `on_error` (§2.3).
    RequestsAfterTerminal,
    PanicsAfterCancel,
    ProcessesInReverse,
    RequestsOneWhateverAsked,
    NeverReportsCompletion,
    PuppetNeverRequests,
}

/// A puppet that goes through the subscriber's logic: it records the
/// cancellation, and (for one flaw) requests 1 whatever it is asked.
struct Controls {
    subscription: Arc<dyn Subscription>,
    cancelled: Arc<std::sync::atomic::AtomicBool>,
    requests: Requests,
}

enum Requests {
    AsAsked,
    One,
    Nothing,
}

impl Puppet for Controls {
    fn trigger_request(&self, n: u64) {
        match self.requests {
            Requests::AsAsked => self.subscription.request(n),
            Requests::One => self.subscription.request(1),
            Requests::Nothing => {}
        }
    }

    fn trigger_cancel(&self) {
        self.cancelled
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.subscription.cancel();
    }
}

fn instrumented(probe: WhiteboxProbe<u64>, flaw: Flaw) -> Box<dyn Subscriber<u64>> {
    Box::new(Instrumented {
        probe,
        flaw,
        subscription: None,
        cancelled: Arc::default(),
        held: Vec::new(),
    })
}

impl Subscriber<u64> for Instrumented {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        if self.subscription.is_some() {
            return subscription.cancel();
        }
        if self.flaw != Flaw::ForgetsToRegister {
            self.probe.registered(Controls {
                subscription: subscription.clone(),
                cancelled: self.cancelled.clone(),
                requests: match self.flaw {
                    Flaw::RequestsOneWhateverAsked => Requests::One,
                    Flaw::PuppetNeverRequests => Requests::Nothing,
                    _ => Requests::AsAsked,
                },
            });
        }
        self.subscription = Some(subscription);
    }

    fn on_next(&mut self, element: u64) {
        if self.flaw == Flaw::PanicsAfterCancel {
            assert!(
                !self.cancelled.load(std::sync::atomic::Ordering::SeqCst),
                "on_next after cancel"
            );
        }
        if self.flaw == Flaw::ProcessesInReverse {
            self.held.push(element);
        } else {
            self.probe.received_next(&element);
        }
    }

    fn on_error(&mut self, error: StreamError) {
        self.probe.received_error(&error);
        if self.flaw == Flaw::RequestsAfterTerminal {
            let subscription = self.subscription.clone().unwrap();
            std::thread::spawn(move || subscription.request(1))
                .join()
                .unwrap();
        }
        self.subscription = None;
    }

    fn on_complete(&mut self) {
        for element in self.held.drain(..).rev() {
            self.probe.received_next(&element);
        }
        if self.flaw != Flaw::NeverReportsCompletion {
            self.probe.received_complete();
        }
        if self.flaw == Flaw::RequestsAfterTerminal {
            let subscription = self.subscription.clone().unwrap();
            std::thread::spawn(move || subscription.request(1))
                .join()
                .unwrap();
        }
        self.subscription = None;
    }
}

#[rstest]
#[case::forgets_to_register("forgets_to_register", Whitebox(|p| instrumented(p, Flaw::ForgetsToRegister)), "tck_happy_path")]
#[case::requests_after_terminal("requests_after_terminal", Whitebox(|p| instrumented(p, Flaw::RequestsAfterTerminal)), "spec_2_03")]
#[case::panics_after_cancel("panics_after_cancel", Whitebox(|p| instrumented(p, Flaw::PanicsAfterCancel)), "spec_2_08")]
#[case::processes_in_reverse("processes_in_reverse", Whitebox(|p| instrumented(p, Flaw::ProcessesInReverse)), "spec_2_11")]
#[case::requests_one_whatever_asked(
    "requests_one_whatever_asked",
    Whitebox(|p| instrumented(p, Flaw::RequestsOneWhateverAsked)),
    "spec_3_08"
)]
#[case::never_reports_completion(
    "never_reports_completion",
    Whitebox(|p| instrumented(p, Flaw::NeverReportsCompletion)),
    "spec_2_09"
)]
#[case::puppet_never_requests("puppet_never_requests", Whitebox(|p| instrumented(p, Flaw::PuppetNeverRequests)), "spec_2_01")]
fn broken_subscribers_fail_their_whitebox_rule(
    #[case] name: &str,
    #[case] factory: Whitebox,
    #[case] test: &str,
) {
    // One test at a time: `run_all` refuses a run in which every test was
    // stopped by a broken factory check (`forgets_to_register`).
    let verification = SubscriberWhiteboxVerification::new(factory).env(patient());
    let results: Vec<RuleResult> = reactive_streams_tck::subscriber::whitebox::TESTS
        .iter()
        .filter(|test| !test.starts_with("tck_extended_"))
        .map(|test| verification.run(test).unwrap())
        .collect();
    let result = results.iter().find(|r| r.test == test).unwrap();
    insta::assert_snapshot!(format!("whitebox__{name}"), failed(result));
    // Over the whole verification each breaks exactly these rules.
    insta::assert_snapshot!(format!("whitebox__{name}_rules"), broken_rules(&results));
}

/// Every rule test the broken whitebox subscribers do not aim at passes
/// for a correctly instrumented subscriber with the same shape, so the
/// corpus fails for its flaws only.
#[test]
fn the_corpus_shape_without_a_flaw_passes_whitebox() {
    fn clean(probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(probe.wrap(Scripted::new(1)))
    }
    let results = SubscriberWhiteboxVerification::new(Whitebox(clean))
        .env(crate::factories::generous())
        .run_all()
        .unwrap();
    for result in results {
        assert!(
            result.broken_rules().is_empty(),
            "{}",
            reactive_streams_tck::runner::failure_text(&result)
        );
    }
}

/// The whitebox versions of the shared rule tests take their own paths
/// (the puppet requests, calls after a terminal signal are watched from the
/// subscriber's report): the broken blackbox subscribers, wrapped, fail
/// them too.
#[rstest]
#[case::requests_after_complete("requests_after_complete", "spec_2_03")]
#[case::cancels_after_error_from_a_thread("cancels_after_error_from_a_thread", "spec_2_03")]
#[case::ignores_second_subscription("ignores_second_subscription", "spec_2_05")]
#[case::panics_on_error_without_request("panics_on_error_without_request", "spec_2_10")]
#[case::panics_in_on_next("panics_in_on_next", "spec_2_13")]
#[case::leaks_its_subscription("leaks_its_subscription", "spec_3_01")]
fn wrapped_broken_subscribers_fail_their_whitebox_rule(#[case] name: &str, #[case] test: &str) {
    // The factory holds a fn pointer, which cannot capture: one per name.
    fn factory(name: &str) -> Whitebox {
        match name {
            "requests_after_complete" => Whitebox(|p| Box::new(p.wrap(requests_after_complete()))),
            "cancels_after_error_from_a_thread" => {
                Whitebox(|p| Box::new(p.wrap(cancels_after_error_from_a_thread())))
            }
            "ignores_second_subscription" => {
                Whitebox(|p| Box::new(p.wrap(ignores_second_subscription())))
            }
            "panics_on_error_without_request" => {
                Whitebox(|p| Box::new(p.wrap(panics_on_error_without_request())))
            }
            "panics_in_on_next" => Whitebox(|p| Box::new(p.wrap(panics_in_on_next()))),
            "leaks_its_subscription" => Whitebox(|p| Box::new(p.wrap(leaks_its_subscription()))),
            _ => unreachable!("{name}"),
        }
    }
    let verification = SubscriberWhiteboxVerification::new(factory(name)).env(patient());
    insta::assert_snapshot!(
        format!("whitebox_wrapped__{name}"),
        failed(&verification.run(test).unwrap())
    );
}

#[test]
fn requests_from_two_threads_fails_whitebox_2_07() {
    let verification =
        SubscriberWhiteboxVerification::new(Whitebox(|p| Box::new(p.wrap(RequestsFromTwoThreads))))
            .env(patient());
    insta::assert_snapshot!(
        "whitebox_wrapped__requests_from_two_threads",
        failed(&verification.run("spec_2_07").unwrap())
    );
}

/// A call from another thread while `on_complete` / `on_error` has not
/// returned (the TCK made that call, so it knows) is one the terminal
/// signal makes, through a helper it waits for: §2.3, and only §2.3 (issue
/// 26). A call after it returned breaks §2.4 only: `late_calls`'
/// `LateRequester`, whose rule set is snapshotted there.
#[rstest]
#[case::requests_after_complete("requests_after_complete")]
#[case::cancels_after_error_from_a_thread("cancels_after_error_from_a_thread")]
fn calls_from_a_thread_while_the_terminal_signal_runs_break_2_3_only(#[case] name: &str) {
    let (blackbox, whitebox) = match name {
        "requests_after_complete" => (
            Blackbox::new(requests_after_complete),
            Whitebox(|p| Box::new(p.wrap(requests_after_complete()))),
        ),
        _ => (
            Blackbox::new(cancels_after_error_from_a_thread),
            Whitebox(|p| Box::new(p.wrap(cancels_after_error_from_a_thread()))),
        ),
    };
    let blackbox = SubscriberBlackboxVerification::new(blackbox)
        .env(patient())
        .run_all()
        .unwrap();
    let whitebox = SubscriberWhiteboxVerification::new(whitebox)
        .env(patient())
        .run_all()
        .unwrap();
    for results in [blackbox, whitebox] {
        let broken: std::collections::BTreeSet<&str> =
            results.iter().flat_map(|r| r.broken_rules()).collect();
        assert_eq!(broken, std::collections::BTreeSet::from(["2.3"]), "{name}");
    }
}
