//! The broken corpus: one stream per rule that breaks it. Each must fail
//! exactly its rule (every other quick rule test passes, or is skipped
//! where it cannot judge), with a message pinned by an insta snapshot.

use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::futures::stream::StreamVerification;
use reactive_streams_tck::outcome::{RuleResult, Verdict};
use rstest::rstest;

use crate::channel::{Bug, Channels};

fn verdicts(results: &[RuleResult]) -> Vec<(&str, Verdict)> {
    results
        .iter()
        .map(|r| (r.rule.as_str(), r.verdict))
        .collect()
}

use Verdict::{Failed, Passed, Skipped, Warned};

/// The quick verdicts with `failed` failed (warned, for a SHOULD rule) and
/// `skipped` skipped, the rest passed.
fn expected(failed: &str, skipped: &[&str]) -> Vec<(&'static str, Verdict)> {
    [
        "stream.1",
        "stream.2",
        "stream.3",
        "stream.4",
        "stream.5",
        "stream.6",
        "stream.7",
        "tck.configuration",
        "tck.stream_gives_exactly_n",
    ]
    .into_iter()
    .map(|rule| {
        let verdict = if rule == failed {
            if reactive_streams_tck::outcome::only_warns(rule, false) {
                Warned
            } else {
                Failed
            }
        } else if skipped.contains(&rule) {
            Skipped
        } else {
            Passed
        };
        (rule, verdict)
    })
    .collect()
}

#[rstest]
#[case::never_wakes(Bug::NeverWakes, "stream.1", &["stream.2"])]
#[case::stale_waker(Bug::StaleWaker, "stream.1", &[])]
#[case::check_then_register(Bug::CheckThenRegister, "stream.2", &[])]
#[case::check_then_register_tight(Bug::CheckThenRegisterTight, "stream.2", &[])]
#[case::wakes_before_visible(Bug::WakesBeforeVisible, "stream.2", &[])]
#[case::lying_size_hint(Bug::LyingSizeHint, "stream.3", &[])]
#[case::fused_yields_after_end(Bug::FusedYieldsAfterEnd, "stream.4", &[])]
#[case::silent_drop(Bug::SilentDrop, "stream.5", &[])]
#[case::busy_wakes(Bug::BusyWakes, "stream.6", &[])]
#[case::thread_bound(Bug::ThreadBound, "stream.7", &[])]
#[case::reorders(Bug::Reorders, "tck.stream_gives_exactly_n", &[])]
#[case::duplicates_first(Bug::DuplicatesFirst, "tck.stream_gives_exactly_n", &[])]
#[case::fused_only_once_ended(Bug::FusedOnlyOnceEnded, "tck.configuration", &["stream.4"])]
fn a_broken_stream_fails_exactly_its_rule(
    #[case] bug: Bug,
    #[case] rule: &str,
    #[case] skipped: &[&str],
) {
    let results = StreamVerification::new(Channels::broken(bug))
        .env(TestEnv::default())
        .target(format!("{bug:?}"))
        .run_all()
        .unwrap();
    assert_eq!(verdicts(&results), expected(rule, skipped), "{results:#?}");
    let failed = results
        .iter()
        .find(|r| matches!(r.verdict, Failed | Warned))
        .unwrap();
    let message = failed.message.as_deref().unwrap();
    assert!(message.starts_with(&format!("{rule}: ")), "{message}");
    assert!(
        failed
            .trace
            .iter()
            .any(|e| e.event.starts_with("poll_next [w") || e.event.starts_with("size_hint()")),
        "the trace shows the calls: {:#?}",
        failed.trace
    );
    // Which pushed item meets the race depends on timing.
    let message = if matches!(
        bug,
        Bug::CheckThenRegister | Bug::CheckThenRegisterTight | Bug::WakesBeforeVisible
    ) {
        redact_numbers_after(&redact_numbers_after(message, "item "), "Some(")
    } else {
        message.to_string()
    };
    insta::with_settings!({ snapshot_suffix => format!("{bug:?}") }, {
        insta::assert_snapshot!(message);
    });
}

/// `text` with every number that follows `marker` replaced by `[k]`.
fn redact_numbers_after(text: &str, marker: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(marker) {
        let (before, after) = rest.split_at(at + marker.len());
        out.push_str(before);
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 {
            out.push_str("[k]");
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// A stream that loses items when polled spuriously is data loss: failed
/// under `tck.stream_gives_exactly_n`, never warned under `stream.6`, whose
/// test is the one that sees it (issue 26). Exactly that rule is broken.
#[test]
fn a_stream_losing_items_on_spurious_polls_fails_not_warns() {
    let results = StreamVerification::new(Channels::broken(Bug::EndsOnRepoll))
        .env(TestEnv::default())
        .target("EndsOnRepoll")
        .run_all()
        .unwrap();
    insta::assert_snapshot!(
        "ends_on_repoll_rules",
        reactive_streams_tck::testkit::broken_rules(&results)
    );
    let seen = results.iter().find(|r| r.test == "stream_6").unwrap();
    assert_eq!(seen.verdict, Skipped, "{seen:#?}");
    assert!(seen.fails_run(false), "{seen:#?}");
    insta::assert_snapshot!("ends_on_repoll", seen.violations[0].message);
}

/// The wake-up trace of a failure: polls, their answers, wake-ups.
#[test]
fn a_stale_waker_failure_shows_the_poll_and_wake_trace() {
    let result = StreamVerification::new(Channels::broken(Bug::StaleWaker))
        .env(TestEnv::default())
        .run("stream_1")
        .unwrap();
    let events: Vec<&str> = result
        .trace
        .iter()
        .map(|e| e.event.as_str())
        .filter(|e| e.starts_with("poll_next") || e.starts_with("wake(") || e.starts_with("feeder"))
        .collect();
    let at = events.iter().position(|e| *e == "feeder: push(0)").unwrap();
    assert_eq!(
        events[at - 3..at + 2],
        [
            "poll_next [w1] #1 → Pending",
            "poll_next [w2] #2",
            "poll_next [w2] #2 → Pending",
            "feeder: push(0)",
            "wake(w1)",
        ],
        "{events:#?}"
    );
}
