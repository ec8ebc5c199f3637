//! Sinks in front of a destination the TCK controls, and the factory's
//! declarations: each correct or unusual one passes every rule (quick and
//! extended); each broken one, or one whose factory declares what does not
//! hold, breaks exactly the rules snapshotted for it.

use reactive_streams_tck::ExtendedConfig;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::futures::sink::{FuturesSinkFactory, FuturesSinkVerification};
use reactive_streams_tck::outcome::{RuleResult, Verdict};
use reactive_streams_tck::testkit::broken_rules;
use rstest::rstest;

use crate::destinations::{Bug, Forwards, NeverWaits, Pipes, Watches};

fn run_all<F: FuturesSinkFactory>(factory: F) -> Vec<RuleResult> {
    FuturesSinkVerification::new(factory)
        .env(TestEnv::default())
        .extended(ExtendedConfig::builder().cases(64).seed(23).build())
        .run_all()
        .unwrap()
}

fn verdicts(results: &[RuleResult]) -> Vec<(&str, Verdict)> {
    results
        .iter()
        .map(|r| (r.test.as_str(), r.verdict))
        .collect()
}

fn passes<F: FuturesSinkFactory>(factory: F, sink_1: Verdict) {
    let results = run_all(factory);
    assert_eq!(
        verdicts(&results),
        [
            ("sink_1", sink_1),
            ("sink_2", Verdict::Passed),
            ("sink_3", Verdict::Passed),
            ("tck_extended_schedules", Verdict::Passed),
        ],
        "{results:#?}"
    );
}

/// A forwarding sink with no buffer, or a buffer of its own in front of an
/// outlet paused from the start (it delivers nothing until the outlet
/// resumes: no `tck.sink_delivers` failure), and a pipe writer whose
/// delivery side can stall it: all seen `Pending`, all woken.
#[rstest]
#[case::forwarding(Forwards { capacity: 0, bug: None })]
#[case::buffered(Forwards { capacity: 4, bug: None })]
#[case::buffer_of_one(Forwards { capacity: 1, bug: None })]
fn a_sink_in_front_of_a_paused_outlet_is_seen_pending_and_passes(#[case] factory: Forwards) {
    passes(factory, Verdict::Passed);
}

#[test]
fn a_sink_into_a_pipe_whose_delivery_can_pause_passes() {
    passes(Pipes { pausable: true }, Verdict::Passed);
}

#[test]
fn a_sink_that_declares_it_never_waits_skips_sink_1() {
    passes(
        NeverWaits {
            declared: true,
            lies: false,
        },
        Verdict::Skipped,
    );
}

#[test]
fn a_declared_latest_value_sink_passes() {
    passes(
        Watches {
            declared: true,
            one_behind: false,
        },
        Verdict::Skipped,
    );
}

/// Each broken sink, and each factory whose declaration does not hold:
/// the exact rules its whole run breaks, and the message of the first.
#[rstest]
#[case::flush_forgets_waker("flush_forgets_waker", Forwards { capacity: 4, bug: Some(Bug::FlushForgetsWaker) })]
#[case::ready_forgets_waker("ready_forgets_waker", Forwards { capacity: 2, bug: Some(Bug::ReadyForgetsWaker) })]
fn a_broken_forwarding_sink_is_caught_through_the_paused_outlet(
    #[case] name: &str,
    #[case] factory: Forwards,
) {
    snapshot_broken(name, run_all(factory));
}

#[rstest]
#[case::cannot_pause("destination_cannot_pause", NeverWaits { declared: false, lies: false })]
#[case::falsely_never_waits("falsely_declares_never_waits", NeverWaits { declared: true, lies: true })]
fn a_declaration_that_does_not_hold_fails_tck_configuration(
    #[case] name: &str,
    #[case] factory: NeverWaits,
) {
    let results = run_all(factory);
    // Filed under tck.configuration, so sink.1 itself is not concluded.
    let sink_1 = &results[0];
    assert_eq!(sink_1.verdict, Verdict::Skipped, "{sink_1:#?}");
    let message = &sink_1.violations[0].message;
    assert!(!message.contains('\n'), "one line: {message}");
    snapshot_broken(name, results);
}

#[rstest]
#[case::undeclared("latest_value_undeclared", Watches { declared: false, one_behind: false })]
#[case::one_behind("latest_value_one_behind", Watches { declared: true, one_behind: true })]
fn a_latest_value_sink_fails_undeclared_or_when_the_latest_is_not_visible(
    #[case] name: &str,
    #[case] factory: Watches,
) {
    let results = run_all(factory);
    if !factory.declared {
        let message = results[1].message.as_deref().unwrap();
        assert!(message.contains("latest_value()"), "{message}");
    }
    snapshot_broken(name, results);
}

/// Snapshots the rules the run breaks and the first failure's message.
fn snapshot_broken(name: &str, results: Vec<RuleResult>) {
    insta::assert_snapshot!(format!("{name}_rules"), broken_rules(&results));
    let message = results
        .iter()
        .find_map(|r| match r.verdict {
            Verdict::Failed => r.message.clone(),
            _ => r.violations.first().map(|v| v.message.clone()),
        })
        .expect("a broken rule");
    insta::assert_snapshot!(format!("{name}_message"), message);
}
