//! A factory whose declarations skip everything is a configuration error,
//! not a green run — unless it declares an always-empty publisher;
//! declarations that skip some rules say why.

use reactive_streams::Publisher;
use reactive_streams_tck::env::ConfigError;
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::publisher::{PublisherFactory, PublisherVerification};
use reactive_streams_tck::testkit::SyncRange;

use crate::self_test_env;

/// Can only make empty publishers, has no failed one, serves one
/// subscriber, and turns the stochastic checks off.
struct OnlyEmpty;

impl PublisherFactory for OnlyEmpty {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(SyncRange::new(0, elements))
    }
    fn max_elements(&self) -> u64 {
        0
    }
    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
    fn run_stochastic(&self) -> bool {
        false
    }
}

#[test]
fn an_always_empty_publisher_is_no_configuration_error() {
    let results = PublisherVerification::new(OnlyEmpty)
        .env(self_test_env())
        .run_all()
        .unwrap();
    let configuration = results
        .iter()
        .find(|r| r.test == "tck_configuration")
        .unwrap();
    assert_eq!(configuration.verdict, Verdict::Passed);
    assert!(
        results.iter().all(|r| r.verdict != Verdict::Failed),
        "{results:#?}"
    );
}

/// Declares more elements at least than at most.
struct NoLengthLeft;

impl PublisherFactory for NoLengthLeft {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(SyncRange::new(0, elements))
    }
    fn min_elements(&self) -> u64 {
        4
    }
    fn max_elements(&self) -> u64 {
        3
    }
}

#[test]
fn lengths_that_contradict_each_other_are_an_error() {
    let error = PublisherVerification::new(NoLengthLeft)
        .env(self_test_env())
        .run_all()
        .unwrap_err();
    assert!(
        matches!(error, ConfigError::EverythingSkipped { .. }),
        "{error}"
    );
    let result = PublisherVerification::new(NoLengthLeft)
        .env(self_test_env())
        .run("tck_configuration")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Failed);
    insta::assert_snapshot!(result.message.unwrap());
}

/// Elements up to 3 only, no failed publisher.
struct UpToThree;

impl PublisherFactory for UpToThree {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(SyncRange::new(0, elements))
    }
    fn max_elements(&self) -> u64 {
        3
    }
}

#[test]
fn unmet_needs_skip_with_a_reason_and_the_rest_passes() {
    let results = PublisherVerification::new(UpToThree)
        .env(self_test_env())
        .run_all()
        .unwrap();
    let skipped: Vec<String> = results
        .iter()
        .filter(|r| r.verdict == Verdict::Skipped)
        .map(|r| format!("{}: {}", r.test, r.message.as_deref().unwrap()))
        .collect();
    insta::assert_snapshot!(skipped.join("\n"));
    assert!(
        results.iter().all(|r| r.broken_rules().is_empty()),
        "{results:#?}"
    );
}
