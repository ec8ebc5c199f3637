//! The broken-processor corpus: each processor breaks one rule, and the
//! rule test for it fails with a snapshot-tested message.

use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::processor::ProcessorVerification;
use reactive_streams_tck::processor::testkit::Quirk;
use reactive_streams_tck::testkit::broken_rules;
use rstest::rstest;

use crate::factories::{Identities, failed, patient};

#[rstest]
#[case::swallows_upstream_errors("swallows_upstream_errors", Quirk::SwallowsErrors, "spec_4_02")]
#[case::requests_unbounded_upstream(
    "requests_unbounded_upstream",
    Quirk::RequestsUnbounded,
    "tck_bounded_upstream_demand"
)]
#[case::never_requests_upstream(
    "never_requests_upstream",
    Quirk::NeverRequestsUpstream,
    "spec_4_01"
)]
#[case::never_cancels_upstream(
    "never_cancels_upstream",
    Quirk::KeepsUpstreamOnCancel,
    "tck_cancel_propagates"
)]
#[case::accepts_a_second_upstream(
    "accepts_a_second_upstream",
    Quirk::AcceptsSecondUpstream,
    "spec_2_05"
)]
#[case::refills_per_element(
    "refills_per_element",
    Quirk::RefillsPerElement,
    "tck_bounded_upstream_demand"
)]
fn broken_processors_fail_their_rule(#[case] name: &str, #[case] quirk: Quirk, #[case] test: &str) {
    insta::assert_snapshot!(name, failed(Identities::with(quirk), test));
}

/// Each broken processor breaks exactly these rules over the whole
/// verification (a defect filed under the wrong rule changes a line).
#[rstest]
#[case::swallows_upstream_errors("swallows_upstream_errors", Quirk::SwallowsErrors)]
#[case::requests_unbounded_upstream("requests_unbounded_upstream", Quirk::RequestsUnbounded)]
#[case::never_requests_upstream("never_requests_upstream", Quirk::NeverRequestsUpstream)]
#[case::never_cancels_upstream("never_cancels_upstream", Quirk::KeepsUpstreamOnCancel)]
#[case::accepts_a_second_upstream("accepts_a_second_upstream", Quirk::AcceptsSecondUpstream)]
#[case::refills_per_element("refills_per_element", Quirk::RefillsPerElement)]
// Its elements beyond demand land wherever timing puts them, in every test;
// the probe files them under §1.1 and sets them aside, so no other test's
// own check sees them and the set is the same in every run.
#[case::ignores_downstream_demand("ignores_downstream_demand", Quirk::IgnoresDemand)]
fn broken_processors_break_exactly_these_rules(#[case] name: &str, #[case] quirk: Quirk) {
    let results = ProcessorVerification::new(Identities::with(quirk))
        .env(patient())
        .run_all()
        .unwrap();
    insta::assert_snapshot!(format!("{name}_rules"), broken_rules(&results));
    subscriber_side_failures_name_their_own_scenario(&results);
}

/// Issue 15: a failure of the processor verification's subscriber side (a
/// §2 rule: the processor as the subscriber of the TCK's upstream) once
/// carried the label of a publisher-side scenario that ran before it. It
/// names a subscriber-side scenario, or none.
fn subscriber_side_failures_name_their_own_scenario(
    results: &[reactive_streams_tck::outcome::RuleResult],
) {
    let publisher_side =
        |text: &str| text.contains("[publisher of") || text.contains("[precondition");
    for result in results {
        if result.rule.starts_with("2.") {
            if let Some(message) = &result.message {
                assert!(!publisher_side(message), "{}: {message}", result.test);
            }
        }
        for violation in result
            .violations
            .iter()
            .filter(|v| v.rule.starts_with("2."))
        {
            assert!(
                !publisher_side(&violation.message),
                "{}: {}",
                result.test,
                violation.message
            );
        }
    }
}

/// How many elements overtake the demand depends on timing, so only the
/// rule and the scenario are compared; and so does where the first one
/// lands: in the test's own scenario, or already in the precondition every
/// publisher-side test runs first (one element asked of a fresh processor).
#[test]
fn ignoring_downstream_demand_fails_1_1() {
    let message = failed(Identities::with(Quirk::IgnoresDemand), "spec_1_01");
    let (rule_and_scenario, _) = message.split_once(" expected").unwrap();
    let in_the_test = "§1.1: [publisher of 10, request(1) then request(2)]";
    let in_the_precondition = "§1.1: [precondition: a fresh processor of 1 delivers an element for request(1) downstream]";
    assert!(
        [in_the_test, in_the_precondition].contains(&rule_and_scenario),
        "{message}"
    );
}

/// A processor that declares it recovers from errors is held to treating
/// its upstream as cancelled; the identity processor does (it never touches
/// upstream after a terminal signal), so §4.2 passes in that mode too.
#[test]
fn a_recovering_processor_is_checked_for_leaving_upstream_alone() {
    let factory = Identities {
        quirk: Quirk::SwallowsErrors,
        recovers: true,
    };
    let result = ProcessorVerification::new(factory)
        .run("spec_4_02")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Passed, "{:?}", result.message);
}

/// A processor that keeps upstream running when downstream cancels, and
/// says so, passes everything else.
#[test]
fn a_processor_declaring_no_cancel_propagation_passes_the_rest() {
    struct Declared;
    impl reactive_streams_tck::processor::ProcessorFactory for Declared {
        type Input = u64;
        type Output = u64;
        type Processor = reactive_streams_tck::processor::testkit::IdentityProcessor<u64>;
        fn create_processor(&self) -> Self::Processor {
            Self::Processor::with_quirk(Quirk::KeepsUpstreamOnCancel)
        }
        fn input(&self, index: u64) -> u64 {
            index
        }
        fn supports_multiple_subscribers(&self) -> bool {
            false
        }
        fn propagates_cancellation(&self) -> bool {
            false
        }
    }
    let results = ProcessorVerification::new(Declared)
        .env(crate::factories::generous())
        .run_all()
        .unwrap();
    for result in &results {
        assert!(
            result.broken_rules().is_empty(),
            "{}",
            reactive_streams_tck::runner::failure_text(result)
        );
    }
}

/// A multicast processor that never serves a subscriber arriving after the
/// first element.
#[test]
fn ignoring_late_subscribers_fails_the_late_subscriber_check() {
    struct IgnoresLate;
    impl reactive_streams_tck::processor::ProcessorFactory for IgnoresLate {
        type Input = u64;
        type Output = u64;
        type Processor = reactive_streams_tck::processor::testkit::MulticastProcessor<u64>;
        fn create_processor(&self) -> Self::Processor {
            Self::Processor::ignoring_late_subscribers()
        }
        fn input(&self, index: u64) -> u64 {
            index
        }
    }
    let result = ProcessorVerification::new(IgnoresLate)
        .env(patient())
        .run("tck_late_subscriber_demand")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Failed, "{:?}", result.message);
    insta::assert_snapshot!("ignores_late_subscribers", result.message.unwrap());
}

/// §3.8 judges a processor by what reaches downstream (it may pull upstream
/// later, in batches or one at a time): one that never passes demand
/// upstream must not pass it. It cannot run at all: the precondition of
/// the publisher rule tests (one element for request(1)) fails §4.1, the
/// rule actually broken, and §3.8 is not concluded.
#[test]
fn a_processor_never_requesting_upstream_does_not_pass_3_08() {
    let result = ProcessorVerification::new(Identities::with(Quirk::NeverRequestsUpstream))
        .env(patient())
        .run("spec_3_08")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Skipped, "{result:?}");
    assert_eq!(
        result.message.as_deref(),
        Some("not concluded: §4.1 was broken first (see the violations)")
    );
    assert_eq!(result.broken_rules(), ["4.1"]);
}
