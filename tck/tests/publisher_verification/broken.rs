//! Each deliberately broken publisher fails the rule its defect breaks,
//! with the intended message (snapshot), and exactly the set of rule tests
//! listed (a defect usually shows under several rules).

use std::collections::BTreeSet;

use reactive_streams_tck::outcome::{RuleResult, Verdict};
use reactive_streams_tck::publisher::PublisherVerification;
use reactive_streams_tck::testkit::broken_rules;
use rstest::rstest;

use crate::faulty::{Fault, Faulty};
use crate::self_test_env;

fn verify(fault: Fault) -> Vec<RuleResult> {
    PublisherVerification::new(Faulty(fault))
        .target(format!("{fault:?}"))
        .env(self_test_env())
        .run_all()
        .expect("the faulty factory is configured to run every rule")
}

#[rstest]
#[case::extra_element(Fault::ExtraElement, "spec_1_01", &["spec_1_01", "spec_1_03", "spec_1_11", "spec_2_12", "spec_3_04", "spec_3_05", "spec_3_06", "spec_3_07", "spec_3_08", "spec_3_09", "spec_3_10", "spec_3_12", "spec_3_13", "spec_3_14", "spec_3_16", "spec_3_17", "tck_create_n_gives_exactly_n"])]
#[case::never_completes(Fault::NeverCompletes, "spec_1_05", &["spec_1_01", "spec_1_02", "spec_1_05", "spec_1_06", "spec_1_07", "spec_1_11", "spec_3_02", "spec_3_03", "spec_3_08", "spec_3_11", "spec_3_12", "spec_3_15", "spec_3_16", "spec_3_17", "tck_create_n_gives_exactly_n"])]
#[case::completes_only_when_asked_again(Fault::CompletesOnlyWhenAskedAgain, "1.5", &["spec_1_01", "spec_1_02", "spec_1_05", "spec_1_07", "spec_3_15", "spec_3_16", "spec_3_17", "tck_create_n_gives_exactly_n"])]
#[case::ignores_zero_request(Fault::IgnoresZeroRequest, "spec_3_09", &["spec_1_06", "spec_1_07", "spec_3_09", "spec_3_11", "spec_3_15", "spec_3_16"])]
#[case::wrong_zero_error(Fault::WrongZeroError, "spec_3_09", &["spec_3_09"])]
#[case::next_after_complete(Fault::NextAfterComplete, "spec_1_07", &["spec_1_01", "spec_1_02", "spec_1_03", "spec_1_05", "spec_1_06", "spec_1_07", "spec_1_08", "spec_1_09", "spec_1_11", "spec_2_12", "spec_3_02", "spec_3_03", "spec_3_08", "spec_3_11", "spec_3_12", "spec_3_15", "spec_3_16", "spec_3_17", "tck_create_n_gives_exactly_n"])]
#[case::ignores_cancel(Fault::IgnoresCancel, "spec_1_08", &["spec_1_08", "spec_3_03", "spec_3_06", "spec_3_12", "spec_3_13", "spec_3_16", "spec_3_17"])]
#[case::keeps_subscriber(Fault::KeepsSubscriber, "spec_3_13", &["spec_1_06", "spec_3_13"])]
#[case::panics_on_huge_request(Fault::PanicsOnHugeRequest, "spec_3_16", &["spec_1_08", "spec_3_03", "spec_3_06", "spec_3_16", "spec_3_17", "tck_create_n_gives_exactly_n"])]
#[case::panics_in_cancel(Fault::PanicsInCancel, "spec_3_15", &["spec_1_06", "spec_1_08", "spec_1_11", "spec_2_12", "spec_3_03", "spec_3_05", "spec_3_06", "spec_3_07", "spec_3_08", "spec_3_12", "spec_3_13", "spec_3_14", "spec_3_15", "spec_3_16", "spec_3_17"])]
#[case::panics_in_drop(Fault::PanicsInDrop, "3.15", &["spec_1_01", "spec_1_02", "spec_1_03", "spec_1_05", "spec_1_06", "spec_1_07", "spec_1_08", "spec_1_09", "spec_1_11", "spec_2_12", "spec_3_02", "spec_3_03", "spec_3_05", "spec_3_06", "spec_3_07", "spec_3_08", "spec_3_09", "spec_3_11", "spec_3_12", "spec_3_13", "spec_3_14", "spec_3_15", "spec_3_16", "spec_3_17", "tck_create_n_gives_exactly_n"])]
#[case::overflowing_demand(Fault::OverflowingDemand, "3.16", &["spec_3_16", "spec_3_17"])]
#[case::ignores_requests_from_other_threads(Fault::IgnoresRequestsFromOtherThreads, "spec_3_08", &["spec_1_03", "spec_3_08"])]
#[case::deadlocks_on_reentrant_request(Fault::DeadlocksOnReentrantRequest, "spec_3_02", &["spec_1_01", "spec_1_08", "spec_3_02", "spec_3_03", "spec_3_09", "spec_3_12", "spec_3_13", "spec_3_17"])]
#[case::recurses_into_busy_subscriber(Fault::RecursesIntoBusySubscriber, "3.16", &["spec_1_01", "spec_1_08", "spec_3_02", "spec_3_03", "spec_3_09", "spec_3_12", "spec_3_13", "spec_3_17"])]
#[case::subscribes_twice(Fault::SubscribesTwice, "spec_2_12", &["spec_1_01", "spec_1_02", "spec_1_03", "spec_1_05", "spec_1_06", "spec_1_07", "spec_1_08", "spec_1_09", "spec_1_11", "spec_2_12", "spec_3_02", "spec_3_03", "spec_3_04", "spec_3_05", "spec_3_06", "spec_3_07", "spec_3_08", "spec_3_09", "spec_3_10", "spec_3_11", "spec_3_12", "spec_3_13", "spec_3_14", "spec_3_15", "spec_3_16", "spec_3_17", "tck_create_n_gives_exactly_n"])]
#[case::resubscribes_after_complete(Fault::ResubscribesAfterComplete, "spec_2_12", &["spec_1_01", "spec_1_02", "spec_1_03", "spec_1_05", "spec_1_06", "spec_1_07", "spec_1_08", "spec_1_09", "spec_1_11", "spec_2_12", "spec_3_02", "spec_3_03", "spec_3_08", "spec_3_11", "spec_3_12", "spec_3_15", "spec_3_16", "spec_3_17", "tck_create_n_gives_exactly_n"])]
#[case::completes_before_subscribe(Fault::CompletesBeforeSubscribe, "1.9", &["spec_1_05", "spec_1_09", "spec_2_12", "tck_create_n_gives_exactly_n"])]
#[case::slow_request(Fault::SlowRequest, "spec_3_04", &["spec_3_04"])]
#[case::slow_cancel(Fault::SlowCancel, "spec_3_05", &["spec_3_05"])]
#[case::panics_in_subscribe(Fault::PanicsInSubscribe, "spec_1_09", &["spec_1_01", "spec_1_02", "spec_1_03", "spec_1_05", "spec_1_06", "spec_1_07", "spec_1_08", "spec_1_09", "spec_1_11", "spec_2_12", "spec_3_02", "spec_3_03", "spec_3_04", "spec_3_05", "spec_3_06", "spec_3_07", "spec_3_08", "spec_3_09", "spec_3_10", "spec_3_11", "spec_3_12", "spec_3_13", "spec_3_14", "spec_3_15", "spec_3_16", "spec_3_17", "tck_create_n_gives_exactly_n"])]
#[case::ignores_second_subscriber(Fault::IgnoresSecondSubscriber, "1.9", &["spec_1_01", "spec_1_11", "spec_3_08", "spec_3_12", "spec_3_14"])]
#[case::failed_publisher_completes(Fault::FailedPublisherCompletes, "spec_1_04", &["spec_1_04"])]
fn a_broken_publisher_fails_the_rules_it_breaks(
    #[case] fault: Fault,
    #[case] intended: &str,
    #[case] failing: &[&str],
) {
    let results = verify(fault);
    let failed: BTreeSet<&str> = results
        .iter()
        .filter(|r| !r.broken_rules().is_empty())
        .map(|r| r.test.as_str())
        .collect();
    // The exact rules broken, and where each was seen: a fault reported
    // under the wrong rule changes a line here.
    insta::assert_snapshot!(format!("{fault:?}_rules"), broken_rules(&results));
    insta::assert_snapshot!(
        format!("{fault:?}"),
        stable(&intended_message(&results, intended))
    );
    let expected: BTreeSet<&str> = failing.iter().copied().collect();
    assert_eq!(failed, expected, "{fault:?}");
}

/// The message of the intended failure: the failure of the test named
/// `intended` (`spec_3_09`), or, for a rule id (`1.9`), the first report
/// of that rule, by its own test or seen in another.
fn intended_message(results: &[RuleResult], intended: &str) -> String {
    if intended.starts_with("spec_") || intended.starts_with("tck_") {
        let result = results.iter().find(|r| r.test == intended).unwrap();
        assert!(
            matches!(result.verdict, Verdict::Failed | Verdict::Warned),
            "{intended} did not fail: {result:#?}"
        );
        return result.message.clone().unwrap();
    }
    let own = results
        .iter()
        .find(|r| r.rule == intended && matches!(r.verdict, Verdict::Failed | Verdict::Warned))
        .and_then(|r| r.message.clone());
    own.or_else(|| {
        results
            .iter()
            .flat_map(|r| &r.violations)
            .find(|v| v.rule == intended)
            .map(|v| v.message.clone())
    })
    .unwrap_or_else(|| panic!("no test saw {intended} broken"))
}

/// A message without the measured durations, which vary from run to run.
fn stable(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = rest.find("took ") {
        out.push_str(&rest[..at + 5]);
        rest = &rest[at + 5..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push('N');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// A slow but correct publisher (calls take twice the prompt bound, far
/// below the watchdog) only warns, under the timing rule alone.
#[rstest]
#[case::slow_request(Fault::SlowRequest)]
#[case::slow_cancel(Fault::SlowCancel)]
fn slowness_only_warns(#[case] fault: Fault) {
    let results = verify(fault);
    let failing: Vec<String> = results
        .iter()
        .filter(|r| r.fails_run(false))
        .map(reactive_streams_tck::runner::failure_text)
        .collect();
    assert!(failing.is_empty(), "{}", failing.join("\n"));
    assert!(results.iter().any(|r| r.fails_run(true)), "{fault:?}");
}

/// A publisher thread that ignores `cancel` keeps signalling after its rule
/// has ended; the other rules are not disturbed. Rules that can only see
/// the defect within a no-signal window (an element requested after
/// `cancel` arriving late) may or may not catch it on a loaded machine, so
/// they are allowed, not required, to fail.
#[test]
fn a_publisher_thread_ignoring_cancel_fails_only_its_own_rules() {
    let results = verify(Fault::AsyncIgnoresCancel);
    let failed: BTreeSet<&str> = results
        .iter()
        .filter(|r| !r.broken_rules().is_empty())
        .map(|r| r.test.as_str())
        .collect();
    let required = BTreeSet::from(["spec_1_08", "spec_3_13", "spec_3_17"]);
    let allowed = BTreeSet::from(["spec_3_03", "spec_3_06", "spec_3_12", "spec_3_16"]);
    assert!(required.is_subset(&failed), "{failed:?}");
    let unexpected: Vec<String> = results
        .iter()
        .filter(|r| !r.broken_rules().is_empty())
        .filter(|r| !required.contains(r.test.as_str()) && !allowed.contains(r.test.as_str()))
        .map(reactive_streams_tck::runner::failure_text)
        .collect();
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
    let result = results.iter().find(|r| r.test == "spec_1_08").unwrap();
    insta::assert_snapshot!(result.message.as_deref().unwrap());
}

/// A `request` that never returns, made after calls that returned, is
/// still named stuck: the watchdog waits for a call that began recently
/// (slow is not broken), but no longer than most of a watchdog for that
/// call alone, and never past its cap.
#[test]
fn a_request_hanging_late_is_still_named_stuck() {
    let results = verify(Fault::HangsInThirdRequest);
    insta::assert_snapshot!("HangsInThirdRequest_rules", broken_rules(&results));
    let cap = self_test_env().watchdog() * reactive_streams_tck::runner::WATCHDOG_PROGRESS_CAP;
    for result in results.iter().filter(|r| r.verdict == Verdict::Failed) {
        let message = result.message.as_deref().unwrap_or_default();
        assert!(
            message.contains(" never returned: still running at the watchdog"),
            "{}: {message}",
            result.test
        );
        assert!(
            result.duration_ms < cap.as_millis() as f64 + 1000.0,
            "{}: {} ms",
            result.test,
            result.duration_ms
        );
    }
}

/// Issue 38 §4: a test waiting for a signal another rule requires, and not
/// getting it, is not concluded and names that rule; it never fails its
/// own. A publisher ignoring `request(0)` leaves §3.16's scenario "request(0),
/// then request(1) after on_error" without its `on_error` (§3.9's).
#[test]
fn a_test_waiting_for_another_rules_signal_is_not_concluded() {
    let results = verify(Fault::IgnoresZeroRequest);
    for test in ["spec_1_06", "spec_1_07", "spec_3_15", "spec_3_16"] {
        let result = results.iter().find(|r| r.test == test).unwrap();
        assert_eq!(result.verdict, Verdict::Skipped, "{test}: {result:#?}");
        assert_eq!(
            result.message.as_deref(),
            Some("not concluded: §3.9 was broken first (see the violations)"),
            "{test}"
        );
        assert!(
            result.violations.iter().all(|v| v.rule == "3.9"),
            "{test}: {:#?}",
            result.violations
        );
    }
}
