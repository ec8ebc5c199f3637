//! Runs one rule test in isolation and turns whatever happens into a
//! [`RuleResult`].
//!
//! Each rule runs on a dedicated, named thread (`rs-tck:<test>`) with an
//! explicit stack of [`RULE_STACK_SIZE`] bytes, under `catch_unwind`, while
//! the calling thread waits at most [`TestEnv::watchdog`]. So:
//!
//! * a publisher that panics in `subscribe`, `request` or `cancel` yields
//!   `Failed` with "expected request(1) to return normally; actual: it
//!   panicked: `payload`", against the rule that forbids it (§1.9, §3.16,
//!   §3.15);
//! * one that deadlocks or never returns yields `Failed` with
//!   "watchdog: the rule did not finish within N ms — request(1) never
//!   returned (deadlock?)": the [context](crate::context::RuleCx) knows the
//!   step in progress. The stuck thread is left behind, detached;
//! * a publisher that keeps signalling from a leaked thread after the rule
//!   ended writes into that rule's sealed context and disturbs no other rule.
//!
//! A failure recorded on any thread (a probe callback, a helper thread)
//! fails the rule even if its body returned `Ok`; the first one recorded is
//! the message.
//!
//! ```
//! use reactive_streams_tck::context::{Outcome, RuleCx};
//! use reactive_streams_tck::env::TestEnv;
//! use reactive_streams_tck::outcome::{Verdict, Verification};
//! use reactive_streams_tck::runner::{run_rule, RuleMeta};
//!
//! let meta = RuleMeta::new(Verification::Publisher, "doc", "tck.example", "tck_example");
//! let result = run_rule(&meta, &TestEnv::default(), |cx: &RuleCx| {
//!     cx.step("3.16", "request(1)", || panic!("boom"));
//!     Ok(Outcome::Passed)
//! });
//! assert_eq!(result.verdict, Verdict::Failed);
//! assert_eq!(
//!     result.message.as_deref(),
//!     Some("§3.16: expected request(1) to return normally; actual: it panicked: boom")
//! );
//! ```

use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use crate::context::{
    panic_message, quietly, rule_label, take_panic_location, Failure, Outcome, RuleBody, RuleCx,
};
use crate::env::TestEnv;
use crate::outcome::{RuleResult, Verdict, Verification};

/// The stack given to each rule thread: roomy, so that a publisher recursing
/// a little deeper than it should is caught by the probes' depth bound
/// (§3.3) long before the stack runs out.
pub const RULE_STACK_SIZE: usize = 16 * 1024 * 1024;

/// Which rule test of which target: everything a [`RuleResult`] needs
/// besides the verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleMeta {
    /// Which verification.
    pub verification: Verification,
    /// The verified type, as the user named it.
    pub target: String,
    /// The catalogue id or `tck.<name>`.
    pub rule: String,
    /// The generated test's name.
    pub test: String,
}

impl RuleMeta {
    /// Metadata for one rule test.
    pub fn new(
        verification: Verification,
        target: impl Into<String>,
        rule: impl Into<String>,
        test: impl Into<String>,
    ) -> Self {
        RuleMeta {
            verification,
            target: target.into(),
            rule: rule.into(),
            test: test.into(),
        }
    }
}

/// The rule id a test name stands for: `spec_3_09` → `3.9`,
/// `tck_create_n` → `tck.create_n`, `streamlet_2_c` → `streamlet.2.c`,
/// `done_3` → `done.3`, `stream_1` → `stream.1`, `sink_2` → `sink.2`.
///
/// ```
/// use reactive_streams_tck::runner::rule_of_test;
/// assert_eq!(rule_of_test("spec_3_09"), "3.9");
/// assert_eq!(rule_of_test("spec_1_10"), "1.10");
/// assert_eq!(rule_of_test("tck_configuration"), "tck.configuration");
/// assert_eq!(rule_of_test("streamlet_2_c"), "streamlet.2.c");
/// assert_eq!(rule_of_test("done_3"), "done.3");
/// assert_eq!(rule_of_test("stream_1"), "stream.1");
/// assert_eq!(rule_of_test("sink_2"), "sink.2");
/// ```
pub fn rule_of_test(test: &str) -> String {
    if let Some(rest) = test.strip_prefix("spec_") {
        let mut parts = rest.splitn(2, '_');
        let section = parts.next().unwrap_or_default();
        let number = parts.next().unwrap_or_default().trim_start_matches('0');
        format!("{section}.{number}")
    } else if let Some(rest) = test.strip_prefix("tck_") {
        format!("tck.{rest}")
    } else if let Some(rest) = test.strip_prefix("streamlet_") {
        format!("streamlet.{}", rest.replace('_', "."))
    } else if let Some(rest) = test.strip_prefix("done_") {
        format!("done.{rest}")
    } else if let Some(rest) = test.strip_prefix("stream_") {
        format!("stream.{rest}")
    } else if let Some(rest) = test.strip_prefix("sink_") {
        format!("sink.{rest}")
    } else {
        test.to_string()
    }
}

/// Runs `body` as the rule test `meta` under `env`'s watchdog and returns
/// its result. Never panics and never hangs longer than the watchdog.
pub fn run_rule<B>(meta: &RuleMeta, env: &TestEnv, body: B) -> RuleResult
where
    B: FnOnce(&RuleCx) -> RuleBody + Send + 'static,
{
    crate::outcome::mark_started();
    let started = Instant::now();
    let cx = RuleCx::new(meta.rule.clone(), meta.test.clone(), *env);
    let (sender, receiver) = crossbeam_channel::bounded(1);
    let thread_cx = cx.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("rs-tck:{}", meta.test))
        .stack_size(RULE_STACK_SIZE)
        .spawn(move || {
            let result = quietly(|| catch_unwind(AssertUnwindSafe(|| body(&thread_cx))));
            if result.is_err() {
                if let Some(location) = take_panic_location() {
                    thread_cx.trace(format!("panicked at {location}"));
                }
            }
            let _ = sender.send(result.map_err(|payload| panic_message(&*payload)));
        });

    let verdict: Result<Outcome, Failure> = match spawned {
        Err(error) => Err(cx.failure("the TCK to start the rule thread", error.to_string())),
        Ok(handle) => match receiver.recv_timeout(env.watchdog()) {
            Ok(Ok(result)) => {
                let _ = handle.join();
                result
            }
            Ok(Err(payload)) => {
                let _ = handle.join();
                Err(match cx.current_step() {
                    Some((rule, what)) => cx.failure_of(
                        rule,
                        format!("{what} to return normally"),
                        format!("it panicked: {payload}"),
                    ),
                    None => cx.failure(
                        "the rule test to run to its end",
                        format!("it panicked: {payload}"),
                    ),
                })
            }
            Err(_) => {
                // The rule thread is stuck; it is left behind, detached. A
                // hang breaks the rule under test (the call that hung is
                // named), unlike a panic, which breaks §3.15 / §3.16 / §1.9.
                let ms = env.watchdog().as_millis();
                Err(match cx.current_step() {
                    Some((_, what)) => cx.failure(
                        format!("{what} to return"),
                        format!(
                            "watchdog: the rule did not finish within {ms} ms — {what} never returned (deadlock?)"
                        ),
                    ),
                    None => cx.failure(
                        "the rule test to finish",
                        format!("watchdog: the rule did not finish within {ms} ms"),
                    ),
                })
            }
        },
    };

    if let Err(failure) = &verdict {
        cx.record(failure.clone());
    }
    // The first failure in time wins: a §1.1 violation seen on the
    // publisher's thread explains the timeout the body reported later.
    let first = cx.first_failure();
    let deferred = cx.take_deferred();
    let trace = cx.seal();
    if !deferred.is_empty() {
        // Cleanup (cancelling what the rule left open) must not delay or
        // fail the rule, and may hang on a broken publisher: detach it.
        let _ = std::thread::Builder::new()
            .name(format!("rs-tck-cleanup:{}", meta.test))
            .spawn(move || {
                for cleanup in deferred {
                    let _ = quietly(|| catch_unwind(AssertUnwindSafe(cleanup)));
                    let _ = take_panic_location();
                }
            });
    }
    let (verdict, message) = match (first, verdict) {
        (Some(failure), _) => (Verdict::Failed, Some(failure.to_string())),
        (None, Ok(Outcome::Passed)) => (Verdict::Passed, None),
        (None, Ok(Outcome::Skipped(reason))) => (Verdict::Skipped, Some(reason)),
        (None, Ok(Outcome::EnforcedByTypes(proof))) => (Verdict::EnforcedByTypes, Some(proof)),
        (None, Err(failure)) => (Verdict::Failed, Some(failure.to_string())),
    };
    RuleResult {
        target: meta.target.clone(),
        verification: meta.verification,
        rule: meta.rule.clone(),
        test: meta.test.clone(),
        verdict,
        message,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        trace: if verdict == Verdict::Failed {
            trace
        } else {
            Vec::new()
        },
    }
}

/// The full text of a failed result, as a generated test panics with it:
/// target, test, rule, the message and the trace.
pub fn failure_text(result: &RuleResult) -> String {
    let mut text = String::new();
    let summary = reactive_streams::rules::find(&result.rule)
        .map(|rule| format!(" — {}", rule.summary))
        .unwrap_or_default();
    let _ = writeln!(
        text,
        "{} {}::{} FAILED ({}{summary})",
        result.target,
        result.verification,
        result.test,
        rule_label(&result.rule),
    );
    let _ = writeln!(
        text,
        "{}",
        result.message.as_deref().unwrap_or("(no message)")
    );
    if !result.trace.is_empty() {
        let _ = writeln!(text, "trace:");
        for event in &result.trace {
            let _ = writeln!(text, "  {event}");
        }
    }
    text
}

/// What a generated `#[test]` does with a result: writes it to the report
/// folder, panics with [`failure_text`] if it failed, prints the reason if
/// it was skipped.
pub fn conclude(result: &RuleResult) {
    if let Err(error) = result.write_to_report_dir() {
        eprintln!("rs-tck: could not write the result to the report folder: {error}");
    }
    match result.verdict {
        Verdict::Failed => panic!("{}", failure_text(result)),
        Verdict::Skipped => println!(
            "skipped: {}",
            result.message.as_deref().unwrap_or("(no reason)")
        ),
        Verdict::EnforcedByTypes => println!(
            "enforced_by_types: {}",
            result.message.as_deref().unwrap_or("")
        ),
        Verdict::Passed | Verdict::Untested => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn meta() -> RuleMeta {
        RuleMeta::new(Verification::Publisher, "t", "3.5", "spec_3_05")
    }

    #[test]
    fn a_hung_step_is_named_by_the_watchdog() {
        let env = TestEnv::builder()
            .watchdog(Duration::from_millis(50))
            .build();
        let (_keep, never) = crossbeam_channel::bounded::<()>(0);
        let result = run_rule(&meta(), &env, move |cx| {
            cx.step("3.5", "cancel()", || {
                let _ = never.recv();
            });
            Ok(Outcome::Passed)
        });
        assert_eq!(result.verdict, Verdict::Failed);
        assert_eq!(
            result.message.unwrap(),
            "§3.5: expected cancel() to return; actual: watchdog: the rule did not finish within 50 ms — cancel() never returned (deadlock?)"
        );
    }

    #[test]
    fn failures_from_other_threads_fail_a_passing_body() {
        let result = run_rule(&meta(), &TestEnv::default(), |cx| {
            let other = cx.clone();
            std::thread::spawn(move || other.record(other.failure_of("1.1", "x", "y")))
                .join()
                .unwrap();
            Ok(Outcome::Passed)
        });
        assert_eq!(result.verdict, Verdict::Failed);
        assert_eq!(result.message.unwrap(), "§1.1: expected x; actual: y");
        assert!(!result.trace.is_empty());
    }

    #[test]
    fn skips_and_passes_carry_no_trace() {
        let skipped = run_rule(&meta(), &TestEnv::default(), |_| {
            Ok(Outcome::Skipped("no failed publisher".into()))
        });
        assert_eq!(skipped.verdict, Verdict::Skipped);
        assert_eq!(skipped.message.as_deref(), Some("no failed publisher"));
        assert!(skipped.trace.is_empty());
    }
}
