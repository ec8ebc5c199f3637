//! Self-tests of the Streamlet verifications.
//!
//! * Conforming pullable, listenable and hybrid sources and conforming
//!   sinks pass every rule test (rstest over them), and the macros generate
//!   the documented test paths.
//! * Each broken source and sink fails the rule test of the condition it
//!   breaks, with a message pinned by an insta snapshot.
//! * Several sinks on one source (`several_sinks.rs`): sources serving
//!   them independently pass the quick and the extended verification.
//! * The extended verification's self-tests (`extended_*.rs`): conforming
//!   sources and sinks pass generated scripts; broken ones fail with a
//!   minimal script or the stress.

mod broken_sinks;
mod broken_sources;
mod correct;
mod declarations;
#[path = "../support/extended.rs"]
mod extended;
mod extended_broken;
mod extended_correct;
mod extended_identity;
mod extended_stress;
mod extended_unusual;
mod hot_once;
mod late_sinks;
mod lax_sources;
mod pausing_sinks;
mod racing_sources;
mod several_sinks;
mod shared_log;
mod silent_sources;
mod unusual_sinks;
#[path = "../support/verdicts.rs"]
mod verdicts;

use std::time::Duration;

use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::outcome::{RuleResult, Verdict, Verification};
use reactive_streams_tck::streamlet::sink::{self, SinkFactory, SinkVerification};
use reactive_streams_tck::streamlet::source::{self, SourceFactory, SourceVerification};
use reactive_streams_tck::testkit::broken_rules;
use reactive_streams_tck::{streamlet_sink_verification, streamlet_source_verification};
use rstest::rstest;

use broken_sinks::{BadSink, Bug as SinkBug};
use broken_sources::{BadSource, Bug as SourceBug, Crosstalk};
use correct::{GoodSink, GoodSource};

// The macros, as a user writes them.
streamlet_source_verification!(pullable_range, correct::GoodSource::Pullable);
streamlet_source_verification!(listenable_range, correct::GoodSource::Listenable);
streamlet_source_verification!(hybrid_ticker, correct::GoodSource::Hybrid, "Hybrid ticker");
streamlet_sink_verification!(take_five, correct::GoodSink::TakeFivePulling);

fn failed_tests(results: &[RuleResult]) -> Vec<String> {
    verdicts::broken(results)
}

fn skipped_tests(results: &[RuleResult]) -> Vec<&str> {
    results
        .iter()
        .filter(|r| r.verdict == Verdict::Skipped)
        .map(|r| r.test.as_str())
        .collect()
}

/// How many of `tests` `run_all` runs without `extended(…)`.
fn quick(tests: &[&str]) -> usize {
    tests
        .iter()
        .filter(|test| !test.starts_with("tck_extended_"))
        .count()
}

#[rstest]
#[case::pullable(GoodSource::Pullable, &[])]
#[case::listenable(GoodSource::Listenable, &[])]
#[case::hybrid(GoodSource::Hybrid, &["tck_restart"])]
fn conforming_sources_pass_every_rule_test(#[case] factory: GoodSource, #[case] skipped: &[&str]) {
    let results = SourceVerification::new(factory).run_all().unwrap();
    assert_eq!(results.len(), quick(source::TESTS));
    assert_eq!(failed_tests(&results), Vec::<String>::new());
    assert_eq!(skipped_tests(&results), skipped);
    for result in &results {
        assert_eq!(result.verification, Verification::StreamletSource);
        assert!(result.rule.starts_with("streamlet.") || result.rule.starts_with("tck."));
    }
}

#[rstest]
#[case::take_five_pulling(GoodSink::TakeFivePulling, &[])]
#[case::take_three_pushed(GoodSink::TakeThreePushed, &[])]
#[case::drain(GoodSink::Drain, &["tck_stops_after", "streamlet_3_d", "streamlet_6_d"])]
fn conforming_sinks_pass_every_rule_test(#[case] factory: GoodSink, #[case] skipped: &[&str]) {
    let results = SinkVerification::new(factory).run_all().unwrap();
    assert_eq!(results.len(), quick(sink::TESTS));
    assert_eq!(failed_tests(&results), Vec::<String>::new());
    assert_eq!(skipped_tests(&results), skipped);
}

/// The environment of the broken-corpus runs: the timeout is pinned, as
/// messages quote it; the rest comes from the environment variables.
fn pinned_env() -> TestEnv {
    TestEnv::builder()
        .timeout(Duration::from_millis(1000))
        .build()
}

/// Runs `test` against a broken factory: it must fail, naming `rule` —
/// the snapshot pins the whole message.
fn source_fails<F: SourceFactory>(factory: F, test: &str, rule: &str) -> String {
    let result = SourceVerification::new(factory)
        .env(pinned_env())
        .run(test)
        .unwrap();
    assert!(!result.trace.is_empty());
    failed_naming(result, test, rule)
}

fn sink_fails<F: SinkFactory>(factory: F, test: &str, rule: &str) -> String {
    let result = SinkVerification::new(factory)
        .env(pinned_env())
        .run(test)
        .unwrap();
    failed_naming(result, test, rule)
}

/// The message of `test`'s result, which failed naming `rule`.
fn failed_naming(result: RuleResult, test: &str, rule: &str) -> String {
    assert_eq!(
        result.verdict,
        Verdict::Failed,
        "{test} did not fail: {result:?}"
    );
    assert_eq!(result.rule, test_rule(test));
    let message = result.message.unwrap();
    assert!(message.starts_with(&format!("{rule}: ")), "{message}");
    message
}

fn test_rule(test: &str) -> String {
    reactive_streams_tck::runner::rule_of_test(test)
}

#[rstest]
#[case::greets_twice(
    BadSource::Buggy(SourceBug::GreetsTwice),
    "streamlet_1_a",
    "streamlet.1.a"
)]
#[case::greets_again_on_restart(
    BadSource::Buggy(SourceBug::GreetsAgainOnRestart),
    "streamlet_1_a",
    "streamlet.1.a"
)]
#[case::emits_before_greet(
    BadSource::Buggy(SourceBug::EmitsBeforeGreet),
    "streamlet_2_b",
    "streamlet.2.b"
)]
#[case::emits_before_start(
    BadSource::Buggy(SourceBug::EmitsBeforeStart),
    "streamlet_2_c",
    "streamlet.2.c"
)]
#[case::broadcasts_to_unstarted_sinks(BadSource::Broadcast, "streamlet_2_c", "streamlet.2.c")]
#[case::flushes_after_stop(
    BadSource::Buggy(SourceBug::FlushesAfterStop),
    "streamlet_2_d",
    "streamlet.2.d"
)]
#[case::emits_after_end(
    BadSource::Buggy(SourceBug::EmitsAfterEnd),
    "streamlet_2_e",
    "streamlet.2.e"
)]
#[case::ends_before_greet(
    BadSource::Buggy(SourceBug::EndsBeforeGreet),
    "streamlet_4_b",
    "streamlet.4.b"
)]
#[case::ends_before_start(
    BadSource::Buggy(SourceBug::EndsBeforeStart),
    "streamlet_4_c",
    "streamlet.4.c"
)]
#[case::failed_source_ends_before_start(BadSource::FailsOnGreet, "streamlet_4_c", "streamlet.4.c")]
#[case::ends_after_stop(
    BadSource::Buggy(SourceBug::EndsAfterStop),
    "streamlet_4_d",
    "streamlet.4.d"
)]
#[case::ends_twice(
    BadSource::Buggy(SourceBug::EndsTwice),
    "streamlet_4_e",
    "streamlet.4.e"
)]
#[case::never_greets(BadSource::Buggy(SourceBug::NeverGreets), "tck_greets", "tck.greets")]
#[case::short_by_one(
    BadSource::Buggy(SourceBug::ShortByOne),
    "tck_create_n",
    "tck.create_n"
)]
#[case::hybrid_echoes_latest(BadSource::EchoesLatest, "tck_create_n", "tck.create_n")]
#[case::repeats_one(
    BadSource::Buggy(SourceBug::RepeatsOne),
    "tck_create_n",
    "tck.create_n"
)]
#[case::pauses_all_on_stop(
    BadSource::Crosstalk(Crosstalk::PausesAllOnStop),
    "tck_create_n",
    "tck.create_n"
)]
#[case::ends_others_on_end(
    BadSource::Crosstalk(Crosstalk::EndsOthersOnEnd),
    "tck_create_n",
    "tck.create_n"
)]
#[case::ends_others_on_stop(
    BadSource::Crosstalk(Crosstalk::EndsOthersOnStop),
    "tck_create_n",
    "tck.create_n"
)]
#[case::rewinds_others_on_restart(
    BadSource::Crosstalk(Crosstalk::RewindsOthersOnRestart),
    "tck_create_n",
    "tck.create_n"
)]
#[case::starts_others(
    BadSource::Crosstalk(Crosstalk::StartsOthers),
    "streamlet_2_c",
    "streamlet.2.c"
)]
#[case::shared_demand(
    BadSource::Crosstalk(Crosstalk::SharedDemand),
    "tck_create_n",
    "tck.create_n"
)]
#[case::ends_all_on_end(
    BadSource::Crosstalk(Crosstalk::EndsAllOnEnd),
    "tck_create_n",
    "tck.create_n"
)]
#[case::never_resumes(
    BadSource::Buggy(SourceBug::NeverResumes),
    "tck_restart",
    "tck.restart"
)]
#[case::ignores_start_inside_emission(
    BadSource::Buggy(SourceBug::IgnoresStartInsideEmission),
    "tck_restart",
    "tck.restart"
)]
fn broken_sources_fail_their_condition(
    #[case] factory: BadSource,
    #[case] test: &str,
    #[case] rule: &str,
) {
    let message = source_fails(factory, test, rule);
    let results = SourceVerification::new(factory)
        .env(pinned_env())
        .run_all()
        .unwrap();
    insta::with_settings!({ snapshot_suffix => format!("{factory:?}") }, {
        insta::assert_snapshot!(message);
        // Over the whole verification each breaks exactly these rules and
        // conditions (a defect filed under the wrong condition changes a
        // line here).
        insta::assert_snapshot!(
            "broken_sources_break_exactly_these_rules",
            broken_rules(&results)
        );
    });
}

/// Breaches only the scenarios where one sink acts while the other stands
/// see (issue 39 §3): filed under the condition broken, with the scenario,
/// whether the breach fails the test's own condition or shows as a
/// violation of another.
#[rstest]
#[case::start_resumes_a_stopped_sink(Crosstalk::StartsOthers, "streamlet_2_d", "streamlet.2.d")]
#[case::end_ends_a_stopped_sink(Crosstalk::EndsAllOnEnd, "streamlet_2_d", "streamlet.4.d")]
fn crosstalk_is_filed_under_the_condition_it_breaks(
    #[case] crosstalk: Crosstalk,
    #[case] test: &str,
    #[case] rule: &str,
) {
    let result = SourceVerification::new(BadSource::Crosstalk(crosstalk))
        .env(pinned_env())
        .run(test)
        .unwrap();
    let message = if result.rule == rule {
        failed_naming(result, test, rule)
    } else {
        let violation = result.violations.iter().find(|v| v.rule == rule);
        violation
            .expect("a violation of the condition")
            .message
            .clone()
    };
    insta::with_settings!({ snapshot_suffix => format!("{crosstalk:?}") }, {
        insta::assert_snapshot!(message);
    });
}

#[rstest]
#[case::requests_before_start(SinkBug::RequestsBeforeStart, "streamlet_3_c", "streamlet.3.c")]
#[case::requests_after_stop(SinkBug::RequestsAfterStop, "streamlet_3_d", "streamlet.3.d")]
#[case::requests_after_end(SinkBug::RequestsAfterEnd, "streamlet_3_e", "streamlet.3.e")]
#[case::starts_twice(SinkBug::StartsTwice, "streamlet_5_c", "streamlet.5.c")]
#[case::restarts_after_end(SinkBug::RestartsAfterEnd, "streamlet_5_d", "streamlet.5.d")]
#[case::stops_before_start(SinkBug::StopsBeforeStart, "streamlet_6_c", "streamlet.6.c")]
#[case::stops_twice(SinkBug::StopsTwice, "streamlet_6_d", "streamlet.6.d")]
#[case::stops_after_end(SinkBug::StopsAfterEnd, "streamlet_6_e", "streamlet.6.e")]
#[case::never_stops(SinkBug::NeverStops, "tck_stops_after", "tck.stops_after")]
#[case::never_starts(SinkBug::NeverStarts, "tck_stops_after", "tck.stops_after")]
#[case::stops_early(SinkBug::StopsEarly, "tck_stops_after", "tck.stops_after")]
#[case::never_starts_though_declared(
    SinkBug::NeverStartsThoughDeclared,
    "tck_starts",
    "tck.starts"
)]
fn broken_sinks_fail_their_condition(#[case] bug: SinkBug, #[case] test: &str, #[case] rule: &str) {
    let message = sink_fails(BadSink(bug), test, rule);
    let results = SinkVerification::new(BadSink(bug))
        .env(pinned_env())
        .run_all()
        .unwrap();
    insta::with_settings!({ snapshot_suffix => format!("{bug:?}") }, {
        insta::assert_snapshot!(message);
        // Each breaks exactly these rules and conditions.
        insta::assert_snapshot!("broken_sinks_break_exactly_these_rules", broken_rules(&results));
    });
}

/// A factory of empty sources that never end: every rule test needing
/// elements or an end is skipped, so the verification proves next to
/// nothing and says so.
struct EmptyForever;

impl SourceFactory for EmptyForever {
    type Element = u64;

    fn create_source(&self, _elements: u64) -> Box<dyn reactive_streams::Source<u64>> {
        Box::new(reactive_streams_tck::streamlet::testkit::PullRange::new(
            u64::MAX,
        ))
    }

    fn max_elements(&self) -> u64 {
        0
    }

    fn ends(&self) -> bool {
        false
    }
}

#[test]
fn declarations_that_skip_everything_fail_tck_configuration() {
    let message = source_fails(EmptyForever, "tck_configuration", "tck.configuration");
    insta::assert_snapshot!(message);
    let error = SourceVerification::new(EmptyForever)
        .run_all()
        .map(|_| ())
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("every rule test would be skipped"),
        "{error}"
    );
}
#[path = "../support/test_threads.rs"]
mod test_threads;
