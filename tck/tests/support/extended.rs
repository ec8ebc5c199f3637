//! What the extended self-tests of every subject share: a fixed seed and
//! budget, short timing, and a redaction of the numbers a timing-dependent
//! message holds.

#![allow(dead_code)]

use reactive_streams_tck::ExtendedConfig;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::outcome::{RuleResult, Verdict};

/// Fixed seeds, so every result here is stable.
pub const SEED: u64 = 0x5EED;

/// Timing for the self-tests: the defaults, but a shorter no-signal window
/// (the extended verification waits one per open schedule).
pub fn env() -> TestEnv {
    TestEnv::builder()
        .no_signal_timeout(std::time::Duration::from_millis(5))
        .build()
}

/// Timing for the self-tests of conforming implementations: [`env`] with
/// a patient timeout. A conforming run never waits a timeout out, so it
/// costs nothing, and a correct implementation that hops threads per
/// element is not failed by one stall of a loaded machine (seen: a
/// processor pulling each element from a fresh thread, 41 of 57 elements
/// in time at load average 32 with the default 1000 ms).
pub fn passing_env() -> TestEnv {
    TestEnv::builder()
        .timeout(std::time::Duration::from_secs(5))
        .no_signal_timeout(std::time::Duration::from_millis(5))
        .build()
}

/// Timing for the self-tests whose every failing run waits out the
/// timeout for a signal that never comes: a short one.
pub fn short_timeout_env() -> TestEnv {
    TestEnv::builder()
        .timeout(std::time::Duration::from_millis(200))
        .no_signal_timeout(std::time::Duration::from_millis(5))
        .build()
}

/// A budget with a fixed seed.
pub fn config(cases: u64, stress_iterations: u64) -> ExtendedConfig {
    ExtendedConfig::builder()
        .cases(cases)
        .stress_iterations(stress_iterations)
        .seed(SEED)
        .build()
}

/// `message` with every seed shown as `0x…` and every other run of digits
/// as `N` — but rule ids (`§3.8`) and thread names (`stress-2`) kept: what
/// a snapshot of a timing-dependent failure can keep.
pub fn redact_numbers(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut chars = message.chars().peekable();
    let mut keep = false;
    while let Some(c) = chars.next() {
        if c == '§' || c == '-' {
            keep = true;
            out.push(c);
        } else if keep && (c.is_ascii_digit() || c == '.') {
            out.push(c);
        } else if c == '0' && chars.peek() == Some(&'x') {
            chars.next();
            while chars.peek().is_some_and(char::is_ascii_hexdigit) {
                chars.next();
            }
            out.push_str("0x…");
        } else if c.is_ascii_digit() {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            out.push('N');
        } else {
            keep = false;
            out.push(c);
        }
        if !(c == '§' || c == '-' || c.is_ascii_digit() || c == '.') {
            keep = false;
        }
    }
    out
}

#[test]
fn redaction_keeps_the_words() {
    assert_eq!(
        redact_numbers(
            "iteration 12 of 20 → §3.8: stress-2: request(3) (seed 0x5eed; RS_TCK_SEED=0xab12)"
        ),
        "iteration N of N → §3.8: stress-2: request(N) (seed 0x…; RS_TCK_SEED=0x…)"
    );
}

/// The result of `test` in a whole extended run: it must have failed.
/// (The run's other results are for the caller's exact set of broken
/// rules, `reactive_streams_tck::testkit::broken_rules`.)
#[track_caller]
pub fn failed<'a>(results: &'a [RuleResult], test: &str) -> &'a RuleResult {
    concluded(results, test, Verdict::Failed)
}

/// Asserts that each of `tests` failed in a whole extended run, its
/// message holding `needle` (the rule a generated case broke, and what it
/// expected).
#[track_caller]
pub fn assert_each_failed_with(results: &[RuleResult], tests: &[&str], needle: &str) {
    for test in tests {
        let message = failed(results, test).message.clone().unwrap_or_default();
        assert!(message.contains(needle), "{test}: {message}");
    }
}

/// The result of `test` in a whole extended run, which must have passed
/// (a flaw that only another test can find).
#[track_caller]
pub fn passed<'a>(results: &'a [RuleResult], test: &str) -> &'a RuleResult {
    concluded(results, test, Verdict::Passed)
}

#[track_caller]
fn concluded<'a>(results: &'a [RuleResult], test: &str, verdict: Verdict) -> &'a RuleResult {
    let result = results
        .iter()
        .find(|r| r.test == test)
        .unwrap_or_else(|| panic!("no {test} in {results:#?}"));
    assert_eq!(result.verdict, verdict, "{result:#?}");
    result
}

/// Runs an extended verification (`$verification`, its builder) on
/// `$target` with [`env`] (or `env = …`) and [`config`]`($cases, 0)`, and
/// asserts that its generated schedules fail: snapshots the failure's
/// message under the calling test's name, and the run's exact set of
/// broken rules as `$rules`.
#[allow(unused_macros)]
macro_rules! assert_schedules_fail {
    ($verification:expr, $target:expr, $cases:expr, $rules:expr) => {
        crate::extended::assert_schedules_fail!(
            $verification,
            $target,
            $cases,
            $rules,
            env = crate::extended::env()
        )
    };
    ($verification:expr, $target:expr, $cases:expr, $rules:expr, env = $env:expr) => {{
        let results = $verification
            .target($target)
            .env($env)
            .extended(crate::extended::config($cases, 0))
            .run_extended()
            .unwrap();
        let result = crate::extended::failed(&results, "tck_extended_schedules");
        insta::assert_snapshot!(result.message.clone().unwrap());
        insta::assert_snapshot!(
            $rules,
            reactive_streams_tck::testkit::broken_rules(&results)
        );
    }};
}
#[allow(unused_imports)]
pub(crate) use assert_schedules_fail;

/// The lines of `testkit::broken_rules(results)` for the rules in
/// `always`, for a snapshot; every other line must be a failure. For a
/// broken implementation whose other failures depend on timing (say which).
#[track_caller]
pub fn rules_broken_in_every_run(results: &[RuleResult], always: &[&str]) -> String {
    let rules = reactive_streams_tck::testkit::broken_rules(results);
    let (every_run, timing): (Vec<&str>, Vec<&str>) = rules.lines().partition(|line| {
        always
            .iter()
            .any(|rule| line.starts_with(&format!("{rule}:")))
    });
    assert!(
        timing.iter().all(|line| line.ends_with(": failed")),
        "{rules}"
    );
    every_run.join("\n")
}
