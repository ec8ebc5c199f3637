//! Assertions on results that every self-test binary shares, so that a
//! corpus states what it expects and not how to look for it.

#![allow(dead_code)]

use reactive_streams_tck::outcome::RuleResult;

/// The results that broke a rule, as `test: message` lines.
pub fn broken(results: &[RuleResult]) -> Vec<String> {
    results
        .iter()
        .filter(|r| !r.broken_rules().is_empty())
        .map(|r| format!("{}: {}", r.test, r.message.as_deref().unwrap_or_default()))
        .collect()
}

/// Asserts that no result broke a rule; `what` says what a broken one
/// would mean.
#[track_caller]
pub fn assert_none_broken(results: &[RuleResult], what: &str) {
    let broken = broken(results);
    assert!(broken.is_empty(), "{what}: {broken:#?}");
}

/// Asserts that the quick verification misses the flaw: the extended one
/// has to find it.
#[track_caller]
pub fn assert_quick_misses<E: std::fmt::Debug>(quick: Result<Vec<RuleResult>, E>) {
    assert_none_broken(&quick.unwrap(), "the quick verification caught it");
}

/// Asserts that every result passed, printing how long each took.
#[track_caller]
pub fn assert_all_passed(name: &str, results: &[RuleResult]) {
    for r in results {
        eprintln!("{name}: {} {:.0} ms", r.test, r.duration_ms);
        assert_eq!(
            r.verdict,
            reactive_streams_tck::outcome::Verdict::Passed,
            "{name} {}: {:?}",
            r.test,
            r.message
        );
    }
}

/// Asserts that every result passed or was skipped with a reason.
#[track_caller]
pub fn assert_passed_or_skipped_with_reason(name: &str, results: &[RuleResult]) {
    use reactive_streams_tck::outcome::Verdict;
    for r in results {
        assert!(
            r.verdict == Verdict::Passed
                || (r.verdict == Verdict::Skipped
                    && r.message.as_deref().is_some_and(|m| !m.is_empty())),
            "{name}: {} {}: {:?}",
            r.test,
            r.verdict,
            r.message
        );
    }
}

/// Asserts that no result failed (a warning is allowed) and that every
/// skip says why. Returns the skips as `test: reason`.
#[track_caller]
pub fn assert_no_failure_and_skips_explained(name: &str, results: &[RuleResult]) -> Vec<String> {
    use reactive_streams_tck::outcome::Verdict;
    let failed: Vec<String> = results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed)
        .map(|r| format!("{}: {}", r.test, r.message.as_deref().unwrap_or_default()))
        .collect();
    assert!(failed.is_empty(), "{name}: {failed:#?}");
    results
        .iter()
        .filter(|r| r.verdict == Verdict::Skipped)
        .map(|r| {
            let reason = r.message.as_deref().unwrap_or_default();
            assert!(
                !reason.is_empty(),
                "{name}: {} skipped without a reason",
                r.test
            );
            format!("{}: {reason}", r.test)
        })
        .collect()
}

/// Asserts that each of `tests` passed.
#[track_caller]
pub fn assert_these_passed(results: &[RuleResult], tests: &[&str]) {
    for test in tests {
        let result = results.iter().find(|r| r.test == *test).unwrap();
        assert_eq!(
            result.verdict,
            reactive_streams_tck::outcome::Verdict::Passed,
            "{test}: {:?}",
            result.message
        );
    }
}

/// Asserts that nothing was found at all — no failure, no warning, no
/// violation filed by another test (a skip "not concluded: … was broken
/// first" is one) — and that every skip says why. Returns the skips as
/// `test: reason`.
#[track_caller]
pub fn assert_clean_and_skips_explained(name: &str, results: &[RuleResult]) -> Vec<String> {
    assert_none_broken(results, name);
    assert_no_failure_and_skips_explained(name, results)
}
