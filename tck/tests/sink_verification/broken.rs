//! Each broken sink fails exactly the rule it breaks, with a snapshotted
//! message; one bug only the extended schedules find, whose whole run
//! breaks exactly the rules snapshotted as `flush_waker_first_rules`.

use reactive_streams_tck::ExtendedConfig;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::futures::sink::FuturesSinkVerification;
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::testkit::broken_rules;
use rstest::rstest;

use crate::queue::{Bug, Sinks};

/// The verdicts of the quick rule tests.
fn verdicts(factory: Sinks) -> Vec<(String, Verdict, Option<String>)> {
    FuturesSinkVerification::new(factory)
        .env(TestEnv::default())
        .run_all()
        .unwrap()
        .into_iter()
        .map(|r| (r.rule, r.verdict, r.message))
        .collect()
}

#[rstest]
#[case::never_wakes(Bug::NeverWakes, false, &["sink.1"])]
// Its close flushes the same way, so it loses an item on close too.
#[case::loses_on_flush(Bug::LosesOnFlush, true, &["sink.2", "sink.3"])]
#[case::accepts_after_close(Bug::AcceptsAfterClose, false, &["sink.3"])]
#[case::loses_close_wakeup(Bug::LosesCloseWakeup, true, &["sink.1"])]
#[case::check_then_register(Bug::CheckThenRegister, false, &["sink.1"])]
fn a_broken_sink_fails_exactly_its_rules(
    #[case] bug: Bug,
    #[case] buffered: bool,
    #[case] failing: &[&str],
) {
    let results = verdicts(Sinks {
        buffered,
        bug: Some(bug),
    });
    let failed: Vec<&str> = results
        .iter()
        .filter(|(_, verdict, _)| *verdict == Verdict::Failed)
        .map(|(rule, _, _)| rule.as_str())
        .collect();
    assert_eq!(failed, failing, "{results:#?}");
    let message = results
        .iter()
        .find(|(rule, _, _)| rule == failing[0])
        .and_then(|(_, _, message)| message.clone())
        .unwrap();
    insta::with_settings!({ snapshot_suffix => format!("{bug:?}") }, {
        insta::assert_snapshot!(message);
    });
}

/// A bug no quick rule test finds: the extended schedules mix
/// `poll_flush` and `poll_ready` and shrink it to a minimal script, which
/// fails `sink.1`.
#[test]
fn the_extended_schedules_find_a_flush_waker_woken_instead_of_the_ready_one() {
    let factory = Sinks {
        buffered: true,
        bug: Some(Bug::FlushWakerFirst),
    };
    for (rule, verdict, message) in verdicts(factory) {
        assert_eq!(verdict, Verdict::Passed, "{rule}: {message:?}");
    }
    let results = FuturesSinkVerification::new(factory)
        .env(
            TestEnv::builder()
                .timeout(std::time::Duration::from_millis(100))
                .build(),
        )
        .extended(ExtendedConfig::builder().cases(64).seed(5).build())
        .run_all()
        .unwrap();
    // The whole run, quick and extended, breaks exactly this.
    insta::assert_snapshot!("flush_waker_first_rules", broken_rules(&results));
    let result = results
        .iter()
        .find(|r| r.test == "tck_extended_schedules")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Failed);
    let message = result.message.clone().unwrap();
    let (script, rest) = message.split_once(" → ").unwrap();
    assert!(
        rest.starts_with("sink.1: expected a wake-up of "),
        "{message}"
    );
    let flush = script.find("poll_flush [").expect(script);
    let ready = script.rfind("poll_ready [").expect(script);
    assert!(flush < ready, "{script}");
    assert!(script.ends_with("take delivered"), "{script}");
    insta::assert_snapshot!(message);
}
