//! One generated schedule of a quick verification's `tck_extended_schedules`
//! (the stream and sink verifications), run and judged as a result of its own.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::context::{RuleBody, RuleCx, quietly, take_panic_location};
use crate::env::TestEnv;
use crate::outcome::{RuleResult, Verdict, Verification};

/// The rule every generated schedule of these verifications is filed under.
pub(crate) const SCHEDULES_RULE: &str = "tck.extended_schedules";

/// The test that runs the generated schedules.
pub(crate) const SCHEDULES_TEST: &str = "tck_extended_schedules";

/// Runs `case` in a fresh context of its own and judges it: a panic is a
/// failure naming where it happened, not a crashed exploration.
pub(crate) fn judge_case(
    verification: Verification,
    env: TestEnv,
    case: impl FnOnce(&RuleCx) -> RuleBody,
) -> RuleResult {
    let cx = RuleCx::new(SCHEDULES_RULE, SCHEDULES_TEST, env);
    let body = quietly(|| catch_unwind(AssertUnwindSafe(|| case(&cx))));
    if body.is_err() {
        if let Some(location) = take_panic_location() {
            cx.trace(format!("panicked at {location}"));
        }
    }
    let failure = match body {
        Ok(Err(failure)) => Some(failure),
        Ok(Ok(_)) => None,
        Err(payload) => Some(cx.failure(
            "the schedule to run to its end",
            format!("it panicked: {}", crate::context::panic_message(&*payload)),
        )),
    };
    if let Some(failure) = failure {
        cx.record(failure);
    }
    let first = cx.first_failure();
    let trace = cx.seal();
    RuleResult {
        target: String::new(),
        verification,
        rule: SCHEDULES_RULE.into(),
        test: SCHEDULES_TEST.into(),
        verdict: if first.is_some() {
            Verdict::Failed
        } else {
            Verdict::Passed
        },
        message: first.map(|f| f.to_string()),
        duration_ms: 0.0,
        trace,
        violations: Vec::new(),
        module: String::new(),
    }
}
